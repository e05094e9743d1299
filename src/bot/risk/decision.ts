/** Typed outcomes of risk checks, with stable reason codes (docs/risk.md lists them). */
export const RISK_CODES = [
  'UNKNOWN_SYMBOL',
  'OFF_GRID',
  /** A bracket's take-profit or stop-loss on the wrong side of its entry (or of each other, under a MARKET entry): it would close the position as soon as the entry fills. */
  'BRACKET_EXITS',
  /**
   * An order whose notional (price, or mark for a MARKET order, x quantity) is below the symbol's
   * minimum notional: the venue would refuse it (30006). Orders that only close are not held to it.
   */
  'MIN_NOTIONAL',
  'MAX_ORDER_NOTIONAL',
  'MAX_POSITION',
  'MAX_EXPOSURE',
  'MAX_OPEN_ORDERS',
  'RATE_THROTTLED',
  'PRICE_BAND',
  'LOSS_LIMIT',
  'STATE_REDUCING',
  'STATE_HALTED',
  'UNKNOWN_ORDER',
  /** The strategy is paused by an operator: only its cancels go out. */
  'STRATEGY_PAUSED',
  /**
   * The bot is stopping: after the strategies' `onStop` intents, only cancels go out (a grid that
   * re-places the levels its stop cancels must not leave a new ladder behind).
   */
  'BOT_STOPPING',
] as const;
export type RiskCode = (typeof RISK_CODES)[number];

export type Decision = { ok: true } | { ok: false; code: RiskCode; reason: string };

export const ALLOW: Decision = Object.freeze({ ok: true });

export function deny(code: RiskCode, reason: string): Decision {
  return { ok: false, code, reason };
}

/** ACTIVE: all intents; REDUCING: only what lowers exposure (and cancels); HALTED: only cancels. */
export const TRADING_STATES = ['ACTIVE', 'REDUCING', 'HALTED'] as const;
export type TradingState = (typeof TRADING_STATES)[number];
