/**
 * Linear-perpetual position formulas (docs/engine.md states them with worked examples).
 * All inputs and outputs are exact decimals (core/exact.ts: Dec's arithmetic on bigint, the same
 * digits); rounding to the tick or money scale is the caller's.
 *
 * Notation: Q signed quantity (base units), C signed cost basis (sum of price*qty, buys
 * positive), P mark price, L leverage, mmr/cum the maintenance tier of |Q|*P.
 */
import { EX_ONE, EX_ZERO, absEx, compare, div, divInt, formatQuotient, minus, negate, plus, quotientAt, roundToInteger, sign, times, type Exact } from '../../../core/exact';
import type { SymbolSpec } from '../symbols';

/** Unrealized PnL = Q*P - C. */
export function unrealizedPnl(q: Exact, cost: Exact, mark: Exact): Exact {
  return minus(times(q, mark), cost);
}

/** Initial margin of a position = |C| / L (entry-notional based, so it does not move with mark). */
export function initialMargin(cost: Exact, leverage: number): Exact {
  return divInt(absEx(cost), leverage);
}

/** Maintenance margin = |Q|*P*mmr - cum, by the tier of |Q|*P. */
export function maintenanceMargin(spec: SymbolSpec, q: Exact, mark: Exact): Exact {
  const notional = times(absEx(q), mark);
  if (notional.m === 0n) return EX_ZERO;
  const tier = spec.tierFor(notional);
  const mm = minus(times(notional, tier.mmr), tier.amount);
  return mm.m < 0n ? EX_ZERO : mm;
}

/**
 * A formula's last division left undone: the caller rounds num / den to the places it shows in one
 * step (exact.ts `formatQuotient`, the digits of Dec's quotient rounded), or 0 when the formula
 * gives 0.
 */
export type Quotient = { num: Exact; den: Exact } | undefined;

/** Entry price = |C| / |Q|. */
export function entryPrice(q: Exact, cost: Exact): Quotient {
  return q.m === 0n ? undefined : { num: absEx(cost), den: absEx(q) };
}

/**
 * Break-even price: the exit price at which closing the whole position with a taker order pays
 * back the cost and the fees already paid to open it.
 * long:  (C + F) / (Q * (1 - t));  short: (|C| - F) / (|Q| * (1 + t)).
 */
export function breakEvenPrice(q: Exact, cost: Exact, openFees: Exact, takerFee: Exact): Quotient {
  if (q.m === 0n) return undefined;
  if (q.m > 0n) return { num: plus(cost, openFees), den: times(q, minus(EX_ONE, takerFee)) };
  return { num: minus(absEx(cost), openFees), den: times(absEx(q), plus(EX_ONE, takerFee)) };
}

/** ROE = unrealized PnL / initial margin (a ratio; 0.1 = 10 %). */
export function roe(upnl: Exact, im: Exact): Quotient {
  return im.m === 0n ? undefined : { num: upnl, den: im };
}

/** Text of a quotient rounded half-even to `dp` places ("0" for none), as formatExact prints Dec's quotient. */
export function formatQuotientOf(x: Quotient, dp: number): string {
  return x === undefined ? '0' : formatQuotient(x.num, x.den, dp);
}

/**
 * Liquidation price: the mark price P at which margin M + Q*P - C equals the maintenance margin
 * |Q|*P*mmr - cum, with mmr and cum those of the tier that contains |Q|*P itself, as the
 * liquidation check takes them when the mark gets there (not the tier of today's mark: a position
 * near a tier's edge would be shown a price it is liquidated before it reaches).
 * With the tier of a candidate price: long P = (C - M - cum) / (Q * (1 - mmr)),
 * short P = (M + |C| + cum) / (|Q| * (1 + mmr)).
 * Equity minus maintenance margin is continuous (cum keeps it so across tiers) and strictly
 * monotone in P, so exactly one tier's candidate lies in its own tier (two adjacent ones give the
 * same price on their common edge); the tiers are tried in order.
 * M is the isolated margin, or in cross mode the account equity left for this position.
 * None (undefined) when no positive price liquidates the position.
 */
export function liquidationPrice(spec: SymbolSpec, q: Exact, cost: Exact, margin: Exact, mark: Exact): Quotient {
  if (q.m === 0n) return undefined;
  // Most calls settle in doubles which tier holds the price, or that none gives a positive one;
  // anything close to a tier's edge or to zero is left to the exact search below.
  const screened = screenTier(spec, q, cost, margin);
  if (screened === NO_PRICE) return undefined;
  if (screened !== UNSURE) return candidate(q, cost, margin, spec.tiers[screened]);
  const size = absEx(q);
  const tiers = spec.tiers;
  let floor: Exact = EX_ZERO;
  for (let i = 0; i < tiers.length; i++) {
    const p = candidate(q, cost, margin, tiers[i]);
    // The last tier takes every notional above the others.
    const cap = i === tiers.length - 1 ? undefined : tiers[i].maxNotional;
    if (p !== undefined) {
      // The candidate's notional |Q| * num / den against the tier's bounds, without dividing.
      const notionalTimesDen = times(size, p.num);
      const above = i === 0 || compare(notionalTimesDen, times(floor, p.den)) > 0;
      if (above && (cap === undefined || compare(notionalTimesDen, times(cap, p.den)) <= 0)) return p;
    }
    if (cap === undefined) break;
    floor = cap;
  }
  // Tiers whose amounts leave the maintenance margin discontinuous may have no such price: then
  // the tier of the current mark, as the configuration gives nothing better.
  return candidate(q, cost, margin, spec.tierFor(times(size, mark)));
}

/** `screenTier`'s answers besides a tier's index. */
const NO_PRICE = -1;
const UNSURE = -2;
/** Relative margin of the float screen: its rounding error is about 1e-15 of the magnitudes. */
const SCREEN_TOLERANCE = 1e-9;

/** 10^0 .. 10^22, each exact as a double. */
const POW10_DOUBLE = Array.from({ length: 23 }, (_, i) => 10 ** i);
/** An exact decimal as the nearest double or close to it (for the screen only). */
function toDouble(x: Exact): number {
  return x.e <= 0 && x.e > -23 ? Number(x.m) / POW10_DOUBLE[-x.e] : Number(x.m) * 10 ** x.e;
}

/**
 * `liquidationPrice`'s tier search in doubles: the index of the tier whose candidate price lies
 * inside it, NO_PRICE when every tier's candidate is clearly not positive, UNSURE when a figure
 * lies within SCREEN_TOLERANCE of a tier's edge or of zero (or the tiers hold no such price: the
 * exact search then applies its fallback).
 */
function screenTier(spec: SymbolSpec, q: Exact, cost: Exact, margin: Exact): number {
  const qf = toDouble(q);
  const size = Math.abs(qf);
  const cf = toDouble(cost);
  const mf = toDouble(margin);
  const tiers = spec.floatTiers;
  let floor = 0;
  let positive = false;
  for (let i = 0; i < tiers.length; i++) {
    const t = tiers[i];
    const num = qf > 0 ? cf - mf - t.amount : mf + Math.abs(cf) + t.amount;
    const den = size * (qf > 0 ? 1 - t.mmr : 1 + t.mmr);
    const scale = Math.abs(cf) + Math.abs(mf) + t.amount;
    if (!(den > 0) || Math.abs(num) <= SCREEN_TOLERANCE * scale) return UNSURE;
    if (num > 0) {
      positive = true;
      const notional = (num / den) * size;
      if (Math.abs(notional - floor) <= SCREEN_TOLERANCE * floor || (t.cap !== Infinity && Math.abs(notional - t.cap) <= SCREEN_TOLERANCE * t.cap)) return UNSURE;
      if (notional > floor && notional <= t.cap) return i;
    }
    floor = t.cap;
  }
  return positive ? UNSURE : NO_PRICE;
}

/** The liquidation price if the tier (mmr, cum) applied, with a positive denominator; undefined unless positive. */
function candidate(q: Exact, cost: Exact, margin: Exact, tier: { mmr: Exact; amount: Exact }): Quotient {
  const p =
    q.m > 0n
      ? { num: minus(minus(cost, margin), tier.amount), den: times(q, minus(EX_ONE, tier.mmr)) }
      : { num: plus(plus(margin, absEx(cost)), tier.amount), den: times(absEx(q), plus(EX_ONE, tier.mmr)) };
  if (sign(p.num) * sign(p.den) <= 0) return undefined;
  return p.den.m < 0n ? { num: negate(p.num), den: negate(p.den) } : p;
}

/** One position of a cross account on a symbol: signed quantity and signed cost basis. */
export interface Leg {
  q: Exact;
  cost: Exact;
}

/** A price as a quotient with a positive denominator. */
type Ratio = NonNullable<Quotient>;

/**
 * The liquidation price of a cross account with two positions on one symbol (hedge mode: a LONG
 * and a SHORT leg), both moving with the one mark, where `liquidationPrice` would hold the other
 * leg where it is. The check liquidates when rest + sum (q P - C) <= sum (|q| P mmr - cum), each
 * leg's tier that of its own notional |q| P, `rest` being the wallet less isolated margins plus
 * the uPnL and less the MM of the account's cross positions on other symbols. That difference is
 * linear in P between the tiers' edges of either leg; from the current mark it is followed down
 * and up to where it reaches 0, and the nearer of the two is the price (`below`: it lies below
 * the mark, so the tick above it is the last one spared). None when no positive price reaches it.
 */
export function crossLiquidationPrice(spec: SymbolSpec, legs: readonly Leg[], rest: Exact, mark: Exact): { liq: NonNullable<Quotient>; below: boolean } | undefined {
  const tiers = spec.tiers;
  const sizes = legs.map((l) => absEx(l.q));
  const edges: Ratio[] = [];
  for (const size of sizes) {
    if (size.m === 0n) continue;
    for (let k = 0; k < tiers.length - 1; k++) {
      const cap = tiers[k].maxNotional;
      if (cap === undefined) break;
      edges.push({ num: cap, den: size });
    }
  }
  edges.sort((x, y) => compare(times(x.num, y.den), times(y.num, x.den)));
  const bounds: Ratio[] = [{ num: EX_ZERO, den: EX_ONE }];
  for (const e of edges) if (compareRatio(e, bounds[bounds.length - 1]) > 0) bounds.push(e);
  // The line a + b P of the piece just above `low`: each leg's tier is the first whose cap its
  // notional there stays within.
  const lineAbove = (low: Ratio): { a: Exact; b: Exact } => {
    let a = rest;
    let b = EX_ZERO;
    legs.forEach((l, i) => {
      const notional = times(sizes[i], low.num);
      let t = tiers[tiers.length - 1];
      for (let k = 0; k < tiers.length - 1; k++) {
        const cap = tiers[k].maxNotional;
        if (cap === undefined || compare(notional, times(cap, low.den)) < 0) {
          t = tiers[k];
          break;
        }
      }
      a = plus(minus(a, l.cost), t.amount);
      b = plus(b, minus(l.q, times(sizes[i], t.mmr)));
    });
    return { a, b };
  };
  // a + b num / den <= 0, without dividing.
  const reaches = (f: { a: Exact; b: Exact }, at: Ratio): boolean => sign(plus(times(f.a, at.den), times(f.b, at.num))) <= 0;
  const root = (f: { a: Exact; b: Exact }): Ratio | undefined => {
    if (f.b.m === 0n) return undefined;
    const r = f.b.m > 0n ? { num: negate(f.a), den: f.b } : { num: f.a, den: negate(f.b) };
    return r.num.m > 0n ? r : undefined;
  };
  const markRatio: Ratio = { num: mark, den: EX_ONE };
  let j = 0;
  while (j + 1 < bounds.length && compareRatio(bounds[j + 1], markRatio) < 0) j++;
  // Already at or past it at this mark (the next check liquidates): no price to show from here.
  if (reaches(lineAbove(bounds[j]), markRatio)) return undefined;
  let down: Ratio | undefined;
  for (let k = j; k >= 0 && down === undefined; k--) {
    const f = lineAbove(bounds[k]);
    if (reaches(f, bounds[k])) down = root(f);
  }
  let up: Ratio | undefined;
  for (let k = j; k < bounds.length && up === undefined; k++) {
    const f = lineAbove(bounds[k]);
    if (k + 1 < bounds.length) {
      if (reaches(f, bounds[k + 1])) up = root(f);
    } else if (f.b.m < 0n) {
      up = root(f);
    }
  }
  if (down === undefined && up === undefined) return undefined;
  if (up === undefined || (down !== undefined && compareRatio(distance(down, mark), distance(up, mark)) <= 0)) return { liq: down as Ratio, below: true };
  return { liq: up, below: false };
}

function compareRatio(x: Ratio, y: Ratio): number {
  return compare(times(x.num, y.den), times(y.num, x.den));
}

/** |r - mark| as a ratio. */
function distance(r: Ratio, mark: Exact): Ratio {
  return { num: absEx(minus(r.num, times(mark, r.den))), den: r.den };
}

/**
 * The liquidation price on the tick grid, rounded away from the position's safe side (up for a
 * long, down for a short), as Dec's quotient divided by the tick and rounded.
 */
export function liquidationTicks(spec: SymbolSpec, liq: NonNullable<Quotient>, long: boolean): number {
  const mode = long ? 'up' : 'down';
  const tick = spec.tick;
  // A tick of one unit at its scale (0.1, 0.01): dividing by it only moves the point.
  if (tick.unitScaled === 1) return Number(quotientAt(liq.num, liq.den, tick.scale, mode));
  return Number(roundToInteger(div(div(liq.num, liq.den), tick.exactOf(1)), mode));
}

/** Funding paid by a position at one settlement = Q * P * rate (negative: received). */
export function fundingPayment(q: Exact, mark: Exact, rate: Exact): Exact {
  return times(times(q, mark), rate);
}
