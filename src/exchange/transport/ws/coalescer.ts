/**
 * Rate limit with a trailing edge: `mark()` says "something changed"; `flush` runs at most once
 * per `minGapMs`, and always once after the last change, so the last state is never withheld.
 * The first change after a quiet period is flushed on the next timer turn rather than inline, so
 * every event of one command (and of any commands in the same tick) lands in one push.
 */
import type { Clock } from '../../../core/clock';
import type { GatewayTimers, TimerHandle } from './timers';

export class Coalescer {
  private timer: TimerHandle | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly timers: GatewayTimers,
    private readonly clock: Clock,
    private readonly minGapMs: number,
    private readonly flush: () => void,
  ) {}

  get pending(): boolean {
    return this.timer !== undefined;
  }

  mark(): void {
    if (this.timer !== undefined) return;
    const delay = Math.max(0, this.lastFlushAt + this.minGapMs - this.clock.now());
    this.timer = this.timers.setTimeout(this.fire, delay);
  }

  /** Drops a pending flush (nobody listens any more, or the gateway is closing). */
  cancel(): void {
    if (this.timer === undefined) return;
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.lastFlushAt = this.clock.now();
    this.flush();
  };
}
