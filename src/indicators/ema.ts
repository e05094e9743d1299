/**
 * Exponential moving average, seeded with the simple average of the first `period` values (the
 * TA-Lib and most charting packages' convention), then `ema += alpha * (x - ema)` with
 * `alpha = 2 / (period + 1)`.
 *
 * Indicators work on `number`: they only drive signals, never money. A price derived from them is
 * put on the symbol's tick grid (as a decimal) before it goes to the venue.
 */
export class Ema {
  readonly alpha: number;
  private sum = 0;
  private count = 0;
  private current: number | undefined;

  constructor(readonly period: number) {
    if (!Number.isInteger(period) || period < 1) throw new RangeError(`EMA period must be a whole number of at least 1, got ${period}`);
    this.alpha = 2 / (period + 1);
  }

  /** Adds a value; returns the average once `period` values have been seen, undefined before. */
  update(x: number): number | undefined {
    if (!Number.isFinite(x)) throw new RangeError(`EMA input must be a finite number, got ${x}`);
    if (this.current === undefined) {
      this.sum += x;
      this.count++;
      if (this.count === this.period) this.current = this.sum / this.period;
      return this.current;
    }
    this.current += this.alpha * (x - this.current);
    return this.current;
  }

  get value(): number | undefined {
    return this.current;
  }

  get ready(): boolean {
    return this.current !== undefined;
  }
}
