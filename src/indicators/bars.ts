/**
 * Bars from trades: by time (`TimeBars`), by traded volume (`VolumeBars`) and by trade count
 * (`TickBars`). Each is fed one trade at a time and hands back a bar only once it is complete, so
 * nothing downstream ever sees a bar that is still changing (no look-ahead).
 *
 * Time bars: OHLCV per interval aligned to the epoch (a 60 s bar opens at a whole
 * minute), so live, paper and backtest runs cut the same bars from the same trades.
 *
 * A bar closes when a trade of a later interval arrives, or when `closeUntil(now)` is called
 * (from a timer) once its interval is over, so a quiet market still closes its bar on time.
 * Intervals without trades produce no bar: an indicator fed a flat bar would see a move that
 * never traded.
 */
import { Dec } from '../core/decimal';

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

/** Which bars: `time` ms per bar, `volume` base asset per bar, or `trades` per bar. */
export type BarSpec = { time: number } | { volume: number } | { trades: number };

/** What every bar builder does. */
export interface BarBuilder {
  /** Adds a trade; returns the bar it completed, if any. */
  update(time: number, price: number, quantity: number): Bar | undefined;
  /** Closes the open bar if it is due by `now` (time bars only); returns it. */
  closeUntil(now: number): Bar | undefined;
  /** The bar still being built, if any (a copy). */
  readonly open: Bar | undefined;
}

/** A value as a message shows it: a string quoted and said to be one (bars take numbers; "1" x "1" read as numbers). */
const shown = (v: unknown): string => (typeof v === 'number' ? String(v) : typeof v === 'string' ? `${JSON.stringify(v)} (a string)` : `${String(v)} (${v === null ? 'null' : typeof v})`);

function checkTrade(time: number, price: number, quantity: number): void {
  if (typeof time !== 'number' || !Number.isFinite(time)) throw new RangeError(`trade time must be a finite number of epoch ms, got ${shown(time)}`);
  if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || typeof quantity !== 'number' || !Number.isFinite(quantity) || quantity < 0) {
    throw new RangeError(`trade must have a positive price and a non-negative quantity, as numbers, got ${shown(price)} x ${shown(quantity)}`);
  }
}

function add(b: Bar | undefined, time: number, price: number, quantity: number): Bar {
  if (b === undefined) return { openTime: time, open: price, high: price, low: price, close: price, volume: quantity, trades: 1 };
  if (price > b.high) b.high = price;
  if (price < b.low) b.low = price;
  b.close = price;
  b.volume += quantity;
  b.trades++;
  return b;
}

export class TimeBars implements BarBuilder {
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
    checkTrade(time, price, quantity);
    const start = this.startOf(time);
    let closed: Bar | undefined;
    if (this.current !== undefined) {
      if (start < this.current.openTime) return undefined;
      if (start > this.current.openTime) {
        closed = this.current;
        this.current = undefined;
      }
    }
    this.current = add(this.current, start, price, quantity);
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

/** The name the examples used before: time bars. */
export const BarAggregator = TimeBars;
export type BarAggregator = TimeBars;

/** Bars closed on their last trade once a measure of the bar (its volume, its trades) reaches a size. */
abstract class FillingBars implements BarBuilder {
  private current: Bar | undefined;

  /** Whether the bar is complete, called once per trade just after `quantity` was added to it. */
  protected abstract full(bar: Bar, quantity: number): boolean;

  update(time: number, price: number, quantity: number): Bar | undefined {
    checkTrade(time, price, quantity);
    this.current = add(this.current, time, price, quantity);
    if (!this.full(this.current, quantity)) return undefined;
    const b = this.current;
    this.current = undefined;
    return b;
  }

  closeUntil(): Bar | undefined {
    return undefined;
  }

  get open(): Bar | undefined {
    return this.current === undefined ? undefined : { ...this.current };
  }
}

/**
 * Volume bars: a bar closes on the trade that brings its volume to `size` or more (that trade is
 * in the bar; one big trade can make a bar larger than `size`). `openTime` is its first trade's.
 *
 * The volume is summed in decimals (each quantity as the decimal it prints as), not in floats:
 * quantities 0.7 and 0.1 fill a bar of 0.8, where their float sum, 0.7999999999999999, would
 * not. The bar's `volume` is that decimal sum as the nearest number.
 */
export class VolumeBars extends FillingBars {
  private readonly sizeDec: Dec;
  private filled = new Dec(0);

  constructor(readonly size: number) {
    super();
    if (!Number.isFinite(size) || size <= 0) throw new RangeError(`volume bar size must be a positive number, got ${size}`);
    this.sizeDec = new Dec(String(size));
  }

  protected full(bar: Bar, quantity: number): boolean {
    this.filled = (bar.trades === 1 ? new Dec(0) : this.filled).plus(String(quantity));
    bar.volume = this.filled.toNumber();
    return this.filled.gte(this.sizeDec);
  }
}

/** Tick bars: a bar of every `count` trades, closed on its last trade. */
export class TickBars extends FillingBars {
  constructor(readonly count: number) {
    super();
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`tick bar count must be a whole number of at least 1, got ${count}`);
  }

  protected full(bar: Bar): boolean {
    return bar.trades >= this.count;
  }
}

/** The bar builder of a spec. */
export function barsOf(spec: BarSpec): BarBuilder {
  if ('time' in spec) return new TimeBars(spec.time);
  if ('volume' in spec) return new VolumeBars(spec.volume);
  return new TickBars(spec.trades);
}
