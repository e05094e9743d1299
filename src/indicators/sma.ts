/**
 * Simple moving average of the last `period` values. A ring buffer with a running sum, so an
 * update costs O(1); the sum is recomputed from the buffer every `period` updates so floating-point
 * drift cannot build up over a long run. The running sum is compensated (Neumaier): a value far
 * larger than the others (a bad tick of 1e17 among ones) leaves the sum as it found it when it
 * leaves the window, and a flat window averages to its value.
 */
export class Sma {
  private readonly window: Float64Array;
  private next = 0;
  private filled = 0;
  private sum = 0;
  /** Neumaier compensation: the low-order part the running sum lost. */
  private comp = 0;
  private sinceRecompute = 0;

  constructor(readonly period: number) {
    if (!Number.isInteger(period) || period < 1) throw new RangeError(`SMA period must be a whole number of at least 1, got ${period}`);
    this.window = new Float64Array(period);
  }

  /** Adds a value; returns the average once `period` values have been seen, undefined before. */
  update(x: number): number | undefined {
    if (!Number.isFinite(x)) throw new RangeError(`SMA input must be a finite number, got ${x}`);
    if (this.filled === this.period) this.add(-this.window[this.next]);
    else this.filled++;
    this.window[this.next] = x;
    this.next = (this.next + 1) % this.period;
    this.add(x);
    if (++this.sinceRecompute >= this.period) {
      this.sum = 0;
      this.comp = 0;
      for (let i = 0; i < this.filled; i++) this.add(this.window[i]);
      this.sinceRecompute = 0;
    }
    return this.value;
  }

  /** Adds x to the compensated running sum. */
  private add(x: number): void {
    const t = this.sum + x;
    this.comp += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum;
    this.sum = t;
  }

  /** The values in the window, oldest first (a copy). */
  values(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.filled; i++) out.push(this.window[(this.next - this.filled + i + this.period) % this.period]);
    return out;
  }

  get value(): number | undefined {
    return this.filled === this.period ? (this.sum + this.comp) / this.period : undefined;
  }

  get ready(): boolean {
    return this.filled === this.period;
  }
}
