/**
 * The trend follower backtested on the 2-hour sample with config/backtest-trend.yaml (the
 * parameters of config/strategy-trend.yaml: one-minute bars, EMA 9/21, ATR 14). The 9/21 EMAs of
 * one-minute bars need 21 bars before the first signal; the sample's two hours give two crossings
 * that enter (5 fills; the first entry's exit leg closes it).
 */
import { expectSaneReport, runTwice, sampleConfig } from '../../test/helpers/sample-backtest';

describe('trend on the sample recording (config/backtest-trend.yaml)', () => {
  it('enters on a crossing with a bracket whose exit leg closes the position, deterministically', async () => {
    const { outcome } = await runTwice(sampleConfig('trend'));
    expectSaneReport(outcome);
    const r = outcome.report;
    // A bracket is one OTOCO: entry, take-profit and stop-loss orders on the venue.
    expect(r.summary.ordersAccepted).toBeGreaterThanOrEqual(3);
    expect(r.summary.rejections).toBe(0);
    expect(r.summary.fills).toBeGreaterThanOrEqual(2);
    const [entry, exit] = r.fills;
    // No entry before the slow EMA has its 21 one-minute bars.
    expect(entry.time - r.data.startTime).toBeGreaterThanOrEqual(21 * 60_000);
    expect(entry.quantity).toBe('0.01');
    expect(exit.side).not.toBe(entry.side);
    expect(exit.quantity).toBe(entry.quantity);
    // The exit is one of the bracket's legs: the position is flat at the end.
    expect(r.finalPositions).toEqual([]);
  });
});
