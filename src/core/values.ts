import { Dec, decimalStringProblem, formatDec, fractionDigits, fromScaledInt, toScaledInt } from './decimal';
import type { Exact } from './exact';

/**
 * A price or quantity grid (tick size or step size) with an exact mapping between decimal strings
 * and integer units. The book and the matcher work in those integer units.
 */
/** Conversions kept per grid by `Grid.decOf`. */
const DEC_CACHE_MAX = 4096;
/** Slots of the direct-mapped table behind `Grid.fromUnits` (a power of two). */
const TEXT_SLOTS = 4096;

export class Grid {
  private readonly decCache = new Map<number, Dec>();
  private lastText = '';
  private lastUnits: number | undefined = undefined;
  private readonly textKeys = new Float64Array(TEXT_SLOTS).fill(NaN);
  private readonly textValues: string[] = new Array<string>(TEXT_SLOTS).fill('');
  /** Fraction digits used to scale values to integers. */
  readonly scale: number;
  /** The grid step as an integer at `scale`. */
  readonly unitScaled: number;
  readonly size: string;
  private readonly pow10Scale: Dec;
  /** The size as a double (within half an ulp of the decimal). */
  private readonly sizeNumber: number;

  constructor(size: string) {
    const p = decimalStringProblem(size);
    if (p !== undefined) throw new RangeError(`grid size ${p}`);
    this.scale = fractionDigits(size);
    const u = toScaledInt(size, this.scale);
    if (u === undefined || u <= 0) throw new RangeError(`grid size must be a positive decimal, got "${size}"`);
    this.unitScaled = u;
    this.size = formatDec(new Dec(size));
    this.pow10Scale = new Dec(10).pow(this.scale);
    this.sizeNumber = Number(size);
  }

  /**
   * Integer units for a decimal string, or undefined when it is off the grid or not safe. The
   * parse is one pass over the characters (~40 ns); only the last answer is kept, for callers
   * that convert the same string twice in a row. (A Map of recent answers was tried: with a
   * stream of new prices, a replay's marks, a miss and an insert cost ~300 ns, more than the
   * parse it saves.)
   */
  toUnits(s: string): number | undefined {
    if (s === this.lastText) return this.lastUnits;
    const units = this.computeUnits(s);
    this.lastText = s;
    this.lastUnits = units;
    return units;
  }

  /**
   * Whether `s`, a plain decimal that `toUnits` refused, was refused for its size rather than its
   * digits: a multiple of the grid beyond 2^53 units (an off-grid value beyond them counts too).
   * For the message of a refusal, not a hot path.
   */
  beyondUnits(s: string): boolean {
    if (decimalStringProblem(s) !== undefined) return false;
    return new Dec(s).abs().div(this.size).gt(Number.MAX_SAFE_INTEGER);
  }

  private computeUnits(s: string): number | undefined {
    const scaled = toScaledInt(s, this.scale);
    if (scaled === undefined || scaled % this.unitScaled !== 0) return undefined;
    const units = scaled / this.unitScaled;
    return Number.isSafeInteger(units) ? units : undefined;
  }

  /**
   * Decimal string for an integer number of units. Recent answers are kept in a direct-mapped
   * table (slot = units mod 4096): no hashing, bounded, and a new value costs one overwrite.
   */
  fromUnits(units: number): string {
    const slot = units & (TEXT_SLOTS - 1);
    if (this.textKeys[slot] === units) return this.textValues[slot];
    const s = fromScaledInt(units * this.unitScaled, this.scale);
    this.textKeys[slot] = units;
    this.textValues[slot] = s;
    return s;
  }

  /** The exact decimal of an integer number of units (core/exact.ts). */
  exactOf(units: number): Exact {
    const scaled = units * this.unitScaled;
    // The product of two safe integers is exact as a double while it is within 2^53.
    return { m: Math.abs(scaled) <= Number.MAX_SAFE_INTEGER ? BigInt(scaled) : BigInt(units) * BigInt(this.unitScaled), e: -this.scale };
  }

  /**
   * Exact Dec of an integer number of units. Prices and sizes repeat a lot (the same levels, the
   * same lot sizes), and Dec values are immutable, so recent conversions are cached (bounded).
   */
  decOf(units: number): Dec {
    let d = this.decCache.get(units);
    if (d === undefined) {
      d = new Dec(fromScaledInt(units * this.unitScaled, this.scale));
      if (this.decCache.size >= DEC_CACHE_MAX) this.decCache.clear();
      this.decCache.set(units, d);
    }
    return d;
  }

  /**
   * `unitsOfDec(exact(), mode)`, decided in floating point where that is certain. `approx` is the
   * value worked out in doubles and `relErr` a bound on its relative error against the exact value
   * (at least 1e-15; a few dozen operations on doubles stay far below 1e-12; a bound too large to
   * help, Infinity even, just means `exact()`). u = approx / size; when
   * the interval u +- u x (relErr + 8 eps) holds no rounding boundary (a grid point for 'down' and
   * 'up', a half-way point for 'nearest'), every value in it rounds alike, so that is the answer
   * without `exact()`. Otherwise (near a boundary, under one unit, beyond 2^52 units, not finite)
   * `exact()` is computed and rounded. The 8 eps cover the division by the size (a double within
   * half an ulp of the decimal) and the rounding of the interval's two ends.
   */
  unitsOfEstimate(approx: number, relErr: number, mode: 'down' | 'up' | 'nearest', exact: () => Dec): number {
    if (!(relErr >= 1e-15)) throw new RangeError(`relErr must be at least 1e-15, got ${relErr}`);
    const u = approx / this.sizeNumber;
    if (u >= 1 && u < 2 ** 52) {
      const d = u * (relErr + 8 * Number.EPSILON);
      // Boundaries of 'nearest' are the half-way points: shifted by a half they are integers too.
      const shift = mode === 'nearest' ? 0.5 : 0;
      const low = u - d + shift;
      const k = Math.floor(low);
      // Both ends strictly between boundaries k and k + 1.
      if (k === Math.floor(u + d + shift) && k !== low) return mode === 'up' ? k + 1 : k;
    }
    return this.unitsOfDec(exact(), mode);
  }

  /** Units of a Dec rounded to the grid: 'down' toward zero, 'up' away from zero, or 'nearest'. */
  unitsOfDec(d: Dec, mode: 'down' | 'up' | 'nearest'): number {
    // d / size as (d x 10^scale) / unitScaled: the shift is exact, and a grid whose step is one
    // unit at its scale (0.1, 0.001: most) needs no division at all. The same quotient, so the
    // same rounding, as dividing by the size.
    const shifted = d.times(this.pow10Scale);
    const q = this.unitScaled === 1 ? shifted : shifted.div(this.unitScaled);
    const r = mode === 'down' ? q.toDecimalPlaces(0, Dec.ROUND_DOWN) : mode === 'up' ? q.toDecimalPlaces(0, Dec.ROUND_UP) : q.toDecimalPlaces(0, Dec.ROUND_HALF_EVEN);
    return r.toNumber();
  }
}

function refuse(kind: string, s: unknown, why: string): never {
  throw new RangeError(`${kind} ${JSON.stringify(s)} ${why}`);
}

/** A price on a symbol's tick grid, strictly positive. Immutable. */
export class Price {
  private constructor(
    readonly ticks: number,
    readonly grid: Grid,
  ) {
    Object.freeze(this);
  }

  static parse(s: unknown, grid: Grid): Price {
    const p = decimalStringProblem(s);
    if (p !== undefined) refuse('price', s, p);
    const str = s as string;
    if (str.startsWith('-')) refuse('price', s, 'must not be negative');
    const ticks = grid.toUnits(str);
    if (ticks === undefined) refuse('price', s, `is not a multiple of the tick size ${grid.size}`);
    if (ticks <= 0) refuse('price', s, 'must be greater than zero');
    return new Price(ticks, grid);
  }

  static ofTicks(ticks: number, grid: Grid): Price {
    if (!Number.isSafeInteger(ticks) || ticks <= 0) refuse('price', ticks, 'must be a positive whole number of ticks');
    return new Price(ticks, grid);
  }

  toDec(): Dec {
    return this.grid.decOf(this.ticks);
  }

  toString(): string {
    return this.grid.fromUnits(this.ticks);
  }

  toJSON(): string {
    return this.toString();
  }
}

/** A quantity on a symbol's step grid, zero or positive. Immutable. */
export class Quantity {
  private constructor(
    readonly steps: number,
    readonly grid: Grid,
  ) {
    Object.freeze(this);
  }

  static parse(s: unknown, grid: Grid): Quantity {
    const p = decimalStringProblem(s);
    if (p !== undefined) refuse('quantity', s, p);
    const str = s as string;
    if (str.startsWith('-')) refuse('quantity', s, 'must not be negative');
    const steps = grid.toUnits(str);
    if (steps === undefined) refuse('quantity', s, `is not a multiple of the step size ${grid.size}`);
    return new Quantity(steps, grid);
  }

  static ofSteps(steps: number, grid: Grid): Quantity {
    if (!Number.isSafeInteger(steps) || steps < 0) refuse('quantity', steps, 'must be a non-negative whole number of steps');
    return new Quantity(steps, grid);
  }

  isZero(): boolean {
    return this.steps === 0;
  }

  toDec(): Dec {
    return this.grid.decOf(this.steps);
  }

  toString(): string {
    return this.grid.fromUnits(this.steps);
  }

  toJSON(): string {
    return this.toString();
  }
}

/** Fraction digits of money amounts on the wire (USDT). */
export const MONEY_DP = 8;

/** A signed amount of money, exact (decimal.js). Immutable. */
export class Money {
  static readonly ZERO = new Money(new Dec(0));

  private constructor(private readonly d: Dec) {
    Object.freeze(this);
  }

  static parse(s: unknown): Money {
    const p = decimalStringProblem(s);
    if (p !== undefined) refuse('amount', s, p);
    return new Money(new Dec(s as string));
  }

  static of(d: Dec): Money {
    if (!d.isFinite()) refuse('amount', d.toString(), 'must be a finite number');
    return new Money(d);
  }

  plus(o: Money): Money {
    return new Money(this.d.plus(o.d));
  }

  minus(o: Money): Money {
    return new Money(this.d.minus(o.d));
  }

  times(k: Dec | string): Money {
    return new Money(this.d.times(k));
  }

  negated(): Money {
    return new Money(this.d.negated());
  }

  isNegative(): boolean {
    return this.d.isNegative() && !this.d.isZero();
  }

  isZero(): boolean {
    return this.d.isZero();
  }

  cmp(o: Money): number {
    return this.d.comparedTo(o.d);
  }

  eq(o: Money): boolean {
    return this.d.eq(o.d);
  }

  /** Rounded to the money scale (half-even). */
  rounded(dp = MONEY_DP): Money {
    return new Money(this.d.toDecimalPlaces(dp, Dec.ROUND_HALF_EVEN));
  }

  toDec(): Dec {
    return this.d;
  }

  toString(): string {
    return formatDec(this.d);
  }

  toJSON(): string {
    return this.toString();
  }
}
