/**
 * A Venue in front of the SimVenue that models order-entry latency on the virtual clock: a
 * placement, cancel or amend reaches the engine `latency` ms after the executor sent it (a timer on
 * the backtest's scheduler), and its answer and stream events come back at that moment. Zero
 * latency calls straight through, so a zero-latency backtest orders its calls exactly as the
 * executor does.
 *
 * Public trades and depth come from the recording, not from the engine: the engine's book in a
 * backtest holds only the participant and the tape (each recorded trade re-enacted by a tape maker
 * and taker, or not at all when it cannot reach the participant's orders), so its trades and book
 * are an artefact of the fill model. The driver injects the recorded trade, depth and ticker
 * events instead, the market a live strategy would have seen. Private events and mark prices pass
 * through from the engine.
 */
import type { Observable } from 'rxjs';
import type { Clock, Scheduler } from '../../core/clock';
import type { OrderRecord, PositionRecord, TradeRecord, UserAssetRecord } from '../../protocol/records';
import type { BatchResult } from '../../protocol/rest/common';
import type { MarkPriceData, SymbolSpec } from '../../protocol/rest/market';
import type { PlaceOrderParams, PlaceStrategyParams, PlaceStrategyResult } from '../../protocol/rest/orders';
import { VenueEmitter } from '../../bot/venue/emitter';
import type { AmendParams, OrderRef, Venue, VenueEvent, VenueListener } from '../../bot/venue/venue';
import type { LatencyConfig } from './config';

export class LatencyVenue implements Venue {
  readonly name: string;
  readonly clock: Clock;
  readonly events: Observable<VenueEvent>;
  private readonly out = new VenueEmitter();
  private readonly stopInner: () => void;
  /** Venue calls made so far: the driver lets promises settle only after activity. */
  calls = 0;
  /** Calls sent but not yet arrived at the engine. */
  inFlight = 0;

  constructor(
    readonly inner: Venue,
    private readonly scheduler: Scheduler,
    private readonly latency: LatencyConfig,
  ) {
    this.name = inner.name;
    this.clock = inner.clock;
    this.events = this.out.events;
    // A plain forwarding listener rather than an operator chain: this runs per event.
    const listener: VenueListener = {
      next: (e) => {
        if (e.type !== 'trade' && e.type !== 'depth') this.out.emit(e);
      },
      error: (err: unknown) => this.out.error(err),
    };
    if (inner.listen) {
      this.stopInner = inner.listen(listener);
    } else {
      const sub = inner.events.subscribe(listener);
      this.stopInner = () => sub.unsubscribe();
    }
  }

  listen(listener: VenueListener): () => void {
    return this.out.listen(listener);
  }

  /** Publishes a market-data event from the recording as if the venue had pushed it. */
  inject(e: VenueEvent): void {
    this.out.emit(e);
  }

  private delayed<T>(ms: number, fn: () => Promise<T>): Promise<T> {
    this.calls++;
    if (ms <= 0) return fn();
    this.inFlight++;
    return new Promise<T>((resolve, reject) => {
      this.scheduler.after(ms, () => {
        this.inFlight--;
        this.calls++;
        fn().then(resolve, reject);
      });
    });
  }

  start(marketSymbols: readonly string[]): Promise<void> {
    return this.inner.start(marketSymbols);
  }
  async stop(): Promise<void> {
    await this.inner.stop();
    this.stopInner();
    this.out.complete();
  }
  symbols(): Promise<SymbolSpec[]> {
    return this.inner.symbols();
  }
  placeOrders(orders: PlaceOrderParams[]): Promise<BatchResult> {
    return this.delayed(this.latency.placeMs, () => this.inner.placeOrders(orders));
  }
  cancelOrders(refs: OrderRef[]): Promise<BatchResult> {
    return this.delayed(this.latency.cancelMs, () => this.inner.cancelOrders(refs));
  }
  amendOrders(symbol: string, amends: AmendParams[]): Promise<BatchResult> {
    return this.delayed(this.latency.amendMs, () => this.inner.amendOrders(symbol, amends));
  }
  placeStrategy(params: PlaceStrategyParams): Promise<PlaceStrategyResult> {
    return this.delayed(this.latency.placeMs, () => this.inner.placeStrategy(params));
  }
  cancelAll(symbol?: string): Promise<void> {
    return this.delayed(this.latency.cancelMs, () => this.inner.cancelAll(symbol));
  }
  setLeverage(symbol: string, leverage: number): Promise<void> {
    return this.delayed(this.latency.placeMs, () => this.inner.setLeverage(symbol, leverage));
  }
  // Queries answer from the venue's state at once: the executor uses them to settle unknown
  // outcomes, which a simulated venue never produces.
  queryOrder(ref: OrderRef): Promise<OrderRecord | undefined> {
    return this.inner.queryOrder(ref);
  }
  openOrders(symbol?: string): Promise<OrderRecord[]> {
    return this.inner.openOrders(symbol);
  }

  orderFills(symbol: string, orderId: string): Promise<TradeRecord[]> {
    return this.inner.orderFills(symbol, orderId);
  }
  positions(symbol?: string): Promise<PositionRecord[]> {
    return this.inner.positions(symbol);
  }
  account(): Promise<UserAssetRecord> {
    return this.inner.account();
  }
  markPrice(symbol: string): Promise<MarkPriceData> {
    return this.inner.markPrice(symbol);
  }
}
