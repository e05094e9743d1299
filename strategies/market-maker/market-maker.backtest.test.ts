/**
 * The market maker backtested on the 2-hour sample with config/backtest-market-maker.yaml (the
 * parameters of config/bot-market-maker.yaml).
 */
import { expectSaneReport, maxAbsPosition, runTwice, sampleConfig } from '../../test/helpers/sample-backtest';

describe('market-maker on the sample recording (config/backtest-market-maker.yaml)', () => {
  it('quotes and fills as a maker within its inventory limit, deterministically', async () => {
    const { outcome } = await runTwice(sampleConfig('market-maker'));
    expectSaneReport(outcome);
    const r = outcome.report;
    const s = r.summary;
    expect(s.ordersAccepted).toBeGreaterThan(100);
    expect(s.fills).toBeGreaterThan(100);
    // makerOnly quotes: every fill is a maker fill, on both sides.
    expect(r.fills.every((f) => f.role === 'maker')).toBe(true);
    expect(new Set(r.fills.map((f) => f.side))).toEqual(new Set(['BUY', 'SELL']));
    // Venue rejections are amends racing a fill (20 ms order-entry latency), a small share.
    expect(s.rejections).toBeLessThan(s.ordersAccepted * 0.1);
    // maxInventory 0.1: quoting on the heavy side stops there (one quote of 0.01 may be in flight).
    expect(maxAbsPosition(outcome, 'BTCUSDT')).toBeLessThanOrEqual(0.11 + 1e-9);
    // Two runs of the sample: ~5 s on an idle machine, over 30 s on a loaded one.
  }, 120_000);
});
