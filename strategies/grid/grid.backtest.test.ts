/**
 * The grid example backtested on the 2-hour sample with config/backtest-grid.yaml (the parameters
 * of config/strategy-grid.yaml). The sample starts at 49993.9, trades around it for a quarter of
 * an hour and then rises through the grid's upper bound (1.2 % above the reference), where the
 * grid stops for good: it cancels its levels and flattens with a reduce-only MARKET order. The
 * MARKET order fills against the tape quote at the recorded best ask (tape quotes,
 * docs/recording.md): the short of 0.005 it had when it stopped is bought back in one taker fill
 * and the grid ends the sample flat. (Before tape quotes the flatten found no liquidity, expired,
 * was retried every refreshMs and the short stayed.)
 */
import { expectSaneReport, maxAbsPosition, runTwice, sampleConfig } from '../../test/helpers/sample-backtest';

describe('grid on the sample recording (config/backtest-grid.yaml)', () => {
  it('places its ladder, fills at ladder prices, stops at the range edge, deterministically', async () => {
    const { outcome } = await runTwice(sampleConfig('grid'));
    expectSaneReport(outcome);
    const r = outcome.report;
    expect(r.summary.ordersAccepted).toBeGreaterThanOrEqual(10); // 5 levels a side
    expect(r.summary.fills).toBeGreaterThan(0);
    expect(r.summary.rejections).toBe(0);
    // Every fill but the last (the flatten) is a resting level: maker, at reference + k x 20 bps
    // (100 USDT at 49993.9).
    const flatten = r.fills[r.fills.length - 1];
    for (const f of r.fills.slice(0, -1)) {
      expect(f.role).toBe('maker');
      expect(f.quantity).toBe('0.001');
      const k = (Number(f.price) - 49993.9) / 100;
      expect(Math.abs(k - Math.round(k))).toBeLessThan(1e-6);
      expect(Math.abs(Math.round(k))).toBeLessThanOrEqual(5);
    }
    // A one-way move fills at most levels x quantity.
    expect(maxAbsPosition(outcome, 'BTCUSDT')).toBeLessThanOrEqual(0.005 + 1e-9);
    // Mark leaves [lower, upper] during the sample: the grid cancels its levels and its ladder
    // fills nothing more.
    const upper = 49993.9 * 1.012;
    const exit = r.equity.find((e) => Number(e[3]) > upper);
    expect(exit).toBeDefined();
    expect(r.fills.slice(0, -1).every((f) => f.time <= (exit?.[0] ?? 0))).toBe(true);
    expect(r.summary.cancels).toBeGreaterThan(0);
    // The flatten: one reduce-only MARKET buy of the whole 0.005 short, taker, at the recorded
    // best ask above the range's upper bound; it fills the first time, so no retries follow.
    expect([flatten.side, flatten.quantity, flatten.role]).toEqual(['BUY', '0.005', 'taker']);
    expect(Number(flatten.price)).toBeGreaterThan(upper);
    expect(r.summary.ordersAccepted).toBeLessThan(30);
    expect(r.finalPositions).toEqual([]);
  });
});
