/**
 * The margin an order freezes per step of quantity, as the engine has always computed it:
 * required = notional / leverage and per-step = required / steps, each quotient rounded to 60
 * significant digits (half-even), then per-step x steps rounded to 60 significant digits and up to
 * the money scale. The quotients are kept here as a bigint mantissa and a power of ten instead of
 * decimal.js values, which gives the very same digits (journals and snapshots written before stay
 * valid) at a fraction of the cost; the frozen amount comes out in money units (money-units.ts).
 */
import { Dec } from '../../../core/decimal';
import { EX_ZERO, divInt, pow10, timesInt, type Exact } from '../../../core/exact';
import { MONEY_DP } from '../../../core/values';

/**
 * A non-negative decimal m x 10^e (an Exact, core/exact.ts). The mantissa may carry trailing
 * zeros (stripping them costs more than it saves); `rateText` prints the value without them.
 */
export type MarginRate = Exact;

export const ZERO_RATE: MarginRate = EX_ZERO;

/**
 * n x 10^x / d (n >= 0, d > 0, a leverage) rounded half-even to 60 significant digits (`divInt`:
 * exact and short when the quotient ends within 60 digits, as it does for a leverage of 2^a 5^b).
 */
export function quotient(n: bigint, x: number, d: bigint): MarginRate {
  return divInt({ m: n, e: x }, Number(d));
}

/** a / k (k > 0 integer, a number of steps), rounded half-even to 60 significant digits. */
export function divide(a: MarginRate, k: number): MarginRate {
  return divInt(a, k);
}

/** a x k (k >= 0 integer), rounded half-even to 60 significant digits. */
export function times(a: MarginRate, k: number): MarginRate {
  return timesInt(a, k);
}

/** The amount in money units (10^-MONEY_DP), rounded up (the rounding of frozen margin). */
export function ceilUnits(a: MarginRate): bigint {
  const shift = a.e + MONEY_DP;
  if (shift >= 0) return a.m * pow10(shift);
  const div = pow10(-shift);
  const q = a.m / div;
  return a.m % div === 0n ? q : q + 1n;
}

/** Compares a with u / d money units (d > 0, 1 by default): -1, 0 or 1. */
export function compareUnits(a: MarginRate, u: bigint, d = 1n): number {
  const shift = a.e + MONEY_DP;
  const l = (shift >= 0 ? a.m * pow10(shift) : a.m) * d;
  const rhs = shift >= 0 ? u : u * pow10(-shift);
  return l < rhs ? -1 : l > rhs ? 1 : 0;
}

/** Plain decimal text, as Dec's toFixed() prints the same value. */
export function rateText(a: MarginRate): string {
  if (a.m === 0n) return '0';
  let s = a.m.toString();
  let e = a.e;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--;
  e += s.length - end;
  s = s.slice(0, end);
  if (e >= 0) return s + '0'.repeat(e);
  const point = s.length + e;
  return point > 0 ? `${s.slice(0, point)}.${s.slice(point)}` : `0.${'0'.repeat(-point)}${s}`;
}

export function parseRate(text: string): MarginRate {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new RangeError(`margin rate "${text}" is not a non-negative plain decimal`);
  const frac = m[2] ?? '';
  const n = BigInt(m[1] + frac);
  return n === 0n ? ZERO_RATE : { m: n, e: -frac.length };
}

export function rateDec(a: MarginRate): Dec {
  return new Dec(rateText(a));
}
