/** Risk limits from the bot's config. Absent limits are not checked. Amounts are USDT decimals. */
export interface RiskLimits {
  /** Largest notional (price x quantity) of one order. */
  maxOrderNotional?: string;
  /** Largest absolute position notional per symbol, counting open orders on the same side. */
  maxPositionNotional?: string;
  /** Largest sum of absolute position notionals over all symbols. */
  maxTotalExposure?: string;
  /** Most live orders (pending, open, unknown) at once, across strategies. */
  maxOpenOrders?: number;
  /** Most order-sending intents (place, amend, bracket) per second. */
  maxOrdersPerSecond?: number;
  /** A limit price may be at most this fraction away from mark (0.05 = 5 %). */
  priceBand?: string;
  /** Realized + unrealized loss since the day began (UTC) that moves trading to REDUCING. */
  maxDailyLoss?: string;
  /** Drawdown from the equity peak, as a fraction, that moves trading to REDUCING. */
  maxDrawdown?: string;
}

/**
 * What a risk limit must be beyond a positive decimal, or undefined: `maxDrawdown` is a fraction of
 * the equity peak, so 1 or more could never be reached (the limit would be off without a word).
 */
export function riskLimitRule(key: string, value: string): string | undefined {
  return key === 'maxDrawdown' && !(Number(value) < 1) ? 'a fraction of the equity peak below 1, such as "0.2"' : undefined;
}
