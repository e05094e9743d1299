/**
 * Funding settlements derived from Binance's markPriceUpdate: where `T` (next funding time) moves
 * forward, the settlement at the old `T` took place at the rate last announced (`r`), as the
 * recorder and the Tardis import read it (funding-times.ts). The import wrote none, so a backtest
 * over an imported Binance capture never paid or received funding.
 *
 * The shared capture spans a funding time in the exchange's clock (its last messages have `E`
 * after 2024-08-09T00:00:00Z, the collector's clock 1.27 s behind) but has no markPrice stream
 * (data README). The markPrice stream of the same seconds is made here in Binance's capture form
 * (`btcusdt@markPrice@1s`, receive time + 1,270 ms as `E`, the mark the bookTicker bid of the
 * second) and imported with the capture, as a collector's second file.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { readRecording } from '../../src/market-data/reader';
import { importSummaryText } from '../../src/cli/import';
import { TARGETS } from '../backtest/fixtures';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';

const FUNDING = Date.UTC(2024, 7, 9, 0, 0, 0);
const NEXT = FUNDING + 8 * 3_600_000;
const OFFSET = 1270;
/** A mark as the import puts it on the price grid (0.1): "61659.70000000" -> "61659.7". */
const onGrid = (p: string): string => String(Number(p));

async function read(out: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([out])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

/** A markPriceUpdate capture line received at `t` ms. */
const markLine = (t: number, p: string, r: string, T: number): string =>
  `${t}000000 ${JSON.stringify({ stream: 'btcusdt@markPrice@1s', data: { e: 'markPriceUpdate', E: t + OFFSET, s: 'BTCUSDT', p: `${p}000000`, P: `${p}000000`, i: `${p}000000`, r, T } })}`;

describeWithSharedData('import binance-futures: funding settlements from markPriceUpdate', BINANCE_BTCUSDT, (capture) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-funding-'));
  const marks = path.join(dir, 'btcusdt_markprice_20240808.gz');
  const out = path.join(dir, 'btcusdt.jsonl.gz');
  /** Receive time and bid of the mark line that first shows the next T. */
  let moved: { t: number; bid: string };
  let lastBefore: string;

  beforeAll(() => {
    const lines = gunzipSync(readFileSync(capture)).toString('utf8').trimEnd().split('\n');
    const bidAt = new Map<number, string>();
    for (const l of lines) {
      if (!l.includes('@bookTicker')) continue;
      const t = Math.floor(Number(l.slice(0, l.indexOf(' '))) / 1e6);
      const second = Math.ceil(t / 1000) * 1000;
      if (!bidAt.has(second)) bidAt.set(second, (JSON.parse(l.slice(l.indexOf(' ') + 1)) as { data: { b: string } }).data.b);
    }
    const out: string[] = [];
    for (const [t, bid] of [...bidAt].sort((a, b) => a[0] - b[0])) {
      // Binance rolls T with the first mark after the settlement (exchange time past it).
      const after = t + OFFSET > FUNDING;
      if (after && moved === undefined) moved = { t, bid };
      if (!after) lastBefore = bid;
      out.push(markLine(t, bid, after ? '0.00008000' : '0.00010000', after ? NEXT : FUNDING));
    }
    writeFileSync(marks, gzipSync(`${out.join('\n')}\n`));
  });

  test('where T moves forward: one funding event at the old T, at the rate announced for it and the last mark before the move; counted and said', async () => {
    const summary = await importBinanceFutures({ files: [capture, marks], out });
    expect(moved).toBeDefined();
    expect(summary.added.derivedFunding).toBe(1);
    expect(importSummaryText(summary, 1)).toContain(', 1 funding settlements derived');
    const { header, events } = await read(out);
    expect(header.meta?.derivedFunding).toBe(1);
    // Recorded marks from the first markPriceUpdate on (the capture's first second before it has a derived one).
    expect(header.marks?.BTCUSDT.method).toMatch(/until the first markPriceUpdate at 2024-08-08T23:54:1/);
    const funding = events.filter((e) => e.k === 'funding');
    expect(funding).toEqual([{ t: moved.t, et: FUNDING, k: 'funding', s: 'BTCUSDT', r: '0.00010000', p: onGrid(lastBefore) }]);
    // Written before the mark of the message that showed the move, which announces the next settlement.
    const i = events.indexOf(funding[0]);
    expect(events[i + 1]).toMatchObject({ k: 'mark', t: moved.t, p: onGrid(moved.bid), r: '0.00008000', n: NEXT });
  }, 120_000);

  test('a backtest over the import pays the funding of a long position held through the settlement', async () => {
    writeFileSync(path.join(dir, 'targets.js'), TARGETS);
    const cfg = path.join(dir, 'bt.yaml');
    writeFileSync(cfg, stringify({ data: { files: ['btcusdt.jsonl.gz'], cache: false }, account: { balance: '10000' }, latency: { placeMs: 0 }, strategies: [{ id: 't', module: './targets.js', params: { targets: [[5, '0.01']] } }], report: { out: path.join(dir, 'out') } }));
    const { result } = await backtest(loadBacktestConfig(cfg), { cache: false });
    // 0.01 BTC long x the settlement's mark x 0.0001: paid.
    expect(result.funding).toEqual([{ time: moved.t, symbol: 'BTCUSDT', amount: (-(0.01 * Number(lastBefore) * 0.0001)).toFixed(8).replace(/0+$/, '') }]);
  }, 120_000);

  test('T moved forward long before it came is no settlement: not derived, said in the header and a note', async () => {
    const t0 = Date.UTC(2024, 7, 8, 20, 0, 0);
    const f = path.join(dir, 'early.gz');
    writeFileSync(f, gzipSync([markLine(t0, '61000.00', '0.00010000', FUNDING), markLine(t0 + 1000, '61000.10', '0.00010000', NEXT), markLine(t0 + 2000, '61000.20', '0.00010000', NEXT)].join('\n') + '\n'));
    const o = path.join(dir, 'early.jsonl.gz');
    const summary = await importBinanceFutures({ files: [f], out: o, tick: '0.1' });
    expect(summary.added.derivedFunding).toBe(0);
    const { header, events } = await read(o);
    expect(events.filter((e) => e.k === 'funding')).toEqual([]);
    expect(header.meta?.fundingNotDerived).toBe('markPriceUpdate T (next funding time) moved more than a minute before its time came (no settlement assumed): 1');
    expect(summary.notes).toContain('funding settlements not derived (the Binance messages gave their marks): markPriceUpdate T (next funding time) moved more than a minute before its time came (no settlement assumed): 1');
  }, 60_000);
});
