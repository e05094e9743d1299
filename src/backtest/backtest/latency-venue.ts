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
 *
 * A latency setting is a constant or a list of samples (measured round trips, say), one drawn
 * uniformly per call from a generator seeded with `latency.seed`: the same config gives the same
 * run. Each call's delay is its own, so calls may arrive in another order than sent (as requests
 * on separate connections can).
 *
 * Feed latency (`latency.feedMs`): market data (the injected recorded events and the engine's mark
 * prices) reaches the strategy that long after the engine's market moved, in the order it came
 * (a feed is one stream: a later event never overtakes an earlier one). `feedMs: data` takes each
 * event's latency from the recording: its receive time minus the exchange's time, less the
 * smallest such difference seen so far (the collector's clock offset is unknown, so the fastest
 * event is taken as zero latency), plus `feedBaseMs`; events without an exchange time, and the
 * engine's marks, take the latest such latency. Private events (order updates, fills) are not
 * delayed by the feed: their timing is the order-entry latency's.
 */
import type { Observable } from 'rxjs';
import type { Clock, Scheduler } from '../../core/clock';
import type { ConditionOrderRecord, OrderRecord, PositionRecord, TradeRecord, UserAssetRecord } from '../../protocol/records';
import type { BatchResult } from '../../protocol/rest/common';
import type { MarkPriceData, SymbolSpec } from '../../protocol/rest/market';
import type { PlaceOrderParams, PlaceStrategyParams, PlaceStrategyResult } from '../../protocol/rest/orders';
import { VenueEmitter } from '../../bot/venue/emitter';
import type { AmendParams, OrderRef, Venue, VenueEvent, VenueListener } from '../../bot/venue/venue';
import type { LatencyConfig } from './config';
import { mulberry32 } from '../../core/random';

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
  /** Market-data events delayed by the feed latency and not yet delivered. */
  feedQueued = 0;
  /** When the last delayed market-data event is due (a feed never reorders). */
  private feedDue = 0;
  /** Smallest receive minus exchange time seen (`feedMs: data`), and the latest latency worked out. */
  private minLag = Infinity;
  private lastLag = 0;

  constructor(
    readonly inner: Venue,
    private readonly scheduler: Scheduler,
    private readonly latency: LatencyConfig,
  ) {
    this.name = inner.name;
    this.clock = inner.clock;
    this.draw = mulberry32(latency.seed ?? 1);
    this.events = this.out.events;
    // A plain forwarding listener rather than an operator chain: this runs per event.
    const listener: VenueListener = {
      next: (e) => {
        if (e.type === 'markPrice' || e.type === 'ticker') this.feed(e, undefined);
        else if (e.type !== 'trade' && e.type !== 'depth') this.out.emit(e);
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

  /**
   * Publishes a market-data event from the recording as if the venue had pushed it, after the feed
   * latency (`exchangeTime`: the recorded exchange time, for `feedMs: data`).
   */
  inject(e: VenueEvent, exchangeTime?: number): void {
    this.feed(e, exchangeTime);
  }

  private feed(e: VenueEvent, exchangeTime: number | undefined): void {
    const delay = this.feedDelay(exchangeTime);
    if (delay <= 0 && this.feedQueued === 0) {
      this.out.emit(e);
      return;
    }
    const now = this.clock.now();
    this.feedDue = Math.max(this.feedDue, now + delay);
    this.feedQueued++;
    this.scheduler.after(this.feedDue - now, () => {
      this.feedQueued--;
      this.out.emit(e);
    });
  }

  private feedDelay(exchangeTime: number | undefined): number {
    const { feedMs = 0, feedBaseMs = 0 } = this.latency;
    if (feedMs !== 'data') return feedMs;
    if (exchangeTime !== undefined) {
      const lag = this.clock.now() - exchangeTime;
      if (lag < this.minLag) this.minLag = lag;
      this.lastLag = lag - this.minLag;
    }
    return this.lastLag + feedBaseMs;
  }

  /** Sampled order-entry latencies draw from this seeded generator (deterministic runs). */
  private readonly draw: () => number;

  /** A latency setting: the constant, or one of the samples drawn uniformly. */
  private ms(v: number | readonly number[]): number {
    return typeof v === 'number' ? v : v[Math.floor(this.draw() * v.length)];
  }

  private delayed<T>(setting: number | readonly number[], fn: () => Promise<T>): Promise<T> {
    const ms = this.ms(setting);
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

  openConditionOrders(symbol?: string): Promise<ConditionOrderRecord[]> {
    return this.inner.openConditionOrders(symbol);
  }
  cancelConditionOrder(symbol: string, conditionId: string): Promise<void> {
    return this.delayed(this.latency.cancelMs, () => this.inner.cancelConditionOrder(symbol, conditionId));
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
