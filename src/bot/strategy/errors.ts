/** How many errors a strategy may throw before it is stopped, and what is known of its errors. */
export interface StrategyErrorLimit {
  maxErrors: number;
  windowMs: number;
}

export const DEFAULT_STRATEGY_ERRORS: StrategyErrorLimit = { maxErrors: 10, windowMs: 60_000 };

/** Errors of one strategy, for health, metrics and reports. */
export interface StrategyHealth {
  id: string;
  errors: number;
  /** Why it was stopped, when it was. */
  stopped: string | undefined;
  lastError: string | undefined;
  /** Why an operator paused it, while paused. */
  paused?: string | undefined;
}
