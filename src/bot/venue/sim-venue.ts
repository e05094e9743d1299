/**
 * A Venue over the exchange engine in-process: the same engine the local exchange serves, called
 * directly. Used by tests of the runtime and by the backtester (which drives its clock and market
 * data). Private events of `userId` and public market data are pushed synchronously as the engine
 * emits them, the way the live streams deliver them (events before the call's answer).
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../../core/clock';
import { VenueError } from '../../core/errors';
import { ErrorCodes } from '../../core/errors';
import type { ConditionOrderRecord, OrderRecord, PositionRecord, TradeRecord, UserAssetRecord } from '../../protocol/records';
import type { BatchResult } from '../../protocol/rest/common';
import type { MarkPriceData, SymbolSpec } from '../../protocol/rest/market';
import { orderUpdateOf } from '../../protocol/ws';
import type { PlaceOrderParams, PlaceStrategyParams, PlaceStrategyResult } from '../../protocol/rest/orders';
import type { Engine } from '../../exchange/engine/engine';
import { wireSpecOf } from '../../exchange/engine/symbols';
import type { EngineEvent } from '../../exchange/engine/events';
import { VenueEmitter } from './emitter';
import type { AmendParams, LegRefusal, OrderRef, Venue, VenueEvent, VenueListener } from './venue';

export interface SimVenueOptions {
  engine: Engine;
  userId: string;
  clock: Clock;
  /**
   * Depth levels pushed per side after book changes; 0 pushes no depth. A backtest's engine book
   * holds only the participant and the tape, so it passes 0 and replays the recorded book instead
   * (and saves building a depth snapshot after every replayed trade).
   */
  depthLevels?: number;
  /**
   * Called around the user's placements that may take liquidity (not makerOnly): a backtest's L2
   * fill model puts the recorded levels they can reach into the book and takes them out after.
   */
  taking?: { before(order: PlaceOrderParams): void; after(): void };
}

export class SimVenue implements Venue {
  readonly name = 'sim';
  readonly clock: Clock;
  readonly engine: Engine;
  private readonly userId: string;
  private readonly out = new VenueEmitter();
  readonly events: Observable<VenueEvent> = this.out.events;
  private market = new Set<string>();
  private readonly depthLevels: number;
  /** The reason of a fired condition's refused order, until the condition's update that follows it. */
  private refusal: { conditionId: string; code: number; message: string } | undefined;
  /** The reasons of a strategy order's refused legs, until the strategy order's update that follows them. */
  private readonly legRefusals = new Map<string, LegRefusal[]>();
  private readonly taking: SimVenueOptions['taking'];
  /** Books the events of one pump changed (reused: pump runs after every engine call). */
  private readonly touched = new Set<string>();

  constructor(opts: SimVenueOptions) {
    this.engine = opts.engine;
    this.userId = opts.userId;
    this.clock = opts.clock;
    this.depthLevels = opts.depthLevels ?? 20;
    this.taking = opts.taking;
  }

  listen(listener: VenueListener): () => void {
    return this.out.listen(listener);
  }

  async start(marketSymbols: readonly string[]): Promise<void> {
    this.market = new Set(marketSymbols);
    this.out.emit({ type: 'stream', time: this.clock.now(), stream: 'private', status: 'connected', detail: 'in-process' });
  }

  async stop(): Promise<void> {
    this.out.complete();
  }

  /**
   * Publishes what the engine emitted since the last call: this user's private events, and the
   * market data of the subscribed symbols. Call it after driving the engine from outside.
   */
  pump(): void {
    if (this.engine.pendingEvents === 0) return;
    const events = this.engine.drain();
    const touchedBooks = this.touched;
    // Set.clear allocates a fresh table in V8 even when empty: only when there is something.
    if (touchedBooks.size > 0) touchedBooks.clear();
    for (const e of events) this.forward(e, touchedBooks);
    if (this.depthLevels === 0) return;
    for (const symbol of touchedBooks) {
      const d = this.engine.depth(symbol, this.depthLevels);
      this.out.emit({ type: 'depth', time: this.clock.now(), symbol, data: { bids: d.bids, asks: d.asks } });
    }
  }

  private forward(e: EngineEvent, touchedBooks: Set<string>): void {
    switch (e.kind) {
      case 'order': {
        if (this.market.has(e.order.symbol) && e.executionType !== 'REJECTED') touchedBooks.add(e.order.symbol);
        if (e.userId !== this.userId) return;
        this.out.emit({ type: 'order', time: e.time, data: orderUpdateOf(e.order, e.executionType, e.fill), order: e.order });
        return;
      }
      case 'refused':
        // Comes just before the condition's update (conditions/firing.ts): handed over with it.
        if (e.userId !== this.userId) return;
        if (e.conditionId !== '') this.refusal = { conditionId: e.conditionId, code: e.code, message: e.message };
        else if (e.strategyId !== '') {
          // A leg the strategy order placed (strategies/strategy-orders.ts): before the strategy's update.
          const legs = this.legRefusals.get(e.strategyId) ?? [];
          legs.push({ strategySubId: e.strategySubId, code: e.code, message: e.message });
          this.legRefusals.set(e.strategyId, legs);
        }
        return;
      case 'condition': {
        if (e.userId !== this.userId) return;
        const r = this.refusal;
        this.refusal = undefined;
        this.out.emit(r !== undefined && r.conditionId === e.record.conditionId ? { type: 'condition', time: e.time, data: e.record, refusal: { code: r.code, message: r.message } } : { type: 'condition', time: e.time, data: e.record });
        return;
      }
      case 'strategy': {
        if (e.userId !== this.userId) return;
        const legs = this.legRefusals.size === 0 ? undefined : this.legRefusals.get(e.record.strategyId);
        if (legs !== undefined) this.legRefusals.delete(e.record.strategyId);
        this.out.emit(legs !== undefined ? { type: 'strategyOrder', time: e.time, data: e.record, refusals: legs } : { type: 'strategyOrder', time: e.time, data: e.record });
        return;
      }
      case 'account':
        if (e.userId === this.userId) this.out.emit({ type: 'account', time: e.time, data: { reason: e.reason, userAsset: e.asset, positions: e.positions } });
        return;
      case 'trade':
        if (this.market.has(e.symbol)) this.out.emit({ type: 'trade', time: e.time, symbol: e.symbol, data: { tradeId: e.tradeId, price: e.price, quantity: e.quantity, side: e.side, time: e.time } });
        return;
      case 'markPrice':
        if (this.market.has(e.symbol)) {
          this.out.emit({ type: 'markPrice', time: e.time, symbol: e.symbol, data: { markPrice: e.markPrice, indexPrice: e.indexPrice, fundingRate: e.fundingRate, nextFundingTime: e.nextFundingTime } });
        }
        return;
      case 'funding':
      case 'liquidation':
        return;
    }
  }

  /** Runs an engine call and publishes its events before answering, as a venue's stream would. */
  private call<T>(fn: () => T): Promise<T> {
    try {
      const r = fn();
      this.pump();
      return Promise.resolve(r);
    } catch (e) {
      this.pump();
      return Promise.reject(e);
    }
  }

  async symbols(): Promise<SymbolSpec[]> {
    return this.engine.symbolSpecs().map((s) => wireSpecOf(s.config));
  }

  placeOrders(orders: PlaceOrderParams[]): Promise<BatchResult> {
    const taking = this.taking;
    if (taking === undefined) return this.call(() => this.engine.batchPlace(this.userId, orders));
    return this.call(() => {
      for (const o of orders) if (o.makerOnly !== true) taking.before(o);
      try {
        return this.engine.batchPlace(this.userId, orders);
      } finally {
        taking.after();
      }
    });
  }

  cancelOrders(refs: OrderRef[]): Promise<BatchResult> {
    return this.call(() => this.engine.batchCancel(this.userId, refs));
  }

  amendOrders(symbol: string, amends: AmendParams[]): Promise<BatchResult> {
    return this.call(() => this.engine.batchMove(this.userId, symbol, amends));
  }

  placeStrategy(params: PlaceStrategyParams): Promise<PlaceStrategyResult> {
    return this.call(() => {
      const r = this.engine.placeStrategy(this.userId, params);
      return { strategyId: r.strategyId, strategyStatus: r.strategyStatus, timestamp: this.clock.now() };
    });
  }

  async cancelAll(symbol?: string): Promise<void> {
    await this.call(() => {
      this.engine.cancelAll(this.userId, { symbol, cancelType: 0 });
      this.engine.cancelAll(this.userId, { symbol, cancelType: 2 });
    });
  }

  async setLeverage(symbol: string, leverage: number): Promise<void> {
    await this.call(() => this.engine.setLeverage(this.userId, { symbol, leverage }));
  }

  async queryOrder(ref: OrderRef): Promise<OrderRecord | undefined> {
    try {
      return this.engine.queryOrder(this.userId, ref);
    } catch (e) {
      if (e instanceof VenueError && e.code === ErrorCodes.ORDER_NOT_FOUND) return undefined;
      throw e;
    }
  }

  async openOrders(symbol?: string): Promise<OrderRecord[]> {
    return this.engine.currentOrders(this.userId, symbol === undefined ? { limit: 100000 } : { symbol, limit: 100000 }).list;
  }

  async openConditionOrders(symbol?: string): Promise<ConditionOrderRecord[]> {
    return this.engine.currentConditions(this.userId, symbol).list;
  }

  async cancelConditionOrder(symbol: string, conditionId: string): Promise<void> {
    await this.call(() => this.engine.cancelCondition(this.userId, symbol, conditionId));
  }

  async orderFills(symbol: string, orderId: string): Promise<TradeRecord[]> {
    return this.engine.tradeHistory(this.userId, { symbol, orderId, page: 1, pageSize: 100000 }).list;
  }

  async positions(symbol?: string): Promise<PositionRecord[]> {
    return this.engine.positions(this.userId, symbol);
  }

  async account(): Promise<UserAssetRecord> {
    return this.engine.asset(this.userId);
  }

  async markPrice(symbol: string): Promise<MarkPriceData> {
    const m = this.engine.marketState(symbol);
    return { markPrice: m.markPrice, indexPrice: m.indexPrice, fundingRate: m.fundingRate, nextFundingTime: m.nextFundingTime };
  }
}
