/**
 * Average true range with Wilder's smoothing (J. Welles Wilder, "New Concepts in Technical Trading
 * Systems", 1978): true range = max(high - low, |high - previous close|, |low - previous close|);
 * the first ATR is the plain average of the first `period` true ranges, then
 * `atr = (atr * (period - 1) + tr) / period`.
 *
 * The first bar has no previous close, so its true range is high - low (as in Wilder's tables).
 * On `number` for the same reason as the EMA: it sizes distances, never money.
 */
export interface HighLowClose {
  high: number;
  low: number;
  close: number;
}

export class Atr {
  private prevClose: number | undefined;
  private sum = 0;
  private count = 0;
  private current: number | undefined;

  constructor(readonly period: number) {
    if (!Number.isInteger(period) || period < 1) throw new RangeError(`ATR period must be a whole number of at least 1, got ${period}`);
  }

  /** The true range of a bar against the previous close (high - low for the first bar). */
  static trueRange(bar: HighLowClose, prevClose: number | undefined): number {
    const hl = bar.high - bar.low;
    if (prevClose === undefined) return hl;
    return Math.max(hl, Math.abs(bar.high - prevClose), Math.abs(bar.low - prevClose));
  }

  /** Adds a bar; returns the ATR once `period` bars have been seen, undefined before. */
  update(bar: HighLowClose): number | undefined {
    if (![bar.high, bar.low, bar.close].every(Number.isFinite) || bar.high < bar.low) {
      throw new RangeError(`ATR bar must have finite high >= low, got high ${bar.high} low ${bar.low}`);
    }
    const tr = Atr.trueRange(bar, this.prevClose);
    this.prevClose = bar.close;
    if (this.current === undefined) {
      this.sum += tr;
      this.count++;
      if (this.count === this.period) this.current = this.sum / this.period;
      return this.current;
    }
    this.current = (this.current * (this.period - 1) + tr) / this.period;
    return this.current;
  }

  get value(): number | undefined {
    return this.current;
  }

  get ready(): boolean {
    return this.current !== undefined;
  }
}
