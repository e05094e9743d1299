import { Dec } from '../../src/index';
import { Atr, BarAggregator, Ema, RollingVolatility, TimeBars, Vwap } from '../../src/indicators';

describe('Ema', () => {
  it('is seeded with the simple average, then smooths with alpha = 2 / (period + 1)', () => {
    const e = new Ema(3); // alpha 0.5
    expect([1, 2, 3, 4, 5, 6].map((x) => e.update(x))).toEqual([undefined, undefined, 2, 3, 4, 5]);
  });

  it('follows a hand-computed series (period 4, alpha 0.4)', () => {
    const e = new Ema(4);
    const out = [10, 11, 12, 13, 14, 9, 11.1].map((x) => e.update(x));
    // seed (10+11+12+13)/4 = 11.5; 11.5 + 0.4*(14-11.5) = 12.5; 12.5 + 0.4*(9-12.5) = 11.1; then flat
    expect(out.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(out[3]).toBe(11.5);
    expect(out[4]).toBeCloseTo(12.5, 12);
    expect(out[5]).toBeCloseTo(11.1, 12);
    expect(out[6]).toBeCloseTo(11.1, 12);
  });

  it('agrees with the same recursion in exact decimals over a 30-close series (10 periods)', () => {
    const closes = [22.27, 22.19, 22.08, 22.17, 22.18, 22.13, 22.23, 22.43, 22.24, 22.29, 22.15, 22.39, 22.38, 22.61, 23.36, 24.05, 23.75, 23.83, 23.95, 23.63, 23.82, 23.87, 23.65, 23.19, 23.1, 23.33, 22.68, 23.1, 22.4, 22.17];
    const alpha = new Dec(2).div(11);
    let ref = closes.slice(0, 10).reduce((a, c) => a.plus(String(c)), new Dec(0)).div(10);
    const expected = [ref.toNumber()];
    for (const c of closes.slice(10)) {
      ref = ref.plus(alpha.times(new Dec(String(c)).minus(ref)));
      expected.push(ref.toNumber());
    }
    const e = new Ema(10);
    const out = closes.map((c) => e.update(c)).slice(9);
    out.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 10));
    // first values, to the cent: 22.22, 22.21, 22.24, 22.27, 22.33
    expect(out.slice(0, 5).map((v) => Math.round((v ?? NaN) * 100) / 100)).toEqual([22.22, 22.21, 22.24, 22.27, 22.33]);
  });

  it('refuses a bad period or input', () => {
    expect(() => new Ema(0)).toThrow(/at least 1/);
    expect(() => new Ema(3).update(NaN)).toThrow(/finite/);
  });
});

describe('Atr (Wilder)', () => {
  it('averages the first true ranges, then smooths with (atr * (n - 1) + tr) / n, gaps included', () => {
    const a = new Atr(3);
    const out = [
      { high: 10, low: 8, close: 9 }, //      tr 2 (first bar: high - low)
      { high: 11, low: 9, close: 10.5 }, //   tr max(2, 2, 0) = 2
      { high: 12, low: 10, close: 11 }, //    tr max(2, 1.5, 0.5) = 2 -> atr (2+2+2)/3 = 2
      { high: 15, low: 12, close: 14 }, //    gap up: tr max(3, 4, 1) = 4 -> (2*2 + 4)/3 = 8/3
      { high: 13, low: 12.5, close: 13 }, //  gap down: tr max(0.5, 1, 1.5) = 1.5 -> (16/3 + 1.5)/3 = 20.5/9
    ].map((b) => a.update(b));
    expect(out.slice(0, 2)).toEqual([undefined, undefined]);
    expect(out[2]).toBe(2);
    expect(out[3]).toBeCloseTo(8 / 3, 12);
    expect(out[4]).toBeCloseTo(20.5 / 9, 12);
  });

  it('takes the true range against the previous close', () => {
    expect(Atr.trueRange({ high: 10, low: 9, close: 9.5 }, undefined)).toBe(1);
    expect(Atr.trueRange({ high: 10, low: 9, close: 9.5 }, 12)).toBe(3);
    expect(Atr.trueRange({ high: 10, low: 9, close: 9.5 }, 7)).toBe(3);
  });

  it('refuses a bar with high below low', () => {
    expect(() => new Atr(3).update({ high: 1, low: 2, close: 1 })).toThrow(/high >= low/);
  });
});

describe('RollingVolatility', () => {
  it('is the sample stdev of the last window log returns', () => {
    const v = new RollingVolatility(3);
    const px = [0, 0.1, 0, 0.1].map(Math.exp); // log returns +0.1, -0.1, +0.1
    const out = px.map((p) => v.update(p));
    expect(out.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    // mean 1/30; squared deviations 2 * (1/15)^2 + (2/15)^2 = 6/225; / (n - 1) = 3/225 -> 0.2 / sqrt(3)
    expect(out[3]).toBeCloseTo(0.2 / Math.sqrt(3), 12);
    // window rolls: -0.1, +0.1, -0.1 -> the same; then +0.1, -0.1, 0 -> sqrt(0.02 / 2) = 0.1
    expect(v.update(Math.exp(0))).toBeCloseTo(0.2 / Math.sqrt(3), 12);
    expect(v.update(Math.exp(0))).toBeCloseTo(0.1, 12);
  });

  it('is zero for a flat series and stays exact over a long run', () => {
    const v = new RollingVolatility(5);
    for (let i = 0; i < 10; i++) v.update(100);
    expect(v.value).toBe(0);
    // a long alternating run: the value must equal a fresh computation over the same window
    const w = new RollingVolatility(4);
    let last: number | undefined;
    for (let i = 0; i < 10_000; i++) last = w.update(i % 2 === 0 ? 100 : 101);
    const r = Math.log(101 / 100);
    const fresh = Math.sqrt((4 * r * r) / 3); // returns +r, -r, +r, -r: mean 0
    expect(last).toBeCloseTo(fresh, 12);
  });

  it('refuses a non-positive price', () => {
    expect(() => new RollingVolatility(3).update(0)).toThrow(/positive price/);
  });
});

describe('BarAggregator', () => {
  it('builds OHLCV per epoch-aligned interval and closes a bar on the first trade of a later one', () => {
    const b = new BarAggregator(60_000);
    expect(b.update(120_500, 100, 1)).toBeUndefined();
    expect(b.update(130_000, 103, 2)).toBeUndefined();
    expect(b.update(150_000, 99, 0.5)).toBeUndefined();
    expect(b.update(179_999, 101, 1)).toBeUndefined();
    const closed = b.update(180_000, 102, 1);
    expect(closed).toEqual({ openTime: 120_000, open: 100, high: 103, low: 99, close: 101, volume: 4.5, trades: 4 });
    expect(b.open).toEqual({ openTime: 180_000, open: 102, high: 102, low: 102, close: 102, volume: 1, trades: 1 });
  });

  it('skips intervals without trades and ignores late trades', () => {
    const b = new BarAggregator(1000);
    b.update(1000, 10, 1);
    const closed = b.update(5500, 11, 1); // 2000..4999 had no trades: no bars for them
    expect(closed?.openTime).toBe(1000);
    expect(b.update(4000, 50, 1)).toBeUndefined(); // older than the open bar
    expect(b.open?.high).toBe(11);
  });

  it('closes a quiet bar from a timer once its interval is over', () => {
    const b = new BarAggregator(1000);
    b.update(1200, 10, 1);
    expect(b.closeUntil(1999)).toBeUndefined();
    expect(b.closeUntil(2000)?.close).toBe(10);
    expect(b.closeUntil(3000)).toBeUndefined();
  });
});

describe('trade inputs a JavaScript caller gets wrong', () => {
  // Strings to bars ("1" x "1"), said as numbers, read as valid; text to Vwap gave decimal.js's bare "Invalid argument: abc".
  it('bars name a string as a string; Vwap names the field and the text it cannot read', () => {
    expect(() => new TimeBars(1000).update(0, '1' as unknown as number, '1' as unknown as number)).toThrow('trade must have a positive price and a non-negative quantity, as numbers, got "1" (a string) x "1" (a string)');
    expect(() => new Vwap().update('abc', '1')).toThrow('VWAP trade price must be a decimal string or Dec, got "abc"');
    expect(() => new Vwap().update('100', 'lots')).toThrow('VWAP trade quantity must be a decimal string or Dec, got "lots"');
    expect(new Vwap().update('100', '2')?.toString()).toBe('100');
  });
});
