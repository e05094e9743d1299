import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportJson } from '../../src/backtest/report/report';
import { reportNotices } from '../../src/backtest/report/html';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { MM, writeConfig } from './fixtures';
import { CacheSource } from '../../src/backtest/backtest/cache';
import { CACHE_LAYOUT, cacheIsValid, cachePathFor } from '../../src/backtest/backtest/cache-format';
import { buildCache } from '../../src/backtest/backtest/cache-writer';
import { openSource } from '../../src/backtest/backtest/open-source';
import { JsonlSource, mergeHeaders } from '../../src/backtest/backtest/jsonl-source';
import type { EventSource } from '../../src/backtest/backtest/source';
import { expectSameJson } from '../helpers/same-json';

const T0 = 1_723_161_600_000;

/** Two minutes of a v2 recording from `t0`: quotes, trades, derived marks, one snapshot and one book delta. */
function v2Recording(dir: string, withSnapshot = true, name = 'rec.jsonl.gz', t0 = T0): { quotes: number } {
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')!.spec;
  const header: RecordingHeader = {
    type: 'header', format: 'perpkit-recording', version: 2, source: 'import:test', startTime: t0, symbols: [spec], part: 0,
    marks: { BTCUSDT: { source: 'derived', method: 'mid price sampled each second' } },
  };
  const ev: RecordedEvent[] = withSnapshot ? [{ t: t0, et: t0 + 1270, k: 'snapshot', s: 'BTCUSDT', u: 100, b: [['60000.0', '1.000']], a: [['60000.5', '1.000']] }] : [];
  let quotes = 0;
  for (let i = 0; i < 120; i++) {
    const t = t0 + i * 1000;
    const mid = 60000 + (i % 10) * 2;
    ev.push({ t: t + 1, et: t + 1271, k: 'quote', s: 'BTCUSDT', bp: `${mid}.0`, bq: '0.500', ap: `${mid}.5`, aq: '0.700', u: 100 + i });
    quotes++;
    ev.push({ t: t + 2, k: 'mark', s: 'BTCUSDT', p: `${mid}.2`, i: `${mid}.2`, r: '0', n: t0 + 8 * 3_600_000 });
    if (i === 5) ev.push({ t: t + 3, et: t + 1273, k: 'book', s: 'BTCUSDT', U: 101, u: 105, pu: 100, b: [['60000.0', '0']], a: [['60010.5', '2.000']] });
    ev.push({ t: t + 500, et: t + 1770, k: 'trade', s: 'BTCUSDT', id: String(1000 + i), p: i % 2 === 0 ? `${mid - 10}.0` : `${mid + 10}.5`, q: '0.050', side: i % 2 === 0 ? 'SELL' : 'BUY' });
  }
  const text = [header, ...ev].map((l) => JSON.stringify(l)).join('\n') + '\n';
  writeFileSync(path.join(dir, name), gzipSync(text));
  return { quotes };
}

describe('backtest on a format v2 recording', () => {
  test('quote events drive the tape quotes, book/snapshot are counted as unused, derived marks are reported; cache and JSON lines agree', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-'));
    const { quotes } = v2Recording(dir);
    const cfg = loadBacktestConfig(writeConfig(dir, 'v2.yaml', { latency: { placeMs: 0 }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.events.quotes).toBe(quotes);
    expect(a.result.events.unused).toBe(2);
    // Each quote event replaced the tape's quotes as a depth line's top level would.
    expect(a.result.tape.quotes.depths).toBe(quotes);
    expect(a.result.tape.quotes.placed).toBeGreaterThan(0);
    expect(a.result.tape.ignored).toBe(0);
    expect(a.report.data.marks).toEqual({ BTCUSDT: { source: 'derived', method: 'mid price sampled each second' } });
    expect(a.report.fills.length).toBeGreaterThan(0);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
  });
});

describe('backtest on L2 data alone with the top-of-book model', () => {
  test('the notice says no recorded liquidity stood in the book for takers, and to set fill.book: l2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-top-'));
    v2Recording(dir);
    // The same data without its quote events: only the L2 snapshot and delta say where the market was.
    const file = path.join(dir, 'rec.jsonl.gz');
    const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter((l) => !l.includes('"k":"quote"'));
    writeFileSync(file, gzipSync(lines.join('\n')));
    const cfg = loadBacktestConfig(writeConfig(dir, 'top.yaml', { latency: { placeMs: 0 }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.events.unused).toBe(2);
    expect(a.result.tape.quotes.depths).toBe(0);
    expect(reportNotices(a.report)).toContain('2 L2 book/snapshot events were read but not used by the tape fill model (fill.book is top); the data has no quote or depth events either, so no recorded liquidity stood in the book for market, IOC or crossing orders: set fill.book: l2 to replay the recorded book.');
    // With quotes, the notice only says how to use the L2 events.
    v2Recording(dir);
    const b = await backtest(cfg, { cache: false });
    expect(reportNotices(b.report)).toContain('2 L2 book/snapshot events were read but not used by the tape fill model (fill.book is top): set fill.book: l2 to replay the recorded book from them.');
  });
});

describe('backtest on a format v2 recording with the L2 fill model and feed latency from the data', () => {
  test('book and snapshot events feed the L2 book; cache (quotes in columns, exchange times kept) and JSON lines agree', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-l2-'));
    v2Recording(dir);
    const cfg = loadBacktestConfig(writeConfig(dir, 'l2.yaml', { latency: { placeMs: 5, feedMs: 'data', feedBaseMs: 2 }, fill: { book: 'l2', queue: 'probabilistic' }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.events.unused).toBe(0);
    expect(a.result.tape.l2).toMatchObject({ queue: 'probabilistic', snapshots: 1, deltas: 1 });
    expect(a.report.fills.length).toBeGreaterThan(0);
    // The report names the model it ran: the L2 book, its queue model, the feed latency from the data.
    expect(a.report.identity.fillModel).toMatch(/^l2: the recorded L2 book .* queue model probabilistic \(cancellations ahead with probability by f\(x\) = x\^2\)$/);
    expect(a.report.identity.latencyModel).toBe('fixed, virtual time: place 5 ms, cancel 5 ms, amend 5 ms; market data reaches the strategies after receive minus exchange time of each event above its running minimum, plus 2 ms');
    expect(reportNotices(a.report).some((n) => n.includes('no L2 snapshot'))).toBe(false);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
    // Every event decodes from the cache as the JSON line has it, exchange times and update ids too
    // (decimals compared by value: the cache gives "60000" for "60000.0"; keys in any order).
    const norm = (v: unknown): unknown => {
      if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return String(Number(v));
      if (Array.isArray(v)) return v.map(norm);
      if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, norm(x)]));
      return v;
    };
    const all = async (src: EventSource): Promise<string[]> => {
      const out: string[] = [];
      for (let b = await src.next(); b !== undefined; b = await src.next()) for (let i = 0; i < b.count; i++) out.push(JSON.stringify(norm(b.event(i))));
      await src.close();
      return out;
    };
    const file = path.join(dir, 'rec.jsonl.gz');
    const json = await all(await JsonlSource.open([file]));
    const cached = await all(CacheSource.open([cachePathFor(file)], (await JsonlSource.open([file])).header));
    expect(cached).toEqual(json);
    expect(json.some((l) => l.includes('"k":"trade"') && l.includes('"et":'))).toBe(true);
  });
});

describe('backtest with the L2 fill model on data without an L2 snapshot', () => {
  test('says so in the notices (CLI and report.html): the book was never known, deltas skipped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-nosnap-'));
    v2Recording(dir, false);
    const cfg = loadBacktestConfig(writeConfig(dir, 'l2.yaml', { latency: { placeMs: [1, 5, 9], seed: 3 }, fill: { book: 'l2', queue: 'risk-averse' }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.tape.l2).toMatchObject({ snapshots: 0, deltas: 0, deltasSkipped: 1 });
    const notice = reportNotices(a.report).find((n) => n.includes('no L2 snapshot'));
    expect(notice).toBe("fill.book is l2, but the data has no L2 snapshot: the recorded book was never known, so only the quotes' best levels stood in it and 1 L2 deltas were skipped; queue positions and walks through deeper levels are not those of the recorded market (the import reports why it has no snapshot).");
    expect(a.report.identity.fillModel).toContain('queue model risk-averse (only trades at its price advance it)');
    expect(a.report.identity.latencyModel).toBe('virtual time: place sampled from [1, 5, 9] ms, cancel sampled from [1, 5, 9] ms, amend sampled from [1, 5, 9] ms (uniform draws, seed 3)');
  });
});

/** The header line of a BTCUSDT recording starting at T0. */
function btcHeader(version: 1 | 2, source: string): RecordingHeader {
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')!.spec;
  return { type: 'header', format: 'perpkit-recording', version, source, startTime: T0, symbols: [spec], part: 0 };
}

/** Every event of a source, copied (the cache reuses its event objects). */
async function eventsOf(src: EventSource): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (let b = await src.next(); b !== undefined; b = await src.next()) for (let i = 0; i < b.count; i++) out.push(structuredClone(b.event(i)));
  await src.close();
  return out;
}

describe('replay cache: book and snapshot events in columns', () => {
  /**
   * Book and snapshot events of every shape the columns must give back exactly (recorded digits,
   * zero quantities, absent pu and et, empty sides), odd ones that must stay raw JSON lines
   * (off-grid or padded strings, unknown fields, a symbol not in the header), and enough
   * of them (full 1,000-level snapshots) to span several chunks, cut by events and by levels.
   */
  function levelsRecording(dir: string): { file: string; columns: number; raw: number } {
    const lines: unknown[] = [btcHeader(2, 'import:test')];
    let columns = 0;
    let raw = 0;
    const side = (from: number, dir: 1 | -1, n: number, digits: number): Array<[string, string]> => Array.from({ length: n }, (_, k) => [(from + dir * k * 0.5).toFixed(digits), k % 7 === 0 ? '0.000' : `${(k % 13) + 1}.${String(k % 1000).padStart(3, '0')}`]);
    let t = T0;
    // First rounds with many events per snapshot (chunks cut at 8,192 events), then snapshots only (cut by levels).
    for (let round = 0; round < 200; round++) {
      lines.push({ t: t++, et: t + 1270, k: 'snapshot', s: 'BTCUSDT', u: 1000 * round, b: side(60000, -1, 1000, 2), a: side(60000.5, 1, 1000, 1) });
      columns++;
      for (let j = 0; j < (round < 50 ? 60 : 0); j++) {
        const U = 1000 * round + 10 * j + 1;
        const book: Record<string, unknown> = { t: t++, et: t + 1270, k: 'book', s: 'BTCUSDT', U, u: U + 9, pu: U - 1, b: side(59990 - j, -1, 5, j % 3), a: side(60010 + j, 1, 4, 1) };
        if (j % 10 === 1) delete book.pu;
        if (j % 10 === 2) delete book.et;
        if (j % 10 === 3) book.b = [];
        if (j % 10 === 4) book.a = [['60000', '0'], ['60001.0', '0.1'], ['60002.500', '12']];
        lines.push(book);
        columns++;
        lines.push({ t: t++, k: 'quote', s: 'BTCUSDT', bp: '59999.5', bq: '1.5', ap: '60000', aq: '2', u: U + 9 });
        lines.push({ t: t++, et: t + 1000, k: 'trade', s: 'BTCUSDT', id: String(U), p: '60000', q: '0.01', side: 'BUY' });
      }
      const odd: Array<Record<string, unknown>> = [
        { t: t++, k: 'book', s: 'BTCUSDT', U: 1, u: 2, b: [['60000.55', '1.000']], a: [] },
        { t: t++, k: 'book', s: 'BTCUSDT', U: 1, u: 2, b: [['060000.0', '1.000']], a: [] },
        { t: t++, k: 'book', s: 'BTCUSDT', U: 1, u: 2, b: [['60000.5', '01.000']], a: [] },
        { t: t++, k: 'book', s: 'BTCUSDT', U: 1, u: 2, b: [], a: [['60000.5', '0.0001']] },
        { t: t++, k: 'book', s: 'BTCUSDT', U: 1, u: 2, b: [], a: [], note: 'kept' },
        { t: t++, k: 'snapshot', s: 'ETHUSDT', u: 3, b: [['3000.00', '1.000']], a: [] },
      ];
      lines.push(...odd);
      raw += odd.length;
    }
    lines.push({ t: t++, k: 'snapshot', s: 'BTCUSDT', u: 7, b: [], a: [] });
    columns++;
    const file = path.join(dir, 'levels.jsonl.gz');
    writeFileSync(file, gzipSync(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
    return { file, columns, raw };
  }

  test('decode exactly as the JSON lines hold them, across chunks cut by events and by levels; odd ones stay raw JSON lines', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-levels-'));
    const { file, columns, raw } = levelsRecording(dir);
    const cache = cachePathFor(file);
    await buildCache(file, cache);
    const { header } = await JsonlSource.open([file]);
    const json = await eventsOf(await JsonlSource.open([file]));
    const cached = await eventsOf(CacheSource.open([cache], header));
    expect(cached.length).toBe(json.length);
    // Book and snapshot events exactly (strings as recorded); the other kinds as before, by value.
    const books = (l: RecordedEvent[]): RecordedEvent[] => l.filter((e) => e.k === 'book' || e.k === 'snapshot');
    expectSameJson(books(cached), books(json));
    expect(books(json).length).toBe(columns + raw);
    // Which ones the columns hold, and that chunks were cut by levels as well as by events.
    let inColumns = 0;
    const chunks: number[] = [];
    const src = CacheSource.open([cache], header);
    for (let b = await src.next(); b !== undefined; b = await src.next()) {
      chunks.push(b.count);
      for (let i = 0; i < b.count; i++) if ((b.levels?.levelSymbol(i) ?? -1) >= 0) inColumns++;
    }
    await src.close();
    expect(inColumns).toBe(columns);
    expect(chunks.slice(0, -1).some((n) => n === 8192)).toBe(true);
    expect(chunks.slice(0, -1).some((n) => n < 8192)).toBe(true);
  }, 60_000);

  test('the L2 fill model gives the same report from the columns as from the JSON lines', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-levels-l2-'));
    v2Recording(dir);
    const more: RecordedEvent[] = [];
    // Every half tick for 15 USDT from the touch, some levels emptied: the participant's quotes sit on some.
    const ladder = (from: number, dir: 1 | -1, i: number): Array<[string, string]> => Array.from({ length: 30 }, (_, k) => [(from + dir * k * 0.5).toFixed(2), (i + k) % 5 === 0 ? '0.000' : `${(k % 4) + 1}.${String(i % 100).padStart(3, '0')}`]);
    // A second snapshot and deltas around the quotes, so that the participant's orders meet recorded levels.
    for (let i = 0; i < 100; i++) {
      const mid = 60000 + (i % 10) * 2;
      more.push({ t: T0 + i * 1000 + 300, et: T0 + i * 1000 + 1570, k: 'book', s: 'BTCUSDT', U: 200 + 2 * i, u: 201 + 2 * i, pu: 199 + 2 * i, b: ladder(mid - 0.5, -1, i), a: ladder(mid + 1, 1, i) });
    }
    const rec = path.join(dir, 'rec.jsonl.gz');
    const [head, ...rest] = gunzipSync(readFileSync(rec)).toString('utf8').trim().split('\n');
    const events = [...rest.map((l) => JSON.parse(l) as RecordedEvent), ...more].sort((a, b) => a.t - b.t);
    writeFileSync(rec, gzipSync([head, ...events.map((e) => JSON.stringify(e))].join('\n') + '\n'));
    const cfg = loadBacktestConfig(writeConfig(dir, 'l2.yaml', { latency: { placeMs: 5 }, fill: { book: 'l2', queue: 'probabilistic' }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.tape.l2).toMatchObject({ snapshots: 1, deltas: 101 });
    expect(a.result.tape.l2?.depthUpdates).toBeGreaterThan(0);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
    expect(c.result.tape).toEqual(a.result.tape);
  }, 60_000);

  test('a cache of another layout is rebuilt, and refused when opened directly', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-layout-'));
    v2Recording(dir);
    const file = path.join(dir, 'rec.jsonl.gz');
    const cache = cachePathFor(file);
    await buildCache(file, cache);
    expect(await cacheIsValid(file, cache)).toBe(true);
    // The same cache as an older layout would have keyed it.
    const bytes = readFileSync(cache);
    const at = bytes.indexOf(`"layout":${CACHE_LAYOUT}`);
    expect(at).toBeGreaterThan(0);
    bytes.write(`"layout":${CACHE_LAYOUT - 1}`, at, 'latin1');
    writeFileSync(cache, bytes);
    expect(await cacheIsValid(file, cache)).toBe(false);
    const { header } = await JsonlSource.open([file]);
    expect(() => CacheSource.open([cache], header)).toThrow(`layout ${CACHE_LAYOUT - 1}, this version reads layout ${CACHE_LAYOUT}`);
    const notices: string[] = [];
    const { source, kind } = await openSource([file], { cache: true, onNotice: (m) => notices.push(m) });
    await source.close();
    expect(kind).toBe('cache');
    expect(notices[0]).toMatch(/building replay cache/);
    expect(await cacheIsValid(file, cache)).toBe(true);
  });
});

describe('replay cache: depth lines in columns', () => {
  /**
   * Depth lines as the recorder writes them (ten levels a side, the recorded digits), and odd ones
   * that must stay raw JSON lines: a field the columns have no place for, an off-grid price, a
   * quantity whose text is not its units' plain decimal, a symbol not in the header.
   */
  function depthRecording(dir: string): { file: string; columns: number; raw: number } {
    const lines: unknown[] = [btcHeader(1, 'test')];
    let columns = 0;
    let raw = 0;
    const side = (from: number, dir: 1 | -1, i: number, digits: number): Array<[string, string]> => Array.from({ length: 10 }, (_, k) => [(from + dir * k * 0.5).toFixed(digits), `${(k + i) % 4}.${String((17 * k + i) % 1000).padStart(3, '0')}`]);
    for (let i = 0; i < 300; i++) {
      const t = T0 + i * 1000;
      const mid = 60000 + (i % 10) * 2;
      lines.push({ t: t + 1, k: 'mark', s: 'BTCUSDT', p: `${mid}.2`, i: `${mid}.2`, r: '0.0001', n: T0 + 8 * 3_600_000 });
      lines.push({ t: t + 2, k: 'depth', s: 'BTCUSDT', b: side(mid, -1, i, 1 + (i % 2)), a: i % 50 === 7 ? [] : side(mid + 0.5, 1, i, 1) });
      columns++;
      lines.push({ t: t + 500, k: 'trade', s: 'BTCUSDT', id: String(1000 + i), p: i % 2 === 0 ? `${mid - 20}.0` : `${mid + 20}.5`, q: '0.050', side: i % 2 === 0 ? 'SELL' : 'BUY' });
      if (i % 60 === 3) {
        const odd: Array<Record<string, unknown>> = [
          { t: t + 600, et: t + 1600, k: 'depth', s: 'BTCUSDT', b: [['60000.0', '1.000']], a: [['60000.5', '1.000']] },
          { t: t + 601, k: 'depth', s: 'BTCUSDT', b: [['60000.55', '1.000']], a: [] },
          { t: t + 602, k: 'depth', s: 'BTCUSDT', b: [['60000.0', '01.000']], a: [] },
          { t: t + 603, k: 'depth', s: 'ETHUSDT', b: [['3000.00', '1.000']], a: [] },
        ];
        lines.push(...odd);
        raw += odd.length;
      }
    }
    const file = path.join(dir, 'depth.jsonl.gz');
    writeFileSync(file, gzipSync(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
    return { file, columns, raw };
  }

  test('decode exactly as the JSON lines hold them, in new arrays, without parsing JSON; odd ones stay raw JSON lines', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-depth-cache-'));
    const { file, columns, raw } = depthRecording(dir);
    const cache = cachePathFor(file);
    await buildCache(file, cache);
    const { header } = await JsonlSource.open([file]);
    const depths = (l: RecordedEvent[]): RecordedEvent[] => l.filter((e) => e.k === 'depth');
    const json = depths(await eventsOf(await JsonlSource.open([file])));
    expect(json.length).toBe(columns + raw);
    // Decoded from the columns: the recorded strings, levels nobody else holds, and JSON.parse
    // only for the raw lines.
    const src = CacheSource.open([cache], header);
    const parse = jest.spyOn(JSON, 'parse');
    const cached: RecordedEvent[] = [];
    const held = new Set<unknown>();
    try {
      for (let b = await src.next(); b !== undefined; b = await src.next()) {
        for (let i = 0; i < b.count; i++) {
          const e = b.event(i);
          if (e.k !== 'depth') continue;
          for (const l of [e.b, e.a, ...e.b, ...e.a]) {
            expect(held.has(l)).toBe(false);
            held.add(l);
          }
          cached.push(e);
        }
      }
      // (The cache file's own head is JSON too.)
      expect(parse.mock.calls.filter(([text]) => text.includes('"k":"depth"')).length).toBe(raw);
    } finally {
      parse.mockRestore();
      await src.close();
    }
    expect(cached).toEqual(json);
    expect(cached.some((e) => e.k === 'depth' && e.b[0][0].endsWith('.00'))).toBe(true);
  });

  test('a backtest on depth lines gives the same report from the cache as from the JSON lines', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-depth-bt-'));
    depthRecording(dir);
    const cfg = loadBacktestConfig(writeConfig(dir, 'depth.yaml', { data: { files: ['depth.jsonl.gz'] }, latency: { placeMs: 5 }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.tape.quotes.depths).toBeGreaterThan(250);
    expect(a.report.fills.length).toBeGreaterThan(0);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
    expect(c.result.tape).toEqual(a.result.tape);
  }, 60_000);
});

describe('what a recording holds, as a backtest meets it', () => {
  /** The recording's lines, edited, written back (gzip, or plain JSON lines to `plain`). */
  function edit(dir: string, change: (lines: string[]) => string[], plain?: string): string {
    const file = path.join(dir, 'rec.jsonl.gz');
    const lines = change(gunzipSync(readFileSync(file)).toString('utf8').split('\n'));
    if (plain === undefined) writeFileSync(file, gzipSync(lines.join('\n')));
    else writeFileSync(path.join(dir, plain), lines.join('\n'));
    return file;
  }

  test('plain JSON lines replay as their gzip gives them, from the JSON lines and from the cache', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-plain-'));
    v2Recording(dir);
    edit(dir, (l) => l, 'rec.jsonl');
    const gz = await backtest(loadBacktestConfig(writeConfig(dir, 'gz.yaml', { latency: { placeMs: 0 }, strategies: [MM] })), { cache: false });
    const cfg = loadBacktestConfig(writeConfig(dir, 'plain.yaml', { data: { files: ['rec.jsonl'] }, latency: { placeMs: 0 }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.report.fills.length).toBeGreaterThan(0);
    expect(a.report.fills).toEqual(gz.report.fills);
    expect(a.report.summary).toEqual(gz.report.summary);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(c.report.summary).toEqual(a.report.summary);
  });

  test('an empty file is refused as one, gzip or not', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-emptyrec-'));
    const cfg = loadBacktestConfig(writeConfig(dir, 'empty.yaml', { data: { files: ['rec.jsonl.gz'] }, strategies: [MM] }));
    writeFileSync(path.join(dir, 'rec.jsonl.gz'), '');
    await expect(backtest(cfg, { cache: false })).rejects.toThrow(`${path.join(dir, 'rec.jsonl.gz')}:1: empty file; expected a perpkit-recording header line`);
    writeFileSync(path.join(dir, 'rec.jsonl.gz'), gzipSync(''));
    await expect(backtest(cfg, { cache: true })).rejects.toThrow('rec.jsonl.gz:1: empty file; expected a perpkit-recording header line');
  });

  test('a price that is not a decimal stops the run at its line, with or without the cache, and leaves no cache behind', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-badvalue-'));
    v2Recording(dir);
    let at = 0;
    const file = edit(dir, (lines) => {
      at = lines.findIndex((l) => l.includes('"k":"trade"'));
      lines[at] = lines[at].replace(/"p":"[^"]*"/, '"p":"abc"');
      return lines;
    });
    const cfg = loadBacktestConfig(writeConfig(dir, 'bad.yaml', { latency: { placeMs: 0 }, strategies: [MM] }));
    const want = `${file}:${at + 1}: trade event: "p" must be a plain decimal string such as "61800.2" (not negative), got "abc"`;
    await expect(backtest(cfg, { cache: false })).rejects.toThrow(want);
    const notices: string[] = [];
    await expect(backtest(cfg, { cache: true, onNotice: (m) => notices.push(m) })).rejects.toThrow(want);
    // The recording's fault, not the cache's: no "cannot write the replay cache" notice, no cache file.
    expect(notices.filter((n) => n.includes('cannot write'))).toEqual([]);
    expect(existsSync(cachePathFor(file))).toBe(false);
  });

  test('gap events and what the import skipped are counted, listed and said in the notices, from the JSON lines and from the cache', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-gaps-'));
    v2Recording(dir);
    const reason = 'book: pu 7 does not follow the previous diff\'s u 5; the book is unknown until the next snapshot';
    const file = edit(dir, (lines) => {
      const header = JSON.parse(lines[0]) as RecordingHeader;
      lines[0] = JSON.stringify({ ...header, skipped: { 'depthUpdate older than the snapshot (u < lastUpdateId)': 4, 'depthUpdate with no snapshot to apply it to': 9 } });
      // Two gaps in the range (one of BTCUSDT's book, one of the whole public stream), one before it.
      const at = (t: number): number => lines.findIndex((l) => l.startsWith('{"t":') && (JSON.parse(l) as RecordedEvent).t > t);
      lines.splice(at(T0 + 90_000), 0, JSON.stringify({ t: T0 + 90_000, k: 'gap', stream: 'public', from: T0 + 85_000, reason: 'reconnect' }));
      lines.splice(at(T0 + 60_000), 0, JSON.stringify({ t: T0 + 60_000, k: 'gap', stream: 'public', from: T0 + 59_000, reason, s: 'BTCUSDT' }));
      lines.splice(at(T0 + 5_000), 0, JSON.stringify({ t: T0 + 5_000, k: 'gap', stream: 'public', from: T0 + 4_000, reason: 'before the range' }));
      return lines;
    });
    expect(file).toBe(path.join(dir, 'rec.jsonl.gz'));
    const cfg = loadBacktestConfig(writeConfig(dir, 'gaps.yaml', { data: { files: ['rec.jsonl.gz'], from: T0 + 10_000 }, latency: { placeMs: 0 }, fill: { book: 'l2' }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.report.data.gaps).toEqual({
      count: 2,
      first: [
        { time: T0 + 60_000, from: T0 + 59_000, stream: 'public', symbol: 'BTCUSDT', reason },
        { time: T0 + 90_000, from: T0 + 85_000, stream: 'public', symbol: null, reason: 'reconnect' },
      ],
    });
    expect(a.report.data.importSkipped).toEqual({ 'depthUpdate older than the snapshot (u < lastUpdateId)': 4, 'depthUpdate with no snapshot to apply it to': 9 });
    const notices = reportNotices(a.report);
    expect(notices).toContain(
      `The recording has 2 gap(s) in the replayed range, where its stream was lost and data may be missing (report data.gaps); the first: BTCUSDT (public stream) from 2024-08-09T00:00:59Z to 2024-08-09T00:01:00Z, ${reason}. Fills and marks around a gap are not those of the recorded market.`,
    );
    expect(notices).toContain('The import of the recording left out 13 input message(s) (report data.importSkipped): depthUpdate older than the snapshot (u < lastUpdateId) 4, depthUpdate with no snapshot to apply it to 9.');
    // The messages before an import's --from are the range its user chose: said apart, and alone no notice.
    const withCut = (importSkipped: Record<string, number>): string[] => reportNotices({ ...a.report, data: { ...a.report.data, importSkipped } }).filter((n) => n.includes('--from') || n.includes('left out'));
    expect(withCut({ ...a.report.data.importSkipped, 'message before --from': 37 })).toEqual([
      'The import of the recording left out 13 input message(s) (report data.importSkipped): depthUpdate older than the snapshot (u < lastUpdateId) 4, depthUpdate with no snapshot to apply it to 9. Not among them: 37 message(s) before the --from of the import, outside the range it was asked for.',
    ]);
    expect(withCut({ 'message before --from': 37 })).toEqual([]);
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
    // A recording without gaps or skips says nothing of the kind, and lists nothing.
    v2Recording(dir);
    const b = await backtest(cfg, { cache: false });
    expect(b.report.data.gaps).toEqual({ count: 0, first: [] });
    expect(b.report.data.importSkipped).toEqual({});
    expect(reportNotices(b.report).filter((n) => n.includes('gap(s)') || n.includes('left out'))).toEqual([]);
  });

  test('the skipped counts of every file of a run are summed', () => {
    const h = btcHeader(2, 'import:test');
    expect(mergeHeaders([{ ...h, skipped: { a: 1, b: 2 } }, { ...h, part: 1 }, { ...h, part: 2, skipped: { b: 3, c: 4 } }]).skipped).toEqual({ a: 1, b: 5, c: 4 });
    expect(mergeHeaders([h, { ...h, part: 1 }]).skipped).toBeUndefined();
  });

  test("the messages an import read before its --from are not counted when other files of the run, imports of the same inputs, hold that time", () => {
    const h = btcHeader(2, 'import:binance-futures');
    const capture = { file: 'cap.gz', sha256: 'a'.repeat(64), bytes: 10 };
    const other = { file: 'other.gz', sha256: 'b'.repeat(64), bytes: 10 };
    const part = (from: number | undefined, to: number | undefined, skipped: Record<string, number>, sources = [capture]): RecordingHeader => ({
      ...h,
      sources,
      skipped,
      meta: { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) },
    });
    const stale = 'depthUpdate older than the snapshot (u < lastUpdateId)';
    const skipped = (...hs: RecordingHeader[]): Record<string, number> | undefined => mergeHeaders(hs).skipped;
    // --to T and --from T of one capture, in either order: the second's cut is the first's range.
    expect(skipped(part(undefined, 100, { [stale]: 4 }), part(100, undefined, { 'message before --from': 50 }))).toEqual({ [stale]: 4 });
    expect(skipped(part(100, undefined, { 'message before --from': 50 }), part(undefined, 100, { [stale]: 4 }))).toEqual({ [stale]: 4 });
    expect(skipped(part(100, undefined, { 'message before --from': 50 }), part(undefined, 100, {}))).toBeUndefined();
    // Three pieces: the last one's cut is held by the first two together.
    expect(skipped(part(undefined, 100, {}), part(100, 200, { 'message before --from': 50 }), part(200, undefined, { 'message before --from': 80 }))).toBeUndefined();
    // Alone, after a hole (the piece before ends earlier), or beside an import of other inputs: said.
    expect(skipped(part(100, undefined, { 'message before --from': 50 }))).toEqual({ 'message before --from': 50 });
    expect(skipped(part(undefined, 90, {}), part(100, undefined, { 'message before --from': 50 }))).toEqual({ 'message before --from': 50 });
    expect(skipped(part(50, 100, {}), part(100, undefined, { 'message before --from': 50 }))).toEqual({ 'message before --from': 50 });
    expect(skipped(part(undefined, 100, {}, [other]), part(100, undefined, { 'message before --from': 50 }))).toEqual({ 'message before --from': 50 });
    // An import of more inputs than this one's holds its inputs too.
    expect(skipped(part(undefined, 100, {}, [other, capture]), part(100, undefined, { 'message before --from': 50 }))).toBeUndefined();
  });

  test('the marks of every file of a run: a symbol whose marks one file derived is derived for the run; partial depth in any file is said', () => {
    const h = btcHeader(2, 'import:test');
    const recorded = { source: 'recorded' as const, method: 'markPriceUpdate stream' };
    const derived = { source: 'derived' as const, method: 'mid price each second' };
    const other = { source: 'derived' as const, method: 'book top each second' };
    expect(mergeHeaders([{ ...h, marks: { BTCUSDT: recorded } }, { ...h, part: 1, marks: { BTCUSDT: derived, ETHUSDT: other } }, { ...h, part: 2, marks: { ETHUSDT: derived } }]).marks).toEqual({ BTCUSDT: derived, ETHUSDT: other });
    expect(mergeHeaders([h, { ...h, part: 1 }]).marks).toBeUndefined();
    const partial = mergeHeaders([{ ...h, meta: { seed: 1 } }, { ...h, part: 1, meta: { partialDepth: 'BTCUSDT (up to 20 levels a side)' } }]).meta;
    expect(partial).toEqual({ seed: 1, partialDepth: 'BTCUSDT (up to 20 levels a side)' });
  });

  test('quotes off the symbol\'s grid are skipped, counted and said in the notices', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-offgrid-'));
    v2Recording(dir);
    // BTCUSDT's tick is 0.1: three quotes at a twentieth of it.
    let n = 0;
    edit(dir, (lines) => lines.map((l) => (l.includes('"k":"quote"') && n++ < 3 ? l.replace(/"bp":"(\d+)\.0"/, '"bp":"$1.05"') : l)));
    const cfg = loadBacktestConfig(writeConfig(dir, 'offgrid.yaml', { latency: { placeMs: 0 }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.tape.quotes.skipped).toBe(3);
    expect(reportNotices(a.report)).toContain(
      "The recording does not fit the symbols' grids and limits everywhere: 3 book quote(s) off the grid or below the minimum were skipped (report data.tape); fills and marks around them are not those of the recorded market.",
    );
    // A trade off the grid and one of a symbol the header does not list: counted too, whether or
    // not they would have reached an order (the backtest passes those that reach none).
    let t = 0;
    edit(dir, (lines) => lines.map((l) => (l.includes('"k":"trade"') && t++ === 2 ? l.replace(/"p":"(\d+)\.(\d)"/, '"p":"$1.$25"') : l)).filter((l) => l !== '').concat([JSON.stringify({ t: T0 + 119_700, k: 'trade', s: 'ETHUSDT', id: 'e1', p: '3000.00', q: '0.100', side: 'BUY' })]));
    const c = await backtest(cfg, { cache: false });
    expect(c.result.tape.skipped).toMatchObject({ offGrid: 1, otherSymbol: 1 });
    expect(reportNotices(c.report).join(' ')).toContain('1 trade(s) off the tick or step grid were skipped, 1 trade(s) of a symbol the recording\'s header does not list were skipped, 3 book quote(s)');
    // A recording that fits says nothing of the kind.
    v2Recording(dir);
    const b = await backtest(cfg, { cache: false });
    expect(reportNotices(b.report).filter((t) => t.includes('does not fit'))).toEqual([]);
  });
});

describe('backtest with the L2 fill model over two files, the second without an L2 snapshot', () => {
  test('the first file\'s book does not carry over: the second file\'s delta is skipped, the file is named in report data and report.html; cache and JSON lines agree; a range starting in the second file is handed no book', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-twofiles-'));
    v2Recording(dir, true, 'a.jsonl.gz');
    // The next two minutes, imported alone: no snapshot, its one delta goes on from update id 100.
    v2Recording(dir, false, 'b.jsonl.gz', T0 + 120_000);
    const cfg = loadBacktestConfig(writeConfig(dir, 'l2.yaml', { data: { files: ['a.jsonl.gz', 'b.jsonl.gz'] }, latency: { placeMs: 0 }, fill: { book: 'l2' }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    // The first file's delta is applied to its snapshot's book; the second's finds no book of its file.
    expect(a.result.tape.l2).toMatchObject({ snapshots: 1, deltas: 1, deltasSkipped: 1 });
    expect(a.result.l2Unknown).toEqual(['b.jsonl.gz']);
    expect(a.report.data.l2Unknown).toEqual(['b.jsonl.gz']);
    expect(reportNotices(a.report)).toContain("fill.book is l2, but a file holds no L2 snapshot (b.jsonl.gz; report data.l2Unknown), and a recorded book does not carry over from the file before: there only the quotes' best levels stood in the book; queue positions and walks through deeper levels are not those of the recorded market (the import reports why a file has no snapshot).");
    const c = await backtest(cfg, { cache: true });
    expect(c.sourceKind).toBe('cache');
    expect(reportJson(c.report)).toBe(reportJson(a.report));
    // data.from inside the second file: the book kept before the range is not the first file's.
    const from = loadBacktestConfig(writeConfig(dir, 'from.yaml', { data: { files: ['a.jsonl.gz', 'b.jsonl.gz'], from: new Date(T0 + 150_000).toISOString() }, latency: { placeMs: 0 }, fill: { book: 'l2' }, strategies: [MM] }));
    const f = await backtest(from, { cache: false });
    expect(f.result.booksAtFrom).toBe(0);
    expect(f.result.l2Unknown).toEqual(['b.jsonl.gz']);
    // Both files with a snapshot: nothing is listed, both deltas are applied.
    v2Recording(dir, true, 'b.jsonl.gz', T0 + 120_000);
    const b = await backtest(cfg, { cache: false });
    expect(b.result.tape.l2).toMatchObject({ snapshots: 2, deltas: 2, deltasSkipped: 0 });
    expect(b.result.l2Unknown).toEqual([]);
  });
});
