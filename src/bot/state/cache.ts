/**
 * The bot's view of the venue, updated from venue events before they are published (a strategy
 * reacting to an event reads the state that event produced) and corrected by reconciliation.
 */
import { Dec } from '../../core/decimal';
import type { OrderRecord, PositionRecord, UserAssetRecord } from '../../protocol/records';
import type { MarkPriceData, PriceLevel } from '../../protocol/rest/market';
import type { TickerPushData } from '../../protocol/ws';

const OPEN = new Set(['NEW', 'PARTIALLY_FILLED']);

export const positionKey = (symbol: string, positionSide: string): string => `${symbol}:${positionSide}`;

/** Read-only view handed to strategies and the risk engine. */
export interface StateView {
  openOrders(symbol?: string): readonly OrderRecord[];
  /** An open order by clientOrderId. */
  order(clientOrderId: string): OrderRecord | undefined;
  position(symbol: string, positionSide?: string): PositionRecord | undefined;
  positions(): readonly PositionRecord[];
  asset(): UserAssetRecord | undefined;
  mark(symbol: string): MarkPriceData | undefined;
  lastPrice(symbol: string): string | undefined;
  depth(symbol: string): { bids: readonly PriceLevel[]; asks: readonly PriceLevel[] } | undefined;
  ticker(symbol: string): TickerPushData | undefined;
}

export class StateCache implements StateView {
  private readonly orders = new Map<string, OrderRecord>();
  private readonly positionsByKey = new Map<string, PositionRecord>();
  private assetRecord: UserAssetRecord | undefined;
  private readonly marks = new Map<string, MarkPriceData>();
  private readonly lasts = new Map<string, string>();
  private readonly books = new Map<string, { bids: PriceLevel[]; asks: PriceLevel[] }>();
  private readonly tickers = new Map<string, TickerPushData>();
  /** Last update time per order, so a late stale update never moves an order backwards. */
  private readonly orderTimes = new Map<string, number>();
  /**
   * Orders seen final (clientOrderId -> orderId), so that a duplicated or late NEW /
   * PARTIALLY_FILLED update arriving after the final one cannot bring the order back into the
   * open set: a final order never reopens. Bounded (oldest forgotten first).
   */
  private readonly finals = new Map<string, string>();
  private static readonly KEEP_FINALS = 10000;

  // ------------------------------------------------------------------ writes (runtime only)

  /** Applies an order update; returns false when it is older than what the cache holds. */
  applyOrder(o: OrderRecord): boolean {
    const prev = this.orders.get(o.clientOrderId);
    const prevTime = this.orderTimes.get(o.clientOrderId);
    if (prev && prev.orderId === o.orderId && prevTime !== undefined && o.updateTime < prevTime) return false;
    if (prev && prev.orderId === o.orderId && Number(o.executedQty) < Number(prev.executedQty)) return false;
    if (OPEN.has(o.status) && this.finals.get(o.clientOrderId) === o.orderId) return false;
    if (!OPEN.has(o.status)) this.rememberFinal(o.clientOrderId, o.orderId);
    if (OPEN.has(o.status)) {
      this.orders.set(o.clientOrderId, o);
      this.orderTimes.set(o.clientOrderId, o.updateTime);
    } else if (!prev || prev.orderId === o.orderId) {
      this.orders.delete(o.clientOrderId);
      this.orderTimes.delete(o.clientOrderId);
    }
    return true;
  }

  private rememberFinal(clientOrderId: string, orderId: string): void {
    this.finals.delete(clientOrderId);
    this.finals.set(clientOrderId, orderId);
    if (this.finals.size > StateCache.KEEP_FINALS) {
      const oldest = this.finals.keys().next();
      if (oldest.done !== true) this.finals.delete(oldest.value);
    }
  }

  applyPosition(p: PositionRecord): void {
    const key = positionKey(p.symbol, p.positionSide);
    if (p.quantity === '0') this.positionsByKey.delete(key);
    else this.positionsByKey.set(key, p);
  }

  /** Where a polled set of positions differs from the cached one: each position whose quantity is not the same (absent is 0). */
  positionDifferences(polled: readonly PositionRecord[]): Array<{ symbol: string; positionSide: string; local: string; venue: string }> {
    const venueByKey = new Map(polled.map((p) => [positionKey(p.symbol, p.positionSide), p]));
    const keys = new Set([...venueByKey.keys(), ...this.positions().map((p) => positionKey(p.symbol, p.positionSide))]);
    const out: Array<{ symbol: string; positionSide: string; local: string; venue: string }> = [];
    for (const key of keys) {
      const [symbol, positionSide] = key.split(':');
      const local = this.position(symbol, positionSide)?.quantity ?? '0';
      const venue = venueByKey.get(key)?.quantity ?? '0';
      if (!new Dec(local).eq(venue)) out.push({ symbol, positionSide, local, venue });
    }
    return out;
  }

  /** Replaces all positions with a polled set (reconciliation). */
  replacePositions(list: readonly PositionRecord[]): void {
    this.positionsByKey.clear();
    for (const p of list) this.applyPosition(p);
  }

  /** Replaces all open orders with a fetched set (reconciliation). */
  replaceOpenOrders(list: readonly OrderRecord[]): void {
    this.orders.clear();
    this.orderTimes.clear();
    for (const o of list) this.applyOrder(o);
  }

  setAsset(a: UserAssetRecord): void {
    this.assetRecord = a;
  }

  setMark(symbol: string, m: MarkPriceData): void {
    this.marks.set(symbol, m);
  }

  setLast(symbol: string, price: string): void {
    this.lasts.set(symbol, price);
  }

  setDepth(symbol: string, bids: PriceLevel[], asks: PriceLevel[]): void {
    this.books.set(symbol, { bids, asks });
  }

  setTicker(symbol: string, t: TickerPushData): void {
    this.tickers.set(symbol, t);
  }

  // ------------------------------------------------------------------ reads

  openOrders(symbol?: string): readonly OrderRecord[] {
    const all = [...this.orders.values()];
    return symbol === undefined ? all : all.filter((o) => o.symbol === symbol);
  }

  order(clientOrderId: string): OrderRecord | undefined {
    return this.orders.get(clientOrderId);
  }

  position(symbol: string, positionSide = 'BOTH'): PositionRecord | undefined {
    return this.positionsByKey.get(positionKey(symbol, positionSide));
  }

  positions(): readonly PositionRecord[] {
    return [...this.positionsByKey.values()];
  }

  asset(): UserAssetRecord | undefined {
    return this.assetRecord;
  }

  mark(symbol: string): MarkPriceData | undefined {
    return this.marks.get(symbol);
  }

  lastPrice(symbol: string): string | undefined {
    return this.lasts.get(symbol);
  }

  depth(symbol: string): { bids: readonly PriceLevel[]; asks: readonly PriceLevel[] } | undefined {
    return this.books.get(symbol);
  }

  ticker(symbol: string): TickerPushData | undefined {
    return this.tickers.get(symbol);
  }
}
