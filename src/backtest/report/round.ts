/**
 * How report figures are rounded where they are computed: money as exact decimal strings (8 dp,
 * half-even), ratios as binary floating point cut to 10 significant digits so that a printed
 * report does not depend on the last bits of a sum. A non-finite ratio never reaches a report.
 */
import { Dec } from '../../core/decimal';

export const round = (v: number): number => (Number.isFinite(v) ? Number(v.toPrecision(10)) : 0);
export const money = (d: Dec): string => d.toDecimalPlaces(8, Dec.ROUND_HALF_EVEN).toFixed();
/** A ratio of two numbers, or null when the denominator is 0 (never Infinity or NaN). */
export const share = (num: number, den: number): number | null => (den === 0 || !Number.isFinite(num / den) ? null : round(num / den));
