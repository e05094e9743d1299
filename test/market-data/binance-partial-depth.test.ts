/**
 * Partial book depth captures (`<symbol>@depth20`: every message the top 20 levels a side, not a
 * diff), made from the shared Binance capture: its book rebuilt from the REST snapshot and the
 * diffs, written every 250 ms of receive time as a `btcusdt@depth20` message (Binance's default
 * speed for that stream), beside the capture's trades. No bookTicker: marks come from the
 * snapshots' top. The import turns each message into a `snapshot`; a backtest with the L2 book
 * replays them and says where its book came from.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportNotices } from '../../src/backtest/report/html';
import type { Level, RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { importBinanceFutures } from '../../src/market-data/import/binance-futures';
import { L2Book } from '../../src/market-data/l2-book';
import { compareDecimalStrings } from '../../src/core/decimal';
import { readRecording } from '../../src/market-data/reader';
import { ensureBuilt, runCli } from '../cli/exchange-proc';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';

const ROOT = path.resolve(__dirname, '..', '..');
const LEVELS = 20;
const EVERY_MS = 250;

/**
 * The best `n` levels of one side of a book, best first: the first `n` of what `L2Book.levels()`
 * gives, without sorting the whole side (~1,000 levels) at each of the ~1,400 messages, which
 * was most of this suite's set-up.
 */
function topLevels(side: ReadonlyMap<string, string>, n: number, better: (a: string, b: string) => boolean): Level[] {
  const top: Level[] = [];
  for (const [p, q] of side) {
    if (top.length === n && !better(p, top[n - 1][0])) continue;
    let i = top.length;
    while (i > 0 && better(p, top[i - 1][0])) i--;
    top.splice(i, 0, [p, q]);
    if (top.length > n) top.pop();
  }
  return top;
}

async function read(file: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([file])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

describeWithSharedData('partial book depth (@depth20) captures, made from the shared Binance capture', BINANCE_BTCUSDT, (capture) => {
  let dir: string;
  let partial: string;
  /** The shared capture imported as it is (its diffs), and that import's summary. */
  let full: string;
  let fullSummary: Awaited<ReturnType<typeof importBinanceFutures>>;
  /** The top 20 levels a side written in each partial message, in order. */
  const written: Array<{ t: number; u: number; b: Level[]; a: Level[] }> = [];
  let trades = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-partial-depth-'));
    full = path.join(dir, 'full.jsonl.gz');
    fullSummary = await importBinanceFutures({ files: [capture], out: full });
    const book = new L2Book();
    let synced = false;
    let next = 0;
    const lines: string[] = [];
    const line = (t: number, stream: string, data: object): string => `${t}000000 ${JSON.stringify({ stream, data })}`;
    for (const e of (await read(full)).events) {
      if (synced && e.t >= next) {
        const b = topLevels(book.bids, LEVELS, (x, y) => compareDecimalStrings(x, y) > 0);
        const a = topLevels(book.asks, LEVELS, (x, y) => compareDecimalStrings(x, y) < 0);
        const m = { t: e.t, u: book.lastUpdateId, b, a };
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

  describe('the same messages without their envelope (a capture of the raw stream alone)', () => {
    let bare: string;
    const stripped = (file: string): string => {
      // '<ns> {"stream":"...","data":{...}}' -> '<ns> {...}'; a line without an envelope stays as it is.
      const lines = gunzipSync(readFileSync(file)).toString('utf8').trimEnd().split('\n');
      const text = `${lines
        .map((l) => {
          const at = l.indexOf(' {"stream":"');
          return at < 0 ? l : `${l.slice(0, at)} ${l.slice(l.indexOf('","data":', at) + 9, -1)}`;
        })
        .join('\n')}\n`;
      expect(text).not.toContain('"stream"');
      return text;
    };
    /** A recording's event lines (the header, which names the input files, left out). */
    const eventLines = (file: string): string[] => gunzipSync(readFileSync(file)).toString('utf8').split('\n').slice(1);
    beforeAll(() => {
      bare = path.join(dir, 'bare-partial.gz');
      writeFileSync(bare, gzipSync(stripped(partial)));
    });

    it('stop the import at the 20th such message, naming the line, the symbol and the ways out; nothing is written', async () => {
      const out = path.join(dir, 'bare.jsonl.gz');
      const err = await importBinanceFutures({ files: [bare], out }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/^.*bare-partial\.gz:\d+: the depthUpdate messages of BTCUSDT have no stream envelope and read as partial book depth \(@depth20\), not as diffs: the first 20 each hold exactly 20 levels a side and no zero quantity/);
      expect(err?.message).toContain('pass --bare-depth partial to import each as a snapshot of the top levels, --bare-depth diff if they are diffs');
      expect(existsSync(out)).toBe(false);
      await expect(importBinanceFutures({ files: [bare], out, bareDepth: 'sideways' as never })).rejects.toThrow("--bare-depth: expected diff or partial, got 'sideways'");
      // The same lines spaced out (not Binance's own text form: read by JSON.parse, the general path).
      const spaced = path.join(dir, 'bare-partial-spaced.gz');
      writeFileSync(spaced, gzipSync(gunzipSync(readFileSync(bare)).toString('utf8').replace(/,"/g, ', "')));
      await expect(importBinanceFutures({ files: [spaced], out })).rejects.toThrow(/bare-partial-spaced\.gz:\d+: the depthUpdate messages of BTCUSDT have no stream envelope and read as partial book depth \(@depth20\)/);
      expect((await importBinanceFutures({ files: [spaced], out, bareDepth: 'partial' })).skipped).toEqual({});
      rmSync(out);
      // The CLI: one line on stderr, exit 2; told which they are, it imports.
      ensureBuilt();
      const refused = runCli(['import', 'binance-futures', bare, '--out', out]);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('read as partial book depth (@depth20)');
      expect(runCli(['import', 'binance-futures', bare, '--out', out, '--bare-depth', 'sideways']).stderr).toContain("--bare-depth must be diff or partial, got 'sideways'");
      expect(runCli(['import', 'tardis', bare, '--out', out, '--bare-depth', 'partial']).stderr).toContain('--bare-depth applies to binance-futures captures only, not to tardis');
      const told = runCli(['import', 'binance-futures', bare, '--out', out, '--bare-depth', 'partial']);
      expect(told.stderr).toBe('');
      expect(told.code).toBe(0);
    }, 60000);

    it('with bareDepth partial import as the capture with its envelope does', async () => {
      const withEnvelope = path.join(dir, 'enveloped.jsonl.gz');
      const without = path.join(dir, 'bare-partial.jsonl.gz');
      await importBinanceFutures({ files: [partial], out: withEnvelope });
      const s = await importBinanceFutures({ files: [bare], out: without, bareDepth: 'partial' });
      expect(s.skipped).toEqual({});
      expect(eventLines(without)).toEqual(eventLines(withEnvelope));
    });

    it('with bareDepth diff are read as diffs: with no REST snapshot each waits for one and is counted', async () => {
      const s = await importBinanceFutures({ files: [bare], out: path.join(dir, 'bare-diff.jsonl.gz'), bareDepth: 'diff' });
      expect(s.skipped['depthUpdate with no snapshot to apply it to']).toBe(written.length);
      expect(s.events.snapshot ?? 0).toBe(0);
    });

    it('fewer than 20 of them are read as diffs, and the summary says they look like partial depth', async () => {
      const few = path.join(dir, 'bare-few.gz');
      const lines = gunzipSync(readFileSync(bare)).toString('utf8').trimEnd().split('\n');
      // The trades, and the first 5 depth messages only.
      let depth = 0;
      const kept = lines.filter((l) => !l.includes('"depthUpdate"') || ++depth <= 5);
      writeFileSync(few, gzipSync(`${kept.join('\n')}\n`));
      const s = await importBinanceFutures({ files: [few], out: path.join(dir, 'bare-few.jsonl.gz') });
      expect(s.notes).toContain('BTCUSDT: the 5 depthUpdate messages without a stream envelope each held exactly 20 levels a side and no zero quantity, as partial book depth (@depth20) does; they were read as diffs: if they are partial depth, import again with --bare-depth partial');
    });

    it('the real diff capture without its envelope is read as with it: no false alarm on diffs', async () => {
      const diffs = path.join(dir, 'bare-diffs.gz');
      writeFileSync(diffs, gzipSync(stripped(capture)));
      const b = path.join(dir, 'diffs-bare.jsonl.gz');
      const sb = await importBinanceFutures({ files: [diffs], out: b });
      expect(sb.events).toEqual(fullSummary.events);
      expect(sb.skipped).toEqual(fullSummary.skipped);
      expect(sb.notes ?? []).toEqual(fullSummary.notes ?? []);
      expect(eventLines(b)).toEqual(eventLines(full));
    }, 60000);
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
