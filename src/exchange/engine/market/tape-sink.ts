/**
 * What the tape fill model (tape.ts) drives and reports: the sink it places into (the engine, or
 * the local exchange's core), the tape accounts, its options and its counts.
 */
import type { SymbolSpec } from '../../../protocol/rest/market';
import type { OrderRef, PlaceOrderInput } from '../inputs';
import type { RestingOrder } from '../orders/queries';
import type { L2Stats } from './l2-tape';
import type { TapeQuoteSink } from './quote-orders';
import type { QueueOptions } from './queue';

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
