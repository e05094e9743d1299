import DecimalJs from 'decimal.js';

/**
 * Exact decimal arithmetic for money. A private decimal.js constructor with enough precision that
 * no product or sum of venue amounts is ever rounded implicitly; rounding happens only where we
 * say so (to a symbol's grid or to the money scale).
 */
export const Dec = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -80, toExpPos: 80 });
export type Dec = InstanceType<typeof Dec>;

/**
 * The Dec of a decimal text, parsed again only when the text is not the last one asked for (Dec
 * values are immutable): for figures read from records on every market event that change only
 * now and then (a wallet balance, a position's quantity and entry price).
 */
export class DecOfText {
  private text: string | undefined;
  private dec: Dec = new Dec(0);

  of(text: string): Dec {
    if (text !== this.text) {
      this.dec = new Dec(text);
      this.text = text;
    }
    return this.dec;
  }
}

/** Plain-notation decimal: optional minus, no leading zeros, optional fraction; no exponent. */
const DECIMAL_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Why a string is not an acceptable decimal, or undefined when it is. */
export function decimalStringProblem(s: unknown): string | undefined {
  if (typeof s !== 'string') {
    return typeof s === 'number'
      ? 'must be a decimal string such as "1.5", not a JSON number (no silent float rounding)'
      : `must be a decimal string, got ${s === null ? 'null' : typeof s}`;
  }
  if (s.length === 0) return 'must be a decimal string, got an empty string';
  if (s.length > 64) return 'must be a decimal string of at most 64 characters';
  if (/[eE]/.test(s)) return `must be in plain notation, exponent form "${s}" is not accepted`;
  if (!DECIMAL_RE.test(s)) return `must be a plain decimal string such as "123.45", got "${s}"`;
  if (s === '-0' || /^-0\.0*$/.test(s)) return `must not be negative zero, got "${s}"`;
  return undefined;
}

/**
 * Whether `decimalStringProblem` would accept `s`, by a loop over its characters (no regular
 * expression, no message): strategies' intents pass through here on every order of a backtest.
 */
export function isDecimalString(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  const n = s.length;
  if (n === 0 || n > 64) return false;
  const neg = s.charCodeAt(0) === 45;
  let i = neg ? 1 : 0;
  if (i === n) return false;
  let c = s.charCodeAt(i);
  let nonZero = false;
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) {
    nonZero = true;
    i++;
    while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
  } else return false;
  if (i < n) {
    if (s.charCodeAt(i) !== 46) return false;
    const frac = ++i;
    while (i < n && (c = s.charCodeAt(i)) >= 48 && c <= 57) {
      if (c !== 48) nonZero = true;
      i++;
    }
    if (i !== n || i === frac) return false;
  }
  return !neg || nonZero;
}

/** Parse a strict decimal string into an exact Dec; throws RangeError naming the rule. */
export function parseDec(s: string, what = 'value'): Dec {
  const p = decimalStringProblem(s);
  if (p !== undefined) throw new RangeError(`${what} ${p}`);
  return new Dec(s);
}

/** Number of digits after the decimal point of a plain decimal string. */
export function fractionDigits(s: string): number {
  const i = s.indexOf('.');
  return i < 0 ? 0 : s.length - i - 1;
}

/**
 * Scale a non-negative plain decimal string to an integer of `scale` fraction digits, exactly.
 * Returns undefined when the string has more fraction digits than `scale` allows (after dropping
 * trailing zeros) or when the result is not a safe integer.
 */
export function toScaledInt(s: string, scale: number): number | undefined {
  return toScaledIntIn(s, 0, s.length, scale);
}

/** toScaledInt of the characters `start`..`end` of `s` (a number inside a longer text, without a substring). */
export function toScaledIntIn(s: string, start: number, end: number, scale: number): number | undefined {
  // One pass over the characters, no substrings: this runs for every price and size that enters
  // the engine. Anything but digits, one '.' and a leading '-' is refused.
  let i = start;
  const neg = end > i && s.charCodeAt(i) === 45;
  if (neg) i++;
  if (i >= end) return undefined;
  let n = 0;
  let digits = 0;
  for (; i < end; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    n = n * 10 + c;
    digits++;
  }
  let frac = 0;
  if (i < end) {
    if (s.charCodeAt(i) !== 46) return undefined;
    for (i++; i < end; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return undefined;
      if (frac < scale) {
        n = n * 10 + c;
        frac++;
      } else if (c !== 0) {
        return undefined; // more fraction digits than the scale allows
      }
      digits++;
    }
  }
  if (digits === 0) return undefined;
  for (; frac < scale; frac++) n *= 10;
  if (!Number.isSafeInteger(n)) return undefined;
  return neg ? -n : n;
}

/** Format an integer scaled by 10^scale as a plain decimal string without trailing zeros. */
export function fromScaledInt(n: number, scale: number): string {
  const neg = n < 0;
  const a = neg ? -n : n;
  if (scale === 0) return neg ? `-${a}` : String(a);
  const p = 10 ** scale;
  // % and the division of a multiple are exact on safe integers, unlike a / p rounded down.
  let frac = a % p;
  const int = (a - frac) / p;
  let out = String(int);
  if (frac !== 0) {
    let width = scale;
    while (frac % 10 === 0) {
      frac /= 10;
      width--;
    }
    const f = String(frac);
    out += f.length < width ? `.${'0'.repeat(width - f.length)}${f}` : `.${f}`;
  }
  return neg ? `-${out}` : out;
}

/** Plain-notation string of a Dec, without trailing zeros, at most `dp` fraction digits (rounded half-even). */
export function formatDec(d: Dec, dp?: number): string {
  const v = dp === undefined ? d : d.toDecimalPlaces(dp, Dec.ROUND_HALF_EVEN);
  if (v.isZero()) return '0';
  let s = v.toFixed();
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

/** Index of the '.' in s from `from`, or s.length. */
function dotIndex(s: string, from: number): number {
  const i = s.indexOf('.', from);
  return i < 0 ? s.length : i;
}

/** Compares two non-negative plain decimals given as s[from..]: -1, 0 or 1. */
function compareAbs(a: string, ia: number, b: string, ib: number): number {
  const da = dotIndex(a, ia);
  const db = dotIndex(b, ib);
  const la = da - ia;
  const lb = db - ib;
  if (la !== lb) return la < lb ? -1 : 1;
  for (let k = 0; k < la; k++) {
    const x = a.charCodeAt(ia + k);
    const y = b.charCodeAt(ib + k);
    if (x !== y) return x < y ? -1 : 1;
  }
  // Fractions: compare digit by digit, a missing digit counting as 0.
  const fa = a.length - da - 1;
  const fb = b.length - db - 1;
  const n = Math.max(fa, fb);
  for (let k = 0; k < n; k++) {
    const x = k < fa ? a.charCodeAt(da + 1 + k) : 48;
    const y = k < fb ? b.charCodeAt(db + 1 + k) : 48;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Exact order of two plain decimal strings (as validated by decimalStringProblem), without
 * floating point or allocation: -1, 0 or 1. For hot paths that only need to compare prices.
 */
export function compareDecimalStrings(a: string, b: string): number {
  const na = a.charCodeAt(0) === 45;
  const nb = b.charCodeAt(0) === 45;
  if (na !== nb) {
    const za = compareAbs(a, na ? 1 : 0, '0', 0) === 0;
    const zb = compareAbs(b, nb ? 1 : 0, '0', 0) === 0;
    if (za && zb) return 0;
    return na ? -1 : 1;
  }
  const r = compareAbs(a, na ? 1 : 0, b, nb ? 1 : 0);
  return na && r !== 0 ? -r : r;
}

/**
 * Plain decimal text of a number as a YAML or JSON reader gave it: `0.0000001`, not `1e-7` (which
 * the user never wrote, and which a decimal field refuses). Its shortest round-trip digits.
 */
export function plainNumberText(n: number): string {
  return new Dec(n).toFixed();
}
