/**
 * Money as exact integers: a bigint count of money units, 10^-MONEY_DP USDT each (1 unit =
 * 0.00000001 USDT). The engine keeps balances and frozen margin this way: every amount that lands
 * in a wallet is already rounded to the money scale, so sums stay exact and cheap, with no bound
 * on size (bigint never wraps). Decimal strings and Dec stay at the edges: parsing requests,
 * formatting records.
 */
import { Dec } from './decimal';
import { divRound, formatScaled, pow10, type Exact } from './exact';
import { MONEY_DP } from './values';

export const UNITS_PER_USDT = 10n ** BigInt(MONEY_DP);
const UNIT_DEC = new Dec(10).pow(MONEY_DP);

/** Units of an amount that has at most MONEY_DP decimals; throws RangeError otherwise (never rounds). */
export function unitsOfDec(d: Dec): bigint {
  const scaled = d.times(UNIT_DEC);
  if (!scaled.isInteger()) throw new RangeError(`money amount ${d.toFixed()} has more than ${MONEY_DP} decimals`);
  return BigInt(scaled.toFixed());
}

/** The exact decimal of an amount in units (core/exact.ts). */
export function exactOfUnits(u: bigint): Exact {
  return { m: u, e: -MONEY_DP };
}

/** The Dec of an amount in units (exact). */
export function decOfUnits(u: bigint): Dec {
  return new Dec(formatUnits(u));
}

/** Plain decimal text of an amount in units, trailing zeros dropped ("0", "12.5", "-0.00000001"), as `formatDec`. */
export function formatUnits(u: bigint): string {
  return formatScaled(u, MONEY_DP);
}

/** Units of a plain decimal string with at most MONEY_DP decimals; undefined otherwise. */
export function parseUnits(s: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return undefined;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > MONEY_DP) return undefined;
  const u = BigInt(m[2] + frac.padEnd(MONEY_DP, '0'));
  return m[1] === '-' ? -u : u;
}

/** A decimal rate (a fee or funding rate) as an integer over 10^scale, exact. */
export interface ScaledRate {
  readonly n: bigint;
  readonly scale: number;
  readonly den: bigint;
}

export function scaledRateOf(d: Dec): ScaledRate {
  const text = d.toFixed();
  const i = text.indexOf('.');
  const scale = i < 0 ? 0 : text.length - i - 1;
  return { n: BigInt(text.replace('.', '')), scale, den: 10n ** BigInt(scale) };
}

/** An amount in units times a rate, rounded half-even to units (fees, funding payments). */
export function unitsTimesRate(u: bigint, r: ScaledRate): bigint {
  return divRound(u * r.n, r.den, 'half-even');
}

/**
 * num / den x 10^pow rounded half-even to `dp` decimals, as plain text without trailing zeros
 * (what formatDec(x, dp) prints for the same value). den > 0.
 */
export function formatRatio(num: bigint, den: bigint, pow: number, dp: number): string {
  const shift = pow + dp;
  const n = shift >= 0 ? num * pow10(shift) : num;
  const d = shift >= 0 ? den : den * pow10(-shift);
  return formatScaled(divRound(n, d, 'half-even'), dp);
}
