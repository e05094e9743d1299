/**
 * Exact decimals on bigint, m x 10^e, with the arithmetic of the engine's Dec (core/decimal.ts:
 * 60 significant digits, half-even) but none of decimal.js's cost: sums and products are exact
 * integers and are rounded to 60 significant digits only where Dec would round them (a result
 * longer than that), quotients are rounded to 60 significant digits half-even as Dec divides.
 * So a formula written with these gives the very digits it gives with Dec (tested against Dec in
 * test/core/exact.test.ts). Used where the engine formats figures for every account update
 * (position records, margins), which decimal.js made the bulk of a crossing order's cost.
 */
import { Dec } from './decimal';

export interface Exact {
  readonly m: bigint;
  readonly e: number;
}

/** Significant digits of Dec's arithmetic. */
const PRECISION = 60;
const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  let p = POW10[n];
  if (p === undefined) {
    p = 10n ** BigInt(n);
    POW10[n] = p;
  }
  return p;
}
const LIMIT = pow10(PRECISION);

export const EX_ZERO: Exact = { m: 0n, e: 0 };
export const EX_ONE: Exact = { m: 1n, e: 0 };

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/**
 * Decimal digits of n > 0, from its double's logarithm corrected by one comparison each way
 * (printing the bigint to count them costs more than the arithmetic).
 */
export function digitsOf(n: bigint): number {
  if (n < 0n) n = -n;
  if (n < 10n) return 1;
  const f = Number(n);
  if (f > 1e300) return n.toString().length;
  let d = Math.floor(Math.log10(f)) + 1;
  if (n >= pow10(d)) d++;
  else if (n < pow10(d - 1)) d--;
  return d;
}

/** Rounds q + r/d (0 <= r < d, q >= 0) half-even to an integer. */
function roundHalfEven(q: bigint, r: bigint, d: bigint): bigint {
  const twice = 2n * r;
  if (twice > d || (twice === d && (q & 1n) === 1n)) return q + 1n;
  return q;
}

/** m x 10^e rounded half-even to PRECISION significant digits when it has more (as Dec rounds every result). */
function fit(m: bigint, e: number): Exact {
  const a = abs(m);
  if (a < LIMIT) return { m, e };
  const extra = digitsOf(a) - PRECISION;
  const div = pow10(extra);
  let q = roundHalfEven(a / div, a % div, div);
  let x = e + extra;
  if (q >= LIMIT) {
    q /= 10n;
    x++;
  }
  return { m: m < 0n ? -q : q, e: x };
}

/** Parses a plain decimal string ("-12.5") exactly, every digit kept (as `new Dec(s)`); throws RangeError on anything else. */
export function parseExact(s: string): Exact {
  // One pass over the characters; a mantissa of up to 15 digits is exact in a double and becomes a
  // bigint in one step (a regular expression and BigInt of a string cost several times as much).
  const n = s.length;
  const neg = n > 0 && s.charCodeAt(0) === 45;
  let i = neg ? 1 : 0;
  let v = 0;
  let digits = 0;
  let dot = -1;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      digits++;
    } else if (c === 46 && dot < 0) dot = i;
    else break;
  }
  // At least one digit, and digits on both sides of a point ("5." and ".5" are not plain decimals).
  if (i === n && digits > 0 && digits <= 15 && dot !== n - 1 && dot !== (neg ? 1 : 0)) {
    const u = BigInt(v);
    return { m: neg ? -u : u, e: dot < 0 ? 0 : dot + 1 - n };
  }
  const r = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!r) throw new RangeError(`"${s}" is not a plain decimal`);
  const frac = r[3] ?? '';
  const m = BigInt(r[2] + frac);
  return { m: r[1] === '-' ? -m : m, e: frac.length === 0 ? 0 : -frac.length };
}

export function exOfDec(d: Dec): Exact {
  return parseExact(d.toFixed());
}

/** A decimal text as an exact decimal: a plain one parsed here, anything else Dec reads ("1e-8") through Dec. */
export function exactOfText(s: string): Exact {
  try {
    return parseExact(s);
  } catch {
    return exOfDec(new Dec(s));
  }
}

/** The exact decimal of the last text asked for (figures that come as texts and change now and then). */
export class ExactOfText {
  private text: string | undefined;
  private ex: Exact = EX_ZERO;

  of(text: string): Exact {
    if (text !== this.text) {
      this.ex = exactOfText(text);
      this.text = text;
    }
    return this.ex;
  }
}

export function plus(a: Exact, b: Exact): Exact {
  if (b.m === 0n) return a;
  if (a.m === 0n) return b;
  // Aligned to the smaller exponent in place (a tuple for the pair cost an allocation a call).
  if (a.e === b.e) return fit(a.m + b.m, a.e);
  return a.e > b.e ? fit(a.m * pow10(a.e - b.e) + b.m, b.e) : fit(a.m + b.m * pow10(b.e - a.e), a.e);
}

export function minus(a: Exact, b: Exact): Exact {
  if (b.m === 0n) return a;
  if (a.e === b.e) return fit(a.m - b.m, a.e);
  return a.e > b.e ? fit(a.m * pow10(a.e - b.e) - b.m, b.e) : fit(a.m - b.m * pow10(b.e - a.e), a.e);
}

export function times(a: Exact, b: Exact): Exact {
  if (a.m === 0n || b.m === 0n) return EX_ZERO;
  return fit(a.m * b.m, a.e + b.e);
}

export function negate(a: Exact): Exact {
  return { m: -a.m, e: a.e };
}

export function absEx(a: Exact): Exact {
  return a.m < 0n ? { m: -a.m, e: a.e } : a;
}

export function sign(a: Exact): number {
  return a.m > 0n ? 1 : a.m < 0n ? -1 : 0;
}

export function compare(a: Exact, b: Exact): number {
  let x = a.m;
  let y = b.m;
  if (a.e > b.e) x *= pow10(a.e - b.e);
  else if (b.e > a.e) y *= pow10(b.e - a.e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a / b rounded half-even to PRECISION significant digits, as Dec divides (b must not be zero). */
export function div(a: Exact, b: Exact): Exact {
  if (b.m === 0n) throw new RangeError('division by zero');
  if (a.m === 0n) return EX_ZERO;
  const neg = a.m < 0n !== b.m < 0n;
  const n = abs(a.m);
  const d = abs(b.m);
  const x = a.e - b.e;
  let m: bigint;
  let e: number;
  const q0 = n / d;
  if (q0 * d === n && q0 < LIMIT) {
    m = q0;
    e = x;
  } else {
    // Scale so the integer quotient has PRECISION digits, then round on the remainder.
    let s = PRECISION - (digitsOf(n) - digitsOf(d));
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
      m = roundHalfEven(q, num - q * den, den);
      e = x - s;
      if (m >= LIMIT) {
        m /= 10n;
        e++;
      }
      break;
    }
  }
  return { m: neg ? -m : m, e };
}

/** Values below this bound the fused quotient's operands (see `quotientAt`). */
const FUSED_BOUND = pow10(PRECISION - 2);

/**
 * a / b rounded to `dp` decimal places (half-even, or down / up: toward / away from zero), in
 * units of 10^-dp: what `roundToInteger(div(a, b) shifted by dp, mode)` gives, so `formatExact(div(a, b), dp)`
 * is `formatScaled(quotientAt(a, b, dp), dp)`, with one small division instead of a 60-digit
 * quotient and a second division to round it.
 *
 * Why the digits are the same: with num / den the exact quotient in units of 10^-dp, `div` first
 * rounds it to 60 significant digits, moving it by at most half a unit in the 60th digit. Rounding
 * to dp places can then differ only if a point where the rounding changes (k + 1/2 half-even, an
 * integer k down or up) lies between the two. A quotient that is not on such a point is at least
 * 1 / (2 den) from it; if it is on one, it has at most 60 significant digits here and `div` keeps
 * it exactly. With (q + 1) x den < 10^58 (q the integer part), q has d_q digits and den d_den with
 * d_q + d_den <= 59, so half a unit in the 60th digit, at most 10^(d_q - 60) / 2, is less than
 * 1 / (2 den): nothing lies between, the two roundings agree. Operands past that bound take the two-step way (tested against it, and `div`
 * against Dec, in test/core/exact.test.ts).
 */
export function quotientAt(a: Exact, b: Exact, dp: number, mode: 'down' | 'up' | 'half-even' = 'half-even'): bigint {
  if (b.m === 0n) throw new RangeError('division by zero');
  if (a.m === 0n) return 0n;
  const shift = a.e - b.e + dp;
  const n = abs(a.m);
  const d = abs(b.m);
  const num = shift >= 0 ? n * pow10(shift) : n;
  const den = shift >= 0 ? d : d * pow10(-shift);
  // num + den >= (q + 1) x den.
  if (num + den >= FUSED_BOUND) return roundToInteger(shiftExact(div(a, b), dp), mode);
  let u = num / den;
  const r = num - u * den;
  if (r !== 0n) {
    if (mode === 'up') u += 1n;
    else if (mode === 'half-even') u = roundHalfEven(u, r, den);
  }
  return a.m < 0n !== b.m < 0n ? -u : u;
}

/** `formatExact(div(a, b), dp)`, by `quotientAt`. */
export function formatQuotient(a: Exact, b: Exact, dp: number): string {
  return formatScaled(quotientAt(a, b, dp), dp);
}

/** a x 10^k. */
function shiftExact(a: Exact, k: number): Exact {
  return { m: a.m, e: a.e + k };
}

/** a x k for a small integer k (a leverage, a count). */
export function timesInt(a: Exact, k: number): Exact {
  return times(a, { m: BigInt(k), e: 0 });
}

/** A divisor k = 2^x 5^y g (g prime to 10): a / k ends after max(x, y) more digits when g divides a. */
interface SmallDivisor {
  k: bigint;
  g: bigint;
  digits: number;
}
const SMALL_DIVISORS: SmallDivisor[] = [];

function smallDivisor(k: number): SmallDivisor {
  let d = SMALL_DIVISORS[k];
  if (d === undefined) {
    let g = k;
    let twos = 0;
    let fives = 0;
    while (g % 2 === 0) {
      g /= 2;
      twos++;
    }
    while (g % 5 === 0) {
      g /= 5;
      fives++;
    }
    d = { k: BigInt(k), g: BigInt(g), digits: Math.max(twos, fives) };
    SMALL_DIVISORS[k] = d;
  }
  return d;
}

/**
 * a / k for a positive integer k, as Dec's `div(k)`. A quotient that ends within 60 digits (a
 * leverage of 2^x 5^y, or one that divides the amount) is made exactly and short, without the
 * 60-digit division: the same value, so the same digits in every later sum, product and format.
 */
export function divInt(a: Exact, k: number): Exact {
  if (a.m !== 0n && k > 0 && k <= 1024 && Number.isInteger(k)) {
    const d = smallDivisor(k);
    if (a.m % d.g === 0n) {
      const m = (a.m * pow10(d.digits)) / d.k;
      if (abs(m) < LIMIT) return { m, e: a.e - d.digits };
    }
  }
  return div(a, { m: BigInt(k), e: 0 });
}

/** The integer a rounds to: down (toward zero), up (away from zero) or half-even. */
export function roundToInteger(a: Exact, mode: 'down' | 'up' | 'half-even'): bigint {
  return a.e >= 0 ? a.m * pow10(a.e) : divRound(a.m, pow10(-a.e), mode);
}

/** n / d (d > 0) rounded to an integer: down (toward zero), up (away from zero) or half-even; symmetric in sign. */
export function divRound(n: bigint, d: bigint, mode: 'down' | 'up' | 'half-even'): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  let q = a / d;
  const r = a - q * d;
  if (r !== 0n) {
    if (mode === 'up') q += 1n;
    else if (mode === 'half-even') q = roundHalfEven(q, r, d);
  }
  return neg ? -q : q;
}

/** Plain decimal text of u x 10^-dp, trailing zeros dropped ("0", "12.5", "-0.00000001"). */
export function formatScaled(u: bigint, dp: number): string {
  if (u === 0n) return '0';
  const neg = u < 0n;
  const s = (neg ? -u : u).toString();
  const n = s.length;
  // Trailing zeros of the fraction dropped in place: one slice of the digits for each part.
  const point = n - dp;
  let end = n;
  while (end > point && end > 0 && s.charCodeAt(end - 1) === 48) end--;
  let body: string;
  if (point > 0) body = end === point ? s.slice(0, point) : `${s.slice(0, point)}.${s.slice(point, end)}`;
  else body = `0.${'0'.repeat(-point)}${s.slice(0, end)}`;
  return neg ? `-${body}` : body;
}

/**
 * Plain decimal text rounded to `dp` places, trailing zeros dropped, "0" for zero. Half-even by
 * default (what `formatDec(d, dp)` prints for the same value); `floor` and `ceil` round toward
 * minus and plus infinity, for figures that must never be shown above (an available balance) or
 * below (margin in use, margin needed) what they are.
 */
export function formatExact(a: Exact, dp: number, mode: 'half-even' | 'floor' | 'ceil' = 'half-even'): string {
  const shifted = shiftExact(a, dp);
  // Away from zero is toward the infinity on the value's own side.
  const directed = mode === 'half-even' ? mode : (mode === 'ceil') === shifted.m > 0n ? 'up' : 'down';
  // The value in units of 10^-dp, rounded.
  return formatScaled(roundToInteger(shifted, directed), dp);
}

export function decOfExact(a: Exact): Dec {
  return new Dec(formatExact(a, Math.max(0, -a.e)));
}
