import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { importBinanceFutures as importOnce, type BinanceImportOptions } from '../../src/market-data/import/binance-futures';
import { ImportInputError } from '../../src/market-data/import/errors';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { readRecording } from '../../src/market-data/reader';
import { inspectRecording } from '../../src/market-data/inspect';
import { inspectionText } from '../../src/cli/data';

/** These tests write one output path again and again: each import replaces the one before (--overwrite). */
const importBinanceFutures = (o: BinanceImportOptions): ReturnType<typeof importOnce> => importOnce({ ...o, overwrite: true });

const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-cases-'));
const T = 1_723_161_255_000;
let n = 0;

/** A capture line `<receive ns> <combined-stream json>` at receive time ms `t`. */
const line = (t: number, stream: string, data: object): string => `${t}000123 ${JSON.stringify({ stream, data })}`;
const depth = (t: number, U: number, u: number, pu: number, b: Array<[string, string]>, a: Array<[string, string]> = []): string =>
  line(t, 'btcusdt@depth@0ms', { e: 'depthUpdate', E: t + 1270, T: t + 1269, s: 'BTCUSDT', U, u, pu, b, a });
const ticker = (t: number, u: number, b: string, a: string): string => line(t, 'btcusdt@bookTicker', { e: 'bookTicker', u, s: 'BTCUSDT', b, B: '1.000', a, A: '2.000', T: t + 1270, E: t + 1270 });
const trade = (t: number, id: number, p: string, q: string): string => line(t, 'btcusdt@trade', { e: 'trade', E: t + 1270, T: t + 1269, s: 'BTCUSDT', t: id, p, q, m: false });
const snapshot = (t: number, L: number): string => `${t}000000 ${JSON.stringify({ lastUpdateId: L, E: t + 1270, T: t + 1269, bids: [['100.00', '1.000'], ['99.90', '2.000']], asks: [['100.10', '1.500']] })}`;

function file(lines: string[], gz = true): string {
  const f = path.join(dir, `in-${++n}${gz ? '.gz' : '.jsonl'}`);
  const text = `${lines.join('\n')}\n`;
  writeFileSync(f, gz ? gzipSync(text) : text);
  return f;
}

async function events(out: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([out])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

describe('import binance-futures: hand-made inputs', () => {
  test('a pu break becomes a gap; the book is unknown (diffs counted, not written) until the next snapshot resyncs it', async () => {
    const input = file([
      snapshot(T, 100),
      depth(T + 10, 95, 105, 94, [['100.00', '1.100']]),
      depth(T + 20, 106, 110, 105, [['99.90', '0']]),
      depth(T + 30, 120, 125, 119, [['100.00', '3.000']]), // pu 119 does not follow 110
      depth(T + 40, 126, 130, 125, [['100.00', '4.000']]), // no book: waits for a snapshot
      snapshot(T + 50, 200),
      depth(T + 60, 190, 199, 189, [['100.00', '9.000']]), // older than the new snapshot
      depth(T + 70, 195, 205, 199, [['100.10', '0']], [['100.20', '1.000']]),
      depth(T + 80, 206, 210, 205, [['100.00', '5.000']]),
    ]);
    const out = path.join(dir, 'gap.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out });
    const { header, events: all } = await events(out);
    // Without bookTicker, marks are derived from the rebuilt book's top (one per second).
    expect(all.filter((e) => e.k === 'mark')).toEqual([{ t: T + 10, k: 'mark', s: 'BTCUSDT', p: '100', i: '100', r: '0', n: 1_723_161_600_000 }]);
    expect(header.marks?.BTCUSDT.method).toMatch(/rebuilt L2 book top/);
    const ev = all.filter((e) => e.k !== 'mark');
    expect(ev.map((e) => e.k)).toEqual(['snapshot', 'book', 'book', 'gap', 'snapshot', 'book', 'book']);
    const gap = ev[3] as Extract<RecordedEvent, { k: 'gap' }>;
    expect(gap).toMatchObject({ t: T + 30, s: 'BTCUSDT', from: T + 20 });
    expect(gap.reason).toMatch(/pu 119 does not follow the previous diff's u 110/);
    expect(s.added.gaps).toBe(1);
    // The two diffs after the break were waiting for a snapshot; the new one made them too old.
    expect(s.skipped).toEqual({ 'depthUpdate older than the snapshot (u < lastUpdateId)': 3 });
    expect(header.skipped).toEqual(s.skipped);
    expect(s.messages).toBe(9);
    // With --from past the break, the gap (and the mark) before it are not written, nor counted.
    const cut = path.join(dir, 'gap-from.jsonl.gz');
    const sc = await importBinanceFutures({ files: [input], out: cut, from: T + 50 });
    const after = await events(cut);
    expect(after.events.map((e) => e.k)).toEqual(['snapshot', 'book', 'book']);
    expect(sc.added).toMatchObject({ gaps: 0, derivedMarks: 0 });
    expect(after.header.meta).toMatchObject({ gaps: 0, derivedMarks: 0 });
  });

  test('a capture per symbol: the REST snapshot of each file (no symbol in it) is the symbol whose depth that file holds', async () => {
    const eth = (t: number, U: number, u: number, pu: number, b: Array<[string, string]>): string =>
      line(t, 'ethusdt@depth@0ms', { e: 'depthUpdate', E: t + 1270, T: t + 1269, s: 'ETHUSDT', U, u, pu, b, a: [] });
    const btcFile = file([depth(T, 95, 105, 94, [['100.00', '1.100']]), snapshot(T + 5, 100), depth(T + 10, 106, 110, 105, [['99.90', '0']])]);
    const ethFile = file([eth(T + 1, 500, 510, 499, [['20.00', '3.000']]), `${T + 6}000000 ${JSON.stringify({ lastUpdateId: 505, E: T + 1276, T: T + 1275, bids: [['20.00', '2.000']], asks: [['20.10', '1.000']] })}`, eth(T + 11, 511, 515, 510, [['20.00', '4.000']])]);
    const out = path.join(dir, 'two-files.jsonl.gz');
    const s = await importBinanceFutures({ files: [btcFile, ethFile], out });
    const snaps = (await events(out)).events.filter((e) => e.k === 'snapshot' || e.k === 'book').map((e) => `${e.k} ${e.s} ${'u' in e ? e.u : ''}`);
    // In receive-time order across the files; each snapshot takes its own file's diffs.
    expect(snaps).toEqual(['snapshot BTCUSDT 100', 'book BTCUSDT 105', 'snapshot ETHUSDT 505', 'book ETHUSDT 510', 'book BTCUSDT 110', 'book ETHUSDT 515']);
    expect(s.added.gaps).toBe(0);
    // One file holding both symbols' depth before a snapshot: whose it is cannot be told.
    const mixed = file([depth(T, 95, 105, 94, [['100.00', '1.100']]), eth(T + 1, 500, 510, 499, [['20.00', '3.000']]), snapshot(T + 5, 100)]);
    await expect(importBinanceFutures({ files: [mixed], out: path.join(dir, 'mixed.jsonl.gz') })).rejects.toThrow(/:3: a depth snapshot without a symbol while its file holds depth of BTCUSDT, ETHUSDT; pass --symbol$/);
  });

  test('--symbol selects and does not name a snapshot: a snapshot without a symbol stays the one of its own file\'s depth', async () => {
    const ethTicker = (t: number): string => line(t, 'ethusdt@bookTicker', { e: 'bookTicker', u: t, s: 'ETHUSDT', b: '20.00', B: '1.000', a: '20.01', A: '2.000', T: t + 1270, E: t + 1270 });
    // The snapshot before any depth of its file (it waits for the next one), and after it.
    for (const lines of [
      [snapshot(T, 100), ethTicker(T + 1), depth(T + 10, 95, 105, 94, [['100.00', '1.100']]), ethTicker(T + 20)],
      [depth(T, 95, 105, 94, [['100.00', '1.100']]), snapshot(T + 5, 100), ethTicker(T + 10), ethTicker(T + 20)],
    ]) {
      const out = path.join(dir, 'eth-only.jsonl.gz');
      const s = await importBinanceFutures({ files: [file(lines)], out, symbol: 'ETHUSDT' });
      const { header, events: ev } = await events(out);
      expect(ev.filter((e) => e.k !== 'mark').map((e) => `${e.k} ${'s' in e ? e.s : ''}`)).toEqual(['quote ETHUSDT', 'quote ETHUSDT']);
      expect(header.symbols.map((x) => x.symbol)).toEqual(['ETHUSDT']);
      // The snapshot and the diff are BTCUSDT's: both counted as another symbol's.
      expect(s.skipped).toEqual({ 'message of another symbol (--symbol)': 2 });
    }
    // A file of BTCUSDT depth and its snapshot only: nothing of ETHUSDT, refused (no relabelled book).
    const btc = file([snapshot(T, 100), depth(T + 10, 95, 105, 94, [['100.00', '1.100']])]);
    const out = path.join(dir, 'eth-none.jsonl.gz');
    await expect(importBinanceFutures({ files: [btc], out, symbol: 'ETHUSDT' })).rejects.toThrow(/^--symbol ETHUSDT: no message of that symbol in the files \(they hold BTCUSDT/);
    expect(existsSync(out)).toBe(false);
    // A snapshot no depth message of its file claims is refused, naming its line.
    const lone = file([ethTicker(T), snapshot(T + 5, 100), ethTicker(T + 10)]);
    await expect(importBinanceFutures({ files: [lone], out, symbol: 'ETHUSDT' })).rejects.toThrow(/:2: a depth snapshot without a symbol and no depth message in its file to say whose it is/);
  });

  // Probe item 11: "import: 100% (../raw/part2.gz, line 93954)" for a file of 43,954 lines: the
  // line was the count over every file read.
  test('progress names the line within the file it names, not the count over every file', async () => {
    const first = file([ticker(T, 1, '100.00', '100.10'), ticker(T + 10, 2, '100.00', '100.10'), ticker(T + 20, 3, '100.00', '100.10')]);
    const second = file([ticker(T + 30, 4, '100.00', '100.10'), ticker(T + 40, 5, '100.00', '100.10')]);
    const seen: string[] = [];
    await importBinanceFutures({ files: [second, first], out: path.join(dir, 'progress.jsonl.gz'), progressEvery: 1, onProgress: (p) => seen.push(`${path.basename(p.file) === path.basename(first) ? 'first' : 'second'}:${p.line}/${p.lines}`) });
    expect(seen).toEqual(['first:1/1', 'first:2/2', 'first:3/3', 'second:1/4', 'second:2/5', 'second:2/5']);
  });

  test('several files are read as one stream in receive-time order (capture lines by their prefix, plain JSON lines by E)', async () => {
    const ethTicker = (t: number, u: number): string => line(t, 'ethusdt@bookTicker', { e: 'bookTicker', u, s: 'ETHUSDT', b: '20.00', B: '1.000', a: '20.01', A: '2.000', T: t + 1270, E: t + 1270 });
    const a = file([ticker(T, 1, '100.00', '100.10'), ticker(T + 20, 2, '100.00', '100.10'), ticker(T + 40, 3, '100.00', '100.10')]);
    const b = file([ethTicker(T + 10, 7), ethTicker(T + 30, 8), ethTicker(T + 50, 9)]);
    const out = path.join(dir, 'merged.jsonl.gz');
    await importBinanceFutures({ files: [a, b], out });
    const quotes = (await events(out)).events.filter((e) => e.k === 'quote').map((e) => `${e.t} ${e.s}`);
    expect(quotes).toEqual([0, 10, 20, 30, 40, 50].map((d) => `${T + d} ${d % 20 === 0 ? 'BTCUSDT' : 'ETHUSDT'}`));
    // Plain JSON lines (no receive time) merge by their event time E; --to stops the merged stream.
    const plain = (t: number, sym: string): string => JSON.stringify({ e: 'bookTicker', u: t, s: sym, b: '1.00', B: '1.000', a: '1.01', A: '1.000', T: t, E: t });
    const c = file([plain(T, 'BTCUSDT'), plain(T + 20, 'BTCUSDT'), plain(T + 40, 'BTCUSDT')], false);
    const d = file([plain(T + 10, 'ETHUSDT'), plain(T + 30, 'ETHUSDT')], false);
    const out2 = path.join(dir, 'merged-plain.jsonl.gz');
    const s = await importBinanceFutures({ files: [c, d], out: out2, to: T + 35 });
    expect((await events(out2)).events.filter((e) => e.k === 'quote').map((e) => e.t)).toEqual([T, T + 10, T + 20, T + 30]);
    expect(s.stoppedAt).toBe(`${c}:3`);
  });

  test('a receive time that goes back: up to 1 s kept in its place, stamped with the time before it and counted; further back refused at its line', async () => {
    const input = file([ticker(T, 1, '100.00', '100.10'), trade(T + 400, 7, '100.10', '0.010'), ticker(T + 10, 2, '100.00', '100.20'), trade(T + 500, 8, '100.10', '0.020')]);
    const out = path.join(dir, 'back.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out });
    const { header, events: all } = await events(out);
    const times = all.map((e) => e.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(all.filter((e) => e.k === 'quote').map((e) => [e.t, (e as Extract<RecordedEvent, { k: 'quote' }>).ap])).toEqual([[T, '100.10'], [T + 400, '100.20']]);
    expect(s.messages).toBe(4);
    expect(header.meta).toMatchObject({ messagesOutOfOrder: 1 });
    expect(s.notes).toContain('1 messages earlier than the message before them (by up to 390 ms), kept in their place and stamped with its time');
    // Two minutes back: data of another time, not a reordering.
    const far = file([ticker(T + 120_000, 1, '100.00', '100.10'), trade(T + 120_400, 7, '100.10', '0.010'), ticker(T, 2, '100.00', '100.20')]);
    const refused = importBinanceFutures({ files: [far], out: path.join(dir, 'far.jsonl.gz') });
    await expect(refused).rejects.toThrow(ImportInputError);
    await expect(refused).rejects.toThrow(`${far}:3: expected messages in receive-time order (each file in order; several files are merged by time), got a message at ${new Date(T).toISOString()}, 120400 ms before the message before it`);
    expect(existsSync(path.join(dir, 'far.jsonl.gz'))).toBe(false);
  });

  test('--from/--to the files cover only in part: imported as that part, and the summary says where the files start and end', async () => {
    const input = file([ticker(T, 1, '100.00', '100.10'), trade(T + 400, 7, '100.10', '0.010'), ticker(T + 2000, 2, '100.00', '100.20')]);
    const iso = (t: number): string => new Date(t).toISOString();
    const wide = await importBinanceFutures({ files: [input], out: path.join(dir, 'wide.jsonl.gz'), from: T - 60_000, to: T + 60_000 });
    expect(wide.notes).toEqual([
      `--from ${iso(T - 60_000)} is before the first message (${iso(T)}): the recording starts there`,
      `--to ${iso(T + 60_000)} is after the last message (${iso(T + 2000)}): the recording ends there`,
    ]);
    // A range inside the files, or ending within a second of their last message, says nothing of the kind.
    const inside = await importBinanceFutures({ files: [input], out: path.join(dir, 'inside.jsonl.gz'), from: T + 100, to: T + 1500 });
    expect(inside.notes ?? []).toEqual([]);
    const close = await importBinanceFutures({ files: [input], out: path.join(dir, 'close.jsonl.gz'), to: T + 2900 });
    expect(close.notes ?? []).toEqual([]);
  });

  test('diffs that never meet a snapshot are counted, not written', async () => {
    const input = file([ticker(T, 1, '100.00', '100.10'), depth(T + 10, 1, 5, 0, [['100.00', '1.000']]), depth(T + 20, 6, 9, 5, [['100.00', '2.000']])]);
    const s = await importBinanceFutures({ files: [input], out: path.join(dir, 'nosnap.jsonl.gz') });
    expect(s.skipped).toEqual({ 'depthUpdate with no snapshot to apply it to': 2 });
    expect(s.events).toEqual({ quote: 1 });
  });

  test('receive times in ms or us are read by their number of digits', async () => {
    const d = { e: 'trade', E: T + 1270, T: T + 1270, s: 'BTCUSDT', t: 1, p: '100.10', q: '0.010', m: false };
    const input = file([`${T} ${JSON.stringify(d)}`, `${T + 1}500 ${JSON.stringify({ ...d, t: 2 })}`]);
    const out = path.join(dir, 'units.jsonl.gz');
    await importBinanceFutures({ files: [input], out });
    expect((await events(out)).events.map((e) => e.t)).toEqual([T, T + 1]);
  });

  test('plain JSON lines with aggTrade and markPriceUpdate: recorded marks on the price grid, taker side from m, other event types counted', async () => {
    const mark = (t: number, p: string): string => JSON.stringify({ e: 'markPriceUpdate', E: t, s: 'ETHUSDT', p, i: '2499.90000000', P: '2500.0', r: '0.00010000', T: T + 3_600_000 });
    const input = file(
      [
        mark(T, '2500.12000000'),
        JSON.stringify({ stream: 'ethusdt@aggTrade', data: { e: 'aggTrade', E: T + 5, a: 77, s: 'ETHUSDT', p: '2500.10', q: '0.500', f: 1, l: 3, T: T + 4, m: true } }),
        JSON.stringify({ e: 'kline', E: T + 6, s: 'ETHUSDT', k: {} }),
        JSON.stringify({ e: 'aggTrade', E: T + 7, a: 78, s: 'ETHUSDT', p: '2500.20', q: '0.250', f: 4, l: 4, T: T + 7, m: false }),
        mark(T + 8, '2500.16543210'),
      ],
      false,
    );
    const out = path.join(dir, 'eth.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out });
    const { header, events: ev } = await events(out);
    // Binance computes marks to 8 decimals: they are rounded half up to the traded prices' grid,
    // and the first comes before any grid (counted, not written).
    expect(ev).toEqual([
      { t: T + 5, et: T + 4, k: 'trade', s: 'ETHUSDT', id: '77', p: '2500.10', q: '0.500', side: 'SELL' },
      { t: T + 7, et: T + 7, k: 'trade', s: 'ETHUSDT', id: '78', p: '2500.20', q: '0.250', side: 'BUY' },
      { t: T + 8, et: T + 8, k: 'mark', s: 'ETHUSDT', p: '2500.2', i: '2499.9', r: '0.00010000', n: T + 3_600_000 },
    ]);
    expect(header.marks).toEqual({ ETHUSDT: { source: 'recorded', method: 'markPriceUpdate stream' } });
    expect(s.skipped).toEqual({ "unsupported event type 'kline'": 1, 'mark price before two different prices of its symbol were seen (no price grid to put it on; pass --tick)': 1 });
    expect(header.meta?.marksRounded).toBe(1);
    // Mark prices take no part in the tick (they would make it 0.00000001).
    expect(header.symbols[0]).toMatchObject({ symbol: 'ETHUSDT', baseAsset: 'ETH', quoteAsset: 'USDT', tickSize: '0.1', stepSize: '0.25' });
    // The largest grid the few prices lie on is coarser than the venue's: --tick/--step override it.
    await importBinanceFutures({ files: [input], out, tick: '0.01', step: '0.001' });
    const again = await events(out);
    expect(again.header.symbols[0]).toMatchObject({ tickSize: '0.01', stepSize: '0.001' });
    expect(again.events.filter((e) => e.k === 'mark').map((e) => (e.k === 'mark' ? e.p : ''))).toEqual(['2500.12', '2500.17']);
  });

  test('an all-market !markPrice@arr line is one message per event; partial depth (@depth20) is not read as diffs; --symbol in lower case', async () => {
    const mk = (t: number, s: string, p: string): object => ({ e: 'markPriceUpdate', E: t, s, p, P: p, i: p, r: '0.00010000', T: T + 3_600_000 });
    const input = file([
      ticker(T, 1, '100.00', '100.10'),
      ticker(T + 1, 2, '100.10', '100.20'),
      line(T + 2, '!markPrice@arr@1s', [mk(T + 2, 'BTCUSDT', '100.12345678'), mk(T + 2, 'ETHUSDT', '2500.00000000')]),
      // A partial book depth message is a depthUpdate with U, u, pu like a diff, but it holds the top levels.
      line(T + 3, 'btcusdt@depth20@100ms', { e: 'depthUpdate', E: T + 3, T: T + 3, s: 'BTCUSDT', U: 10, u: 11, pu: 9, b: [['100.00', '1.000']], a: [['100.10', '1.000']] }),
      `${T + 4}000000 {"stream":"btcusdt@depth5","data":{"e":"depthUpdate","E":${T + 4},"T":${T + 4},"s":"BTCUSDT","U":12,"u":13,"pu":11,"b":[["100.00", "1.000"]],"a":[]}}`,
    ]);
    const out = path.join(dir, 'arr.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out, symbol: 'btcusdt' });
    const { header, events: ev } = await events(out);
    expect(ev.filter((e) => e.k === 'mark' && e.et !== undefined)).toEqual([{ t: T + 2, et: T + 2, k: 'mark', s: 'BTCUSDT', p: '100.1', i: '100.1', r: '0.00010000', n: T + 3_600_000 }]);
    expect(s.messages).toBe(6);
    expect(s.skipped).toEqual({ 'message of another symbol (--symbol)': 1 });
    // Each partial depth message is a snapshot of the levels it holds, never a diff.
    expect(ev.filter((e) => e.k === 'snapshot' || e.k === 'book')).toEqual([
      { t: T + 3, et: T + 3, k: 'snapshot', s: 'BTCUSDT', u: 11, b: [['100.00', '1.000']], a: [['100.10', '1.000']] },
      { t: T + 4, et: T + 4, k: 'snapshot', s: 'BTCUSDT', u: 13, b: [['100.00', '1.000']], a: [] },
    ]);
    expect(header.symbols.map((x) => x.symbol)).toEqual(['BTCUSDT']);
    // Without --symbol: ETHUSDT's mark has no price grid (counted), and ETHUSDT is no symbol of the recording.
    const all = await importBinanceFutures({ files: [input], out });
    expect(all.symbols.map((x) => x.symbol)).toEqual(['BTCUSDT']);
    expect(all.skipped['mark price before two different prices of its symbol were seen (no price grid to put it on; pass --tick)']).toBe(1);
  });

  test('--from keeps the book across the cut and starts the output with a rebuilt snapshot; --to stops reading', async () => {
    const input = file([
      snapshot(T, 100),
      depth(T + 10, 95, 105, 94, [['100.00', '1.100']]),
      ticker(T + 1500, 106, '100.00', '100.10'),
      depth(T + 2000, 106, 110, 105, [['99.90', '0']], [['100.20', '0.500']]),
      ticker(T + 2500, 110, '100.00', '100.10'),
      depth(T + 5000, 111, 112, 110, [['99.80', '1.000']]),
    ]);
    const out = path.join(dir, 'range.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out, from: T + 1000, to: T + 4000 });
    const { events: ev } = await events(out);
    expect(ev.map((e) => e.k)).toEqual(['snapshot', 'quote', 'mark', 'book', 'quote', 'mark']);
    expect(ev[0]).toEqual({ t: T + 1500, k: 'snapshot', s: 'BTCUSDT', u: 105, b: [['100.00', '1.100'], ['99.90', '2.000']], a: [['100.10', '1.500']] });
    expect(s.skipped).toEqual({ 'message before --from': 2 });
    expect(s.stoppedAt).toMatch(/:6$/);
    await expect(importBinanceFutures({ files: [input], out, from: T + 6000 })).rejects.toThrow(/--from\/--to: no message in .* the files run from/);
  });

  test('a capture imported in two files (--to T, --from T): every message before --from is counted as such, so each skip is counted once over both', async () => {
    const input = file([
      depth(T - 5, 90, 99, 89, [['100.00', '0.900']]), // before the snapshot and older than it
      snapshot(T, 100),
      depth(T + 10, 95, 105, 94, [['100.00', '1.100']]),
      ticker(T + 1500, 106, '100.00', '100.10'),
      line(T + 1600, 'btcusdt@kline_1m', { e: 'kline', E: T + 2870, s: 'BTCUSDT', k: { t: T } }),
      ticker(T + 2500, 110, '100.00', '100.10'),
    ]);
    const whole = await importBinanceFutures({ files: [input], out: path.join(dir, 'split-whole.jsonl.gz') });
    expect(whole.skipped).toEqual({ 'depthUpdate older than the snapshot (u < lastUpdateId)': 1, "unsupported event type 'kline'": 1 });
    const h1 = path.join(dir, 'split-1.jsonl.gz');
    const h2 = path.join(dir, 'split-2.jsonl.gz');
    const first = await importBinanceFutures({ files: [input], out: h1, to: T + 1000 });
    const second = await importBinanceFutures({ files: [input], out: h2, from: T + 1000 });
    expect(first.skipped).toEqual({ 'depthUpdate older than the snapshot (u < lastUpdateId)': 1 });
    // The stale diff, the snapshot and the diff before --from: the range chosen, one reason; the kline after it is its own.
    expect(second.skipped).toEqual({ 'message before --from': 3, "unsupported event type 'kline'": 1 });
    // Both files: the skips of the capture, once each; the time before --from is in the first file, so not said.
    const both = await inspectRecording([h1, h2]);
    expect(both.skippedByImport).toEqual(whole.skipped);
    const text = inspectionText(both);
    expect(text).toContain("\n  skipped by the import: depthUpdate older than the snapshot (u < lastUpdateId) 1, unsupported event type 'kline' 1\n");
    expect(text).not.toContain('--from');
    // The second alone: the time before its --from is in no file given, and said apart from the skips.
    const alone = inspectionText(await inspectRecording([h2]));
    expect(alone).toContain("\n  skipped by the import: unsupported event type 'kline' 1\n  before the import's --from (outside the range it was asked for; no file given holds it): 3 messages\n");
  });

  test('streams not read (forceOrder, whose symbol is inside "o", kline, ticker) and the answers to SUBSCRIBE requests are counted, not refused', async () => {
    const input = file([
      `${T}000000 ${JSON.stringify({ result: null, id: 1 })}`,
      `${T}000000 ${JSON.stringify({ error: { code: 2, msg: 'Invalid request' }, id: 2 })}`,
      ticker(T + 10, 101, '100.00', '100.10'),
      line(T + 20, 'btcusdt@forceOrder', { e: 'forceOrder', E: T + 1290, o: { s: 'BTCUSDT', S: 'SELL', o: 'LIMIT', f: 'IOC', q: '0.014', p: '99.00', ap: '99.10', X: 'FILLED', l: '0.014', z: '0.014', T: T + 1289 } }),
      line(T + 30, 'btcusdt@kline_1m', { e: 'kline', E: T + 1300, s: 'BTCUSDT', k: { t: T } }),
      ticker(T + 40, 102, '100.00', '100.20'),
    ]);
    const out = path.join(dir, 'other-streams.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out });
    expect(s.skipped).toEqual({
      'WebSocket answer to a subscribe request ({"result": ..., "id": ...})': 1,
      'WebSocket error answer to a request: "{\\"code\\":2,\\"msg\\":\\"Invalid request\\"}"': 1,
      "unsupported event type 'forceOrder'": 1,
      "unsupported event type 'kline'": 1,
    });
    const { events: ev } = await events(out);
    expect(ev.filter((e) => e.k === 'quote')).toHaveLength(2);
    // A line with neither an event type nor a request id is still bad input.
    await expect(importBinanceFutures({ files: [file([`${T}000000 ${JSON.stringify({ result: null })}`])], out: path.join(dir, 'x.jsonl.gz') })).rejects.toThrow(/:1: not a Binance message/);
  });

  test('trades of type INSURANCE_FUND or ADL (not market trades) are counted, not replayed; MARKET and untyped trades are', async () => {
    const trade = (t: number, id: number, p: string, X?: string): string => line(t, 'btcusdt@trade', { e: 'trade', E: t + 1270, T: t + 1269, s: 'BTCUSDT', t: id, p, q: '0.010', ...(X === undefined ? {} : { X }), m: false });
    const input = file([
      ticker(T, 100, '100.00', '100.10'),
      trade(T + 10, 1, '100.10', 'MARKET'),
      trade(T + 20, 2, '93.00', 'INSURANCE_FUND'),
      trade(T + 30, 3, '107.00', 'ADL'),
      // The same with whitespace: the general reader, not the scanner.
      `${T + 40}000000 {"stream": "btcusdt@trade", "data": {"e": "trade", "E": ${T + 1310}, "s": "BTCUSDT", "t": 4, "p": "93.50", "q": "0.010", "X": "INSURANCE_FUND", "m": true}}`,
      trade(T + 50, 5, '100.10'),
    ]);
    const out = path.join(dir, 'trade-types.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out });
    expect(s.skipped).toEqual({
      'trade of type INSURANCE_FUND (not a market trade: no order in the book could have met it)': 2,
      'trade of type ADL (not a market trade: no order in the book could have met it)': 1,
    });
    const { events: ev } = await events(out);
    expect(ev.filter((e) => e.k === 'trade').map((e) => (e.k === 'trade' ? e.id : ''))).toEqual(['1', '5']);
  });

  test('a last line cut off mid-write (no newline at its end) is counted, noted and skipped; the rest is imported', async () => {
    const whole = [ticker(T, 100, '100.00', '100.05'), ticker(T + 10, 101, '100.00', '100.10'), ticker(T + 20, 102, '100.00', '100.20')];
    const torn = ticker(T + 30, 103, '100.00', '100.30').slice(0, 60);
    // Cut in its receive time, and with no receive time (a bare JSON line): no time read, still a message read.
    for (const last of [torn, torn.slice(0, 10), ticker(T + 30, 103, '100.00', '100.30').slice(20, 60)]) {
      for (const gz of [false, true]) {
        const f = path.join(dir, `torn-${gz}.${gz ? 'gz' : 'jsonl'}`);
        const text = `${whole.join('\n')}\n${last}`;
        writeFileSync(f, gz ? gzipSync(text) : text);
        const out = path.join(dir, `torn-${gz}.jsonl.gz`);
        const s = await importBinanceFutures({ files: [f], out });
        expect(s.skipped).toEqual({ 'last line of a capture cut off mid-write (no newline at its end, not a whole message)': 1 });
        expect(s.notes).toContain(`${f}:4: the last line has no newline and does not read (the capture was stopped mid-write): skipped`);
        // A message read and skipped, as every skipped one: the messages are the events and the skipped.
        expect(s.messages).toBe(4);
        expect(s.messages).toBe(Object.values(s.events).reduce((a, b) => a + b, 0) + Object.values(s.skipped).reduce((a, b) => a + b, 0));
        const { header, events: ev } = await events(out);
        expect(header.meta?.messages).toBe(4);
        expect(ev.filter((e) => e.k === 'quote').map((e) => (e.k === 'quote' ? e.ap : ''))).toEqual(['100.05', '100.10', '100.20']);
      }
    }
    // Its receive time at or past --to: outside the range, as a whole message there (not counted, not skipped); reading stops at it.
    const f = path.join(dir, 'torn-to.jsonl');
    writeFileSync(f, `${whole.join('\n')}\n${torn}`);
    const past = await importBinanceFutures({ files: [f], out: path.join(dir, 'torn-to.jsonl.gz'), to: T + 30 });
    expect([past.messages, past.skipped, past.stoppedAt]).toEqual([3, {}, `${f}:4`]);
    expect(past.notes ?? []).toEqual([]);
    // The same bad text with a newline after it is bad input, as is a file that is nothing but it.
    await expect(importBinanceFutures({ files: [file([...whole, torn], false)], out: path.join(dir, 'x.jsonl.gz') })).rejects.toThrow(/:4: not JSON after the receive time/);
    const only = path.join(dir, 'only.jsonl');
    writeFileSync(only, torn);
    await expect(importBinanceFutures({ files: [only], out: path.join(dir, 'x.jsonl.gz') })).rejects.toThrow(/only.jsonl:1: not JSON after the receive time/);
  });

  test('the folder of --out is made when it does not exist yet, as synth and backtest make theirs', async () => {
    const out = path.join(dir, 'made', 'for', 'it.jsonl.gz');
    const s = await importBinanceFutures({ files: [file([ticker(T, 1, '100.00', '100.10')])], out });
    expect(s.out).toBe(out);
    expect(existsSync(out)).toBe(true);
  });

  test('a torn gzip is refused with a way out that works: the command it gives, then the import of what it wrote', async () => {
    const f = path.join(dir, 'torn-capture.gz');
    const whole = gzipSync(`${Array.from({ length: 2000 }, (_, i) => ticker(T + i, i, '100.00', '100.10')).join('\n')}\n`);
    writeFileSync(f, whole.subarray(0, whole.length - 40));
    const refused = await importBinanceFutures({ files: [f], out: path.join(dir, 'torn-capture.jsonl.gz') }).then(() => '', (e: Error) => e.message);
    const m = /; to import the lines before the tear, decompress them \(`(gzip -dc \S+ > (\S+))` writes them before it fails\) and import (\S+)$/.exec(refused);
    expect(m).not.toBeNull();
    const [, command, written, named] = m as RegExpExecArray;
    expect(named).toBe(written);
    expect(written).toBe(path.join(dir, 'torn-capture.txt'));
    // gzip writes what it can read, then fails on the missing end (exit 1).
    expect(spawnSync('sh', ['-c', command]).status).toBe(1);
    const s = await importBinanceFutures({ files: [written], out: path.join(dir, 'torn-capture.jsonl.gz') });
    expect(s.events.quote).toBeGreaterThan(1500);
    expect(Object.keys(s.skipped)).toEqual(['last line of a capture cut off mid-write (no newline at its end, not a whole message)']);
  });

  test.each([
    ['a perpkit recording (another format)', () => file([JSON.stringify({ type: 'header', format: 'perpkit-recording' }), '{"t":1,"k":"trade"}']), {}, /:1: not a Binance message/],
    ['a CSV file', () => file(['agg_trade_id,price,quantity', '1,100,1'], false), {}, /:1: not a Binance capture line .* got "agg_trade_id,price,quantity"/],
    ['a torn gzip', () => {
      const f = file([ticker(T, 1, '100.00', '100.10'), ticker(T + 1, 2, '100.00', '100.10')]);
      const whole = gzipSync(`${Array.from({ length: 2000 }, (_, i) => ticker(T + i, i, '100.00', '100.10')).join('\n')}\n`);
      writeFileSync(f, whole.subarray(0, whole.length - 40));
      return f;
    }, {}, /the gzip data ends early \(a torn or truncated file\)/],
    ['a receive time that is neither ns, us nor ms', () => file([`17231612550 ${JSON.stringify({ e: 'trade' })}`]), {}, /:1: not a Binance capture line/],
    ['an output folder that cannot be made (under a file)', () => file([ticker(T, 1, '100.00', '100.10')]), { out: path.join(__filename, 'no', 'x.gz') }, /^--out .*: the folder .*binance-import-cases\.test\.ts\/no cannot be made: ENOTDIR/],
    // Binance spot's diff depth stream has U and u but no pu (and its own continuity rule).
    ['a Binance spot depth stream', () => file([line(T, 'btcusdt@depth@100ms', { e: 'depthUpdate', E: T + 1270, s: 'BTCUSDT', U: 5, u: 9, b: [['100.00', '1.000']], a: [] })]), {}, /:1: depthUpdate message: expected pu .* found none: this looks like Binance spot's depth stream, which import binance-futures does not read$/],
    ['a symbol not in the file', () => file([ticker(T, 1, '100.00', '100.10')]), { symbol: 'ETHUSDT' }, /--symbol ETHUSDT: no message of that symbol in the files \(they hold BTCUSDT/],
    // Every price, quantity and rate written is one the reader accepts: a bad one stops the import at its line.
    ['a quote price in e-notation', () => file([ticker(T, 1, '100.00', '100.10'), ticker(T + 1, 2, '1e2', '100.10')]), {}, /:2: price "1e2" of BTCUSDT: expected a plain non-negative decimal string such as "61800.2"/],
    ['a negative trade price (the scanned path)', () => file([trade(T, 1, '-5', '0.010')]), {}, /:1: price "-5" of BTCUSDT: expected a plain non-negative decimal string/],
    ['a trade quantity that is no number (a line the scanner leaves to JSON.parse: a float id)', () => file([line(T, 'btcusdt@trade', { e: 'trade', E: T, T, s: 'BTCUSDT', t: 1.5, p: '100.00', q: 'abc', m: false })]), {}, /:1: quantity "abc" of BTCUSDT: expected a plain non-negative decimal string/],
    ['a depth level quantity that is no number', () => file([snapshot(T, 100), depth(T + 10, 95, 105, 94, [['100.00', 'x']])]), {}, /:2: quantity "x" of BTCUSDT: expected a plain non-negative decimal string/],
    ['a snapshot level price that is no number', () => file([depth(T, 95, 105, 94, [['100.00', '1.000']]), `${T + 5}000000 ${JSON.stringify({ lastUpdateId: 100, bids: [['1,5', '1.000']], asks: [] })}`]), {}, /:2: price "1,5" of BTCUSDT: expected a plain non-negative decimal string/],
    ['a funding rate that is no number', () => file([JSON.stringify({ e: 'markPriceUpdate', E: T, s: 'BTCUSDT', p: '100.00000000', i: '100.00000000', r: 'abc', T: T + 3_600_000 })], false), {}, /:1: markPriceUpdate message: expected p, i as plain decimal strings, r as a plain decimal string \(a minus allowed\) and T \(next funding time\) as a number, got p "100.00000000", i "100.00000000", r "abc", T 1723164855000$/],
    ['a price with more decimals than the grid arithmetic holds', () => file([ticker(T, 1, '100.000000001', '100.10')]), {}, /:1: price "100.000000001" of BTCUSDT: more than 8 decimals or above 90071992.54740991/],
    // --tick / --step: the data must lie on the grid the option gives (the header would say it does).
    ['a price off --tick', () => file([ticker(T, 1, '100.00', '100.10'), ticker(T + 1, 2, '100.05', '100.10')]), { tick: '0.1' }, /:2: --tick 0\.1: price 100\.05 of BTCUSDT is not a multiple of 0\.1 \(every price must lie on the grid the option gives; the prices before it lie on 0\.1\); give the venue's tick size, or leave the option out to infer it$/],
    ['a price off a --tick that is no power of ten', () => file([ticker(T, 1, '100.00', '100.50'), ticker(T + 1, 2, '100.25', '100.50')]), { tick: '0.5' }, /:2: --tick 0\.5: price 100\.25 of BTCUSDT is not a multiple of 0\.5/],
    ['a quantity off --step', () => file([trade(T, 1, '100.00', '0.010'), trade(T + 1, 2, '100.00', '0.015')]), { step: '0.01' }, /:2: --step 0\.01: quantity 0\.015 of BTCUSDT is not a multiple of 0\.01 \(every quantity must lie on the grid the option gives; the quantities before it lie on 0\.01\)/],
  ])('%s is refused with one line naming the problem', async (_what, make, extra, msg) => {
    const p = importBinanceFutures({ files: [make()], out: path.join(dir, 'bad.jsonl.gz'), ...extra });
    await expect(p).rejects.toBeInstanceOf(ImportInputError);
    await expect(importBinanceFutures({ files: [make()], out: path.join(dir, 'bad.jsonl.gz'), ...extra })).rejects.toThrow(msg);
    expect(existsSync(path.join(dir, 'bad.jsonl.gz'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
  test('partial book depth (@depth5/10/20) makes the L2 book of its symbol: a snapshot per message, marks from its top, the other depth kind counted', async () => {
    const part = (t: number, u: number, stream: string, b: Array<[string, string]>, a: Array<[string, string]>, sym = 'BTCUSDT'): string =>
      line(t, stream, { e: 'depthUpdate', E: t + 5, T: t + 4, s: sym, U: u - 3, u, pu: u - 4, b, a });
    const input = file([
      part(T, 20, 'btcusdt@depth20@100ms', [['100.00', '1.000'], ['99.90', '2.000']], [['100.10', '1.500'], ['100.20', '3.000']]),
      line(T + 50, 'btcusdt@trade', { e: 'trade', E: T + 50, T: T + 49, s: 'BTCUSDT', t: 1, p: '100.10', q: '0.500', X: 'MARKET', m: false }),
      part(T + 100, 30, 'btcusdt@depth20@100ms', [['100.00', '0.500'], ['99.90', '2.000']], [['100.10', '1.000'], ['100.30', '1.000']]),
      // A diff of the same symbol after partial depth: counted, never applied to the partial book.
      depth(T + 150, 31, 33, 30, [['100.00', '9.000']]),
      part(T + 1100, 40, 'btcusdt@depth20@100ms', [['100.10', '1.000']], [['100.30', '1.000']]),
      // ETHUSDT's book comes from diffs (a REST snapshot and a diff): its partial depth is counted.
      `${T + 1200}000000 ${JSON.stringify({ lastUpdateId: 500, E: T + 1201, T: T + 1200, symbol: 'ETHUSDT', bids: [['2500.00', '1.000']], asks: [['2500.10', '1.000']] })}`,
      line(T + 1210, 'ethusdt@depth@100ms', { e: 'depthUpdate', E: T + 1211, T: T + 1210, s: 'ETHUSDT', U: 499, u: 501, pu: 498, b: [['2500.00', '2.000']], a: [] }),
      part(T + 1220, 502, 'ethusdt@depth5@100ms', [['2500.00', '2.000']], [['2500.10', '1.000']], 'ETHUSDT'),
    ]);
    const out = path.join(dir, 'partial.jsonl.gz');
    const s = await importBinanceFutures({ files: [input], out });
    const { header, events: ev } = await events(out);
    expect(ev.filter((e) => e.k === 'snapshot' && e.s === 'BTCUSDT').map((e) => (e.k === 'snapshot' ? [e.t, e.u, e.b.length, e.a.length] : []))).toEqual([
      [T, 20, 2, 2],
      [T + 100, 30, 2, 2],
      [T + 1100, 40, 1, 1],
    ]);
    expect(ev.filter((e) => e.k === 'book' && e.s === 'BTCUSDT')).toEqual([]);
    // No bookTicker: marks are derived from the snapshots' top, one per second of receive time.
    expect(ev.filter((e) => e.k === 'mark' && e.s === 'BTCUSDT').map((e) => (e.k === 'mark' ? [e.t, e.p] : []))).toEqual([
      [T, '100'],
      [T + 1100, '100.2'],
    ]);
    expect(s.skipped).toEqual({
      'diff depth (depthUpdate of <symbol>@depth) of a symbol whose book comes from partial book depth (@depth5/10/20) seen first: capture one depth stream per symbol': 1,
      'partial book depth (a <symbol>@depth5/10/20 stream) of a symbol whose book comes from diff depth (<symbol>@depth): the diffs make the book': 1,
    });
    expect(ev.filter((e) => (e.k === 'snapshot' || e.k === 'book') && e.s === 'ETHUSDT').map((e) => e.k)).toEqual(['snapshot', 'book']);
    expect(header.meta?.partialDepth).toBe('BTCUSDT (up to 2 levels a side)');
    expect(s.notes).toContain('L2 book from partial book depth, each message a snapshot of the top levels: BTCUSDT (up to 2 levels a side); deeper levels are unknown to the replay');
    expect(s.messages).toBe(8);
    // --from: the output starts with the partial book kept across the cut (the one of T + 100),
    // at the first event written inside the range.
    const cut = await importBinanceFutures({ files: [input], out, symbol: 'BTCUSDT', from: T + 120 });
    expect(cut.added.rebuiltSnapshots).toBe(1);
    const snaps = (await events(out)).events.filter((e) => e.k === 'snapshot');
    expect(snaps).toEqual([
      { t: T + 1100, k: 'snapshot', s: 'BTCUSDT', u: 30, b: [['100.00', '0.500'], ['99.90', '2.000']], a: [['100.10', '1.000'], ['100.30', '1.000']] },
      { t: T + 1100, et: T + 1105, k: 'snapshot', s: 'BTCUSDT', u: 40, b: [['100.10', '1.000']], a: [['100.30', '1.000']] },
    ]);
  });
});
