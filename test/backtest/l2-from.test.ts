/**
 * `fill.book: l2` on a range that starts inside the data (`data.from`, as walk-forward windows and
 * successive-halving slices do): the recorded L2 book at `from` is the one the events before it
 * built, handed to the fill model as a snapshot; it used to start with no book at all (the one
 * snapshot of the shared capture is at its start), every delta skipped as if after a gap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { backtest } from '../../src/backtest/backtest/backtest';
import { BooksBeforeRange } from '../../src/backtest/backtest/books-before-range';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { JsonlSource } from '../../src/backtest/backtest/jsonl-source';
import { reportJson } from '../../src/backtest/report/report';
import { reportNotices } from '../../src/backtest/report/html';
import { ManualClock } from '../../src/core/clock';
import { Engine } from '../../src/exchange/engine/engine';
import { TapeReplayer } from '../../src/exchange/engine/market/tape';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER } from '../../src/exchange/engine/market/tape-sink';
import { symbolConfigOf } from '../../src/backtest/backtest/run';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';
import { MM, writeConfig } from './fixtures';

/** 2024-08-08T23:58:00Z: four minutes after the capture's one snapshot. */
const FROM = Date.parse('2024-08-08T23:58:00Z');

function l2Tape(header: RecordingHeader): TapeReplayer {
  const engine = new Engine({ symbols: header.symbols.map((s) => symbolConfigOf(s, undefined)), clock: new ManualClock(header.startTime), insuranceFund: TAPE_BALANCE });
  for (const u of [TAPE_MAKER, TAPE_TAKER]) engine.createAccount({ userId: u, balance: TAPE_BALANCE });
  return new TapeReplayer(engine, { specs: header.symbols, book: 'l2', queue: { model: 'risk-averse' } });
}

describeWithSharedData('fill.book l2 with data.from inside the shared Binance capture', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  let recording: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-l2-from-'));
    recording = path.join(dir, 'rec.jsonl.gz');
    await importBinanceFutures({ files: [capture], out: recording });
  }, 60000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the book kept before from is, level for level, the book the L2 fill model replayed up to from', async () => {
    const src = await JsonlSource.open([recording]);
    const full = l2Tape(src.header);
    const before = new BooksBeforeRange(src.header);
    const prices = new Set<string>();
    let n = 0;
    for (let b = await src.next(); b !== undefined; b = await src.next()) {
      for (let i = 0; i < b.count; i++) {
        const e: RecordedEvent = b.event(i);
        if (e.t >= FROM) continue;
        if (e.k === 'snapshot' || e.k === 'book') for (const [p] of [...e.b, ...e.a]) prices.add(p);
        if (e.k === 'quote') prices.add(e.bp).add(e.ap);
        if (e.k === 'snapshot' || e.k === 'book' || e.k === 'quote' || e.k === 'gap') {
          full.apply(e);
          before.apply(e);
          n++;
        }
      }
    }
    await src.close();
    expect(n).toBeGreaterThan(40000);
    const seeded = l2Tape(src.header);
    expect(before.handTo(seeded)).toBe(1);
    let levels = 0;
    // Every level that differs (one expect for all: one per price and side was most of the test's time).
    const differ: Array<[string, string, number, number]> = [];
    for (const p of prices) {
      for (const side of ['BUY', 'SELL'] as const) {
        const want = full.recordedLevel('BTCUSDT', side, p);
        if (want > 0) levels++;
        const got = seeded.recordedLevel('BTCUSDT', side, p);
        if (!Object.is(got, want)) differ.push([p, side, got, want]);
      }
    }
    expect(differ).toEqual([]);
    // The 1,000 levels a side of the snapshot, moved by four minutes of deltas and quotes.
    expect(levels).toBeGreaterThan(1500);
  });

  it('a backtest from 23:58 replays the recorded book (1 book at from, no delta skipped), the same from the cache', async () => {
    const cfgFile = writeConfig(dir, 'from.yaml', { data: { files: ['rec.jsonl.gz'], from: '2024-08-08T23:58:00Z' }, fill: { book: 'l2', queue: 'probabilistic' }, latency: { placeMs: 20 }, strategies: [MM] });
    const cfg = loadBacktestConfig(cfgFile);
    const a = await backtest(cfg, { cache: false });
    expect(a.result.booksAtFrom).toBe(1);
    expect(a.result.tape.l2).toMatchObject({ snapshots: 1, deltasSkipped: 0, deltas: 2269 });
    expect(reportNotices(a.report).filter((n) => n.includes('no L2 snapshot'))).toEqual([]);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
  }, 60000);
});
