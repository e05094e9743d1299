/**
 * A stop-loss that triggers when the tape has no quote on the side it takes: its MARKET order
 * expires with nothing filled and the position stays open. The backtest counts it apart from
 * other expired orders and says so in the notes (summary and report.html), as a warn line in the
 * log: a run whose stops close nothing shows losses the strategy meant to cut, and it read
 * "3 expired with nothing filled" at info among MARKET orders that found no liquidity.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportNotices } from '../../src/backtest/report/html';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import { writeConfig } from './fixtures';

const T0 = 1_704_067_200_000;

/** Buys with a bracket on the first mark: MARKET entry, take-profit far above, stop-loss at 49,900. */
const BRACKET = `module.exports.default = {
  name: 'bracket', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: () => {
    let sent = false;
    return {
      onMark() {
        if (sent) return [];
        sent = true;
        return [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.010', takeProfitPrice: '51000', stopLossPrice: '49900' }];
      },
    };
  },
};
`;

function recording(dir: string, refreshed: boolean): void {
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')?.spec;
  const lines: unknown[] = [
    { type: 'header', format: 'perpkit-recording', version: 1, source: 'test', startTime: T0, symbols: [spec], part: 0 },
    { t: T0, k: 'depth', s: 'BTCUSDT', b: [['49990', '1.000']], a: [['50010', '1.000']] },
    { t: T0, k: 'mark', s: 'BTCUSDT', p: '50000', i: '50000', r: '0.0001', n: T0 + 8 * 3_600_000 },
    // A sale through the recorded bid: the tape traded beyond it, so its quote is gone.
    { t: T0 + 1_000, k: 'trade', s: 'BTCUSDT', id: '1', p: '49950', q: '2.000', side: 'SELL' },
    { t: T0 + 1_500, k: 'mark', s: 'BTCUSDT', p: '49950', i: '49950', r: '0.0001', n: T0 + 8 * 3_600_000 },
    // With `refreshed`, a depth line puts a bid back before the mark that triggers the stop.
    ...(refreshed ? [{ t: T0 + 2_000, k: 'depth', s: 'BTCUSDT', b: [['49800', '1.000']], a: [['49820', '1.000']] }] : []),
    { t: T0 + 2_000, k: 'mark', s: 'BTCUSDT', p: '49810', i: '49810', r: '0.0001', n: T0 + 8 * 3_600_000 },
    { t: T0 + 3_000, k: 'mark', s: 'BTCUSDT', p: '49810', i: '49810', r: '0.0001', n: T0 + 8 * 3_600_000 },
  ];
  writeFileSync(path.join(dir, 'rec.jsonl.gz'), gzipSync(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
}

async function run(refreshed: boolean): Promise<Awaited<ReturnType<typeof backtest>>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bt-'));
  recording(dir, refreshed);
  writeFileSync(path.join(dir, 'bracket.js'), BRACKET);
  const cfg = loadBacktestConfig(writeConfig(dir, 'b.yaml', { latency: { placeMs: 0 }, strategies: [{ id: 'b', module: './bracket.js', params: {} }] }));
  return backtest(cfg, { cache: false });
}

test('a stop-loss that triggers with no bid to sell to: counted apart, the note says the position stayed open', async () => {
  const o = await run(false);
  const s = o.report.summary;
  expect(s.ordersExpiredUnfilled).toBe(1);
  expect(s.triggeredExpiredUnfilled).toBe(1);
  expect(o.report.strategies.b.triggeredExpiredUnfilled).toBe(1);
  expect(o.report.finalPositions.map((p) => [p.symbol, p.quantity])).toEqual([['BTCUSDT', '0.01']]);
  const note = reportNotices(o.report).find((n) => n.includes('triggered stop'));
  expect(note).toBe(
    '1 order(s) placed by a triggered stop or take-profit order and expired with nothing filled: the position it was to close stayed open: the stop or take-profit triggered when the tape had no quote on the side it takes (a recorded trade had gone through the last one, and no depth or quote line had come since). The PnL holds the losses of staying in, not those of the exit the strategy asked for.',
  );
});

test('the same stop with a fresh bid in the book fills, and nothing is counted', async () => {
  const o = await run(true);
  const s = o.report.summary;
  expect(s.triggeredExpiredUnfilled).toBe(0);
  expect(s.ordersExpiredUnfilled).toBe(0);
  expect(o.report.finalPositions.filter((p) => p.quantity !== '0')).toEqual([]);
  expect(reportNotices(o.report).some((n) => n.includes('triggered stop'))).toBe(false);
});
