/**
 * Public market data derived from engine events: recent trades, klines and the rolling 24 h
 * ticker. Kept in memory from the events the core publishes (and replays at start).
 */
import { Dec, formatDec } from '../../core/decimal';
import type { KlineInterval } from '../../core/enums';
import type { Kline, PublicTrade } from '../../protocol/rest/market';
import type { EngineEvent } from '../engine/events';

const MINUTE = 60_000;
const INTERVAL_MS: Record<KlineInterval, number> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '1d': 1440 * MINUTE,
};
/** One-minute bars kept per symbol (7 days); longer intervals are built from them. */
const MAX_MINUTE_BARS = 7 * 1440;
const MAX_TRADES = 1000;

interface Bar {
  openTime: number;
  open: Dec;
  high: Dec;
  low: Dec;
  close: Dec;
  volume: Dec;
  quoteVolume: Dec;
  tradeCount: number;
}

/** Trades of one price and quantity in the newest bar, not yet added into it. */
interface PendingFills {
  price: string;
  quantity: string;
  count: number;
}

interface SymbolData {
  trades: PublicTrade[];
  bars: Bar[];
  /**
   * The newest bar's trades since it was last brought up to date, counted per price and
   * quantity: a trade costs a Map update instead of six decimal operations on the order path,
   * and the bar is brought up to date (one multiplication per distinct price and quantity, exact
   * like the per-trade sums) when it is read or the next bar opens.
   */
  pending: Map<string, PendingFills>;
  /** Price of the newest pending trade (the bar's close once folded). */
  pendingClose: string | undefined;
}

export class MarketDataStore {
  private readonly data = new Map<string, SymbolData>();

  constructor(symbols: string[]) {
    for (const s of symbols) this.data.set(s, { trades: [], bars: [], pending: new Map(), pendingClose: undefined });
  }

  /** Feed the events of one command (live or replayed). */
  onEvents(events: readonly EngineEvent[]): void {
    for (const e of events) {
      if (e.kind !== 'trade') continue;
      const d = this.data.get(e.symbol);
      if (!d) continue;
      const t: PublicTrade = { tradeId: e.tradeId, price: e.price, quantity: e.quantity, side: e.side, time: e.time };
      d.trades.push(t);
      if (d.trades.length > MAX_TRADES * 2) d.trades.splice(0, d.trades.length - MAX_TRADES);
      this.addToBar(d, t);
    }
  }

  private addToBar(d: SymbolData, t: PublicTrade): void {
    const openTime = Math.floor(t.time / MINUTE) * MINUTE;
    let bar = d.bars[d.bars.length - 1];
    if (!bar || bar.openTime < openTime) {
      this.fold(d);
      const price = new Dec(t.price);
      bar = { openTime, open: price, high: price, low: price, close: price, volume: new Dec(0), quoteVolume: new Dec(0), tradeCount: 0 };
      d.bars.push(bar);
      if (d.bars.length > MAX_MINUTE_BARS) d.bars.splice(0, d.bars.length - MAX_MINUTE_BARS);
    }
    const key = `${t.price} ${t.quantity}`;
    const p = d.pending.get(key);
    if (p === undefined) d.pending.set(key, { price: t.price, quantity: t.quantity, count: 1 });
    else p.count++;
    d.pendingClose = t.price;
    bar.tradeCount++;
  }

  /** Adds the pending trades into the newest bar. */
  private fold(d: SymbolData): void {
    const bar = d.bars[d.bars.length - 1];
    if (bar === undefined || d.pendingClose === undefined) return;
    for (const p of d.pending.values()) {
      const price = new Dec(p.price);
      const qty = new Dec(p.quantity).times(p.count);
      if (price.gt(bar.high)) bar.high = price;
      if (price.lt(bar.low)) bar.low = price;
      bar.volume = bar.volume.plus(qty);
      bar.quoteVolume = bar.quoteVolume.plus(price.times(qty));
    }
    bar.close = new Dec(d.pendingClose);
    d.pending.clear();
    d.pendingClose = undefined;
  }

  /** Most recent trades, newest last. */
  recentTrades(symbol: string, limit: number): PublicTrade[] {
    const d = this.data.get(symbol);
    if (!d) return [];
    return d.trades.slice(-limit).map((t) => ({ ...t }));
  }

  lastTradePrice(symbol: string): string | undefined {
    const d = this.data.get(symbol);
    return d && d.trades.length > 0 ? d.trades[d.trades.length - 1].price : undefined;
  }

  /** Bars of an interval, oldest first, that open within [startTime, endTime], the last `limit`. */
  klines(symbol: string, interval: KlineInterval, limit: number, startTime?: number, endTime?: number): Kline[] {
    const d = this.data.get(symbol);
    if (!d) return [];
    this.fold(d);
    const ms = INTERVAL_MS[interval];
    const out: Kline[] = [];
    let cur: Bar | undefined;
    const flush = (): void => {
      if (!cur) return;
      out.push({
        openTime: cur.openTime,
        closeTime: cur.openTime + ms - 1,
        open: formatDec(cur.open),
        high: formatDec(cur.high),
        low: formatDec(cur.low),
        close: formatDec(cur.close),
        volume: formatDec(cur.volume),
        quoteVolume: formatDec(cur.quoteVolume),
        tradeCount: cur.tradeCount,
      });
    };
    for (const b of d.bars) {
      const open = Math.floor(b.openTime / ms) * ms;
      if (startTime !== undefined && open < startTime) continue;
      if (endTime !== undefined && open > endTime) continue;
      if (!cur || cur.openTime !== open) {
        flush();
        cur = { ...b, openTime: open };
      } else {
        if (b.high.gt(cur.high)) cur.high = b.high;
        if (b.low.lt(cur.low)) cur.low = b.low;
        cur.close = b.close;
        cur.volume = cur.volume.plus(b.volume);
        cur.quoteVolume = cur.quoteVolume.plus(b.quoteVolume);
        cur.tradeCount += b.tradeCount;
      }
    }
    flush();
    return out.slice(-limit);
  }

  /** Rolling 24 h figures at minute granularity; prices "0" when there was no trade. */
  ticker24h(symbol: string, now: number): { openPrice: string; high: string; low: string; lastPrice: string; volume: string; quoteVolume: string; priceChangePercent: string } {
    const d = this.data.get(symbol);
    if (d) this.fold(d);
    const from = now - 1440 * MINUTE;
    const bars = d ? d.bars.filter((b) => b.openTime >= from) : [];
    if (bars.length === 0) {
      const last = this.lastTradePrice(symbol) ?? '0';
      return { openPrice: last, high: last, low: last, lastPrice: last, volume: '0', quoteVolume: '0', priceChangePercent: '0' };
    }
    let high = bars[0].high;
    let low = bars[0].low;
    let volume = new Dec(0);
    let quote = new Dec(0);
    for (const b of bars) {
      if (b.high.gt(high)) high = b.high;
      if (b.low.lt(low)) low = b.low;
      volume = volume.plus(b.volume);
      quote = quote.plus(b.quoteVolume);
    }
    const open = bars[0].open;
    const last = bars[bars.length - 1].close;
    return {
      openPrice: formatDec(open),
      high: formatDec(high),
      low: formatDec(low),
      lastPrice: formatDec(last),
      volume: formatDec(volume),
      quoteVolume: formatDec(quote),
      priceChangePercent: formatDec(last.minus(open).div(open).times(100), 2),
    };
  }
}
