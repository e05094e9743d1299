/**
 * The funding carry backtested on the 2-hour sample. The sample's funding rate is 0.0001 on every
 * mark line (BTCUSDT and ETHUSDT) and its next funding time (08:00) is after its end, so:
 *  - with the example threshold of config/strategy-carry.yaml (enterRate 0.0003) it never enters;
 *  - with config/backtest-carry.yaml (enterRate 0.0001) it tries to go short (positive funding:
 *    longs pay shorts) with a marketable IOC on every mark update; under the backtester's tape
 *    fill model an IOC finds no resting liquidity (recorded depth is not placed in the book,
 *    docs/recording.md "Model limits"), so every entry expires unfilled.
 * If the fill model ever takes IOCs against recorded depth, the second case should enter short.
 */
import { expectSaneReport, runTwice, sampleConfig } from '../../test/helpers/sample-backtest';

describe('carry on the sample recording', () => {
  it('with the example enterRate 0.0003 it sends nothing: |funding rate| 0.0001 stays below it', async () => {
    const cfg = sampleConfig('carry', (c) => {
      c.strategies[0].params.enterRate = '0.0003';
    });
    const { outcome } = await runTwice(cfg);
    expectSaneReport(outcome);
    const s = outcome.report.summary;
    expect([s.ordersAccepted, s.fills, s.rejections, s.cancels]).toEqual([0, 0, 0, 0]);
    expect(s.finalEquity).toBe('10000');
  });

  it('with config/backtest-carry.yaml (enterRate 0.0001) it tries to enter on every mark; the IOCs expire unfilled', async () => {
    const cfg = sampleConfig('carry');
    expect(cfg.strategies[0].params.enterRate).toBe('0.0001');
    const { outcome, ms } = await runTwice(cfg);
    expectSaneReport(outcome);
    const s = outcome.report.summary;
    // One entry attempt per BTCUSDT mark line (one a second for two hours), each a single IOC.
    expect(s.ordersAccepted).toBe(7200);
    expect(outcome.report.engine.bot.intents).toBe(7200);
    expect([s.fills, s.rejections, s.cancels]).toEqual([0, 0, 0]);
    expect(outcome.report.finalPositions).toEqual([]);
    expect(s.finalEquity).toBe('10000');
    expect(ms).toBeLessThan(10_000);
  });
});
