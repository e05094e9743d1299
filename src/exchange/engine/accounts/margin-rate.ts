/**
 * The margin an order freezes per step of quantity, as the engine has always computed it:
 * required = notional / leverage and per-step = required / steps, each quotient rounded to 60
 * significant digits (half-even), then per-step x steps rounded to 60 significant digits and up to
 * the money scale. The quotients are kept here as a bigint mantissa and a power of ten instead of
 * decimal.js values, which gives the very same digits (journals and snapshots written before stay
 * valid) at a fraction of the cost; the frozen amount comes out in money units (money-units.ts).
 */
import { Dec } from '../../../core/decimal';
import { MONEY_DP } from '../../../core/values';

/** Significant digits of the engine's decimal arithmetic (Dec in core/decimal.ts). */
const PRECISION = 60;
const POW10: bigint[] = [];
const pow10 = (n: number): bigint => {
  let p = POW10[n];
  if (p === undefined) {
    p = 10n ** BigInt(n);
    POW10[n] = p;
  }
  return p;
};

/**
 * Decimal digits of n, from its double's logarithm corrected by one comparison each way (printing
 * a 60-digit bigint to count its digits was a tenth of an order's margin arithmetic).
 */
function digits(n: bigint): number {
  if (n < 0n) n = -n;
  if (n < 10n) return 1;
  const f = Number(n);
  if (f > 1e300) return n.toString().length;
  let e = Math.floor(Math.log10(f)) + 1;
  if (n >= pow10(e)) e++;
  else if (n < pow10(e - 1)) e--;
  return e;
}
/** 10^PRECISION: a mantissa below it has at most PRECISION digits. */
const LIMIT = pow10(PRECISION);

/**
 * A non-negative decimal m x 10^e. The mantissa may carry trailing zeros (stripping them costs
 * more than it saves); `rateText` prints the value without them.
 */
export interface MarginRate {
  readonly m: bigint;
  readonly e: number;
}

export const ZERO_RATE: MarginRate = { m: 0n, e: 0 };

/** Rounds q + r/d (0 <= r < d) half-even to an integer. */
function roundHalfEven(q: bigint, r: bigint, d: bigint): bigint {
  const twice = 2n * r;
  if (twice > d || (twice === d && (q & 1n) === 1n)) return q + 1n;
  return q;
}

/** n x 10^x / d (n >= 0, d > 0) rounded half-even to PRECISION significant digits. */
export function quotient(n: bigint, x: number, d: bigint): MarginRate {
  if (n === 0n) return ZERO_RATE;
  // Exact and short (the common case: a notional over a leverage that divides it): no rounding.
  const q0 = n / d;
  if (q0 * d === n && q0 < LIMIT) return { m: q0, e: x };
  // Scale so that the integer quotient has exactly PRECISION digits, then round on the remainder.
  let s = PRECISION - (digits(n) - digits(d));
  const low = pow10(PRECISION - 1);
  for (;;) {
    const num = s >= 0 ? n * pow10(s) : n;
    const den = s >= 0 ? d : d * pow10(-s);
    const q = num / den;
    if (q >= LIMIT) {
      s--;
      continue;
    }
    if (q < low) {
      s++;
      continue;
    }
    const m = roundHalfEven(q, num - q * den, den);
    // Rounding 99...9 up gives 10^PRECISION: one digit too many, exactly divisible by 10.
    return m >= LIMIT ? { m: m / 10n, e: x - s + 1 } : { m, e: x - s };
  }
}

/** a / k (k > 0 integer), rounded half-even to PRECISION significant digits. */
export function divide(a: MarginRate, k: number): MarginRate {
  return quotient(a.m, a.e, BigInt(k));
}

/** a x k (k >= 0 integer), rounded half-even to PRECISION significant digits. */
export function times(a: MarginRate, k: number): MarginRate {
  if (a.m === 0n || k === 0) return ZERO_RATE;
  const p = a.m * BigInt(k);
  if (p < LIMIT) return { m: p, e: a.e };
  const extra = digits(p) - PRECISION;
  const div = pow10(extra);
  const m = roundHalfEven(p / div, p % div, div);
  return m >= LIMIT ? { m: m / 10n, e: a.e + extra + 1 } : { m, e: a.e + extra };
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
