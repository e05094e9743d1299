import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportJson } from '../../src/backtest/report/report';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { MM, writeConfig } from './fixtures';
import { CacheSource } from '../../src/backtest/backtest/cache';
import { cachePathFor } from '../../src/backtest/backtest/cache-format';
import { JsonlSource } from '../../src/backtest/backtest/jsonl-source';
import type { EventSource } from '../../src/backtest/backtest/source';

const T0 = 1_723_161_600_000;

/** Two minutes of a v2 recording: quotes, trades, derived marks, one snapshot and one book delta. */
function v2Recording(dir: string): { quotes: number } {
  const spec = synthSymbolsOf().find((s) => s.spec.symbol === 'BTCUSDT')!.spec;
  const header: RecordingHeader = {
    type: 'header', format: 'perpkit-recording', version: 2, source: 'import:test', startTime: T0, symbols: [spec], part: 0,
    marks: { BTCUSDT: { source: 'derived', method: 'mid price sampled each second' } },
  };
  const ev: RecordedEvent[] = [
    { t: T0, et: T0 + 1270, k: 'snapshot', s: 'BTCUSDT', u: 100, b: [['60000.0', '1.000']], a: [['60000.5', '1.000']] },
  ];
  let quotes = 0;
  for (let i = 0; i < 120; i++) {
    const t = T0 + i * 1000;
    const mid = 60000 + (i % 10) * 2;
    ev.push({ t: t + 1, et: t + 1271, k: 'quote', s: 'BTCUSDT', bp: `${mid}.0`, bq: '0.500', ap: `${mid}.5`, aq: '0.700', u: 100 + i });
    quotes++;
    ev.push({ t: t + 2, k: 'mark', s: 'BTCUSDT', p: `${mid}.2`, i: `${mid}.2`, r: '0', n: T0 + 8 * 3_600_000 });
    if (i === 5) ev.push({ t: t + 3, et: t + 1273, k: 'book', s: 'BTCUSDT', U: 101, u: 105, pu: 100, b: [['60000.0', '0']], a: [['60010.5', '2.000']] });
    ev.push({ t: t + 500, et: t + 1770, k: 'trade', s: 'BTCUSDT', id: String(1000 + i), p: i % 2 === 0 ? `${mid - 10}.0` : `${mid + 10}.5`, q: '0.050', side: i % 2 === 0 ? 'SELL' : 'BUY' });
  }
  const text = [header, ...ev].map((l) => JSON.stringify(l)).join('\n') + '\n';
  writeFileSync(path.join(dir, 'rec.jsonl.gz'), gzipSync(text));
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

describe('backtest on a format v2 recording with the L2 fill model and feed latency from the data', () => {
  test('book and snapshot events feed the L2 book; cache (quotes in columns, exchange times kept) and JSON lines agree', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-v2-l2-'));
    v2Recording(dir);
    const cfg = loadBacktestConfig(writeConfig(dir, 'l2.yaml', { latency: { placeMs: 5, feedMs: 'data', feedBaseMs: 2 }, fill: { book: 'l2', queue: 'probabilistic' }, strategies: [MM] }));
    const a = await backtest(cfg, { cache: false });
    expect(a.result.events.unused).toBe(0);
    expect(a.result.tape.l2).toMatchObject({ queue: 'probabilistic', snapshots: 1, deltas: 1 });
    expect(a.report.fills.length).toBeGreaterThan(0);
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
