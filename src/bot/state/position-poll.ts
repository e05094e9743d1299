/**
 * Positions polled over REST and compared with those the stream built: pongs do not prove that
 * events flow (DESIGN.md), and an account update the stream missed leaves the cache's positions
 * wrong. A difference is published as `positionMismatch` and reconciles; the poll's positions
 * replace the cache's either way.
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
}

export class PositionPoll {
  private cancel: (() => void) | undefined;
  private stopped = false;

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
    if (differences.length > 0) this.d.reconcile('position mismatch');
  }
}
