/**
 * Partial book depth captures (`<symbol>@depth20`: every message the top 20 levels a side, not a
 * diff), made from the shared Binance capture: its book rebuilt from the REST snapshot and the
 * diffs, written every 250 ms of receive time as a `btcusdt@depth20` message (Binance's default
 * speed for that stream), beside the capture's trades. No bookTicker: marks come from the
 * snapshots' top. The import turns each message into a `snapshot`; a backtest with the L2 book
 * replays them and says where its book came from.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportNotices } from '../../src/backtest/report/html';
import type { Level, RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import { L2Book } from '../../src/market-data/l2-book';
import { readRecording } from '../../src/market-data/reader';
import { ensureBuilt, runCli } from '../cli/exchange-proc';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';

const ROOT = path.resolve(__dirname, '..', '..');
const LEVELS = 20;
const EVERY_MS = 250;

async function read(file: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([file])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

describeWithSharedData('partial book depth (@depth20) captures, made from the shared Binance capture', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  let partial: string;
  /** The top 20 levels a side written in each partial message, in order. */
  const written: Array<{ t: number; u: number; b: Level[]; a: Level[] }> = [];
  let trades = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-partial-depth-'));
    const full = path.join(dir, 'full.jsonl.gz');
    await importBinanceFutures({ files: [capture], out: full });
    const book = new L2Book();
    let synced = false;
    let next = 0;
    const lines: string[] = [];
    const line = (t: number, stream: string, data: object): string => `${t}000000 ${JSON.stringify({ stream, data })}`;
    for (const e of (await read(full)).events) {
      if (synced && e.t >= next) {
        const { bids, asks } = book.levels();
        const m = { t: e.t, u: book.lastUpdateId, b: bids.slice(0, LEVELS), a: asks.slice(0, LEVELS) };
        written.push(m);
        lines.push(line(m.t, 'btcusdt@depth20', { e: 'depthUpdate', E: m.t, T: m.t, s: 'BTCUSDT', U: m.u - 1, u: m.u, pu: m.u - 2, b: m.b, a: m.a }));
        next = e.t + EVERY_MS;
      }
      if (e.k === 'snapshot') {
        book.reset(e.b, e.a, e.u);
        synced = true;
      } else if (e.k === 'book') {
        book.apply(e.b, e.a, e.u);
      } else if (e.k === 'trade') {
        trades++;
        lines.push(line(e.t, 'btcusdt@trade', { e: 'trade', E: e.et, T: e.et, s: 'BTCUSDT', t: Number(e.id), p: e.p, q: e.q, X: 'MARKET', m: e.side === 'SELL' }));
      }
    }
    partial = path.join(dir, 'partial-capture.gz');
    writeFileSync(partial, gzipSync(`${lines.join('\n')}\n`));
  }, 60000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports every message as a snapshot of its levels and derives the marks from their top', async () => {
    const out = path.join(dir, 'partial.jsonl.gz');
    const s = await importBinanceFutures({ files: [partial], out });
    expect(written.length).toBeGreaterThan(1000);
    expect(s.messages).toBe(written.length + trades);
    expect(s.skipped).toEqual({});
    const { header, events } = await read(out);
    const snapshots = events.filter((e) => e.k === 'snapshot');
    expect(snapshots.map((e) => (e.k === 'snapshot' ? { t: e.t, u: e.u, b: e.b, a: e.a } : undefined))).toEqual(written);
    expect(events.filter((e) => e.k === 'book' || e.k === 'quote')).toEqual([]);
    expect(header.meta?.partialDepth).toBe('BTCUSDT (up to 20 levels a side)');
    expect(header.marks?.BTCUSDT.source).toBe('derived');
    // A mark each second, the first at the first partial message, between its best bid and ask.
    const marks = events.filter((e) => e.k === 'mark');
    expect(marks.length).toBeGreaterThan(300);
    const first = marks[0];
    expect(first.t).toBe(written[0].t);
    expect(Number(first.k === 'mark' ? first.p : 0)).toBeGreaterThanOrEqual(Number(written[0].b[0][0]));
    expect(Number(first.k === 'mark' ? first.p : 0)).toBeLessThan(Number(written[0].a[0][0]));
  });

  it('backtests the market maker with the L2 book from them, and the report says where the book came from', async () => {
    const recording = path.join(dir, 'partial-bt.jsonl.gz');
    await importBinanceFutures({ files: [partial], out: recording });
    const cfg = loadBacktestConfig(path.join(ROOT, 'config', 'backtest-market-maker-binance.yaml'));
    cfg.data.files = [recording];
    cfg.data.cache = false;
    cfg.fill = { ...cfg.fill, book: 'l2' };
    const o = await backtest(cfg);
    const r = o.report;
    expect(r.data.partialDepth).toBe('BTCUSDT (up to 20 levels a side)');
    expect(r.data.tape.l2?.snapshots).toBe(written.length);
    expect(r.data.tape.l2?.deltas).toBe(0);
    // The tape's quotes follow each snapshot's top (there are no quote events).
    expect(r.data.tape.quotes.depths).toBe(written.length);
    expect(r.summary.fills).toBeGreaterThan(0);
    expect(r.fills.every((f) => f.role === 'maker')).toBe(true);
    expect(o.result.audit.frozenMismatch).toEqual([]);
    for (const q of Object.values(o.result.audit.netQtyBySymbol)) expect(q).toBe(0);
    expect(reportNotices(r)).toContain(
      'The recorded L2 book comes from partial book depth, each message a snapshot of the top levels (BTCUSDT (up to 20 levels a side)): levels deeper than that are unknown, so an order walking past them finds no recorded liquidity there.',
    );
    // And the command's summary says it.
    ensureBuilt();
    const yaml = path.join(dir, 'partial-bt.yaml');
    writeFileSync(yaml, stringify({ ...parse(readFileSync(path.join(ROOT, 'config', 'backtest-market-maker-binance.yaml'), 'utf8')), data: { files: [recording], cache: false }, fill: { book: 'l2' }, report: { out: path.join(dir, 'partial-out') } }));
    const cli = runCli(['backtest', yaml, '--quiet']);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`fill: l2 book, queue risk-averse: ${written.length} snapshots and 0 deltas applied`);
    expect(cli.stdout).toContain('data: the recorded L2 book comes from partial book depth, each message a snapshot of the top levels (BTCUSDT (up to 20 levels a side)): deeper levels are unknown');
  }, 60000);
});
