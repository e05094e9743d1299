/**
 * Linear-perpetual position formulas (docs/engine.md states them with worked examples).
 * All inputs and outputs are exact Dec; rounding to the tick or money scale is the caller's.
 *
 * Notation: Q signed quantity (base units), C signed cost basis (sum of price*qty, buys
 * positive), P mark price, L leverage, mmr/cum the maintenance tier of |Q|*P.
 */
import { Dec } from '../../../core/decimal';
import type { SymbolSpec } from '../symbols';

const ZERO = new Dec(0);
const ONE = new Dec(1);

/** Unrealized PnL = Q*P - C. */
export function unrealizedPnl(q: Dec, cost: Dec, mark: Dec): Dec {
  return q.times(mark).minus(cost);
}

/** Initial margin of a position = |C| / L (entry-notional based, so it does not move with mark). */
export function initialMargin(cost: Dec, leverage: number): Dec {
  return cost.abs().div(leverage);
}

/** Maintenance margin = |Q|*P*mmr - cum, by the tier of |Q|*P. */
export function maintenanceMargin(spec: SymbolSpec, q: Dec, mark: Dec): Dec {
  const notional = q.abs().times(mark);
  if (notional.isZero()) return ZERO;
  const tier = spec.tierFor(notional);
  const mm = notional.times(tier.mmr).minus(tier.amount);
  return mm.isNegative() ? ZERO : mm;
}

/** Entry price = |C| / |Q|. */
export function entryPrice(q: Dec, cost: Dec): Dec {
  return q.isZero() ? ZERO : cost.abs().div(q.abs());
}

/**
 * Break-even price: the exit price at which closing the whole position with a taker order pays
 * back the cost and the fees already paid to open it.
 * long:  (C + F) / (Q * (1 - t));  short: (|C| - F) / (|Q| * (1 + t)).
 */
export function breakEvenPrice(q: Dec, cost: Dec, openFees: Dec, takerFee: Dec): Dec {
  if (q.isZero()) return ZERO;
  if (q.isPositive()) return cost.plus(openFees).div(q.times(ONE.minus(takerFee)));
  return cost.abs().minus(openFees).div(q.abs().times(ONE.plus(takerFee)));
}

/** ROE = unrealized PnL / initial margin (a ratio; 0.1 = 10 %). */
export function roe(upnl: Dec, im: Dec): Dec {
  return im.isZero() ? ZERO : upnl.div(im);
}

/**
 * Liquidation price: the mark price P at which margin M + Q*P - C equals the maintenance margin
 * |Q|*P*mmr - cum, with the tier taken at the current mark notional.
 * long:  P = (C - M - cum) / (Q * (1 - mmr));  short: P = (M + |C| + cum) / (|Q| * (1 + mmr)).
 * M is the isolated margin, or in cross mode the account equity left for this position.
 * Returns 0 when no positive price liquidates the position.
 */
export function liquidationPrice(spec: SymbolSpec, q: Dec, cost: Dec, margin: Dec, mark: Dec): Dec {
  if (q.isZero()) return ZERO;
  const tier = spec.tierFor(q.abs().times(mark));
  let p: Dec;
  if (q.isPositive()) {
    p = cost.minus(margin).minus(tier.amount).div(q.times(ONE.minus(tier.mmr)));
  } else {
    p = margin.plus(cost.abs()).plus(tier.amount).div(q.abs().times(ONE.plus(tier.mmr)));
  }
  return p.isPositive() ? p : ZERO;
}

/** Funding paid by a position at one settlement = Q * P * rate (negative: received). */
export function fundingPayment(q: Dec, mark: Dec, rate: Dec): Dec {
  return q.times(mark).times(rate);
}
