/**
 * The four example strategies backtested on real data: the shared Binance USD-M BTCUSDT capture
 * (../shared/data, about 6 minutes of 2024-08-08), imported as `npm run data:binance` does, with
 * config/backtest-<name>-binance.yaml. The capture has no mark or funding stream: marks are
 * derived from the mid (and said so in the report), the funding rate is 0.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { backtest, type BacktestOutcome } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportJson } from '../../src/backtest/report/report';
import { CacheSource } from '../../src/backtest/backtest/cache';
import { cachePathFor } from '../../src/backtest/backtest/cache-format';
import { buildCache } from '../../src/backtest/backtest/cache-writer';
import { JsonlSource } from '../../src/backtest/backtest/jsonl-source';
import { recordingSpan } from '../../src/backtest/backtest/open-source';
import type { EventSource } from '../../src/backtest/backtest/source';
import type { RecordedEvent } from '../../src/market-data/format';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';
import { expectSameJson } from '../helpers/same-json';

const ROOT = path.resolve(__dirname, '..', '..');

describeWithSharedData('example strategies on the imported Binance capture (config/backtest-*-binance.yaml)', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  let recording: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-examples-'));
    recording = path.join(dir, 'btcusdt-20240808.jsonl.gz');
    await importBinanceFutures({ files: [capture], out: recording });
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(name: string): Promise<BacktestOutcome> {
    const cfg = loadBacktestConfig(path.join(ROOT, 'config', `backtest-${name}-binance.yaml`));
    expect(cfg.data.files).toEqual([path.join(ROOT, 'data', 'binance', 'btcusdt-20240808.jsonl.gz')]);
    cfg.data.files = [recording];
    cfg.data.cache = false;
    const o = await backtest(cfg);
    const r = o.report;
    // What every run on this data shows: the whole capture read, derived marks said so, the L2
    // events counted as unused by the tape fill model, nothing refused by risk, money conserved.
    expect(r.data.events.read).toBe(94295);
    expect(r.data.marks.BTCUSDT.source).toBe('derived');
    expect(r.data.events.unused).toBe(6548);
    expect(r.summary.denials).toBe(0);
    expect(r.summary.strategyErrors).toBe(0);
    expect(r.summary.liquidations).toBe(0);
    expect(o.result.audit.frozenMismatch).toEqual([]);
    for (const q of Object.values(o.result.audit.netQtyBySymbol)) expect(q).toBe(0);
    for (const [, equity] of r.equity) expect(Number(equity)).toBeGreaterThan(0);
    return o;
  }

  it('market maker: quotes both sides, fills as a maker at the recorded prices, deterministically', async () => {
    const o = await run('market-maker');
    const r = o.report;
    expect(r.summary.fills).toBeGreaterThan(10);
    expect(new Set(r.fills.map((f) => f.side))).toEqual(new Set(['BUY', 'SELL']));
    expect(r.fills.every((f) => f.role === 'maker')).toBe(true);
    // On the tick grid and within the day's range (61,7xx-61,9xx USDT).
    expect(r.fills.every((f) => /^\d+(\.\d)?$/.test(f.price) && Number(f.price) > 61000 && Number(f.price) < 62500)).toBe(true);
    // Amends of quotes that had just filled are refused by the venue (30007) and counted.
    expect(Object.keys(r.summary.rejectionsByCode).every((c) => c === '30007')).toBe(true);
    expect(r.summary.rejections).toBe(r.summary.rejectionsByCode['30007'] ?? 0);
    const again = await run('market-maker');
    expect(reportJson(again.report)).toBe(reportJson(r));
  });

  it('grid: places its ladder around the first mark and fills a level as a maker', async () => {
    const r = (await run('grid')).report;
    expect(r.summary.ordersAccepted).toBeGreaterThanOrEqual(10);
    // The stop cancels the ladder and the grid asks for its levels again: the stop refuses them
    // (BOT_STOPPING), and as in perpkit run they are not the run's denials.
    expect(r.summary.denialsByCode).toEqual({});
    expect(r.strategies.grid.denials).toBe(0);
    expect(r.summary.fills).toBeGreaterThanOrEqual(1);
    expect(r.fills.every((f) => f.role === 'maker' && f.quantity === '0.001')).toBe(true);
  });

  it('trend: 5-second bars give entries and exits within the six minutes', async () => {
    const r = (await run('trend')).report;
    expect(r.summary.ordersAccepted).toBeGreaterThan(0);
    expect(r.summary.fills).toBeGreaterThan(0);
  });

  it('carry: with no funding in the capture (rate 0, below enterRate) it never enters', async () => {
    const o = await run('carry');
    expect(o.report.data.marks.BTCUSDT.method).toMatch(/funding rate 0/);
    expect(o.report.summary.ordersAccepted).toBe(0);
    expect(o.report.summary.fills).toBe(0);
  });

  it("the configs' commented data.from/data.to hints lie inside the capture's events (uncommented, they choose a range of it)", async () => {
    const span = await recordingSpan([recording], { cache: false });
    if (span === undefined) throw new Error('the imported capture holds no events');
    const hinted: string[] = [];
    for (const f of readdirSync(path.join(ROOT, 'config')).filter((x) => x.endsWith('-binance.yaml'))) {
      const text = readFileSync(path.join(ROOT, 'config', f), 'utf8');
      if (!/^ {2}# (from|to): /m.test(text)) continue;
      hinted.push(f);
      // The hints taken as the user would take them: uncommented, in a copy reading the imported file.
      const copy = path.join(dir, f);
      writeFileSync(copy, text.replace(/^ {2}# (from|to): /gm, '  $1: ').replace(/^ {2}files: \[.*\]$/m, `  files: [${recording}]`));
      const { from, to } = loadBacktestConfig(copy).data;
      expect({ f, from: from !== undefined && from >= span.first && from < span.last, to: to !== undefined && to > span.first && to <= span.last }).toEqual({ f, from: true, to: true });
    }
    expect(hinted).toContain('backtest-market-maker-binance.yaml');
  });

  it('the replay cache gives back every event of the capture (book and snapshot exactly), and the L2 market maker the same report from it', async () => {
    const cache = cachePathFor(recording);
    await buildCache(recording, cache);
    const { header } = await JsonlSource.open([recording]);
    const all = async (src: EventSource): Promise<RecordedEvent[]> => {
      const out: RecordedEvent[] = [];
      for (let b = await src.next(); b !== undefined; b = await src.next()) for (let i = 0; i < b.count; i++) out.push(structuredClone(b.event(i)));
      await src.close();
      return out;
    };
    const json = await all(await JsonlSource.open([recording]));
    const cached = await all(CacheSource.open([cache], header));
    expect(cached.length).toBe(94295);
    // Decimals of the other kinds by value (the cache gives "0.1" for "0.100"); book and snapshot as recorded.
    const byValue = (v: unknown): unknown => (typeof v === 'string' && /^\d+\.\d+$/.test(v) ? String(Number(v)) : v);
    const isBook = (e: RecordedEvent): boolean => e.k === 'book' || e.k === 'snapshot';
    expectSameJson(cached.filter(isBook), json.filter(isBook));
    // Every event at its place (the kinds in the same order), and the other kinds by value: the
    // whole list compared by value, without reading each of the book levels' strings again.
    const moved = json.findIndex((e, i) => cached[i]?.k !== e.k);
    expect(moved < 0 ? 'every kind at its place' : `event ${moved}: ${cached[moved]?.k}, expected ${json[moved].k}`).toBe('every kind at its place');
    expectSameJson(cached.filter((e) => !isBook(e)), json.filter((e) => !isBook(e)), byValue);
    // All 6,548 in columns: none fell back to a JSON line; so are the 66,089 quotes (the backtest takes them in units).
    let inColumns = 0;
    let quotes = 0;
    const src = CacheSource.open([cache], header);
    for (let b = await src.next(); b !== undefined; b = await src.next()) {
      for (let i = 0; i < b.count; i++) {
        if ((b.levels?.levelSymbol(i) ?? -1) >= 0) inColumns++;
        if ((b.quotes?.quoteSymbol(i) ?? -1) >= 0) quotes++;
      }
    }
    await src.close();
    expect(inColumns).toBe(6548);
    expect(quotes).toBe(66089);

    const cfg = loadBacktestConfig(path.join(ROOT, 'config', 'backtest-market-maker-binance.yaml'));
    cfg.data.files = [recording];
    cfg.fill = { ...cfg.fill, book: 'l2', queue: { model: 'probabilistic' } };
    const fromJson = await backtest(cfg, { cache: false });
    const fromCache = await backtest(cfg, { cache: true });
    expect(fromCache.sourceKind).toBe('cache');
    expect(fromJson.result.tape.l2).toMatchObject({ snapshots: 1, deltas: 6547 });
    expect(fromJson.report.summary.fills).toBeGreaterThan(10);
    expect(reportJson(fromCache.report)).toBe(reportJson(fromJson.report));
    expect(fromCache.result.tape).toEqual(fromJson.result.tape);
  }, 180_000);
});
