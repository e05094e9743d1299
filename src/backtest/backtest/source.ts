/**
 * Where the replay's events come from, in batches. The driver pulls one batch per `await` and walks
 * it with plain indexed reads, so the per-event cost is a loop step, not a promise: an async
 * generator yielding single events (the recording reader) spends about as long resolving its
 * promises as the engine spends on a trade.
 *
 * A batch hands out events by index; `event(i)` may return an object that is reused by the next
 * call (the binary cache decodes into one object per kind), so consumers must not keep it.
 */
import type { RecordedEvent, RecordingHeader } from '../../market-data/format';

export interface EventBatch {
  readonly count: number;
  /** Event time, ms, without decoding the rest. */
  time(i: number): number;
  /** The event; valid until the next call on this batch or the next batch. */
  event(i: number): RecordedEvent;
  /** Columnar access to the batch's trades, where the source has columns (the binary cache). */
  readonly trades?: TradeColumns;
  /** Columnar access to the batch's book and snapshot levels, where the source has them (the binary cache). */
  readonly levels?: LevelColumns;
  /** Columnar access to the batch's quote events, where the source has them (the binary cache). */
  readonly quotes?: QuoteColumns;
}

/**
 * Trades read straight from columns, without an event object: the backtest driver decides about
 * most recorded trades (those that can reach neither the participant's orders nor the tape
 * quotes, when no strategy wants trade events) from the price alone.
 */
export interface TradeColumns {
  /** Symbol names, indexed by `tradeSymbol`. */
  readonly symbolNames: readonly string[];
  /** The symbol index of event `i` when it is a trade, else -1. */
  tradeSymbol(i: number): number;
  /** Price of trade `i` in ticks of its symbol's tick size. */
  tradeTicks(i: number): number;
  /** Price of trade `i` as a decimal string. */
  tradePrice(i: number): string;
}

/**
 * The levels of book and snapshot events read straight from columns, in integer ticks and steps
 * of the file's grids: the L2 replay applies them without building (and parsing back) a decimal
 * string per level. Event `i`'s levels are `levelStart(i)` onward in `ticks` and `steps`: its
 * `bidCount(i)` bids, then its `askCount(i)` asks, in recorded order.
 */
export interface LevelColumns {
  /** Symbol names, indexed by `levelSymbol`. */
  readonly symbolNames: readonly string[];
  /** The symbol index (into `TradeColumns.symbolNames`) of event `i` when it is a book or snapshot event in columns, else -1. */
  levelSymbol(i: number): number;
  isSnapshot(i: number): boolean;
  levelStart(i: number): number;
  bidCount(i: number): number;
  askCount(i: number): number;
  readonly ticks: Float64Array;
  readonly steps: Float64Array;
  /** The grids the units are in, per symbol index (normalized sizes, as `Grid.size`). */
  tickSize(si: number): string;
  stepSize(si: number): string;
  /** The venue's (final) update id `u` of event `i`, NaN when it has none. */
  updateId(i: number): number;
}

/**
 * Quote events (best bid and ask) read straight from columns, in ticks and steps of the file's
 * grids (`LevelColumns.tickSize` and `stepSize`): the tape quotes and the L2 book take them
 * without a decimal string made and parsed back per price and quantity.
 */
export interface QuoteColumns {
  readonly symbolNames: readonly string[];
  tickSize(si: number): string;
  stepSize(si: number): string;
  /** The symbol index (into `TradeColumns.symbolNames`) of event `i` when it is a quote event in columns, else -1. */
  quoteSymbol(i: number): number;
  bidTicks(i: number): number;
  bidSteps(i: number): number;
  askTicks(i: number): number;
  askSteps(i: number): number;
  /** The venue's update id `u` of quote `i`, NaN when it has none. */
  updateId(i: number): number;
}

export interface EventSource {
  /** The first file's header; `symbols` is the union of every file's. */
  readonly header: RecordingHeader;
  /** The next batch, or undefined at the end. */
  next(): Promise<EventBatch | undefined>;
  close(): Promise<void>;
  /** Bytes of the underlying files consumed so far and in total, for progress. */
  progress(): { done: number; total: number };
  /**
   * Where event `i` of the batch `next()` returned last comes from: its recording file and, where
   * the source knows it, the line in that file. For error messages: the sources keep one file
   * index and one offset per batch, nothing per event.
   */
  origin(i: number): EventOrigin;
}

/** A recording file and, when known, a line in it (1-based; line 1 is the header). */
export interface EventOrigin {
  file: string;
  line: number | undefined;
}

/** `file:line`, or the file alone. */
export function originText(o: EventOrigin): string {
  return o.line === undefined ? o.file : `${o.file}:${o.line}`;
}

/** A batch over an array of parsed events. */
export class ArrayBatch implements EventBatch {
  constructor(readonly events: RecordedEvent[]) {}
  get count(): number {
    return this.events.length;
  }
  time(i: number): number {
    return this.events[i].t;
  }
  event(i: number): RecordedEvent {
    return this.events[i];
  }
}
