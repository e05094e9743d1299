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
