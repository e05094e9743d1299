/**
 * Each symbol's price and quantity grids, as an import learns them (importer.ts): tick and step
 * are the largest grids every price and quantity of the symbol lie on (the greatest common
 * divisor), unless --tick/--step say, and every value is checked as it is noted (a plain decimal
 * the grid arithmetic holds, on --tick/--step); the spec written in the header, and the warning
 * when a grid was inferred from too few values. A venue's mark and index prices are put on the
 * price grid and take no part in it.
 */
import { fromScaledInt, toScaledInt, toScaledIntIn } from '../../core/decimal';
import type { SymbolSpec } from '../../protocol/rest/market';
import type { Level } from '../format';
import { isRecordedDecimalIn } from '../reader';
import { gcd, SCALE, type ImportOptions } from './common';
import { ImportInputError } from './errors';

/**
 * Distinct values a grid inferred from is trusted at. The grid is the largest that every value lies
 * on; k values that lie on the venue's tick all lie on a coarser grid too with a chance of about
 * 1 - 1/zeta(k): 39 % for 2, 17 % for 3, under 0.2 % for 10. Below this, the summary warns.
 */
export const TRUSTED_VALUES = 10;

/** The largest value the grid arithmetic holds: 2^53 units of 10^-SCALE. */
const MAX_GRID_VALUE = fromScaledInt(Number.MAX_SAFE_INTEGER, SCALE);

/** d when the scaled grid `g` is 10^-d (d in 0..SCALE: 1, 0.1, ..., 1e-8), else -1. */
function decimalsOf(g: number): number {
  let p = 1;
  for (let d = SCALE; d >= 0; d--, p *= 10) if (g === p) return d;
  return -1;
}

/**
 * Does the decimal at `start`..`end` of `text` have no non-zero digit past `decimals` fraction
 * digits? Then, scaled, it is a multiple of the grid 10^-decimals, or it is no valid decimal at
 * all: either way it cannot change the grid, and the parse is skipped (most prices and quantities
 * of a long file take this way once the grid is found).
 */
function onDecimalGrid(text: string, start: number, end: number, decimals: number): boolean {
  let dot = start;
  while (dot < end && text.charCodeAt(dot) !== 46) dot++;
  for (let i = dot + 1 + decimals; i < end; i++) if (text.charCodeAt(i) !== 48) return false;
  return true;
}

/** Adds the value at `start`..`end` to `seen`; undefined once `seen` holds TRUSTED_VALUES. */
function distinct(seen: Set<number>, text: string, start: number, end: number): Set<number> | undefined {
  const v = toScaledIntIn(text, start, end, SCALE);
  if (v !== undefined && v > 0) seen.add(v);
  return seen.size >= TRUSTED_VALUES ? undefined : seen;
}

/** What an import knows of one symbol's grids (a part of SymBase, importer.ts). */
export interface GridState {
  name: string;
  /** gcd of every price / quantity seen, scaled by 10^SCALE (0: none yet). */
  priceGcd: number;
  /** Two different prices were seen: `priceGcd` is a grid, not just the one price. */
  gridRefined: boolean;
  qtyGcd: number;
  /** When `priceGcd` / `qtyGcd` is 10^-d (scaled), d; else -1 (see `onDecimalGrid`). */
  priceDecimals: number;
  qtyDecimals: number;
  /**
   * The distinct non-zero prices / quantities (scaled) while fewer than TRUSTED_VALUES were seen and
   * the grid is inferred; undefined once there are enough, or with --tick / --step.
   */
  priceValues: Set<number> | undefined;
  qtyValues: Set<number> | undefined;
  /** --tick / --step, scaled: every price / quantity must be a multiple (checked as the gcd moves). */
  tickScaled: number | undefined;
  stepScaled: number | undefined;
}

/** A symbol's grids before any value is seen. */
export function gridState(name: string, o: Pick<ImportOptions, 'tick' | 'step'>): GridState {
  const scaled = (v: string | undefined): number | undefined => (v !== undefined ? toScaledInt(v, SCALE) : undefined);
  return { name, priceGcd: 0, gridRefined: false, qtyGcd: 0, priceDecimals: -1, qtyDecimals: -1, priceValues: o.tick === undefined ? new Set() : undefined, qtyValues: o.step === undefined ? new Set() : undefined, tickScaled: scaled(o.tick), stepScaled: scaled(o.step) };
}

/** The grid checks and inference of one import, over its symbols' GridState. */
export class SymbolGrid {
  constructor(
    private readonly o: Pick<ImportOptions, 'tick' | 'step'>,
    /** The input file and line being read (file:line), for an error about a value of it. */
    private readonly where: () => string,
  ) {}

  /**
   * Every price and quantity written goes through notePrice/noteQty (or their `In` forms) first:
   * a value that is no plain decimal, or off --tick/--step, stops the import here, naming the
   * input file and line; what is written is then what the reader accepts, on the header's grid.
   */
  notePrice(s: GridState, p: string): void {
    this.notePriceIn(s, p, 0, p.length);
  }

  /** notePrice of the price at `start`..`end` of `text`. */
  notePriceIn(s: GridState, text: string, start: number, end: number): void {
    if (!isRecordedDecimalIn(text, start, end)) this.badValue(s, 'price', text.slice(start, end));
    if (s.priceValues !== undefined) s.priceValues = distinct(s.priceValues, text, start, end);
    // On the grid found so far: a multiple of it, so it cannot change it (nor leave --tick, which it is a multiple of).
    if (s.priceDecimals >= 0 && onDecimalGrid(text, start, end, s.priceDecimals)) return;
    const v = toScaledIntIn(text, start, end, SCALE);
    if (v === undefined) this.badValue(s, 'price', text.slice(start, end));
    if (v > 0) {
      const g = gcd(v, s.priceGcd);
      // Every value before was a multiple of --tick, so the gcd still is unless this one is not.
      if (s.tickScaled !== undefined && g % s.tickScaled !== 0) this.offGrid(s, 'price', text.slice(start, end));
      if (s.priceGcd !== 0 && g !== s.priceGcd) s.gridRefined = true;
      s.priceGcd = g;
      s.priceDecimals = decimalsOf(g);
    }
  }

  /** A price or quantity that is no plain decimal the grid arithmetic holds: the import stops. */
  private badValue(s: GridState, what: 'price' | 'quantity', v: string): never {
    const why = isRecordedDecimalIn(v, 0, v.length)
      ? `more than ${SCALE} decimals or above ${MAX_GRID_VALUE} (the import works on a grid of 10^-${SCALE})`
      : 'expected a plain non-negative decimal string such as "61800.2" (digits, optionally a point and digits), as a recording holds';
    throw new ImportInputError(`${this.where()}: ${what} ${JSON.stringify(v)} of ${s.name}: ${why}`);
  }

  /** A price or quantity off --tick or --step: the import stops at the first (a recording's data lies on its own header's grid). */
  private offGrid(s: GridState, what: 'price' | 'quantity', v: string): never {
    const price = what === 'price';
    const opt = price ? `--tick ${this.o.tick ?? ''}` : `--step ${this.o.step ?? ''}`;
    const seen = price ? (s.gridRefined ? s.priceGcd : 0) : s.qtyGcd;
    const hint = seen > 0 ? `; the ${what === 'price' ? 'prices' : 'quantities'} before it lie on ${fromScaledInt(seen, SCALE)}` : '';
    throw new ImportInputError(`${this.where()}: ${opt}: ${what} ${v} of ${s.name} is not a multiple of ${price ? this.o.tick : this.o.step} (every ${what} must lie on the grid the option gives${hint}); give the venue's ${price ? 'tick size' : 'step size'}, or leave the option out to infer it`);
  }

  /**
   * A venue's mark or index price (computed to more decimals than the tick) on the symbol's price
   * grid: rounded half up to --tick, or to the grid of the prices seen so far (a multiple of the
   * final inferred tick, which divides it); undefined while no grid is known (fewer than two
   * different prices). Such prices do not take part in inferring the tick.
   */
  onGrid(s: GridState, p: string): string | undefined {
    const tick = s.tickScaled ?? (s.gridRefined ? s.priceGcd : 0);
    const dot = p.indexOf('.');
    const v = toScaledInt(dot >= 0 && p.length - dot - 1 > SCALE ? p.slice(0, dot + 1 + SCALE) : p, SCALE);
    if (v === undefined || tick <= 0) return undefined;
    return fromScaledInt(Math.floor((v + tick / 2) / tick) * tick, SCALE);
  }

  noteQty(s: GridState, q: string): void {
    this.noteQtyIn(s, q, 0, q.length);
  }

  /** noteQty of the quantity at `start`..`end` of `text`. */
  noteQtyIn(s: GridState, text: string, start: number, end: number): void {
    if (!isRecordedDecimalIn(text, start, end)) this.badValue(s, 'quantity', text.slice(start, end));
    if (s.qtyValues !== undefined) s.qtyValues = distinct(s.qtyValues, text, start, end);
    if (s.qtyDecimals >= 0 && onDecimalGrid(text, start, end, s.qtyDecimals)) return;
    const v = toScaledIntIn(text, start, end, SCALE);
    if (v === undefined) this.badValue(s, 'quantity', text.slice(start, end));
    if (v > 0) {
      const g = gcd(v, s.qtyGcd);
      if (s.stepScaled !== undefined && g % s.stepScaled !== 0) this.offGrid(s, 'quantity', text.slice(start, end));
      s.qtyGcd = g;
      s.qtyDecimals = decimalsOf(g);
    }
  }

  noteLevels(s: GridState, levels: Level[]): void {
    for (let i = 0; i < levels.length; i++) {
      this.notePrice(s, levels[i][0]);
      this.noteQty(s, levels[i][1]);
    }
  }

  /** A warning when the symbol's tick or step was inferred from fewer than TRUSTED_VALUES distinct values. */
  fewValues(s: GridState): string | undefined {
    const spec = this.spec(s);
    const parts: string[] = [];
    const opts: string[] = [];
    const n = (k: number, one: string, many: string): string => `${k} distinct ${k === 1 ? one : many}`;
    if (s.priceValues !== undefined && s.priceValues.size > 0) {
      parts.push(`tick ${spec.tickSize} inferred from ${n(s.priceValues.size, 'price', 'prices')}`);
      opts.push('--tick');
    }
    if (s.qtyValues !== undefined && s.qtyValues.size > 0) {
      parts.push(`step ${spec.stepSize} inferred from ${n(s.qtyValues.size, 'quantity', 'quantities')}`);
      opts.push('--step');
    }
    if (parts.length === 0) return undefined;
    return `${s.name}: ${parts.join(', ')}: too few to trust (fewer than ${TRUSTED_VALUES} values may all lie on a coarser grid than the venue's); pass ${opts.join(' and ')} with the venue's ${opts.length === 2 ? 'tick and step size' : opts[0] === '--tick' ? 'tick size' : 'step size'}`;
  }

  spec(s: GridState): SymbolSpec {
    const tick = this.o.tick ?? (s.priceGcd > 0 ? fromScaledInt(s.priceGcd, SCALE) : '0.01');
    const step = this.o.step ?? (s.qtyGcd > 0 ? fromScaledInt(s.qtyGcd, SCALE) : '0.001');
    // The pair without a contract suffix: COIN-M BTCUSD_PERP, delivery BTCUSDT_240927, OKX BTC-USDT-SWAP.
    const pair = s.name.replace(/[-_](PERP|PERPETUAL|SWAP|\d{6})$/, '');
    const quote = ['USDT', 'USDC', 'BUSD', 'USD'].find((q) => pair.endsWith(q) && pair.length > q.length) ?? 'USDT';
    const stepScaled = toScaledInt(step, SCALE) ?? 1;
    // The largest multiple of the step not above 1e6 units of the base asset (a safe bound, not the venue's).
    const maxQty = fromScaledInt(Math.floor((1e6 * 10 ** SCALE) / stepScaled) * stepScaled, SCALE);
    const base = pair.endsWith(quote) ? pair.slice(0, pair.length - quote.length) : pair;
    return {
      symbol: s.name,
      baseAsset: base.replace(/[-_/]+$/, '') || base,
      quoteAsset: quote,
      tickSize: tick,
      stepSize: step,
      minQty: step,
      maxQty,
      minNotional: '0',
      maxLeverage: 125,
      makerFee: '0.0002',
      takerFee: '0.0005',
      marginTiers: [{ tier: 1, maxNotional: '0', maxLeverage: 125, maintenanceMarginRate: '0.004', maintenanceAmount: '0' }],
    };
  }
}
