/**
 * Money as exact integers: a bigint count of money units, 10^-MONEY_DP USDT each (1 unit =
 * 0.00000001 USDT). The engine keeps balances and frozen margin this way: every amount that lands
 * in a wallet is already rounded to the money scale, so sums stay exact and cheap, with no bound
 * on size (bigint never wraps). Decimal strings and Dec stay at the edges: parsing requests,
 * formatting records.
 */
import { Dec } from './decimal';
import { MONEY_DP } from './values';

export const UNITS_PER_USDT = 10n ** BigInt(MONEY_DP);
const UNIT_DEC = new Dec(10).pow(MONEY_DP);

/** Units of an amount that has at most MONEY_DP decimals; throws RangeError otherwise (never rounds). */
export function unitsOfDec(d: Dec): bigint {
  const scaled = d.times(UNIT_DEC);
  if (!scaled.isInteger()) throw new RangeError(`money amount ${d.toFixed()} has more than ${MONEY_DP} decimals`);
  return BigInt(scaled.toFixed());
}

/** The Dec of an amount in units (exact). */
export function decOfUnits(u: bigint): Dec {
  return new Dec(formatUnits(u));
}

/** Plain decimal text of an amount in units, trailing zeros dropped ("0", "12.5", "-0.00000001"), as `formatDec`. */
export function formatUnits(u: bigint): string {
  if (u === 0n) return '0';
  const neg = u < 0n;
  const s = (neg ? -u : u).toString();
  let int: string;
  let frac: string;
  if (s.length > MONEY_DP) {
    int = s.slice(0, s.length - MONEY_DP);
    frac = s.slice(s.length - MONEY_DP);
  } else {
    int = '0';
    frac = s.padStart(MONEY_DP, '0');
  }
  let end = frac.length;
  while (end > 0 && frac.charCodeAt(end - 1) === 48) end--;
  const body = end === 0 ? int : `${int}.${frac.slice(0, end)}`;
  return neg ? `-${body}` : body;
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
