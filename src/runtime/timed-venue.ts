/**
 * A Venue that reports how long each call took and whether it failed, for the latency histogram.
 * It wraps rather than patches: the bot sees an ordinary Venue, the adapter stays unaware of
 * metrics, and the same wrapper times a SimVenue in a paper run.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock';
import type { ConditionOrderRecord, OrderRecord, PositionRecord, TradeRecord, UserAssetRecord } from '../protocol/records';
import type { BatchResult } from '../protocol/rest/common';
import type { MarkPriceData, SymbolSpec } from '../protocol/rest/market';
import type { PlaceOrderParams, PlaceStrategyParams, PlaceStrategyResult } from '../protocol/rest/orders';
import type { AmendParams, OrderRef, Venue, VenueEvent } from '../bot/venue/venue';

/** `error` is what a failed call threw. */
export type VenueCallObserver = (method: string, seconds: number, ok: boolean, error?: unknown) => void;

export class TimedVenue implements Venue {
  readonly name: string;
  readonly clock: Clock;
  readonly events: Observable<VenueEvent>;

  constructor(
    readonly inner: Venue,
    private readonly observe: VenueCallObserver,
  ) {
    this.name = inner.name;
    this.clock = inner.clock;
    this.events = inner.events;
  }

  private async timed<T>(method: string, fn: () => Promise<T>): Promise<T> {
    // Monotonic time: a latency must not jump with a wall-clock adjustment.
    const t0 = performance.now();
    try {
      const r = await fn();
      this.observe(method, (performance.now() - t0) / 1000, true);
      return r;
    } catch (e) {
      this.observe(method, (performance.now() - t0) / 1000, false, e);
      throw e;
    }
  }

  start(marketSymbols: readonly string[]): Promise<void> {
    return this.inner.start(marketSymbols);
  }
  stop(): Promise<void> {
    return this.inner.stop();
  }
  symbols(): Promise<SymbolSpec[]> {
    return this.timed('symbols', () => this.inner.symbols());
  }
  placeOrders(orders: PlaceOrderParams[]): Promise<BatchResult> {
    return this.timed('placeOrders', () => this.inner.placeOrders(orders));
  }
  cancelOrders(refs: OrderRef[]): Promise<BatchResult> {
    return this.timed('cancelOrders', () => this.inner.cancelOrders(refs));
  }
  amendOrders(symbol: string, amends: AmendParams[]): Promise<BatchResult> {
    return this.timed('amendOrders', () => this.inner.amendOrders(symbol, amends));
  }
  placeStrategy(params: PlaceStrategyParams): Promise<PlaceStrategyResult> {
    return this.timed('placeStrategy', () => this.inner.placeStrategy(params));
  }
  cancelAll(symbol?: string): Promise<void> {
    return this.timed('cancelAll', () => this.inner.cancelAll(symbol));
  }
  setLeverage(symbol: string, leverage: number): Promise<void> {
    return this.timed('setLeverage', () => this.inner.setLeverage(symbol, leverage));
  }
  queryOrder(ref: OrderRef): Promise<OrderRecord | undefined> {
    return this.timed('queryOrder', () => this.inner.queryOrder(ref));
  }
  openOrders(symbol?: string): Promise<OrderRecord[]> {
    return this.timed('openOrders', () => this.inner.openOrders(symbol));
  }

  openConditionOrders(symbol?: string): Promise<ConditionOrderRecord[]> {
    return this.timed('openConditionOrders', () => this.inner.openConditionOrders(symbol));
  }
  cancelConditionOrder(symbol: string, conditionId: string): Promise<void> {
    return this.timed('cancelConditionOrder', () => this.inner.cancelConditionOrder(symbol, conditionId));
  }

  orderFills(symbol: string, orderId: string): Promise<TradeRecord[]> {
    return this.timed('orderFills', () => this.inner.orderFills(symbol, orderId));
  }
  positions(symbol?: string): Promise<PositionRecord[]> {
    return this.timed('positions', () => this.inner.positions(symbol));
  }
  account(): Promise<UserAssetRecord> {
    return this.timed('account', () => this.inner.account());
  }
  markPrice(symbol: string): Promise<MarkPriceData> {
    return this.timed('markPrice', () => this.inner.markPrice(symbol));
  }
  throttledForMs(): number {
    return this.inner.throttledForMs?.() ?? 0;
  }
}
