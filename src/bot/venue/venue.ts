/**
 * What the bot runtime needs from a venue, and nothing more. The executor and the bus see only
 * this interface (DESIGN.md): the live venue implements it over the SDK (the real service or the
 * local exchange), the simulated venue over the engine in-process for backtests.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../../core/clock';
import type { ConditionOrderRecord, OrderRecord, PositionRecord, StrategyOrderRecord, TradeRecord, UserAssetRecord } from '../../protocol/records';
import type { BatchResult } from '../../protocol/rest/common';
import type { MarkPriceData, PriceLevel, PublicTrade, SymbolSpec } from '../../protocol/rest/market';
import type { PlaceOrderParams, PlaceStrategyParams, PlaceStrategyResult } from '../../protocol/rest/orders';
import type { AccountUpdateData, OrderTradeUpdateData, TickerPushData } from '../../protocol/ws';

/** Health of the venue's streams, so the runtime knows when to reconcile. */
export type StreamStatus =
  /** First connection is up (or, after `unauthenticated` on a connection that stayed open, the venue accepts the credentials again). */
  | 'connected'
  /** Connection came back after a drop: events may have been missed. */
  | 'reconnected'
  /** A `seq` jump: at least one private event was lost. */
  | 'gap'
  /** Connection is down; the venue is trying again. */
  | 'disconnected'
  /** No private events for a while although orders are working: the stream may be stuck. */
  | 'silent'
  /**
   * The venue refuses the credentials the private stream reconnects with, or keeps its listenKey
   * alive with (auth refused, not a network failure): the venue keeps trying, but no order updates
   * or fills come (once the key expires) until they are fixed. `connected`/`reconnected` follows
   * when they are.
   */
  | 'unauthenticated';

/** Why a venue refused an order it placed itself (a fired condition's): the code and message a request would have got. */
export interface VenueRefusal {
  code: number;
  message: string;
}

/** Why a strategy order's leg (sub-order) was refused when the strategy order placed it. */
export interface LegRefusal extends VenueRefusal {
  strategySubId: number;
}

export type VenueEvent =
  /** `order`: the order record of `data` alone, when the venue holds it apart (in-process venues), so it need not be split off again. */
  | { type: 'order'; time: number; data: OrderTradeUpdateData; order?: OrderRecord }
  /** `refusal`: why the order a fired condition placed was refused, when the venue says (in-process venues; the wire has no field for it). */
  | { type: 'condition'; time: number; data: ConditionOrderRecord; refusal?: VenueRefusal }
  /** `refusals`: why the legs it placed now were refused, when the venue says (in-process venues; the wire has no field for it). */
  | { type: 'strategyOrder'; time: number; data: StrategyOrderRecord; refusals?: LegRefusal[] }
  | { type: 'account'; time: number; data: AccountUpdateData }
  | { type: 'trade'; time: number; symbol: string; data: PublicTrade }
  | { type: 'markPrice'; time: number; symbol: string; data: MarkPriceData }
  | { type: 'depth'; time: number; symbol: string; data: { bids: PriceLevel[]; asks: PriceLevel[] } }
  | { type: 'ticker'; time: number; symbol: string; data: TickerPushData }
  | { type: 'stream'; time: number; stream: 'private' | 'public'; status: StreamStatus; detail: string };

export interface OrderRef {
  symbol: string;
  orderId?: string;
  clientOrderId?: string;
}

export interface AmendParams {
  orderId: string;
  price: string;
  quantity: string;
}

export interface VenueListener {
  next(e: VenueEvent): void;
  error(err: unknown): void;
}

export interface Venue {
  readonly name: string;
  /** The venue's clock: wall time live, the replay's virtual time in a backtest. */
  readonly clock: Clock;
  /** Private events and the public data of `marketSymbols`, merged; hot. */
  readonly events: Observable<VenueEvent>;
  /**
   * Optional direct subscription to the same events, for a consumer that handles every event
   * itself (the Bot): a plain function call per event instead of the Observable's subscriber
   * chain, which matters when a backtest replays millions of events. Returns the unsubscribe.
   */
  listen?(listener: VenueListener): () => void;

  /** Connects streams and subscribes the market data of these symbols. */
  start(marketSymbols: readonly string[]): Promise<void>;
  stop(): Promise<void>;

  symbols(): Promise<SymbolSpec[]>;
  /** Up to 20 orders; every order carries a clientOrderId. Unknown outcomes are resolved inside. */
  placeOrders(orders: PlaceOrderParams[]): Promise<BatchResult>;
  cancelOrders(refs: OrderRef[]): Promise<BatchResult>;
  amendOrders(symbol: string, amends: AmendParams[]): Promise<BatchResult>;
  placeStrategy(params: PlaceStrategyParams): Promise<PlaceStrategyResult>;
  cancelAll(symbol?: string): Promise<void>;
  setLeverage(symbol: string, leverage: number): Promise<void>;
  /** The order, or undefined when the venue does not know it (30001). */
  queryOrder(ref: OrderRef): Promise<OrderRecord | undefined>;
  openOrders(symbol?: string): Promise<OrderRecord[]>;
  /** Condition orders waiting for their trigger (a bracket's stop-loss, say). */
  openConditionOrders(symbol?: string): Promise<ConditionOrderRecord[]>;
  cancelConditionOrder(symbol: string, conditionId: string): Promise<void>;
  /** Every fill of one order (trade records): how reconciliation learns fills the stream lost. */
  orderFills(symbol: string, orderId: string): Promise<TradeRecord[]>;
  positions(symbol?: string): Promise<PositionRecord[]>;
  account(): Promise<UserAssetRecord>;
  markPrice(symbol: string): Promise<MarkPriceData>;
  /**
   * Milliseconds until the venue takes requests again after it throttled this account (a 429's
   * Retry-After); 0 when it does not. A stop that runs out of time while it is throttled waits for
   * it rather than leaving orders behind. Optional: a simulated venue never throttles.
   */
  throttledForMs?(): number;
}
