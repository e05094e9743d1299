/**
 * perpkit/indicators against the trading-signals library on the same series, and the promise
 * every indicator makes: one update per value, answers from the past only (no look-ahead).
 *
 * trading-signals is ESM-only and jest runs our code as CommonJS, so the reference values come
 * from a real `node` process running the library on the series we give it.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Dec } from '../../src/core/decimal';
import { Atr, Bollinger, Ema, RollingVolatility, Rsi, Sma, TickBars, TimeBars, VolumeBars, Vwap, type Bar } from '../../src/indicators';

const ROOT = path.resolve(__dirname, '..', '..');

/** A seeded random walk of one-minute bars (mulberry32), prices on a 0.1 tick, with gaps. */
function series(n: number, seed = 42): Bar[] {
  let s = seed >>> 0;
  const rnd = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const tick = (x: number): number => Math.round(x * 10) / 10;
  const out: Bar[] = [];
  let close = 50000;
  for (let i = 0; i < n; i++) {
    const open = tick(close + (rnd() - 0.5) * (i % 37 === 0 ? 400 : 20)); // a gap now and then
    close = tick(open + (rnd() - 0.5) * 120);
    const high = tick(Math.max(open, close) + rnd() * 40);
    const low = tick(Math.min(open, close) - rnd() * 40);
    out.push({ openTime: i * 60_000, open, high, low, close, volume: Math.round(rnd() * 5000) / 1000 + 0.001, trades: 1 });
  }
  return out;
}

const BARS = series(600);
const CLOSES = BARS.map((b) => b.close);

interface Reference {
  sma: Array<number | null>;
  ema: Array<number | null>;
  rsi: Array<number | null>;
  atr: Array<number | null>;
  bb: Array<{ lower: number; middle: number; upper: number } | null>;
  vwap: Array<number | null>;
  sd: Array<number | null>;
}

/** trading-signals on the series, in a node process of its own. */
function reference(bars: Bar[]): Reference {
  const script = `
    import { SMA, EMA, RSI, ATR, BollingerBands, VWAP, getStandardDeviation } from 'trading-signals';
    const bars = JSON.parse(process.argv[1]);
    const sma = new SMA(20), ema = new EMA(10), rsi = new RSI(14), atr = new ATR(14), bb = new BollingerBands(20, 2), vwap = new VWAP();
    const out = { sma: [], ema: [], rsi: [], atr: [], bb: [], vwap: [], sd: [] };
    const returns = [];
    bars.forEach((b, i) => {
      sma.update(b.close); out.sma.push(sma.isStable ? sma.getResultOrThrow() : null);
      ema.update(b.close); out.ema.push(ema.isStable ? ema.getResultOrThrow() : null);
      rsi.update(b.close); out.rsi.push(rsi.isStable ? rsi.getResultOrThrow() : null);
      atr.update(b); out.atr.push(atr.isStable ? atr.getResultOrThrow() : null);
      const r = bb.update(b.close); out.bb.push(r ?? null);
      // A trade is a candle whose typical price is its price.
      out.vwap.push(vwap.update({ high: b.close, low: b.close, close: b.close, volume: b.volume }));
      if (i > 0) returns.push(Math.log(b.close / bars[i - 1].close));
      out.sd.push(returns.length >= 30 ? getStandardDeviation(returns.slice(-30)) : null);
    });
    process.stdout.write(JSON.stringify(out));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(bars)], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 })) as Reference;
}

const REF = reference(BARS);

function expectClose(ours: Array<number | undefined>, theirs: Array<number | null>, from: number, rel = 1e-9): void {
  expect(ours.length).toBe(theirs.length);
  for (let i = from; i < ours.length; i++) {
    const a = ours[i];
    const b = theirs[i];
    if (a === undefined || b === null) throw new Error(`step ${i}: ours ${a}, trading-signals ${b}`);
    if (Math.abs(a - b) > rel * Math.max(1, Math.abs(b))) throw new Error(`step ${i}: ours ${a}, trading-signals ${b}`);
  }
}

describe('against trading-signals on a 600-bar random walk', () => {
  it('SMA(20): the same from the 20th value, nothing before', () => {
    const s = new Sma(20);
    const ours = CLOSES.map((c) => s.update(c));
    expect(ours.slice(0, 19).every((v) => v === undefined)).toBe(true);
    expect(REF.sma.slice(0, 19).every((v) => v === null)).toBe(true);
    expectClose(ours, REF.sma, 19);
  });

  it('EMA(10): the same once the seeds have washed out (ours is seeded with the SMA, theirs with the first value)', () => {
    const e = new Ema(10);
    const ours = CLOSES.map((c) => e.update(c));
    // The seeds differ by design; the difference decays by (1 - 2/11) per value: < 1e-15 after 200.
    expectClose(ours, REF.ema, 200);
    expect(ours[9]).not.toBeCloseTo(REF.ema[9] ?? NaN, 6);
  });

  it("RSI(14), Wilder's: the same from the 15th value", () => {
    const r = new Rsi(14);
    const ours = CLOSES.map((c) => r.update(c));
    expect(ours[13]).toBeUndefined();
    expect(REF.rsi[13]).toBeNull();
    expectClose(ours, REF.rsi, 14);
  });

  it("ATR(14), Wilder's, gaps included: the same from the 14th bar", () => {
    const a = new Atr(14);
    const ours = BARS.map((b) => a.update(b));
    expect(ours[12]).toBeUndefined();
    expectClose(ours, REF.atr, 13);
  });

  it('Bollinger(20, 2): the same middle and bands', () => {
    const b = new Bollinger(20, 2);
    const ours = CLOSES.map((c) => b.update(c));
    for (const k of ['lower', 'middle', 'upper'] as const) {
      expectClose(
        ours.map((x) => x?.[k]),
        REF.bb.map((x) => x?.[k] ?? null),
        19,
      );
    }
  });

  it('VWAP: exact decimals, equal to the float reference to 1e-12', () => {
    const v = new Vwap();
    const ours = BARS.map((b) => v.update(String(b.close), String(b.volume)));
    expectClose(
      ours.map((x) => x?.toNumber()),
      REF.vwap,
      0,
      1e-12,
    );
    // Exact: the sums in decimals, checked against a direct computation.
    let pq = new Dec(0);
    let q = new Dec(0);
    for (const b of BARS) {
      pq = pq.plus(new Dec(String(b.close)).times(String(b.volume)));
      q = q.plus(String(b.volume));
    }
    expect(v.value?.eq(pq.div(q))).toBe(true);
  });

  it('realised volatility(30): the sample deviation of log returns, their population deviation x sqrt(n / (n - 1))', () => {
    const vol = new RollingVolatility(30);
    const ours = CLOSES.map((c) => vol.update(c));
    const scaled = REF.sd.map((x) => (x === null ? null : x * Math.sqrt(30 / 29)));
    expectClose(ours, scaled, 30, 1e-7);
  });
});

describe('no look-ahead: an answer depends on the values up to it only', () => {
  /** The outputs over the series, and over the series with everything after `k` changed. */
  function unchangedUpTo(make: () => (b: Bar) => unknown, k: number): void {
    const changed = BARS.map((b, i) => (i <= k ? b : { ...b, open: b.open * 1.5, high: b.high * 1.6, low: b.low * 1.4, close: b.close * 1.5, volume: b.volume * 7 }));
    const a = make();
    const b = make();
    const x = BARS.map((bar) => a(bar));
    const y = changed.map((bar) => b(bar));
    expect(y.slice(0, k + 1)).toEqual(x.slice(0, k + 1));
    expect(y.slice(k + 1)).not.toEqual(x.slice(k + 1));
  }
  const cases: Array<[string, () => (b: Bar) => unknown]> = [
    ['SMA', () => ((s) => (b: Bar) => s.update(b.close))(new Sma(20))],
    ['EMA', () => ((s) => (b: Bar) => s.update(b.close))(new Ema(10))],
    ['RSI', () => ((s) => (b: Bar) => s.update(b.close))(new Rsi(14))],
    ['ATR', () => ((s) => (b: Bar) => s.update(b))(new Atr(14))],
    ['Bollinger', () => ((s) => (b: Bar) => s.update(b.close))(new Bollinger(20))],
    ['VWAP', () => ((s) => (b: Bar) => s.update(String(b.close), String(b.volume))?.toString())(new Vwap())],
    ['volatility', () => ((s) => (b: Bar) => s.update(b.close))(new RollingVolatility(30))],
    ['time bars', () => ((s) => (b: Bar) => s.update(b.openTime, b.close, b.volume))(new TimeBars(180_000))],
    ['volume bars', () => ((s) => (b: Bar) => s.update(b.openTime, b.close, b.volume))(new VolumeBars(10))],
    ['tick bars', () => ((s) => (b: Bar) => s.update(b.openTime, b.close, b.volume))(new TickBars(4))],
  ];
  it.each(cases)('%s', (_name, make) => unchangedUpTo(make, 250));
});

describe('volume, tick and session bars', () => {
  it('volume bars close on the trade that fills them, that trade included', () => {
    const v = new VolumeBars(1);
    expect(v.update(1000, 100, 0.4)).toBeUndefined();
    expect(v.update(2000, 101, 0.4)).toBeUndefined();
    expect(v.update(3000, 99, 0.5)).toEqual({ openTime: 1000, open: 100, high: 101, low: 99, close: 99, volume: 1.3, trades: 3 });
    expect(v.open).toBeUndefined();
    expect(v.update(4000, 100, 2)?.volume).toBe(2); // one big trade: a bar of its own
  });

  it('volume bars sum quantities as decimals: 0.7 + 0.1 fills a bar of 0.8 (a float sum is 0.7999999999999999)', () => {
    const v = new VolumeBars(0.8);
    expect(v.update(1000, 100, 0.7)).toBeUndefined();
    expect(v.update(2000, 101, 0.1)).toEqual({ openTime: 1000, open: 100, high: 101, low: 100, close: 101, volume: 0.8, trades: 2 });
    // A run of small trades: 0.1 ten times is 1 exactly, and the bar closes on the tenth.
    const w = new VolumeBars(1);
    const closed = Array.from({ length: 10 }, (_, i) => w.update(i, 100, 0.1));
    expect(closed.slice(0, 9).every((b) => b === undefined)).toBe(true);
    expect(closed[9]?.volume).toBe(1);
    expect(w.update(11, 100, 0.3)).toBeUndefined(); // a new bar starts from 0
    expect(w.open?.volume).toBe(0.3);
  });

  it('tick bars hold exactly `count` trades', () => {
    const t = new TickBars(2);
    expect(t.update(1, 10, 1)).toBeUndefined();
    expect(t.update(2, 12, 1)).toEqual({ openTime: 1, open: 10, high: 12, low: 10, close: 12, volume: 2, trades: 2 });
    expect(t.update(3, 11, 1)).toBeUndefined();
    expect(t.open?.trades).toBe(1);
  });

  it('VWAP with sessions starts over at each session boundary', () => {
    const v = new Vwap(86_400_000);
    v.update('100', '1', 1000);
    expect(v.update('200', '1', 2000)?.toString()).toBe('150');
    expect(v.update('300', '2', 86_400_000)?.toString()).toBe('300');
    expect(v.volume.toString()).toBe('2');
  });

  it('VWAP with sessions ignores a late trade of an earlier session instead of restarting the current one', () => {
    const v = new Vwap(1000);
    v.update('100', '1', 1500);
    expect(v.update('200', '1', 1600)?.toString()).toBe('150');
    expect(v.update('999', '1', 900)?.toString()).toBe('150'); // session 0 is over: ignored
    expect(v.update('300', '2', 1700)?.toString()).toBe('225'); // (100 + 200 + 600) / 4
    expect(v.volume.toString()).toBe('4');
    expect(() => v.update('300', '1', NaN)).toThrow(/finite/);
    expect(v.value?.toString()).toBe('225');
  });

  it('bars refuse a trade without a finite time (a NaN time used to make the open bar swallow every later trade)', () => {
    const t = new TimeBars(1000);
    expect(() => t.update(NaN, 10, 1)).toThrow(/finite/);
    t.update(1000, 10, 1);
    expect(() => t.update(NaN, 11, 1)).toThrow(/finite/);
    expect(t.update(2000, 12, 1)).toEqual({ openTime: 1000, open: 10, high: 10, low: 10, close: 10, volume: 1, trades: 1 });
    expect(() => new TickBars(2).update(Infinity, 10, 1)).toThrow(/finite/);
  });

  it('SMA and Bollinger recover from a value far larger than the rest once it leaves the window', () => {
    // A bad tick of 1e17 among ones: 1e17 + 1 + 1 - 1e17 was 0 in a plain float sum (0.333.. for
    // an average of three ones, and Bollinger bands of -1..1.67 around it for a flat window).
    const s = new Sma(3);
    expect([1e17, 1, 1, 1, 1].map((x) => s.update(x)).slice(3)).toEqual([1, 1]);
    const b = new Bollinger(3);
    [1e17, 1, 1].forEach((x) => b.update(x));
    expect(b.update(1)).toEqual({ lower: 1, middle: 1, upper: 1 });
    // A flat window of a real price averages to that price, so its bands have zero width.
    const f = new Bollinger(50);
    [61800.3, 61805.3, 61799.9, ...Array<number>(60).fill(61805.3)].forEach((x) => f.update(x));
    expect(f.value).toEqual({ lower: 61805.3, middle: 61805.3, upper: 61805.3 });
  });

  it('refuse bad input by rule', () => {
    expect(() => new Sma(0)).toThrow(/at least 1/);
    expect(() => new Rsi(14).update(NaN)).toThrow(/finite/);
    expect(() => new Bollinger(1)).toThrow(/at least 2/);
    expect(() => new Vwap().update('0', '1')).toThrow(/positive price/);
    expect(() => new VolumeBars(0)).toThrow(/positive/);
    expect(() => new TickBars(1.5)).toThrow(/whole number/);
  });
});
