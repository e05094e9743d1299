/**
 * Whether the venue answers the bot's calls. The private stream can stay connected while every
 * REST call fails (5xx, a refused key, a network path cut one way): health must say so, since the
 * bot can then neither place, cancel nor reconcile.
 */
import type { Clock } from '../core/clock';

/** Default of how long every venue call must fail before health reports the venue unreachable. */
export const VENUE_UNREACHABLE_MS = 30_000;

export interface VenueFailing {
  /** Since the first failure after the last call that succeeded, ms. */
  forMs: number;
  failures: number;
  lastError: string;
  lastMethod: string;
}

export class VenueReachability {
  private failingSince: number | undefined;
  private failures = 0;
  private lastError = '';
  private lastMethod = '';

  constructor(
    private readonly clock: Clock,
    private readonly afterMs: number = VENUE_UNREACHABLE_MS,
  ) {}

  /** One venue call's outcome (a TimedVenue observer). */
  observe(method: string, ok: boolean, error?: unknown): void {
    if (ok) {
      this.failingSince = undefined;
      this.failures = 0;
      return;
    }
    this.failingSince ??= this.clock.now();
    this.failures++;
    this.lastMethod = method;
    this.lastError = error instanceof Error ? error.message : String(error);
  }

  /** Set when every venue call has failed for at least `afterMs`. */
  failing(): VenueFailing | undefined {
    if (this.failingSince === undefined) return undefined;
    const forMs = this.clock.now() - this.failingSince;
    return forMs >= this.afterMs ? { forMs, failures: this.failures, lastError: this.lastError, lastMethod: this.lastMethod } : undefined;
  }
}
