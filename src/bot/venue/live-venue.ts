/**
 * The live Venue: the SDK against the real service or the local exchange. Private events and
 * the public data of the bot's symbols come from the SDK's streams (which keep the listenKey
 * alive, reconnect with backoff, and detect gaps and silence); every resync the streams ask for
 * becomes a `stream` event, on which the bot reconciles over REST.
 */
import type { Observable, Subscription } from 'rxjs';
import { Subject } from '../../core/rx';
import type { Clock } from '../../core/clock';
import { SystemClock } from '../../core/clock';
import type { ConditionOrderRecord, OrderRecord, PositionRecord, TradeRecord, UserAssetRecord } from '../../protocol/records';
import type { BatchResult } from '../../protocol/rest/common';
import type { MarkPriceData, SymbolSpec } from '../../protocol/rest/market';
import type { PlaceOrderParams, PlaceStrategyParams, PlaceStrategyResult } from '../../protocol/rest/orders';
import type { PublicTopic } from '../../protocol/ws';
import { NotFoundError, type PerpClient, type PrivateStream, type PrivateStreamOptions, type PublicStream, type PublicStreamOptions, type ResyncReason } from '../../client';
import type { AmendParams, OrderRef, StreamStatus, Venue, VenueEvent } from './venue';

export interface LiveVenueOptions {
  client: PerpClient;
  clock?: Clock;
  /** No private event for this long while orders work is reported as silence (ms). */
  silenceTimeoutMs?: number;
  /**
   * Heartbeat and reconnect settings of the private stream (ping period, pong deadline, reconnect
   * backoff); the SDK's defaults when absent. The pong deadline bounds how long a half-open
   * connection goes unnoticed.
   */
  privateStream?: Partial<Pick<PrivateStreamOptions, 'pingIntervalMs' | 'pongTimeoutMs' | 'reconnectBackoff' | 'handshakeTimeoutMs' | 'keepAliveIntervalMs'>>;
  /** The same for the public stream of the bot's symbols. */
  publicStream?: Partial<Pick<PublicStreamOptions, 'pingIntervalMs' | 'pongTimeoutMs' | 'reconnectBackoff' | 'handshakeTimeoutMs'>>;
}

const RESYNC_STATUS: Record<ResyncReason, StreamStatus> = {
  reconnect: 'reconnected',
  gap: 'gap',
  silence: 'silent',
  listenKeyRenewed: 'reconnected',
};

export class LiveVenue implements Venue {
  readonly name = 'live';
  readonly clock: Clock;
  private readonly client: PerpClient;
  private readonly subject = new Subject<VenueEvent>();
  readonly events: Observable<VenueEvent> = this.subject.asObservable();
  private priv: PrivateStream | undefined;
  private pub: PublicStream | undefined;
  private readonly subs: Subscription[] = [];
  private readonly silenceTimeoutMs: number | undefined;
  private readonly streamOptions: LiveVenueOptions['privateStream'];
  private readonly publicStreamOptions: LiveVenueOptions['publicStream'];
  /**
   * The listenKey of an earlier run (the daemon's state file), tried before a new one is created
   * (PrivateStreamOptions.listenKey). Set before start().
   */
  resumeListenKey: string | undefined;

  constructor(opts: LiveVenueOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? new SystemClock();
    this.silenceTimeoutMs = opts.silenceTimeoutMs;
    this.streamOptions = opts.privateStream;
    this.publicStreamOptions = opts.publicStream;
  }

  private emitStream(stream: 'private' | 'public', status: StreamStatus, detail: string): void {
    this.subject.next({ type: 'stream', time: this.clock.now(), stream, status, detail });
  }

  async start(marketSymbols: readonly string[]): Promise<void> {
    const priv = this.client.privateStream({
      ...this.streamOptions,
      ...(this.silenceTimeoutMs === undefined ? {} : { silenceTimeoutMs: this.silenceTimeoutMs }),
      ...(this.resumeListenKey === undefined ? {} : { listenKey: this.resumeListenKey }),
    });
    this.priv = priv;
    this.subs.push(
      priv.events$.subscribe((e) => {
        switch (e.event) {
          case 'ORDER_TRADE_UPDATE':
            this.subject.next({ type: 'order', time: e.eventTime, data: e.data });
            break;
          case 'CONDITION_ORDER_UPDATE':
            this.subject.next({ type: 'condition', time: e.eventTime, data: e.data });
            break;
          case 'STRATEGY_ORDER_UPDATE':
            this.subject.next({ type: 'strategyOrder', time: e.eventTime, data: e.data });
            break;
          case 'ACCOUNT_UPDATE':
            this.subject.next({ type: 'account', time: e.eventTime, data: e.data });
            break;
          case 'LISTEN_KEY_EXPIRED':
            // The stream renews the key and reconnects; its resync request follows.
            break;
        }
      }),
      priv.resync$.subscribe((r) => this.emitStream('private', RESYNC_STATUS[r.reason], `${r.reason}: ${JSON.stringify(r.notice)}`)),
      priv.notices$.subscribe((n) => {
        if (n.type === 'close') this.emitStream('private', 'disconnected', `close ${n.code} ${n.reason}`);
        if (n.type === 'unauthenticated') this.emitStream('private', 'unauthenticated', n.error instanceof Error ? n.error.message : String(n.error));
        // A refusal of the keepalive ended on the connection that stayed open: nothing was missed.
        if (n.type === 'authenticated') this.emitStream('private', 'connected', 'the venue accepts the credentials again (the listenKey keepalive went through)');
      }),
    );
    await priv.start();
    this.emitStream('private', 'connected', 'private stream open');
    if (marketSymbols.length > 0) {
      const pub = this.client.publicStream({ ...this.publicStreamOptions });
      this.pub = pub;
      this.subs.push(
        pub.pushes$.subscribe((p) => {
          switch (p.event) {
            case 'trade':
              this.subject.next({ type: 'trade', time: p.eventTime, symbol: p.symbol, data: p.data });
              break;
            case 'markPrice':
              this.subject.next({ type: 'markPrice', time: p.eventTime, symbol: p.symbol, data: p.data });
              break;
            case 'depth':
              this.subject.next({ type: 'depth', time: p.eventTime, symbol: p.symbol, data: p.data });
              break;
            case 'ticker':
              this.subject.next({ type: 'ticker', time: p.eventTime, symbol: p.symbol, data: p.data });
              break;
          }
        }),
        pub.notices$.subscribe((n) => {
          if (n.type === 'close') this.emitStream('public', 'disconnected', `close ${n.code} ${n.reason}`);
          if (n.type === 'open' && n.reconnect) this.emitStream('public', 'reconnected', 'public stream reopened');
        }),
      );
      await pub.start();
      const topics: PublicTopic[] = [];
      for (const s of marketSymbols) topics.push(`trade:${s}`, `markPrice:${s}`, `depth:${s}`, `ticker:${s}`);
      await pub.subscribe(topics);
    }
  }

  async stop(): Promise<void> {
    for (const s of this.subs.splice(0)) s.unsubscribe();
    this.pub?.stop();
    await this.priv?.stop();
    this.subject.complete();
  }

  /** The private stream's listenKey now, for the daemon to save (see resumeListenKey). */
  get listenKey(): string | undefined {
    return this.priv?.currentListenKey;
  }

  /** The private stream, for fault tests and the daemon's health view. */
  get privateStream(): PrivateStream | undefined {
    return this.priv;
  }

  async symbols(): Promise<SymbolSpec[]> {
    return (await this.client.market.getSymbols()).symbols;
  }

  placeOrders(orders: PlaceOrderParams[]): Promise<BatchResult> {
    return this.client.orders.batchPlaceOrders({ orders });
  }

  cancelOrders(refs: OrderRef[]): Promise<BatchResult> {
    return this.client.orders.batchCancelOrders({ orders: refs.map((r) => ({ ...r })) });
  }

  amendOrders(symbol: string, amends: AmendParams[]): Promise<BatchResult> {
    return this.client.orders.batchMoveOrders({ symbol, orders: amends });
  }

  throttledForMs(): number {
    return this.client.core.gate.remainingMs();
  }

  placeStrategy(params: PlaceStrategyParams): Promise<PlaceStrategyResult> {
    return this.client.orders.placeStrategyOrder(params);
  }

  async cancelAll(symbol?: string): Promise<void> {
    const base = symbol === undefined ? {} : { symbol };
    await this.client.orders.cancelAllOrders({ ...base, cancelType: 0 });
    await this.client.orders.cancelAllOrders({ ...base, cancelType: 2 });
  }

  async setLeverage(symbol: string, leverage: number): Promise<void> {
    await this.client.positions.setLeverage({ symbol, leverage });
  }

  async queryOrder(ref: OrderRef): Promise<OrderRecord | undefined> {
    try {
      return await this.client.orders.getOrder(ref);
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  async openOrders(symbol?: string): Promise<OrderRecord[]> {
    const out: OrderRecord[] = [];
    for await (const o of this.client.orders.iterateCurrentOrders(symbol === undefined ? {} : { symbol })) out.push(o);
    return out;
  }

  async openConditionOrders(symbol?: string): Promise<ConditionOrderRecord[]> {
    return (await this.client.orders.getCurrentConditionOrders(symbol === undefined ? {} : { symbol })).list;
  }

  async cancelConditionOrder(symbol: string, conditionId: string): Promise<void> {
    await this.client.orders.cancelConditionOrder({ symbol, conditionId });
  }

  async orderFills(symbol: string, orderId: string): Promise<TradeRecord[]> {
    const out: TradeRecord[] = [];
    for await (const t of this.client.orders.iterateTrades({ symbol, orderId })) out.push(t);
    return out;
  }

  async positions(symbol?: string): Promise<PositionRecord[]> {
    return (await this.client.positions.getPositions(symbol === undefined ? {} : { symbol })).positions;
  }

  async account(): Promise<UserAssetRecord> {
    return (await this.client.user.getUserAsset()).userAsset;
  }

  async markPrice(symbol: string): Promise<MarkPriceData> {
    const m = await this.client.market.getMarkPrice({ symbol });
    return { markPrice: m.markPrice, indexPrice: m.indexPrice, fundingRate: m.fundingRate, nextFundingTime: m.nextFundingTime };
  }
}
