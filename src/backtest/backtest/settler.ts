/**
 * Letting the bot's promises run between the replay's steps (run.ts). Venue calls answer with
 * already-resolved promises, but the executor reaches them through a few `await`s, so after each
 * step the driver gives the bot microtask turns until it is idle. When calls are held back by the
 * latency model it cannot become idle: the loop stops once nothing moves (8 turns), and is not
 * run again until something reaches the bot (`stalled`). Deterministic: the turns depend only on
 * what the bot did.
 */
import type { Bot } from '../../bot/bot';
import type { LatencyVenue } from './latency-venue';

/** Microtask turns the driver waits at most for the bot's promises after one step. */
export const SETTLE_TURNS = 64;
/**
 * One microtask turn: awaiting a settled native promise takes the same single turn as `await
 * undefined` (the same interleaving with other promise chains) without a new promise per turn.
 */
export const TURN = Promise.resolve();

export class Settler {
  private idleDone = true;
  private lastCalls = 0;
  private lastIntents = 0;
  /** The bot's counters when the last settle ended, and whether it ended stalled (see `stalled`). */
  private readonly stalledAt = { valid: false, calls: 0, events: 0, intents: 0, queued: 0, inFlight: 0 };

  constructor(
    private readonly bot: Bot,
    private readonly venue: LatencyVenue,
  ) {}

  async settle(): Promise<void> {
    if (this.quiet()) return;
    if (this.idleDone) {
      this.idleDone = false;
      void this.bot.idle().then(() => {
        this.idleDone = true;
      });
    }
    let still = 0;
    let progress = this.venue.calls + this.bot.stats.events;
    let stalled = false;
    for (let k = 0; k < SETTLE_TURNS && !this.idleDone; k++) {
      await TURN;
      const now = this.venue.calls + this.bot.stats.events;
      if (now !== progress) {
        progress = now;
        still = 0;
      } else if (this.venue.inFlight > 0 && ++still >= 8) {
        stalled = true;
        break;
      }
    }
    this.lastCalls = this.venue.calls;
    this.lastIntents = this.bot.stats.intents;
    const p = this.stalledAt;
    p.valid = stalled;
    p.calls = this.venue.calls;
    p.events = this.bot.stats.events;
    p.intents = this.bot.stats.intents;
    p.queued = this.bot.executor.queued;
    p.inFlight = this.venue.inFlight;
  }

  /**
   * The last settle stopped because nothing moved while calls were held by the latency model, and
   * nothing has happened to the bot since (no event, call, intent, queued intent or answered
   * call): another would turn the same empty microtasks. The per-event loop skips it.
   */
  stalled(): boolean {
    const p = this.stalledAt;
    return p.valid && p.calls === this.venue.calls && p.events === this.bot.stats.events && p.intents === this.bot.stats.intents && p.queued === this.bot.executor.queued && p.inFlight === this.venue.inFlight;
  }

  /**
   * Nothing to settle: the bot is idle and made no call and took no intent since the last settle.
   * New intents mean work in progress even when the executor has already taken them off its queue
   * and not yet reached the venue (it awaits before each call). The per-event loop checks this
   * before awaiting `settle()`, so a quiet event costs no promise.
   */
  quiet(): boolean {
    return this.idleDone && this.bot.executor.queued === 0 && this.venue.calls === this.lastCalls && this.bot.stats.intents === this.lastIntents;
  }
}
