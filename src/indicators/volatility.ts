/**
 * Rolling volatility: the sample standard deviation (n - 1 denominator) of the last `window` log
 * returns ln(p_t / p_{t-1}), per observation interval (annualise outside if needed:
 * multiply by sqrt(intervals per year)).
 *
 * Kept as a ring buffer of returns with running sums so an update costs O(1); the sums are
 * recomputed from the buffer every `window` updates so floating-point drift cannot build up over
 * a long run.
 */
export class RollingVolatility {
  private readonly returns: Float64Array;
  private next = 0;
  private filled = 0;
  private sum = 0;
  private sumSq = 0;
  private sinceRecompute = 0;
  private last: number | undefined;

  constructor(readonly window: number) {
    if (!Number.isInteger(window) || window < 2) throw new RangeError(`volatility window must be a whole number of at least 2, got ${window}`);
    this.returns = new Float64Array(window);
  }

  /** Adds a price; returns the volatility once `window` returns are known, undefined before. */
  update(price: number): number | undefined {
    if (!Number.isFinite(price) || price <= 0) throw new RangeError(`volatility input must be a positive price, got ${price}`);
    const prev = this.last;
    this.last = price;
    if (prev === undefined) return undefined;
    const r = Math.log(price / prev);
    if (this.filled === this.window) {
      const old = this.returns[this.next];
      this.sum -= old;
      this.sumSq -= old * old;
    } else {
      this.filled++;
    }
    this.returns[this.next] = r;
    this.next = (this.next + 1) % this.window;
    this.sum += r;
    this.sumSq += r * r;
    if (++this.sinceRecompute >= this.window) this.recompute();
    return this.value;
  }

  private recompute(): void {
    let s = 0;
    let sq = 0;
    for (let i = 0; i < this.filled; i++) {
      s += this.returns[i];
      sq += this.returns[i] * this.returns[i];
    }
    this.sum = s;
    this.sumSq = sq;
    this.sinceRecompute = 0;
  }

  get value(): number | undefined {
    if (this.filled < this.window) return undefined;
    const n = this.filled;
    const mean = this.sum / n;
    // Clamp: cancellation can leave a tiny negative variance for a flat series.
    return Math.sqrt(Math.max(0, (this.sumSq - n * mean * mean) / (n - 1)));
  }

  get ready(): boolean {
    return this.filled === this.window;
  }
}
