/** What a backtest run produces: its fills, equity samples, counters and final state (report.ts reads it). */
import type { Bot } from '../../bot/bot';
import type { Fill } from '../../bot/bus/events';
import type { Engine } from '../../exchange/engine/engine';
import type { TapeReplayer } from '../../exchange/engine/market/tape';
import type { MarkProvenance } from '../../market-data/format';
import type { Silence } from '../../market-data/silence';
import type { BotErrorRow, StrategyCounters, VenuePlacedRefusals } from './counters';

/** A fill of the run: the bot's fill (without the position side) with its time and strategy. */
export type FillRow = Omit<Fill, 'positionSide'> & { time: number; strategyId: string };

/** Gap events listed in a result (all are counted). */
export const GAPS_LISTED = 20;

/** A recorded `gap`: the stream was lost from `from` to `time`; `symbol` null when the whole stream was. */
export interface GapRow {
  time: number;
  from: number;
  stream: 'public' | 'private';
  symbol: string | null;
  reason: string;
}

/** Silences listed in a result (all are counted). */
export const SILENCES_LISTED = 20;

/**
 * A silence of the replayed range longer than LONG_SILENCE_MS (market-data/silence.ts): `file` is
 * the recording of the event before it, `nextFile` that of the event after it when that is
 * another file (the silence lies between two files), else null. Paths relative to the config's folder.
 */
export interface SilenceRow extends Silence {
  file: string;
  nextFile: string | null;
}

export interface EquitySample {
  time: number;
  /** wallet + unrealized PnL, USDT. */
  equity: string;
  /** Mark per traded symbol at the sample, in `BacktestResult.symbols` order. */
  marks: string[];
  /** Signed position per traded symbol (base asset). */
  positions: string[];
  /** Sum of |position| x mark, USDT. */
  grossNotional: string;
}

export interface BacktestResult extends VenuePlacedRefusals {
  /** Symbols the strategies trade (sample columns). */
  symbols: string[];
  startTime: number;
  endTime: number;
  initialBalance: string;
  /**
   * `quotes`: v2 `quote` events, applied as the tape's quotes (as a depth line's top level).
   * `unused`: events read that the tape fill model does not use yet (v2 `book` and `snapshot`).
   */
  events: { read: number; applied: number; tradesThroughEngine: number; tradesSkipped: number; quotes: number; unused: number };
  /** How mark prices were obtained, by symbol, when the recording says (v2 imports: derived marks). */
  marks: Record<string, MarkProvenance>;
  /**
   * The recording's L2 book comes from partial book depth (its header's `meta.partialDepth`: the
   * symbols and how many levels a side each message held), not from snapshots and diffs.
   */
  partialDepth?: string;
  /**
   * The recording's `gap` events inside the replayed range (the stream was lost, so data there may
   * be missing; after a gap of a symbol's book, its L2 book is unknown until the next snapshot):
   * how many, and the first GAPS_LISTED of them.
   */
  gaps: { count: number; first: GapRow[] };
  /**
   * Silences of the replayed range longer than LONG_SILENCE_MS (no event at all: the strategies
   * saw no mark, their stops could not trigger, funding there is missing), whether or not a gap
   * marks them: how many, their total length in ms, the longest, and the first SILENCES_LISTED.
   */
  silences: { count: number; ms: number; longest: SilenceRow | null; first: SilenceRow[] };
  /**
   * `fill.book: l2` with `data.from` inside the data: the recorded L2 books known at `from` (built
   * from the events before it), handed to the fill model as snapshots at the range's first event.
   */
  booksAtFrom: number;
  /**
   * `fill.book: l2`: the files of the range (relative to the config's folder) in which no recorded
   * book was known: no snapshot in them, and a book does not carry over from the file before. Only
   * the quotes' best levels stood in the book there.
   */
  l2Unknown: string[];
  /** Input messages the import did not turn into events, by reason, from the recordings' headers (summed over files). */
  importSkipped: Record<string, number>;
  fills: FillRow[];
  samples: EquitySample[];
  funding: Array<{ time: number; symbol: string; amount: string }>;
  liquidations: number;
  strategies: Record<string, StrategyCounters>;
  finalAsset: { walletBalance: string; unrealizedPnl: string };
  /** The participant's positions at the end, as the engine has them (`unrealizedPnl`: at the final mark, against the engine's cost basis). */
  finalPositions: Array<{ symbol: string; positionSide: string; quantity: string; entryPrice: string; unrealizedPnl: string }>;
  tape: TapeReplayer['stats'];
  audit: ReturnType<Engine['audit']>;
  botStats: Bot['stats'];
  /** The first unexpected exception of the bot's pipeline (`botStats.pipelineErrors` counts them). */
  firstBotError: BotErrorRow | null;
  /**
   * Recorded trades taken on the columnar quiet-trade path (binary cache only). A speed figure,
   * not part of the report: the same data from JSON lines gives the same report with 0 here.
   */
  quietTrades: number;
}
