import type { TSchema } from '@sinclair/typebox';
import { RISK } from '../config-schema';

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

const RISK_DECIMALS = ['maxOrderNotional', 'maxPositionNotional', 'maxTotalExposure', 'priceBand', 'maxDailyLoss', 'maxDrawdown'] as const;
const RISK_INTEGERS = ['maxOpenOrders', 'maxOrdersPerSecond'] as const;

/** How a config file reads its values (the bot's and the backtest's readers, each with its own words). */
export interface LimitsReader {
  /** A positive decimal, or a refusal. */
  decimal(v: unknown, at: string): string;
  int(v: unknown, at: string, schema: TSchema): number;
  fail(at: string, expected: string, got: unknown): never;
}

/**
 * The `risk` block of a config (its keys already checked against RISK): positive decimals and
 * whole numbers; `maxDrawdown` a fraction of the equity peak below 1 (1 or more could never be
 * reached: the limit would be off without a word), and `priceBand` a fraction of mark below 1
 * (`priceBand: 5` meant as 5 % is 500 %: no buy price is below mark by that much, the band would
 * check nothing on that side).
 */
export function readRiskLimits(raw: Record<string, unknown>, r: LimitsReader): RiskLimits {
  const risk: RiskLimits = {};
  for (const k of RISK_DECIMALS) {
    if (raw[k] === undefined) continue;
    const v = r.decimal(raw[k], `risk.${k}`);
    // What was found is said as written (a YAML number as a number).
    if (k === 'maxDrawdown' && !(Number(v) < 1)) r.fail(`risk.${k}`, 'a fraction of the equity peak below 1, such as "0.2"', raw[k]);
    if (k === 'priceBand' && !(Number(v) < 1)) r.fail(`risk.${k}`, 'a fraction of mark below 1, such as "0.05" for 5 %', raw[k]);
    risk[k] = v;
  }
  for (const k of RISK_INTEGERS) if (raw[k] !== undefined) risk[k] = r.int(raw[k], `risk.${k}`, RISK.properties[k]);
  return risk;
}
