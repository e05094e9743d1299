/**
 * The funding carry backtested on the 2-hour sample. The sample's funding rate is 0.0001 on every
 * mark line (BTCUSDT and ETHUSDT) and its next funding time (08:00) is after its end, so:
 *  - with the example threshold of config/strategy-carry.yaml (enterRate 0.0003) it never enters;
 *  - with config/backtest-carry.yaml (enterRate 0.0001) it goes short (positive funding: longs
 *    pay shorts) with a marketable IOC (at most maxSlippageBps 10 through mark). The IOC fills
 *    against the tape quote at the recorded best bid (tape quotes, docs/recording.md): the
 *    sample's first mark, at 00:00:01, comes after the depth line of the same second, so the
 *    first entry sells 0.02 at its best bid 49988.9 (1 bps under mark 49993.9). Mark then rises
 *    more than maxLossBps 200 above the entry, the strategy exits with a reduce-only IOC buy at
 *    the recorded best ask, and sits out until the next funding time (08:00, after the sample's
 *    end): 2 orders, 2 fills, flat at the end.
 * With `fill.depthQuotes: false` the IOCs meet no liquidity and all expire (also checked).
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

  it('with config/backtest-carry.yaml (enterRate 0.0001) it enters short with an IOC at the recorded best bid, then stops out', async () => {
    const cfg = sampleConfig('carry');
    expect(cfg.strategies[0].params.enterRate).toBe('0.0001');
    expect(cfg.fill.depthQuotes).toBe(true);
    const { outcome } = await runTwice(cfg);
    expectSaneReport(outcome);
    const r = outcome.report;
    const s = r.summary;
    // The entry and the stop-out exit, each filled: no IOC met an empty book.
    expect(s.ordersAccepted).toBe(2);
    expect(r.engine.bot.intents).toBe(2);
    expect(s.ordersExpiredUnfilled).toBe(0);
    expect([s.fills, s.rejections, s.cancels]).toEqual([2, 0, 0]);
    const [entry, exit] = r.fills;
    // The entry: taker, at the recorded best bid of the 00:00:01 depth line, 20 ms latency later.
    expect([entry.time, entry.side, entry.price, entry.quantity, entry.role]).toEqual([1704067201020, 'SELL', '49988.9', '0.02', 'taker']);
    // The exit: taker buy after mark moved over 200 bps against the short.
    expect([exit.side, exit.quantity, exit.role]).toEqual(['BUY', '0.02', 'taker']);
    expect(Number(exit.price)).toBeGreaterThan(Number(entry.price) * 1.02);
    expect(r.finalPositions).toEqual([]);
    expect(s.finalEquity).toBe('9977.203329');
    expect(r.data.tape.quotes.crossed).toBe(0);
  });

  it('with fill.depthQuotes false the IOCs find no liquidity and expire unfilled (the older model)', async () => {
    const cfg = sampleConfig('carry', (c) => {
      c.fill.depthQuotes = false;
    });
    const { outcome } = await runTwice(cfg);
    expectSaneReport(outcome);
    const s = outcome.report.summary;
    // One entry attempt per BTCUSDT mark line (one a second for two hours), each a single IOC.
    expect(s.ordersAccepted).toBe(7200);
    expect([s.fills, s.rejections, s.cancels]).toEqual([0, 0, 0]);
    expect(s.finalEquity).toBe('10000');
  });
});
