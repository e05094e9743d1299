/**
 * Time bars from trades: OHLCV per interval aligned to the epoch (a 60 s bar opens at a whole
 * minute), so live, paper and backtest runs cut the same bars from the same trades.
 *
 * A bar closes when a trade of a later interval arrives, or when `closeUntil(now)` is called
 * (from a timer) once its interval is over, so a quiet market still closes its bar on time.
 * Intervals without trades produce no bar: an indicator fed a flat bar would see a move that
 * never traded.
 */
export interface Bar {
  /** Start of the interval, epoch ms. */
  openTime: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Base-asset volume traded in the interval. */
  volume: number;
  trades: number;
}

export class BarAggregator {
  private current: Bar | undefined;

  constructor(readonly intervalMs: number) {
    if (!Number.isInteger(intervalMs) || intervalMs < 1) throw new RangeError(`bar interval must be a whole number of ms, at least 1, got ${intervalMs}`);
  }

  private startOf(time: number): number {
    return Math.floor(time / this.intervalMs) * this.intervalMs;
  }

  /**
   * Adds a trade; returns the bar it closed (a trade of a later interval), if any. Trades older
   * than the open bar are ignored: a closed bar is never reopened.
   */
  update(time: number, price: number, quantity: number): Bar | undefined {
    if (!Number.isFinite(price) || price <= 0 || !Number.isFinite(quantity) || quantity < 0) {
      throw new RangeError(`trade must have a positive price and a non-negative quantity, got ${price} x ${quantity}`);
    }
    const start = this.startOf(time);
    let closed: Bar | undefined;
    if (this.current !== undefined) {
      if (start < this.current.openTime) return undefined;
      if (start > this.current.openTime) {
        closed = this.current;
        this.current = undefined;
      }
    }
    if (this.current === undefined) {
      this.current = { openTime: start, open: price, high: price, low: price, close: price, volume: quantity, trades: 1 };
    } else {
      const b = this.current;
      if (price > b.high) b.high = price;
      if (price < b.low) b.low = price;
      b.close = price;
      b.volume += quantity;
      b.trades++;
    }
    return closed;
  }

  /** Closes the open bar if its interval ended at or before `now`; returns it. */
  closeUntil(now: number): Bar | undefined {
    const b = this.current;
    if (b === undefined || now < b.openTime + this.intervalMs) return undefined;
    this.current = undefined;
    return b;
  }

  /** The bar still being built, if any (a copy). */
  get open(): Bar | undefined {
    return this.current === undefined ? undefined : { ...this.current };
  }
}
