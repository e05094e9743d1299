/**
 * Client-wide back-off after a 429: once the venue says "retry after N s", no request of this
 * client goes out before then, whatever resource it is for (the venue counts per user).
 */
import type { Clock } from '../core/clock';
import { sleep, type Timers } from './timers';

export class RateGate {
  private openAt = 0;

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

  async wait(signal?: AbortSignal): Promise<void> {
    for (let left = this.remainingMs(); left > 0; left = this.remainingMs()) await sleep(this.timers, left, signal);
  }
}
