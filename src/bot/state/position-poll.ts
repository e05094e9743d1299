/**
 * Positions polled over REST and compared with those the stream built: pongs do not prove that
 * events flow (DESIGN.md), and an account update the stream missed leaves the cache's positions
 * wrong. A difference is published as `positionMismatch` and reconciles; the poll's positions
 * replace the cache's either way.
 *
 * The venue's open orders are polled with them: an order's last event lost (a fill and its end,
 * with the position's update delivered) left it working in the bot's view for good, the venue
 * having ended it, while every position agreed (a fault soak ended so). An order the cache holds
 * open that the venue did not list at two polls in a row (not an end the stream is about to
 * deliver) reconciles too, and so does an order of ours the venue listed working at two polls in
 * a row that the cache did not hold (a lost NEW, or an order the bot saw end working again after
 * the venue was restored from an older state: the reconciliation cancels that one).
 */
import type { Clock, Scheduler } from '../../core/clock';
import type { EventBus } from '../bus/event-bus';
import type { Venue } from '../venue/venue';
import type { StateCache } from './cache';

export interface PositionPollDeps {
  venue: Venue;
  cache: StateCache;
  bus: EventBus;
  clock: Clock;
  scheduler: Scheduler;
  /** A poll that failed: counted and logged as the bot's other errors are, at warn. */
  reportError: (e: unknown, context: string, level: 'warn') => void;
  reconcile: (reason: string) => void;
  /** Whether a client order id is one of the bot's strategies'. */
  ours: (clientOrderId: string) => boolean;
}

export class PositionPoll {
  private cancel: (() => void) | undefined;
  private stopped = false;
  /** Client ids the cache held open that the venue did not list at the last poll. */
  private unlisted = new Set<string>();
  /** Client ids of ours the venue listed open that the cache did not hold at the last poll. */
  private unheld = new Set<string>();

  constructor(private readonly d: PositionPollDeps) {}

  /** Polls every `everyMs`, each poll `everyMs` after the last one ended, until `stop()`. */
  start(everyMs: number): void {
    this.cancel = this.d.scheduler.after(everyMs, () => {
      void this.poll().finally(() => {
        if (!this.stopped) this.start(everyMs);
      });
    });
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** Compares polled positions with the stream-built ones; a difference triggers reconciliation. */
  async poll(): Promise<void> {
    let polled;
    try {
      polled = await this.d.venue.positions();
    } catch (e) {
      // The next poll comes anyway (a 429 or a 5xx passes): counted like any failed call, a warning.
      this.d.reportError(e, 'poll positions', 'warn');
      return;
    }
    const time = this.d.clock.now();
    const differences = this.d.cache.positionDifferences(polled);
    for (const d of differences) this.d.bus.publish({ type: 'positionMismatch', time, ...d });
    this.d.cache.replacePositions(polled);
    for (const p of polled) this.d.bus.publish({ type: 'position', time, position: p, source: 'poll' });
    if (differences.length > 0) {
      this.d.reconcile('position mismatch');
      return;
    }
    let open;
    try {
      open = await this.d.venue.openOrders();
    } catch (e) {
      this.d.reportError(e, 'poll open orders', 'warn');
      return;
    }
    const listed = new Set(open.map((o) => o.clientOrderId));
    const heldOpen = this.d.cache.openOrders();
    const held = new Set(heldOpen.map((o) => o.clientOrderId));
    const unlisted = new Set(heldOpen.filter((o) => !listed.has(o.clientOrderId)).map((o) => o.clientOrderId));
    const unheld = new Set(open.filter((o) => !held.has(o.clientOrderId) && this.d.ours(o.clientOrderId)).map((o) => o.clientOrderId));
    const stale = [...unlisted].some((cid) => this.unlisted.has(cid)) || [...unheld].some((cid) => this.unheld.has(cid));
    this.unlisted = unlisted;
    this.unheld = unheld;
    if (stale) {
      this.unlisted.clear();
      this.unheld.clear();
      this.d.reconcile('open orders mismatch');
    }
  }
}
