import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { importBinanceFutures, type ImportSummary } from '../../src/market-data/import/binance-futures';
import { L2Book } from '../../src/market-data/l2-book';
import { inspectRecording } from '../../src/market-data/inspect';
import type { Level, RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { readRecording } from '../../src/market-data/reader';
import { stringify } from 'yaml';
import { initFiles } from '../../src/cli/init-files';
import { reportNotices } from '../../src/backtest/report/html';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';

const README_SHA256 = '0ad7b3a0f5cff220761ea890cfd6e3c15f6899edc7f94637ec915043d7a72251';

describeWithSharedData('import binance-futures: the shared BTCUSDT capture', BINANCE_BTCUSDT, (input) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-'));
  const out = path.join(dir, 'btcusdt.jsonl.gz');
  let summary: ImportSummary;
  let header: RecordingHeader;
  const events: RecordedEvent[] = [];

  beforeAll(async () => {
    summary = await importBinanceFutures({ files: [input], out });
    let first = true;
    for await (const x of readRecording([out])) {
      if (first) header = x as RecordingHeader;
      else events.push(x as RecordedEvent);
      first = false;
    }
  }, 60_000);

  test('one event per message: the counts of the data README, every skip counted', () => {
    const kinds: Record<string, number> = {};
    for (const e of events) kinds[e.k] = (kinds[e.k] ?? 0) + 1;
    expect(summary.messages).toBe(93_954);
    expect(kinds.quote).toBe(66_089);
    expect(kinds.trade).toBe(21_313);
    expect(kinds.snapshot).toBe(1);
    // 6,551 depth diffs: 4 of the 6 that came before the snapshot are older than it (dropped by the procedure), the rest applied.
    expect(kinds.book + summary.skipped['depthUpdate older than the snapshot (u < lastUpdateId)']).toBe(6_551);
    expect(summary.skipped).toEqual({ 'depthUpdate older than the snapshot (u < lastUpdateId)': 4 });
    expect(kinds.gap ?? 0).toBe(0);
    const written = Object.values(summary.events).reduce((a, b) => a + b, 0);
    expect(written + 4).toBe(summary.messages);
    expect(kinds.mark).toBe(summary.added.derivedMarks);
    expect(header.skipped).toEqual(summary.skipped);
  });

  test('the header records the source with its sha256, the inferred grid and the derived marks', () => {
    expect(header.version).toBe(2);
    expect(header.sources).toEqual([{ file: 'btcusdt_20240808.gz', sha256: README_SHA256, bytes: 3_637_062 }]);
    expect(header.symbols.map((s) => [s.symbol, s.tickSize, s.stepSize])).toEqual([['BTCUSDT', '0.1', '0.001']]);
    expect(header.marks?.BTCUSDT.source).toBe('derived');
    // Thousands of distinct prices and quantities: the inferred grid is trusted, no warning.
    expect(summary.warnings).toBeUndefined();
    expect(header.meta?.gridWarning).toBeUndefined();
    // About one derived mark per second of the ~6 minutes.
    expect(summary.added.derivedMarks).toBeGreaterThan(330);
    expect(summary.added.derivedMarks).toBeLessThan(360);
  });

  test('receive order, exchange time kept: the collector clock shows about 1.27 s behind', () => {
    let prev = 0;
    let backwards = 0;
    const lat: number[] = [];
    for (const e of events) {
      if (e.t < prev) backwards++;
      prev = e.t;
      if (e.k === 'trade' && e.et !== undefined) lat.push(e.t - e.et);
    }
    expect(backwards).toBe(0);
    lat.sort((a, b) => a - b);
    const median = lat[lat.length >> 1];
    expect(median).toBeLessThan(-1200);
    expect(median).toBeGreaterThan(-1350);
  });

  test("the diffs before the snapshot follow Binance's procedure: the first applied straddles lastUpdateId, then the pu chain holds", () => {
    const si = events.findIndex((e) => e.k === 'snapshot');
    const snap = events[si] as Extract<RecordedEvent, { k: 'snapshot' }>;
    const books = events.filter((e): e is Extract<RecordedEvent, { k: 'book' }> => e.k === 'book');
    expect(events.findIndex((e) => e.k === 'book')).toBeGreaterThan(si);
    expect(books[0].U).toBeLessThanOrEqual(snap.u);
    expect(books[0].u).toBeGreaterThanOrEqual(snap.u);
    // The two buffered diffs are written right after the snapshot, at its receive time.
    expect(events[si + 1]).toMatchObject({ k: 'book', t: snap.t });
    expect(events[si + 2]).toMatchObject({ k: 'book', t: snap.t });
    const breaks = books.filter((b, i) => i > 0 && b.pu !== books[i - 1].u).length;
    expect(breaks).toBe(0);
  });

  test('the book rebuilt from snapshot + deltas equals bookTicker wherever their update ids coincide', () => {
    const book = new L2Book();
    const tops = new Map<number, [Level | undefined, Level | undefined]>();
    const quotes = new Map<number, Extract<RecordedEvent, { k: 'quote' }>>();
    for (const e of events) {
      if (e.k === 'snapshot') book.reset(e.b, e.a, e.u);
      else if (e.k === 'book') {
        book.apply(e.b, e.a, e.u);
        const t = book.top();
        tops.set(e.u, [t.bid, t.ask]);
      } else if (e.k === 'quote' && e.u !== undefined) quotes.set(e.u, e);
    }
    let compared = 0;
    for (const [u, q] of quotes) {
      const top = tops.get(u);
      if (top === undefined) continue;
      compared++;
      expect([top[0], top[1]]).toEqual([
        [q.bp, q.bq],
        [q.ap, q.aq],
      ]);
    }
    expect(compared).toBe(629);
  });

  test('data inspect: range, counts, no gaps, the 1.27 s clock offset, 629 of 629 book/quote agreement, staleness in receive order', async () => {
    const r = await inspectRecording([out]);
    expect(r.version).toBe(2);
    expect(r.counts).toEqual({ quote: 66_089, trade: 21_313, snapshot: 1, book: 6_547, mark: summary.added.derivedMarks });
    expect(r.gaps).toEqual([]);
    expect(r.lastTime - r.firstTime).toBeGreaterThan(340_000);
    expect(r.latencyMs?.p50).toBeLessThanOrEqual(-1250);
    expect(r.latencyMs?.p50).toBeGreaterThanOrEqual(-1300);
    const btc = r.symbols.BTCUSDT;
    expect(btc.sameUpdateId).toEqual({ compared: 629, agree: 629 });
    expect(btc.quotes).toEqual({ crossed: 0, locked: 0 });
    expect(btc.book.unknownDeltas).toBe(0);
    // Between depth diffs the top moves without one: in receive order the rebuilt book is often stale.
    expect(btc.receiveOrder.compared).toBeGreaterThan(66_000);
    expect(btc.receiveOrder.samePrices).toBeLessThan(btc.receiveOrder.compared);
    expect(btc.marks?.source).toBe('derived');
    expect(r.skippedByImport).toEqual(summary.skipped);
  }, 60_000);

  test('with --from, the summary and the header count the derived marks that were written, not those before it', async () => {
    const cut = path.join(dir, 'from.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out: cut, from: Date.parse('2024-08-08T23:58:00Z') });
    let marks = 0;
    let h: RecordingHeader | undefined;
    for await (const x of readRecording([cut])) {
      if (h === undefined) h = x as RecordingHeader;
      else if ((x as RecordedEvent).k === 'mark') marks++;
    }
    // The last two minutes: one mark a second.
    expect(marks).toBe(120);
    expect(s.added.derivedMarks).toBe(120);
    expect(h?.meta?.derivedMarks).toBe(120);
  }, 60_000);

  test('the capture imported in two files by time (--to T, --from T), backtested and inspected as both: its 4 stale diffs counted once, the range cut not said', async () => {
    const T = '2024-08-08T23:57:00Z';
    const h1 = path.join(dir, 'h1.jsonl.gz');
    const h2 = path.join(dir, 'h2.jsonl.gz');
    await importBinanceFutures({ files: [input], out: h1, to: Date.parse(T) });
    const second = await importBinanceFutures({ files: [input], out: h2, from: Date.parse(T) });
    // Every message of the first three minutes, the 4 stale diffs among them, is before the second file's --from.
    expect(second.skipped).toEqual({ 'message before --from': 37_791 });
    expect((await inspectRecording([h1, h2])).skippedByImport).toEqual(summary.skipped);
    const cfgFile = path.join(dir, 'halves.yaml');
    writeFileSync(cfgFile, stringify({ data: { files: ['h1.jsonl.gz', 'h2.jsonl.gz'] }, account: { balance: '10000' }, strategies: [{ id: 'idle', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 60_000 } }] }));
    const r = await backtest(loadBacktestConfig(cfgFile), { cache: false });
    expect(r.report.data.importSkipped).toEqual({ 'depthUpdate older than the snapshot (u < lastUpdateId)': 4 });
    expect(reportNotices(r.report).filter((n) => n.includes('left out') || n.includes('--from'))).toEqual(['The import of the recording left out 4 input message(s) (report data.importSkipped): depthUpdate older than the snapshot (u < lastUpdateId) 4.']);
  }, 60_000);

  test('--tick 0.3 on these prices on 0.1 is refused at the first price off it, naming the option, the value, the file and line; nothing written', async () => {
    const bad = path.join(dir, 'tick03.jsonl.gz');
    await expect(importBinanceFutures({ files: [input], out: bad, tick: '0.3' })).rejects.toThrow(/btcusdt_20240808\.gz:1: --tick 0\.3: price 58710\.20 of BTCUSDT is not a multiple of 0\.3 /);
    await expect(importBinanceFutures({ files: [input], out: bad, step: '0.002' })).rejects.toThrow(/btcusdt_20240808\.gz:1: --step 0\.002: quantity 1\.211 of BTCUSDT is not a multiple of 0\.002 \(every quantity must lie on the grid the option gives; the quantities before it lie on 0\.002\)/);
    expect(existsSync(bad)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // A grid the data lies on (finer than its own) is taken as given.
    const fine = path.join(dir, 'tick005.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out: fine, tick: '0.05', step: '0.0005' });
    expect(s.symbols.map((x) => [x.tickSize, x.stepSize])).toEqual([['0.05', '0.0005']]);
  }, 60_000);

  test('--symbol ETHUSDT on this BTCUSDT-only capture is refused, and nothing is written (its REST snapshot is not relabelled)', async () => {
    const eth = path.join(dir, 'eth.jsonl.gz');
    await expect(importBinanceFutures({ files: [input], out: eth, symbol: 'ETHUSDT' })).rejects.toThrow(/^--symbol ETHUSDT: no message of that symbol in the files \(they hold BTCUSDT/);
    expect(existsSync(eth)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  test('the example market maker backtests on the imported file (quotes drive the tape, L2 events counted)', async () => {
    const cfgFile = path.join(dir, 'mm.yaml');
    writeFileSync(
      cfgFile,
      stringify({
        data: { files: ['btcusdt.jsonl.gz'] },
        account: { balance: '10000' },
        latency: { placeMs: 20, cancelMs: 20, amendMs: 20 },
        strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '4', volMultiplier: '3', maxInventory: '0.1', skewBps: '3', refreshMs: 1000 } }],
      }),
    );
    const r = await backtest(loadBacktestConfig(cfgFile), { cache: false });
    expect(r.result.events.quotes).toBe(66_089);
    expect(r.result.events.unused).toBe(6_548);
    expect(r.result.tape.quotes.depths).toBe(66_089);
    expect(r.report.summary.ordersAccepted).toBeGreaterThan(0);
    expect(r.report.fills.length).toBeGreaterThan(0);
    expect(r.report.data.marks.BTCUSDT.source).toBe('derived');
    expect(r.result.audit.frozenMismatch).toEqual([]);
  }, 60_000);
  test('every derived mark comes right after the quote it is computed from (same receive time, its mid down to the tick), never before it', () => {
    let marks = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.k !== 'mark') continue;
      marks++;
      const q = events[i - 1];
      expect(q.k).toBe('quote');
      if (q.k !== 'quote') continue;
      expect(q.t).toBe(e.t);
      // The mid in tenths (the tick), rounded down: the mark's value.
      const mid = Math.floor((Math.round(Number(q.bp) * 10) + Math.round(Number(q.ap) * 10)) / 2);
      expect(Math.round(Number(e.p) * 10)).toBe(mid);
    }
    expect(marks).toBe(summary.added.derivedMarks);
  });

  test("the dip buyer of perpkit init on the capture: its stop-loss (on the mark) finds the quote it is computed from, and no stop's order expires unfilled", async () => {
    // The probe's config/dip-real.yaml: the stop triggered at 23:58:34.023 on a mark written
    // before its quote, its MARKET order found no bid (recorded sells had just taken it) and
    // expired, and the position stayed open for the rest of the run.
    const strategy = (initFiles({ name: 'dip', perpkitSpec: '*' }).get('src/strategy.ts') ?? '').replace("from 'perpkit'", `from ${JSON.stringify(path.resolve(__dirname, '../../src/index'))}`);
    writeFileSync(path.join(dir, 'dip.ts'), strategy);
    const cfgFile = path.join(dir, 'dip.yaml');
    writeFileSync(
      cfgFile,
      stringify({
        data: { files: ['btcusdt.jsonl.gz'] },
        account: { balance: '10000' },
        fees: { maker: '0.0002', taker: '0.0005' },
        latency: { placeMs: 20, cancelMs: 20, amendMs: 20 },
        risk: { maxOrderNotional: '5000', maxPositionNotional: '5000', maxOpenOrders: 5, priceBand: '0.05' },
        strategies: [{ id: 'dip', module: './dip.ts', params: { symbol: 'BTCUSDT', size: '0.01', dipBps: 2, takeProfitBps: 5, stopLossBps: 3 } }],
      }),
    );
    const r = await backtest(loadBacktestConfig(cfgFile), { cache: false });
    const s = r.report.summary;
    expect(s.triggeredExpiredUnfilled).toBe(0);
    expect(reportNotices(r.report).join('\n')).not.toMatch(/no depth or quote line had come since/);
    // The stops that triggered closed what they were to close: more than one round trip.
    expect(s.trades).toBeGreaterThan(1);
  }, 60_000);
});
