/**
 * A MARKET order that takes the liquidity there is and expires with the rest: counted apart from
 * the orders that expired with nothing filled (which is all `ordersExpiredUnfilled` counts), in
 * the summary, per strategy, in the summary line and in report.html. It was counted nowhere.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { ordersRejectedText, renderHtml } from '../../src/backtest/report/html';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import { writeConfig } from './fixtures';

const T0 = 1_704_067_200_000;

/** One MARKET buy of `qty` on the first mark, one more of `qty` on the third. */
const BUYER = `module.exports.default = {
  name: 'buyer', symbols: () => ['BTCUSDT'], params: (raw) => ({ qty: String(raw.qty) }), marketData: () => ['markPrice'],
  create: (ctx) => {
    let n = 0;
    return {
      onMark() {
        n++;
        if (n !== 1 && n !== 3) return [];
        return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: ctx.params.qty }];
      },
    };
  },
};
`;

async function run(): Promise<Awaited<ReturnType<typeof backtest>>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bt-'));
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')?.spec;
  const mark = (t: number): unknown => ({ t, k: 'mark', s: 'BTCUSDT', p: '50000', i: '50000', r: '0', n: T0 + 8 * 3_600_000 });
  const lines: unknown[] = [
    { type: 'header', format: 'perpkit-recording', version: 1, source: 'test', startTime: T0, symbols: [spec], part: 0 },
    // 0.004 offered: a buy of 0.010 takes it and expires with the other 0.006.
    { t: T0, k: 'depth', s: 'BTCUSDT', b: [['49990', '1.000']], a: [['50010', '0.004']] },
    mark(T0),
    mark(T0 + 1_000),
    // Then enough for the whole of the second buy.
    { t: T0 + 1_500, k: 'depth', s: 'BTCUSDT', b: [['49990', '1.000']], a: [['50010', '1.000']] },
    mark(T0 + 2_000),
    mark(T0 + 3_000),
  ];
  writeFileSync(path.join(dir, 'rec.jsonl.gz'), gzipSync(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
  writeFileSync(path.join(dir, 'buyer.js'), BUYER);
  const cfg = loadBacktestConfig(writeConfig(dir, 'b.yaml', { latency: { placeMs: 0 }, strategies: [{ id: 'b', module: './buyer.js', params: { qty: '0.010' } }] }));
  return backtest(cfg, { cache: false });
}

test('an order filled in part whose rest expired is counted as expired partly filled, not among those that filled nothing', async () => {
  const o = await run();
  const s = o.report.summary;
  expect(o.report.fills.map((f) => [f.side, f.quantity])).toEqual([
    ['BUY', '0.004'],
    ['BUY', '0.01'],
  ]);
  expect(s.ordersExpiredPartial).toBe(1);
  expect(s.ordersExpiredUnfilled).toBe(0);
  expect(o.report.strategies.b.ordersExpiredPartial).toBe(1);
  // The summary line's orders part, and report.html's counters, next to the unfilled ones.
  expect(ordersRejectedText(s)).toBe(', 1 expired partly filled (a MARKET or IOC order that took the liquidity there was; the rest expired)');
  const html = renderHtml(o.report);
  expect(html).toContain('expired unfilled / expired partly filled / cancels');
  expect(html).toContain('<td>2 / 0 / 0 / 1 / 0 / 0 / 0</td>');
});
