/**
 * Venue events into the bot (bot.ts owns one): each writes the state cache first, then is
 * published on the bus, market data only when someone wants its type (bus/market-data-interest.ts);
 * a fill is published once, whether the stream or a reconciliation's query brought it; a private
 * stream that may have missed events has the executor reconcile. The bot's equity reading at
 * marks, for the risk engine's loss limits, is taken here too.
 */
import { exactOfText, plus } from '../core/exact';
import type { Clock } from '../core/clock';
import type { OrderRecord, TradeRecord } from '../protocol/records';
import { orderOfUpdate } from '../protocol/ws';
import type { EventBus } from './bus/event-bus';
import type { Fill } from './bus/events';
import type { MarketDataInterest } from './bus/market-data-interest';
import type { OrderExecutor } from './execution/executor';
import { SeenFills } from './execution/seen-fills';
import { EquityReading } from './risk/equity';
import type { RiskEngine } from './risk/risk-engine';
import type { StateCache } from './state/cache';
import type { VenueEvent } from './venue/venue';

export interface VenueIntakeDeps {
  bus: EventBus;
  cache: StateCache;
  executor: OrderExecutor;
  risk: RiskEngine;
  clock: Clock;
  interest: MarketDataInterest;
  /** The bot's counters this writes. */
  stats: { fills: number; reconnects: number };
  /** Loss limits are configured: mark moves are turned into equity readings. */
  watchEquity: boolean;
  strategyOf(clientOrderId: string): string | undefined;
  reconcile(reason: string): void;
  /** Flushes the tick's intents. */
  kick(): void;
}

export class VenueIntake {
  /** Per symbol of the strategies: when (bot clock) its last market-data event came, or the subscription. */
  readonly marketDataAt = new Map<string, number>();
  private readonly seenFills = new SeenFills();
  private readonly equity: EquityReading;

  constructor(private readonly d: VenueIntakeDeps) {
    this.equity = new EquityReading(d.cache);
  }

  onEvent(v: VenueEvent): void {
    const { bus, cache, clock, interest } = this.d;
    const time = v.time;
    switch (v.type) {
      case 'order': {
        const o = v.data;
        cache.applyOrder(o);
        this.d.executor.onOrderUpdate(o, (cid) => this.d.strategyOf(cid));
        const sid = this.d.strategyOf(o.clientOrderId);
        const { executionType, tradeId, fillId, lastFilledQty, lastFilledPrice, roleType, handlingFee, realizedPnl } = o;
        const order = v.order ?? orderOfUpdate(o);
        bus.publish({ type: 'order', time, order, executionType, strategyId: sid });
        // A duplicated TRADE event (a venue or network may deliver one twice) is the same fill:
        // strategies hear of each fill once, or they would count position they do not have.
        if (executionType === 'TRADE' && lastFilledQty !== undefined && lastFilledPrice !== undefined) {
          this.publishFill(time, sid, order, fillId ?? tradeId, {
            price: lastFilledPrice,
            quantity: lastFilledQty,
            fee: handlingFee ?? '0',
            realizedPnl: realizedPnl ?? '0',
            role: roleType ?? 'taker',
            tradeId: tradeId ?? '',
          });
        }
        break;
      }
      case 'account': {
        cache.setAsset(v.data.userAsset);
        for (const p of v.data.positions) cache.applyPosition(p);
        this.d.risk.observeEquityExact(plus(exactOfText(v.data.userAsset.walletBalance), exactOfText(v.data.userAsset.unrealizedPnl)), time);
        bus.publish({ type: 'account', time, asset: v.data.userAsset });
        for (const p of v.data.positions) bus.publish({ type: 'position', time, position: p, source: 'stream' });
        break;
      }
      case 'condition':
        bus.publish(v.refusal === undefined ? { type: 'condition', time, condition: v.data } : { type: 'condition', time, condition: v.data, refusal: v.refusal });
        break;
      case 'strategyOrder':
        bus.publish(v.refusals === undefined ? { type: 'strategyOrder', time, strategyOrder: v.data } : { type: 'strategyOrder', time, strategyOrder: v.data, refusals: v.refusals });
        break;
      case 'trade':
        this.marketDataAt.set(v.symbol, clock.now());
        cache.setLast(v.symbol, v.data.price);
        if (interest.wants('trade')) bus.publish({ type: 'trade', time, symbol: v.symbol, trade: v.data });
        break;
      case 'markPrice':
        this.marketDataAt.set(v.symbol, clock.now());
        cache.setMark(v.symbol, v.data);
        if (this.d.watchEquity) this.observeEquityAtMarks(time);
        if (interest.wants('markPrice')) bus.publish({ type: 'markPrice', time, symbol: v.symbol, mark: v.data });
        break;
      case 'depth':
        this.marketDataAt.set(v.symbol, clock.now());
        cache.setDepth(v.symbol, v.data.bids, v.data.asks);
        if (interest.wants('depth')) bus.publish({ type: 'depth', time, symbol: v.symbol, bids: v.data.bids, asks: v.data.asks });
        break;
      case 'ticker':
        this.marketDataAt.set(v.symbol, clock.now());
        cache.setTicker(v.symbol, v.data);
        if (interest.wants('ticker')) bus.publish({ type: 'ticker', time, symbol: v.symbol, ticker: v.data });
        break;
      case 'stream':
        bus.publish({ type: 'stream', time, stream: v.stream, status: v.status, detail: v.detail });
        if (v.status !== 'connected') this.d.stats.reconnects++;
        // Whatever the private stream may have missed, its order state is unknown: reconciled now
        // (unauthenticated: it may fail as the stream did; the reconnect reconciles again).
        if (v.stream === 'private' && (v.status === 'reconnected' || v.status === 'gap' || v.status === 'silent' || v.status === 'unauthenticated')) this.d.reconcile(`${v.status}: ${v.detail}`);
        break;
    }
    this.d.kick();
  }

  /**
   * Fills a query found that the stream had not delivered (it was down while they happened):
   * each trade record not seen yet becomes the `fill` event the stream would have published.
   */
  onFillsFound(o: OrderRecord, fills: TradeRecord[], strategyId: string): void {
    const time = this.d.clock.now();
    for (const t of fills) {
      this.publishFill(time, strategyId, o, t.fillId, { price: t.price, quantity: t.quantity, fee: t.handlingFee, realizedPnl: t.realizedPnl, role: t.roleType, tradeId: t.tradeId });
    }
    this.d.kick();
  }

  /**
   * Equity at the cached mark prices: wallet + unrealized PnL of the cached positions. The venue
   * sends no account update when only the mark moves, so without this an open position could
   * lose any amount without the loss limits noticing until the next fill or order.
   */
  observeEquityAtMarks(time: number): void {
    const equity = this.equity.readExact();
    if (equity !== undefined) this.d.risk.observeEquityExact(equity, time);
  }

  /** Publishes a fill the first time it is seen, whether the stream or reconciliation brought it. */
  private publishFill(time: number, strategyId: string | undefined, o: OrderRecord, fillId: string | undefined, f: Pick<Fill, 'price' | 'quantity' | 'fee' | 'realizedPnl' | 'role' | 'tradeId'>): void {
    if (!this.seenFills.firstSight(o.orderId, fillId)) return;
    this.d.stats.fills++;
    this.d.bus.publish({
      type: 'fill',
      time,
      strategyId,
      fill: { symbol: o.symbol, orderId: o.orderId, clientOrderId: o.clientOrderId, side: o.side, positionSide: o.positionSide, ...f },
    });
  }
}
