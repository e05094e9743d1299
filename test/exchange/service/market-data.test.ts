/**
 * MarketDataStore counts a bar's trades per price and quantity and adds them into the bar when it
 * is read or the next bar opens: klines and the 24 h ticker must equal what adding every trade
 * one by one gives, whenever they are read.
 */
import { Dec, formatDec } from '../../../src/core/decimal';
import type { EngineEvent } from '../../../src/exchange/engine/events';
import { MarketDataStore } from '../../../src/exchange/service/market-data';

const MINUTE = 60_000;
const T0 = 1_700_000_040_000; // a minute boundary

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The bars of 1-minute klines computed trade by trade. */
function reference(trades: Array<{ time: number; price: string; quantity: string }>): Array<Record<string, string | number>> {
  const bars: Array<{ openTime: number; open: Dec; high: Dec; low: Dec; close: Dec; volume: Dec; quote: Dec; n: number }> = [];
  for (const t of trades) {
    const openTime = Math.floor(t.time / MINUTE) * MINUTE;
    const p = new Dec(t.price);
    const q = new Dec(t.quantity);
    let b = bars[bars.length - 1];
    if (!b || b.openTime < openTime) {
      b = { openTime, open: p, high: p, low: p, close: p, volume: new Dec(0), quote: new Dec(0), n: 0 };
      bars.push(b);
    }
    if (p.gt(b.high)) b.high = p;
    if (p.lt(b.low)) b.low = p;
    b.close = p;
    b.volume = b.volume.plus(q);
    b.quote = b.quote.plus(p.times(q));
    b.n++;
  }
  return bars.map((b) => ({ openTime: b.openTime, closeTime: b.openTime + MINUTE - 1, open: formatDec(b.open), high: formatDec(b.high), low: formatDec(b.low), close: formatDec(b.close), volume: formatDec(b.volume), quoteVolume: formatDec(b.quote), tradeCount: b.n }));
}

describe('MarketDataStore bars', () => {
  it('klines and ticker equal trade-by-trade sums, read between trades and across bar boundaries', () => {
    const store = new MarketDataStore(['BTCUSDT']);
    const rnd = rng(42);
    const trades: Array<{ time: number; price: string; quantity: string }> = [];
    let time = T0;
    for (let i = 0; i < 3000; i++) {
      time += Math.floor(rnd() * 150);
      const price = (50_000 + Math.floor(rnd() * 8) / 2).toFixed(1);
      const quantity = ['0.001', '0.002', '0.010', '1.5'][Math.floor(rnd() * 4)];
      trades.push({ time, price, quantity });
      const e: EngineEvent = { kind: 'trade', symbol: 'BTCUSDT', time, tradeId: String(i + 1), price, quantity, side: 'BUY' };
      store.onEvents([e]);
      if (i % 97 === 0 || i === 2999) {
        expect(store.klines('BTCUSDT', '1m', 1000)).toEqual(reference(trades));
      }
    }
    const ref = reference(trades);
    const t = store.ticker24h('BTCUSDT', time);
    const high = ref.reduce((m, b) => (new Dec(b.high as string).gt(m) ? new Dec(b.high as string) : m), new Dec(ref[0].high as string));
    const volume = ref.reduce((s, b) => s.plus(b.volume as string), new Dec(0));
    expect(t).toMatchObject({ openPrice: ref[0].open, lastPrice: ref[ref.length - 1].close, high: formatDec(high), volume: formatDec(volume) });
  });
});
