/**
 * The L2 fill model on real data (the shared Binance USD-M capture, imported as `perpkit import
 * binance-futures` does).
 * - A recorded trade that reaches no order of the participant still moves the engine's last
 *   price, so a stop-loss on last price (`workingType: CONTRACT_PRICE`) triggers under
 *   `fill.book: l2` where and when it does under the top-of-book model. Under l2 the trades
 *   reached the engine only when they filled a participant's resting order, so such stops never
 *   fired and the run went on with the position unprotected.
 * - Orders the venue places itself (a bracket's MARKET entry, a triggered stop's MARKET order)
 *   walk the recorded levels as the participant's own MARKET order does. They met only the top
 *   level: a 5 BTC entry filled 3.615, and the bracket's exits were never placed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { backtest, type BacktestOutcome } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';
import { writeConfig } from './fixtures';

/**
 * The dip buyer `perpkit init` writes (size 0.01, dip 2 bps, take-profit 5 bps, stop-loss 3 bps),
 * its stop-loss on last price. Prices in integer ticks of 0.1.
 */
const DIP = `const px = (ticks) => (ticks / 10).toFixed(1);
module.exports.default = {
  name: 'dip-cp', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: (ctx) => ({
    onMark(e) {
      if (ctx.myOrders('BTCUSDT').length > 0 || !ctx.position().isZero()) return [];
      const entry = Math.floor(Math.round(Number(e.mark.markPrice) * 10) * (1 - 2 / 10000));
      return [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: px(entry),
        takeProfitPrice: px(Math.ceil(entry * (1 + 5 / 10000))), stopLossPrice: px(Math.floor(entry * (1 - 3 / 10000))), workingType: 'CONTRACT_PRICE' }];
    },
  }),
};
`;

/** One 5 BTC bracket with a MARKET entry on the first mark: take-profit 50 bps above (not reached), stop-loss 3 bps below the mark (on the mark price). */
const BIG = `const px = (ticks) => (ticks / 10).toFixed(1);
module.exports.default = {
  name: 'big-bracket', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: () => {
    let sent = false;
    return {
      onMark(e) {
        if (sent) return [];
        sent = true;
        const m = Math.round(Number(e.mark.markPrice) * 10);
        return [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '5', takeProfitPrice: px(Math.ceil(m * (1 + 50 / 10000))), stopLossPrice: px(Math.floor(m * (1 - 3 / 10000))) }];
      },
    };
  },
};
`;

describeWithSharedData('fill.book l2 on the real Binance capture: last price, and the orders the venue places', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-l2-last-'));
    await importBinanceFutures({ files: [capture], out: path.join(dir, 'rec.jsonl.gz') });
    writeFileSync(path.join(dir, 'dip.js'), DIP);
    writeFileSync(path.join(dir, 'big.js'), BIG);
  }, 60000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(book: 'top' | 'l2', module = './dip.js', limit = '5000'): Promise<BacktestOutcome> {
    const cfg = loadBacktestConfig(
      writeConfig(dir, `${book}.yaml`, {
        account: { balance: limit === '5000' ? '10000' : '1000000' },
        fees: { maker: '0.0002', taker: '0.0005' },
        latency: { placeMs: 20, cancelMs: 20, amendMs: 20 },
        risk: { maxOrderNotional: limit, maxPositionNotional: limit, maxOpenOrders: 5, priceBand: '0.05' },
        strategies: [{ id: 'dip', module, params: {} }],
        fill: { book },
      }),
    );
    return backtest(cfg, { cache: false });
  }

  /** The stop-loss fills (the bracket's exit orders end in `s`): time, price, quantity. */
  const stops = (o: BacktestOutcome): Array<[number, string, string]> => o.report.fills.filter((f) => f.side === 'SELL' && f.clientOrderId.endsWith('s')).map((f) => [f.time, f.price, f.quantity]);

  it('a CONTRACT_PRICE stop-loss triggers under l2 as under top', async () => {
    const top = await run('top');
    const l2 = await run('l2');
    // Under top the first two entries are stopped out as the recorded trades fall through the stops.
    expect(stops(top)).toEqual([
      [1723161347119, '61761', '0.01'],
      [1723161365362, '61733.7', '0.01'],
    ]);
    // Under l2 the same two, then more: under top the third stop's MARKET order met no bid (the
    // trade that triggered it had pulled the tape quote) and expired, leaving the position open;
    // under l2 it walks the recorded bids (as the participant's own order would), so the dip
    // buyer trades on.
    expect(stops(l2).slice(0, 2)).toEqual(stops(top));
    expect(top.report.summary.triggeredExpiredUnfilled).toBe(1);
    expect(l2.report.summary.triggeredExpiredUnfilled).toBe(0);
    expect(stops(l2).length).toBeGreaterThan(2);
    // The l2 run kept its queue model: the entries filled by recorded trades past their queue.
    expect(l2.result.tape.l2?.queueFills).toBeGreaterThan(0);
  }, 120_000);

  /** Fills of the bracket's entry (`e`) or stop-loss (`s`) order: prices in order, and the quantity in all, in steps of 0.001. */
  const leg = (o: BacktestOutcome, end: string): { prices: number[]; steps: number } => {
    const fills = o.report.fills.filter((f) => f.clientOrderId.endsWith(end));
    return { prices: fills.map((f) => Number(f.price)), steps: fills.reduce((a, f) => a + Math.round(Number(f.quantity) * 1000), 0) };
  };

  it('a bracket\'s MARKET entry and its triggered stop walk the recorded levels and fill in full', async () => {
    const o = await run('l2', './big.js', '1000000');
    const entry = leg(o, 'e');
    const stop = leg(o, 's');
    // 5 BTC bought at the recorded asks (13 levels, the best first), then sold at the bids by the stop.
    expect(entry.steps).toBe(5000);
    expect(entry.prices.length).toBeGreaterThan(1);
    expect(entry.prices).toEqual([...entry.prices].sort((a, b) => a - b));
    expect(stop.steps).toBe(5000);
    expect(stop.prices.length).toBeGreaterThan(1);
    expect(stop.prices).toEqual([...stop.prices].sort((a, b) => b - a));
    expect(o.report.finalPositions.filter((p) => p.quantity !== '0')).toEqual([]);
    expect(o.result.tape.l2?.takers).toBe(2);
    // Each took from every level beyond the best it filled at (the best is the tape quote).
    expect(o.result.tape.l2?.levelsTaken).toBe(entry.prices.length - 1 + stop.prices.length - 1);
  }, 120_000);
});
