/**
 * What the tape fill model (tape.ts) drives and reports: the sink it places into (the engine, or
 * the local exchange's core), the tape accounts, its options and its counts.
 */
import type { SymbolSpec } from '../../../protocol/rest/market';
import type { OrderRef, PlaceOrderInput } from '../inputs';
import type { RestingOrder } from '../orders/queries';
import type { TapeQuoteSink } from './quote-orders';
import type { QueueModelName, QueueOptions } from './queue';

/** What the replayer drives. The engine satisfies it directly; the local exchange adapts core.execute. */
export interface ReplaySink {
  setMarkPrice(symbol: string, markPrice: string, indexPrice?: string): unknown;
  placeOrder(userId: string, input: PlaceOrderInput): unknown;
  cancelOrder(userId: string, ref: OrderRef): unknown;
  settleFunding(symbol: string, rate?: string): unknown;
  /** Optional: lets the rate shown between settlements follow the recorded marks. */
  setFundingRate?(symbol: string, rate: string): unknown;
  /** Optional: lets the replayer skip cancelling a tape order that already filled (saves a refusal). */
  queryOrder?(userId: string, ref: OrderRef): { status: string; executedQty?: string };
  /** Optional: the same answer as `queryOrder` where a cheaper form exists (the engine's). */
  orderProgress?(userId: string, ref: OrderRef): { status: string; executedQty?: string };
  /** Optional: `placeOrder` answering only the status, without formatting a record (the engine's). */
  placeOrderStatus?(userId: string, input: PlaceOrderInput): string;
  /** Optional: `cancelOrder` without an answer (the engine's). */
  cancelOrderQuiet?(userId: string, ref: OrderRef): void;
  /**
   * Needed by the `l2` book mode: a recorded trade (or the rest of it, `quantity` '0' when
   * participants' fills took it all) that the book mode matched outside the engine: the engine's
   * last price moves to it and what it triggers fires (the engine's `marketTrade`).
   */
  marketTrade?(symbol: string, price: string, quantity: string, side: 'BUY' | 'SELL'): unknown;
  /** Needed by the `l2` book mode: resting orders priced at a limit or better (the engine's). */
  restingThrough?(symbol: string, side: 'BUY' | 'SELL', limitTicks: number, exactly?: boolean): RestingOrder[];
  /**
   * Optional, with `restingThrough`: a number that changes whenever the symbol's resting orders do
   * (the engine's), so the `l2` mode reads them again only then.
   */
  bookVersion?(symbol: string): number;
  /**
   * Optional: the tape quotes placed, cancelled and followed in ticks and steps by order id, with the
   * same outcome as `placeOrderStatus`, `cancelOrderQuiet` and `orderProgress` (the engine's,
   * quote-orders.ts). Used for a symbol whose grids are the replayer's.
   */
  readonly tapeQuotes?: TapeQuoteSink;
}

export const TAPE_MAKER = 'tape-maker';
export const TAPE_TAKER = 'tape-taker';
/** Opening balance the sink's owner gives each tape account, USDT. */
export const TAPE_BALANCE = '1000000000000';

export interface TapeReplayerOptions {
  tapeMaker?: string;
  tapeTaker?: string;
  /**
   * Specs of the replayed symbols (the recording header's). With them, trades below the
   * minimum are skipped without asking the engine, and trades above the maximum quantity are
   * split; without them the engine's refusals are counted instead.
   */
  specs?: readonly SymbolSpec[];
  /** Keep the recorded best bid and ask in the book as tape quotes (see above). Default true. */
  quotes?: boolean;
  /**
   * `top` (default): trades re-enacted against the participants as above, the book's top from
   * depth and quote events. `l2`: the recorded L2 book with queue positions (l2-tape.ts): needs
   * the sink's `restingThrough`.
   */
  book?: 'top' | 'l2';
  /** `l2`: the queue model of resting orders. Default risk-averse. */
  queue?: QueueOptions;
  /** `l2`: deeper levels a participant's taking order may walk, per side (at most 150). Default 50. */
  depthLevels?: number;
}

export interface TapeStats {
  trades: number;
  /** Trades replayed through the tape (some in several pieces). */
  replayed: number;
  marks: number;
  fundings: number;
  /**
   * ticker, private, positions, gap, the v2 L2 `book` and `snapshot` (and depth and quote without
   * quotes): not used by the fill model.
   */
  ignored: number;
  /**
   * Tape quotes: depth lines and v2 quote events applied, quotes placed (including put back after a trade),
   * refused because they would cross a resting order, skipped (below minimum or off grid).
   */
  quotes: { depths: number; placed: number; crossed: number; skipped: number };
  /**
   * Trades not replayed: below the minimum, off the grid (counted also when a backtest passes a
   * trade that reaches no order), refused by the engine, or of a symbol the specs (the recording's
   * header) do not list.
   */
  skipped: { belowMinimum: number; offGrid: number; refused: number; otherSymbol: number };
  /** Mark, funding or cancel calls the sink refused (an off-grid mark, a rate out of range). */
  refusals: number;
  /** The `l2` book mode's queue model and counts (absent in the `top` mode). */
  l2?: L2Stats;
}

/** The `l2` book mode's counts (l2-tape.ts). */
export interface L2Stats {
  queue: QueueModelName;
  /** `snapshot` and `book` events applied; deltas skipped while the book was unknown (after a gap, or at another file's start). */
  snapshots: number;
  /** Of the snapshots, v1 `depth` lines (each the top of the book), and the most levels a side one held. */
  depthLines: number;
  depthLineLevels: number;
  deltas: number;
  deltasSkipped: number;
  /** Queue positions set (orders that joined a level), and queue updates from level changes. */
  joined: number;
  depthUpdates: number;
  /** Recorded trades that reached resting orders. */
  queueFills: number;
  /** Order fills by a trade priced through the order, and by a trade at its price past its queue. */
  throughFills: number;
  atPriceFills: number;
  /** Trades at a resting order's price that its queue position kept from filling it. */
  queueHeld: number;
  /** Fills the queue model allowed that the engine could not place (below the minimum quantity or notional). */
  unfillable: number;
  /** Orders of a participant that could take liquidity, and the deeper levels put in the book for them. */
  takers: number;
  levelsPlaced: number;
  /** Of the levels put in, those the orders took from (in part or in whole): marked taken until the data updates them. */
  levelsTaken: number;
  /** Quotes older (by update id) than the book's last delta, whose levels were not applied. */
  staleQuotes: number;
  /** Levels of deltas older than the quote that set them, not applied. */
  staleLevels: number;
}

export function newL2Stats(queue: QueueModelName): L2Stats {
  return { queue, snapshots: 0, depthLines: 0, depthLineLevels: 0, deltas: 0, deltasSkipped: 0, joined: 0, depthUpdates: 0, queueFills: 0, throughFills: 0, atPriceFills: 0, queueHeld: 0, unfillable: 0, takers: 0, levelsPlaced: 0, levelsTaken: 0, staleQuotes: 0, staleLevels: 0 };
}
