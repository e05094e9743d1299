/** Reconnect and retry delays: exponential with jitter, so many clients do not come back in step. */
export interface BackoffOptions {
  /** First delay, ms. */
  baseMs: number;
  /** Largest delay, ms. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 30_000 };

/**
 * Delay before attempt `attempt` (0 for the first retry): "equal jitter", half of the exponential
 * step fixed and half random, so a delay never collapses to ~0 yet spreads clients out.
 * `random` returns [0, 1).
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  const half = exp / 2;
  return Math.round(half + random() * half);
}
