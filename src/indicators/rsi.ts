/**
 * Relative strength index with Wilder's smoothing (J. Welles Wilder, 1978): the average gain and
 * average loss of the first `period` changes are plain averages, then each is smoothed with
 * `avg = (avg * (period - 1) + x) / period`; RSI = 100 - 100 / (1 + avgGain / avgLoss), and 100
 * when there was no loss. Needs `period + 1` values.
 */
export class Rsi {
  private prev: number | undefined;
  private gain = 0;
  private loss = 0;
  private count = 0;
  private current: number | undefined;

  constructor(readonly period: number) {
    if (!Number.isInteger(period) || period < 1) throw new RangeError(`RSI period must be a whole number of at least 1, got ${period}`);
  }

  /** Adds a value; returns the RSI (0..100) once `period` changes are known, undefined before. */
  update(x: number): number | undefined {
    if (!Number.isFinite(x)) throw new RangeError(`RSI input must be a finite number, got ${x}`);
    const prev = this.prev;
    this.prev = x;
    if (prev === undefined) return undefined;
    const up = x > prev ? x - prev : 0;
    const down = x < prev ? prev - x : 0;
    const n = this.period;
    if (this.count < n) {
      this.gain += up;
      this.loss += down;
      if (++this.count < n) return undefined;
      this.gain /= n;
      this.loss /= n;
    } else {
      this.gain = (this.gain * (n - 1) + up) / n;
      this.loss = (this.loss * (n - 1) + down) / n;
    }
    this.current = this.loss === 0 ? 100 : 100 - 100 / (1 + this.gain / this.loss);
    return this.current;
  }

  get value(): number | undefined {
    return this.current;
  }

  get ready(): boolean {
    return this.current !== undefined;
  }
}
