/**
 * Simple moving average of the last `period` values. A ring buffer with a running sum, so an
 * update costs O(1); the sum is recomputed from the buffer every `period` updates so floating-point
 * drift cannot build up over a long run.
 */
export class Sma {
  private readonly window: Float64Array;
  private next = 0;
  private filled = 0;
  private sum = 0;
  private sinceRecompute = 0;

  constructor(readonly period: number) {
    if (!Number.isInteger(period) || period < 1) throw new RangeError(`SMA period must be a whole number of at least 1, got ${period}`);
    this.window = new Float64Array(period);
  }

  /** Adds a value; returns the average once `period` values have been seen, undefined before. */
  update(x: number): number | undefined {
    if (!Number.isFinite(x)) throw new RangeError(`SMA input must be a finite number, got ${x}`);
    if (this.filled === this.period) this.sum -= this.window[this.next];
    else this.filled++;
    this.window[this.next] = x;
    this.next = (this.next + 1) % this.period;
    this.sum += x;
    if (++this.sinceRecompute >= this.period) {
      let s = 0;
      for (let i = 0; i < this.filled; i++) s += this.window[i];
      this.sum = s;
      this.sinceRecompute = 0;
    }
    return this.value;
  }

  /** The values in the window, oldest first (a copy). */
  values(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.filled; i++) out.push(this.window[(this.next - this.filled + i + this.period) % this.period]);
    return out;
  }

  get value(): number | undefined {
    return this.filled === this.period ? this.sum / this.period : undefined;
  }

  get ready(): boolean {
    return this.filled === this.period;
  }
}
