/**
 * Public stream (PROTOCOL.md section 5): subscriptions indexed by symbol and topic kind, so a
 * trade reaches exactly the subscribers of `trade:<symbol>`. Every push is serialized once into a
 * Buffer and the same bytes go to every subscriber.
 *
 * `trade` and `markPrice` are pushed per engine event. `depth` and `ticker` are snapshots, so
 * they are coalesced: a burst of book changes becomes one snapshot per interval (at most one per
 * symbol per `depthIntervalMs`, default 100 ms; ticker per `tickerIntervalMs`, default 1 s), and
 * the last change is always followed by a push. A new subscriber gets a snapshot at once.
 */
import type { Clock } from '../../../core/clock';
import { PUBLIC_TOPIC_KINDS, type ExecutionType, type PublicTopicKind } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import {
  DEPTH_PUSH_LEVELS,
  parsePublicClientFrame,
  parseTopic,
  type PublicAck,
  type PublicNack,
  type PublicPushDataMap,
  type PublicTopic,
  type TickerPushData,
} from '../../../protocol/ws';
import type { EngineEvent } from '../../engine/events';
import type { ExchangeCore } from '../../service/exchange-core';
import type { MarketDataStore } from '../../service/market-data';
import { Coalescer } from './coalescer';
import type { ConnectionBase } from './connection';
import type { GatewayTimers } from './timers';

export interface PublicConnection extends ConnectionBase {
  readonly kind: 'public';
  readonly topics: Set<PublicTopic>;
}

/** Order events after which the book of the order's symbol may look different. */
const BOOK_CHANGING: ReadonlySet<ExecutionType> = new Set<ExecutionType>(['NEW', 'TRADE', 'CANCELED', 'AMENDED', 'EXPIRED']);

interface Channel {
  readonly symbol: string;
  readonly subs: Record<PublicTopicKind, Set<PublicConnection>>;
  readonly depth: Coalescer;
  readonly ticker: Coalescer;
}

export interface PublicStreamsOptions {
  core: ExchangeCore;
  marketData: MarketDataStore;
  timers: GatewayTimers;
  clock: Clock;
  depthIntervalMs: number;
  tickerIntervalMs: number;
  /** Sends bytes as one text frame; the gateway handles closed sockets and slow consumers. */
  send: (conn: PublicConnection, frame: Buffer) => void;
  /** A snapshot that failed to build runs in a timer: report it rather than crash the process. */
  onError: (err: unknown) => void;
}

export class PublicStreams {
  /** Fixed at construction: the engine's symbols do not change while it runs. */
  private readonly channels = new Map<string, Channel>();

  constructor(private readonly o: PublicStreamsOptions) {
    for (const spec of o.core.engine.symbolSpecs()) {
      const symbol = spec.name;
      const ch: Channel = {
        symbol,
        subs: { trade: new Set(), markPrice: new Set(), depth: new Set(), ticker: new Set() },
        depth: new Coalescer(o.timers, o.clock, o.depthIntervalMs, () => this.guard(() => this.pushDepth(ch))),
        ticker: new Coalescer(o.timers, o.clock, o.tickerIntervalMs, () => this.guard(() => this.pushTicker(ch))),
      };
      this.channels.set(symbol, ch);
    }
  }

  // ---------------------------------------------------------------- client frames

  /** Answers one client frame with an ack or a nack; never throws, never closes the connection. */
  onFrame(conn: PublicConnection, data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      this.reply(conn, { success: false, code: ErrorCodes.BODY_NOT_OBJECT, message: 'binary frames are not accepted; send a JSON text frame' });
      return;
    }
    const parsed = parsePublicClientFrame(data);
    if (!parsed.ok) {
      const nack: PublicNack = { success: false, code: parsed.error.code, message: parsed.error.message };
      this.reply(conn, nack);
      return;
    }
    const { op, args } = parsed.value;
    // All or nothing: one unknown symbol refuses the whole frame, so a client never has to work
    // out which half of its request took effect.
    const unknown = args.filter((t) => !this.channels.has((parseTopic(t) as { symbol: string }).symbol));
    if (unknown.length > 0) {
      this.reply(conn, { op, success: false, code: ErrorCodes.UNKNOWN_SYMBOL, message: `unknown symbol in ${unknown.join(', ')}`, args: unknown });
      return;
    }
    const ack: PublicAck = { op, success: true, args };
    this.reply(conn, ack);
    for (const topic of args) {
      if (op === 'subscribe') this.subscribe(conn, topic);
      else this.unsubscribe(conn, topic);
    }
  }

  private subscribe(conn: PublicConnection, topic: PublicTopic): void {
    const { kind, ch } = this.resolve(topic);
    conn.topics.add(topic);
    ch.subs[kind].add(conn);
    // Snapshots go out at once (after the ack), also on a repeated subscribe: a client that
    // subscribes again is asking for the current state.
    if (kind === 'depth') this.o.send(conn, this.frame(ch.symbol, 'depth', this.depthData(ch.symbol)));
    else if (kind === 'ticker') this.o.send(conn, this.frame(ch.symbol, 'ticker', this.tickerData(ch.symbol)));
  }

  private unsubscribe(conn: PublicConnection, topic: PublicTopic): void {
    const { kind, ch } = this.resolve(topic);
    conn.topics.delete(topic);
    this.leave(ch, kind, conn);
  }

  /** Forgets every subscription of a connection that is going away. */
  remove(conn: PublicConnection): void {
    for (const topic of conn.topics) {
      const { kind, ch } = this.resolve(topic);
      this.leave(ch, kind, conn);
    }
    conn.topics.clear();
  }

  private leave(ch: Channel, kind: PublicTopicKind, conn: PublicConnection): void {
    const set = ch.subs[kind];
    set.delete(conn);
    // No pending snapshot for an audience that is gone.
    if (set.size === 0) {
      if (kind === 'depth') ch.depth.cancel();
      else if (kind === 'ticker') ch.ticker.cancel();
    }
  }

  /** Topics reaching here were parsed and their symbol checked. */
  private resolve(topic: PublicTopic): { kind: PublicTopicKind; ch: Channel } {
    const t = parseTopic(topic) as { kind: PublicTopicKind; symbol: string };
    return { kind: t.kind, ch: this.channels.get(t.symbol) as Channel };
  }

  private reply(conn: PublicConnection, msg: PublicAck | PublicNack): void {
    this.o.send(conn, Buffer.from(JSON.stringify(msg)));
  }

  // ---------------------------------------------------------------- engine events

  route(e: EngineEvent): void {
    switch (e.kind) {
      case 'trade': {
        const ch = this.channels.get(e.symbol);
        if (!ch) return;
        if (ch.subs.trade.size > 0) {
          this.broadcast(ch.subs.trade, this.frame(e.symbol, 'trade', { tradeId: e.tradeId, price: e.price, quantity: e.quantity, side: e.side, time: e.time }, e.time));
        }
        if (ch.subs.ticker.size > 0) ch.ticker.mark();
        return;
      }
      case 'markPrice': {
        const ch = this.channels.get(e.symbol);
        if (!ch) return;
        if (ch.subs.markPrice.size > 0) {
          const data = { markPrice: e.markPrice, indexPrice: e.indexPrice, fundingRate: e.fundingRate, nextFundingTime: e.nextFundingTime };
          this.broadcast(ch.subs.markPrice, this.frame(e.symbol, 'markPrice', data, e.time));
        }
        if (ch.subs.ticker.size > 0) ch.ticker.mark();
        return;
      }
      case 'order': {
        if (!BOOK_CHANGING.has(e.executionType)) return;
        const ch = this.channels.get(e.order.symbol);
        if (!ch) return;
        if (ch.subs.depth.size > 0) ch.depth.mark();
        // Best bid and ask are in the ticker.
        if (ch.subs.ticker.size > 0) ch.ticker.mark();
        return;
      }
      default:
        return;
    }
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.o.onError(err);
    }
  }

  private pushDepth(ch: Channel): void {
    if (ch.subs.depth.size === 0) return;
    this.broadcast(ch.subs.depth, this.frame(ch.symbol, 'depth', this.depthData(ch.symbol)));
  }

  private pushTicker(ch: Channel): void {
    if (ch.subs.ticker.size === 0) return;
    this.broadcast(ch.subs.ticker, this.frame(ch.symbol, 'ticker', this.tickerData(ch.symbol)));
  }

  private depthData(symbol: string): PublicPushDataMap['depth'] {
    const d = this.o.core.engine.depth(symbol, DEPTH_PUSH_LEVELS);
    return { bids: d.bids, asks: d.asks };
  }

  private tickerData(symbol: string): TickerPushData {
    const t = this.o.marketData.ticker24h(symbol, this.o.clock.now());
    const m = this.o.core.engine.marketState(symbol);
    return {
      // The engine knows the last price even when the market-data store has no bar for it yet.
      lastPrice: t.lastPrice !== '0' ? t.lastPrice : m.lastPrice,
      markPrice: m.markPrice,
      high: t.high,
      low: t.low,
      volume: t.volume,
      quoteVolume: t.quoteVolume,
      priceChangePercent: t.priceChangePercent,
      openPrice: t.openPrice,
      bestBid: m.bestBid,
      bestAsk: m.bestAsk,
    };
  }

  private frame<K extends PublicTopicKind>(symbol: string, event: K, data: PublicPushDataMap[K], eventTime = this.o.clock.now()): Buffer {
    return Buffer.from(JSON.stringify({ event, symbol, eventTime, data }));
  }

  private broadcast(conns: Set<PublicConnection>, frame: Buffer): void {
    for (const c of conns) this.o.send(c, frame);
  }

  /** Stops pending snapshot timers (gateway closing). */
  close(): void {
    for (const ch of this.channels.values()) {
      ch.depth.cancel();
      ch.ticker.cancel();
    }
  }

  stats(): { subscriptions: number; pendingSnapshots: number } {
    let subscriptions = 0;
    let pendingSnapshots = 0;
    for (const ch of this.channels.values()) {
      for (const k of PUBLIC_TOPIC_KINDS) subscriptions += ch.subs[k].size;
      if (ch.depth.pending) pendingSnapshots++;
      if (ch.ticker.pending) pendingSnapshots++;
    }
    return { subscriptions, pendingSnapshots };
  }
}
