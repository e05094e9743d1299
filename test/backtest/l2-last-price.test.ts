/**
 * The L2 fill model and the last price, on real data (the shared Binance USD-M capture, imported
 * as `perpkit import binance-futures` does): a recorded trade that reaches no order of the
 * participant still moves the engine's last price, so a stop-loss on last price
 * (`workingType: CONTRACT_PRICE`) triggers under `fill.book: l2` where and when it does under the
 * top-of-book model. Under l2 the trades reached the engine only when they filled a participant's
 * resting order, so such stops never fired and the run went on with the position unprotected.
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

describeWithSharedData('fill.book l2: recorded trades move the last price (real Binance capture)', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-l2-last-'));
    await importBinanceFutures({ files: [capture], out: path.join(dir, 'rec.jsonl.gz') });
    writeFileSync(path.join(dir, 'dip.js'), DIP);
  }, 60000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(book: 'top' | 'l2'): Promise<BacktestOutcome> {
    const cfg = loadBacktestConfig(
      writeConfig(dir, `${book}.yaml`, {
        fees: { maker: '0.0002', taker: '0.0005' },
        latency: { placeMs: 20, cancelMs: 20, amendMs: 20 },
        risk: { maxOrderNotional: '5000', maxPositionNotional: '5000', maxOpenOrders: 5, priceBand: '0.05' },
        strategies: [{ id: 'dip', module: './dip.js', params: {} }],
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
    expect(stops(l2)).toEqual(stops(top));
    expect(l2.report.summary.trades).toBe(top.report.summary.trades);
    // The l2 run kept its queue model: the entries filled by recorded trades past their queue.
    expect(l2.result.tape.l2?.queueFills).toBeGreaterThan(0);
  });
});
