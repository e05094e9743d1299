/**
 * Bollinger bands (John Bollinger): the simple average of the last `period` values, with bands
 * `multiplier` standard deviations (population, n denominator, as Bollinger defines them) above
 * and below.
 */
import { Sma } from './sma';

export interface Bands {
  lower: number;
  middle: number;
  upper: number;
}

export class Bollinger {
  private readonly sma: Sma;
  private current: Bands | undefined;

  constructor(
    readonly period: number,
    readonly multiplier = 2,
  ) {
    if (!Number.isInteger(period) || period < 2) throw new RangeError(`Bollinger period must be a whole number of at least 2, got ${period}`);
    if (!Number.isFinite(multiplier) || multiplier <= 0) throw new RangeError(`Bollinger multiplier must be a positive number, got ${multiplier}`);
    this.sma = new Sma(period);
  }

  /** Adds a value; returns the bands once `period` values have been seen, undefined before. */
  update(x: number): Bands | undefined {
    const middle = this.sma.update(x);
    if (middle === undefined) return undefined;
    // Deviations from the mean over the window (two passes over `period` values: exact enough,
    // and free of the cancellation of a running sum of squares).
    let sq = 0;
    for (const v of this.sma.values()) sq += (v - middle) * (v - middle);
    const sd = Math.sqrt(sq / this.period);
    this.current = { lower: middle - this.multiplier * sd, middle, upper: middle + this.multiplier * sd };
    return this.current;
  }

  get value(): Bands | undefined {
    return this.current === undefined ? undefined : { ...this.current };
  }

  get ready(): boolean {
    return this.current !== undefined;
  }
}
