/**
 * The grid example backtested on the 2-hour sample with config/backtest-grid.yaml (the parameters
 * of config/strategy-grid.yaml). The sample starts at 49993.9, trades around it for a quarter of
 * an hour and then rises through the grid's upper bound (1.2 % above the reference), where the
 * grid stops for good: it cancels its levels and flattens with a reduce-only MARKET order. Under
 * the backtester's tape fill model a MARKET order finds no resting liquidity (recorded depth is
 * not placed in the book, docs/recording.md "Model limits"), so the flatten expires, is retried
 * every refreshMs, and the grid ends the sample holding the short it had when it stopped. If the
 * fill model ever takes such orders against recorded depth, the end position should become flat.
 */
import { expectSaneReport, maxAbsPosition, runTwice, sampleConfig } from '../../test/helpers/sample-backtest';

describe('grid on the sample recording (config/backtest-grid.yaml)', () => {
  it('places its ladder, fills at ladder prices, stops at the range edge, deterministically', async () => {
    const { outcome, ms } = await runTwice(sampleConfig('grid'));
    expectSaneReport(outcome);
    const r = outcome.report;
    expect(r.summary.ordersAccepted).toBeGreaterThanOrEqual(10); // 5 levels a side
    expect(r.summary.fills).toBeGreaterThan(0);
    expect(r.summary.rejections).toBe(0);
    // Every fill is a resting level: maker, at reference + k x 20 bps (100 USDT at 49993.9).
    for (const f of r.fills) {
      expect(f.role).toBe('maker');
      expect(f.quantity).toBe('0.001');
      const k = (Number(f.price) - 49993.9) / 100;
      expect(Math.abs(k - Math.round(k))).toBeLessThan(1e-6);
      expect(Math.abs(Math.round(k))).toBeLessThanOrEqual(5);
    }
    // A one-way move fills at most levels x quantity.
    expect(maxAbsPosition(outcome, 'BTCUSDT')).toBeLessThanOrEqual(0.005 + 1e-9);
    // Mark leaves [lower, upper] during the sample: the grid cancels its levels and fills nothing more.
    const upper = 49993.9 * 1.012;
    const exit = r.equity.find((e) => Number(e[3]) > upper);
    expect(exit).toBeDefined();
    expect(r.fills.every((f) => f.time <= (exit?.[0] ?? 0))).toBe(true);
    expect(r.summary.cancels).toBeGreaterThan(0);
    // The flatten retries (one MARKET order per 5 s refresh) all expire: the short stays.
    expect(r.summary.ordersAccepted).toBeGreaterThan(1000);
    expect(r.finalPositions.map((p) => p.quantity)).toEqual(['-0.005']);
    expect(ms).toBeLessThan(10_000);
  });
});
