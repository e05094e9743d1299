/**
 * real-data: the backtester on the real Binance USD-M capture in ../shared/data (issue goals):
 *  - import of the raw capture (`perpkit import binance-futures`) against its limit, gunzip + line
 *    split + JSON.parse of the same file, measured in alternation in one run (best of each);
 *  - the example market maker on the imported file from the replay cache, with the L2 book and the
 *    probabilistic queue model (and the top-of-book model for comparison), against the cache's
 *    decode-only limit measured in alternation in the same run, and as a share of the 1,000,000
 *    events/s goal.
 * BENCH_REAL_RUNS sets the rounds (default 3), after BENCH_REAL_WARMUP untimed rounds of the cache
 * parts (default 3). The capture must be at ../shared/data (or
 * PERPKIT_SHARED_DATA): the suite fails saying so when it is not.
 */
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';
import { parseBacktestConfig } from '../../src/backtest/backtest/config';
import { CacheSource } from '../../src/backtest/backtest/cache';
import { cachePathFor } from '../../src/backtest/backtest/cache-format';
import { buildCache } from '../../src/backtest/backtest/cache-writer';
import { JsonlSource } from '../../src/backtest/backtest/jsonl-source';
import { runBacktest } from '../../src/backtest/backtest/run';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import marketMaker from '../../strategies/market-maker';
import { collectGarbage, round, type BenchResult } from '../harness';
import { decodeOnly } from './backtest';
import { registerSuite } from './registry';

const SHARED = process.env.PERPKIT_SHARED_DATA ?? path.resolve('../shared/data');
const CAPTURE = path.join(SHARED, 'binance-usdm/btcusdt_20240808.gz');
const RUNS = Number(process.env.BENCH_REAL_RUNS ?? 3);
/** Untimed rounds of the cache parts before the timed ones (JIT warm-up). */
const WARMUP = Number(process.env.BENCH_REAL_WARMUP ?? 3);
/** Copies of the imported capture laid end to end for the memory part (12: about 1.1 M events, 70 minutes). */
const COPIES = Number(process.env.BENCH_REAL_COPIES ?? 12);
const GOAL = 1_000_000;

/** gunzip + split + JSON.parse of every message of the capture (`<ns> <json>` lines): the import's limit. */
async function parseOnly(file: string): Promise<{ lines: number; seconds: number }> {
  const t0 = process.hrtime.bigint();
  let lines = 0;
  let sink = 0;
  const rl = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.length === 0) continue;
    const sp = line.indexOf(' ');
    const v = JSON.parse(sp > 0 && line.charCodeAt(0) !== 123 ? line.slice(sp + 1) : line) as unknown;
    if (typeof v === 'object' && v !== null) sink++;
    lines++;
  }
  if (sink < 0) process.stdout.write('');
  return { lines, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

/**
 * The imported capture `copies` times end to end, as one longer recording: each copy's times
 * (receive, exchange, next funding) moved on by the span of the capture and its update ids by
 * their range, so time and ids keep increasing; each copy starts again from the capture's depth
 * snapshot. For the memory of a long L2 replay: the shared file itself is six minutes.
 */
async function repeatRecording(src: string, out: string, copies: number): Promise<number> {
  const lines: string[] = [];
  const rl = createInterface({ input: createReadStream(src).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) if (line.length > 0) lines.push(line);
  const events = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
  const num = (e: Record<string, unknown>, k: string): number | undefined => (typeof e[k] === 'number' ? (e[k] as number) : undefined);
  let t0 = Infinity;
  let t1 = -Infinity;
  let id0 = Infinity;
  let id1 = -Infinity;
  for (const e of events) {
    const t = num(e, 't');
    if (t !== undefined) {
      t0 = Math.min(t0, t);
      t1 = Math.max(t1, t);
    }
    for (const k of ['U', 'u', 'pu']) {
      const v = num(e, k);
      if (v !== undefined) {
        id0 = Math.min(id0, v);
        id1 = Math.max(id1, v);
      }
    }
  }
  const span = t1 - t0 + 1000;
  const idSpan = id1 - id0 + 1;
  const gz = createGzip({ level: 1 });
  const done = new Promise<void>((resolve, reject) => {
    gz.pipe(createWriteStream(out)).on('finish', resolve).on('error', reject);
  });
  gz.write(`${lines[0]}\n`);
  let n = 0;
  for (let c = 0; c < copies; c++) {
    let chunk = '';
    for (const e of events) {
      const copy: Record<string, unknown> = { ...e };
      for (const k of ['t', 'et', 'n']) {
        const v = num(e, k);
        if (v !== undefined) copy[k] = v + c * span;
      }
      for (const k of ['U', 'u', 'pu']) {
        const v = num(e, k);
        if (v !== undefined) copy[k] = v + c * idSpan;
      }
      chunk += `${JSON.stringify(copy)}\n`;
      n++;
    }
    if (!gz.write(chunk)) await new Promise((r) => gz.once('drain', r));
  }
  gz.end();
  await done;
  return n;
}

async function marketMakerRun(file: string, header: Awaited<ReturnType<typeof JsonlSource.open>>['header'], book: 'top' | 'l2', onProgress?: (p: { events: number }) => void): Promise<{ events: number; seconds: number; fills: number }> {
  const params = { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '4', volMultiplier: '3', maxInventory: '0.1', skewBps: '3', refreshMs: 1000 };
  const fill = book === 'l2' ? { book: 'l2', queue: 'probabilistic' } : {};
  const cfg = parseBacktestConfig(
    { data: { files: [file] }, account: { balance: '10000' }, fees: { maker: '0.0002', taker: '0.0005' }, latency: { placeMs: 20 }, fill, strategies: [{ id: 'mm', module: 'market-maker', params }] },
    { file: path.join(path.dirname(file), 'bench.yaml') },
  );
  const source = CacheSource.open([cachePathFor(file)], header);
  const t0 = process.hrtime.bigint();
  const r = await runBacktest(cfg, { slots: [{ id: 'mm', definition: marketMaker, params }], source, onProgress });
  return { events: r.events.read, seconds: Number(process.hrtime.bigint() - t0) / 1e9, fills: r.fills.length };
}

registerSuite({
  name: 'real-data',
  description: 'the shared Binance capture: import vs gunzip+parse, market maker (L2, probabilistic queue) from the cache vs decode limit and the 1M events/s goal',
  async run(): Promise<BenchResult[]> {
    if (!existsSync(CAPTURE)) throw new Error(`${CAPTURE} is missing: this suite needs the shared real data (../shared/data/README.md; PERPKIT_SHARED_DATA points elsewhere)`);
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bench-real-'));
    const out: BenchResult[] = [];
    const rate = (n: number, s: number): number => n / s;
    try {
      const file = path.join(dir, 'btcusdt.jsonl.gz');
      let parse = 0;
      let imp = 0;
      let messages = 0;
      for (let k = 0; k < RUNS; k++) {
        const p = await parseOnly(CAPTURE);
        parse = Math.max(parse, rate(p.lines, p.seconds));
        const t0 = process.hrtime.bigint();
        const s = await importBinanceFutures({ files: [CAPTURE], out: file });
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        messages = s.messages;
        imp = Math.max(imp, rate(s.messages, seconds));
      }
      out.push({ name: 'capture messages', value: messages, unit: 'messages' });
      out.push({ name: `gunzip + split + JSON.parse of the capture (best of ${RUNS})`, value: Math.round(parse), unit: 'lines/s' });
      out.push({ name: `import binance-futures of the capture (best of ${RUNS}, alternating)`, value: Math.round(imp), unit: 'messages/s' });
      out.push({ name: 'import / gunzip+parse (goal >= 0.5)', value: round(imp / parse, 3), unit: 'ratio' });

      await buildCache(file, cachePathFor(file));
      const header = (await JsonlSource.open([file])).header;
      let decode = 0;
      let l2 = 0;
      let top = 0;
      let fills = { l2: 0, top: 0 };
      let events = 0;
      // Untimed warm-up rounds: a run of the six-minute file is ~0.15 s, so the first ones measure
      // the JIT compiling the replay more than the replay (the long replay below shows the steady state).
      for (let k = 0; k < WARMUP; k++) {
        await decodeOnly(CacheSource.open([cachePathFor(file)], header), true);
        await marketMakerRun(file, header, 'l2');
        await marketMakerRun(file, header, 'top');
      }
      for (let k = 0; k < RUNS; k++) {
        const d = await decodeOnly(CacheSource.open([cachePathFor(file)], header), true);
        decode = Math.max(decode, rate(d.events, d.seconds));
        const a = await marketMakerRun(file, header, 'l2');
        l2 = Math.max(l2, rate(a.events, a.seconds));
        const b = await marketMakerRun(file, header, 'top');
        top = Math.max(top, rate(b.events, b.seconds));
        fills = { l2: a.fills, top: b.fills };
        events = a.events;
      }
      out.push({ name: 'imported events', value: events, unit: 'events' });
      out.push({ name: 'untimed warm-up rounds before the cache parts (BENCH_REAL_WARMUP)', value: WARMUP, unit: 'rounds' });
      out.push({ name: `decode only, binary cache of the imported file (best of ${RUNS})`, value: Math.round(decode), unit: 'events/s' });
      out.push({ name: `market maker, L2 book + probabilistic queue, from the cache (best of ${RUNS})`, value: Math.round(l2), unit: 'events/s' });
      out.push({ name: `market maker, top-of-book tape model, from the cache (best of ${RUNS})`, value: Math.round(top), unit: 'events/s' });
      out.push({ name: 'market maker L2 / decode limit', value: round(l2 / decode, 3), unit: 'ratio' });
      out.push({ name: 'market maker L2 / goal of 1,000,000 events/s', value: round(l2 / GOAL, 3), unit: 'ratio' });
      out.push({ name: 'fills, L2 + probabilistic', value: fills.l2, unit: 'fills' });
      out.push({ name: 'fills, top of book', value: fills.top, unit: 'fills' });
      out.push({ name: 'rss at the end', value: Math.round(process.memoryUsage().rss / 1e6), unit: 'MB' });

      // Memory of a long L2 replay: the capture repeated, the heap in use after a full garbage
      // collection at each quarter (flat in the length of the recording, or not).
      if (COPIES > 0) {
        const long = path.join(dir, 'btcusdt-repeated.jsonl.gz');
        const total = await repeatRecording(file, long, COPIES);
        await buildCache(long, cachePathFor(long));
        const longHeader = (await JsonlSource.open([long])).header;
        const marks = [0.25, 0.5, 0.75, 1].map((f) => Math.floor(f * total));
        const heap: number[] = [];
        // The forced full collections of the memory reading are timed apart: they are the measurement's, not the replay's.
        let gcSeconds = 0;
        const r = await marketMakerRun(long, longHeader, 'l2', (p) => {
          if (heap.length < marks.length && p.events >= marks[heap.length] - 50_000) {
            const g0 = process.hrtime.bigint();
            collectGarbage();
            heap.push(Math.round(process.memoryUsage().heapUsed / 1e6));
            gcSeconds += Number(process.hrtime.bigint() - g0) / 1e9;
          }
        });
        out.push({ name: `long L2 replay: the capture ${COPIES} times end to end`, value: r.events, unit: 'events' });
        out.push({ name: 'long L2 replay: market maker (not best of: one run, with the GCs below)', value: Math.round(rate(r.events, r.seconds)), unit: 'events/s' });
        out.push({ name: 'long L2 replay: the 4 forced full GCs of the heap readings', value: Math.round(gcSeconds * 1000), unit: 'ms' });
        out.push({ name: 'long L2 replay: market maker without the forced GCs (same run)', value: Math.round(rate(r.events, r.seconds - gcSeconds)), unit: 'events/s' });
        out.push({ name: 'long L2 replay: market maker without the forced GCs / goal of 1,000,000 events/s', value: round(rate(r.events, r.seconds - gcSeconds) / GOAL, 3), unit: 'ratio' });
        heap.forEach((mb, k) => out.push({ name: `long L2 replay: heap in use after GC at ${['1/4', '1/2', '3/4', 'all'][k]}`, value: mb, unit: 'MB' }));
        out.push({ name: 'long L2 replay: fills', value: r.fills, unit: 'fills' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return out;
  },
});
