/**
 * Client-wide back-off after a 429: once the venue says "retry after N s", no request of this
 * client goes out before then, whatever resource it is for (the venue counts per user).
 */
import type { Clock } from '../core/clock';
import { sleep, type Timers } from './timers';

export class RateGate {
  private openAt = 0;
  /** Cancels waiting for the gate to open, and what other requests wait on while there are any (see `wait`). */
  private cancelsWaiting = 0;
  private cancelsGone: Promise<void> | undefined;
  private releaseOthers: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
  ) {}

  /** Blocks every request until `now + ms` (never shortens a longer block). */
  block(ms: number): void {
    this.openAt = Math.max(this.openAt, this.clock.now() + ms);
  }

  /** Milliseconds until requests may go out again; 0 when open. */
  remainingMs(): number {
    return Math.max(0, this.openAt - this.clock.now());
  }

  /**
   * Resolves when requests may go out. Cancels go first when throttled (they take risk off, and
   * the venue counts them against the same limit): a cancel waits for the gate only; any other
   * request, once the gate is open, also waits until the cancels that were waiting have gone
   * (in the order the requests came: a place that waited longer still goes before a later amend).
   */
  async wait(signal?: AbortSignal, cancel = false): Promise<void> {
    // The usual case, on every request: open, and no cancel waiting.
    if (this.cancelsGone === undefined && this.remainingMs() === 0) return;
    if (cancel) {
      if (this.remainingMs() === 0) return;
      if (this.cancelsWaiting++ === 0) this.cancelsGone = new Promise((resolve) => (this.releaseOthers = resolve));
      try {
        await this.untilOpen(signal);
      } finally {
        if (--this.cancelsWaiting === 0) {
          const release = this.releaseOthers;
          this.cancelsGone = this.releaseOthers = undefined;
          release?.();
        }
      }
      return;
    }
    for (;;) {
      await this.untilOpen(signal);
      if (this.cancelsGone === undefined) return;
      await this.cancelsGone;
    }
  }

  private async untilOpen(signal: AbortSignal | undefined): Promise<void> {
    for (let left = this.remainingMs(); left > 0; left = this.remainingMs()) await sleep(this.timers, left, signal);
  }
}
