/**
 * `perpkit import tardis` on the hand-made Tardis.dev CSV fixtures (test/fixtures/tardis, see its
 * README): every data type, the merge in receive-time order, the funding derivation, --symbol,
 * --from/--to, and bad input as one-line errors.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { ImportInputError } from '../../src/market-data/import/errors';
import { importTardis } from '../../src/market-data/import/tardis';
import { importSummaryText } from '../../src/cli/import';
import { plainDecimal } from '../../src/market-data/import/common';
import { inspectRecording } from '../../src/market-data/inspect';
import { readRecording } from '../../src/market-data/reader';

const FIX = path.resolve(__dirname, '..', 'fixtures', 'tardis');
const fx = (kind: string): string => path.join(FIX, `binance-futures_${kind}_2024-08-01_BTCUSDT.csv`);
const L2 = fx('incremental_book_L2');
const TRADES = fx('trades');
const QUOTES = fx('quotes');
const TICKER = fx('derivative_ticker');
const SNAP5 = fx('book_snapshot_5');
/** 2024-08-01T07:59:58Z, the fixtures' first second. */
const T0 = 1_722_499_198_000;

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'perpkit-tardis-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const out = (): string => path.join(dir, `rec-${++n}.jsonl.gz`);
/** A copy of a fixture (or any text) in the temp dir, gzipped when `gz`. */
function write(name: string, text: string, gz = false): string {
  const f = path.join(dir, name);
  writeFileSync(f, gz ? gzipSync(text) : text);
  return f;
}

async function read(file: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([file])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

async function refused(files: string[], extra: Partial<Parameters<typeof importTardis>[0]> = {}): Promise<string> {
  const o = out();
  const e = await importTardis({ files, out: o, ...extra }).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ImportInputError);
  const msg = (e as Error).message;
  expect(msg.split('\n')).toHaveLength(1);
  // Nothing left behind: neither the output nor its temporary files.
  expect(existsSync(o)).toBe(false);
  expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  return msg;
}

describe('import tardis: every data type of the hand-made fixtures', () => {
  let rec: string;
  let header: RecordingHeader;
  let events: RecordedEvent[];
  let summary: Awaited<ReturnType<typeof importTardis>>;
  let l2gz: string;

  beforeAll(async () => {
    // The book file gzipped (as Tardis ships them), the others plain.
    l2gz = write('binance-futures_incremental_book_L2_2024-08-01_BTCUSDT.csv.gz', readFileSync(L2, 'utf8'), true);
    rec = out();
    summary = await importTardis({ files: [l2gz, TRADES, QUOTES, TICKER], out: rec });
    ({ header, events } = await read(rec));
  });

  test('one event per message, in receive order; skips counted by reason', () => {
    // 23 book rows in 10 messages + 7 trades + 9 quotes + 7 ticker rows = 33 messages.
    expect(summary.messages).toBe(33);
    expect(summary.events).toEqual({ snapshot: 2, book: 7, trade: 6, quote: 8, mark: 6 });
    expect(summary.skipped).toEqual({
      'incremental_book_L2 message before the first snapshot of its symbol': 1,
      "trade with side 'unknown' (the venue did not say the taker's side)": 1,
      'quote with an empty side': 1,
      'derivative_ticker row without mark_price (and no funding settlement)': 1,
    });
    // Messages = events from messages + skipped; the funding settlement is derived (added).
    const written = Object.values(summary.events).reduce((a, b) => a + b, 0);
    expect(written + Object.values(summary.skipped).reduce((a, b) => a + b, 0)).toBe(summary.messages);
    expect(summary.added).toEqual({ derivedMarks: 0, gaps: 0, rebuiltSnapshots: 0, derivedFunding: 1 });
    expect(events).toHaveLength(written + 1);
    for (let i = 1; i < events.length; i++) expect(events[i].t).toBeGreaterThanOrEqual(events[i - 1].t);
  });

  test('incremental_book_L2: snapshot rows begin a book, rows of one message become one book event', () => {
    const book = events.filter((e) => e.k === 'snapshot' || e.k === 'book');
    expect(book[0]).toEqual({ t: T0 + 120, et: T0 + 100, k: 'snapshot', s: 'BTCUSDT', u: 1, b: [['64000', '0.5'], ['63999.9', '1.5'], ['63999.8', '3']], a: [['64000.1', '1.2'], ['64000.2', '0.8'], ['64000.3', '2']] });
    // Two rows of one message (same timestamp and local_timestamp): one delta; amount 0 removes.
    expect(book[1]).toEqual({ t: T0 + 305, et: T0 + 300, k: 'book', s: 'BTCUSDT', U: 2, u: 2, b: [['64000', '0.7']], a: [['64000.1', '0']] });
    // A snapshot after deltas (a reconnect) replaces the book; its last row, received in a later
    // message, adds to it as a delta.
    const snap2 = book.findIndex((e, i) => i > 0 && e.k === 'snapshot');
    expect(book[snap2]).toMatchObject({ t: T0 + 4010, k: 'snapshot', u: 7, b: [['64000.1', '0.9'], ['64000', '1']], a: [['64000.2', '1'], ['64000.3', '1']] });
    expect(book[snap2 + 1]).toMatchObject({ t: T0 + 4011, k: 'book', U: 8, u: 8, b: [], a: [['64000.4', '2']] });
    expect(book.map((e) => (e.k === 'book' ? e.u : e.k === 'snapshot' ? e.u : 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('trades, quotes: receive time t, exchange time et, taker side, id (or the line when empty)', () => {
    const trades = events.filter((e) => e.k === 'trade');
    expect(trades[0]).toEqual({ t: T0 + 204, et: T0 + 200, k: 'trade', s: 'BTCUSDT', id: '5000001', p: '64000.1', q: '0.01', side: 'BUY' });
    expect(trades.map((e) => (e.k === 'trade' ? `${e.id} ${e.side}` : ''))).toEqual(['5000001 BUY', '5000002 SELL', '5000003 BUY', 'line:5 SELL', '5000006 BUY', '5000007 SELL']);
    const quotes = events.filter((e) => e.k === 'quote');
    expect(quotes[0]).toEqual({ t: T0 + 130, et: T0 + 100, k: 'quote', s: 'BTCUSDT', bp: '64000', bq: '0.5', ap: '64000.1', aq: '1.2' });
  });

  test('derivative_ticker: marks, and one funding settlement where funding_timestamp moves forward', () => {
    const marks = events.filter((e) => e.k === 'mark');
    expect(marks[0]).toEqual({ t: T0 + 2, et: T0, k: 'mark', s: 'BTCUSDT', p: '64005.2', i: '64010.5', r: '0.0001', n: T0 + 2000 });
    // index_price empty: index = mark.
    expect(marks[3]).toMatchObject({ p: '64005.3', i: '64005.3', r: '0.00006', n: 1_722_528_000_000 });
    const funding = events.filter((e) => e.k === 'funding');
    // At the rate last announced before 08:00 (0.00012, not the new 0.00005) and the last mark.
    expect(funding).toEqual([{ t: T0 + 2004, et: T0 + 2000, k: 'funding', s: 'BTCUSDT', r: '0.00012', p: '64005.1' }]);
    const i = events.indexOf(funding[0]);
    expect(events[i + 1]).toMatchObject({ k: 'mark', r: '0.00005', n: 1_722_528_000_000 });
    expect(header.marks).toEqual({ BTCUSDT: { source: 'recorded', method: expect.stringMatching(/^derivative_ticker: mark_price/) as unknown as string } });
  });

  test('derivative_ticker: no settlement without a mark, nor where funding_timestamp moves long before its time', async () => {
    const H = 'exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price';
    const row = (ts: number, ft: string, rate: string, mark: string): string => `binance-futures,BTCUSDT,${ts}000,${ts + 2}000,${ft},${rate},,1,,,${mark}`;
    const f = write('ticker-edge.csv', [
      H,
      row(T0, '1722499200000000', '0.0001', ''), // no mark yet
      row(T0 + 1990, '1722528000000000', '0.0002', ''), // 08:00 rolled 10 ms early: its settlement, but no mark to settle at
      row(T0 + 2500, '1722528000000000', '0.0002', '64000'),
      row(T0 + 3000, '1722556800000000', '-5e-7', '64001'), // 16:00 -> 24:00 at 08:00:01: a schedule change
    ].join('\n'));
    const o = out();
    const s = await importTardis({ files: [f], out: o, tick: '0.1' });
    const { events } = await read(o);
    expect(events.filter((e) => e.k === 'funding')).toEqual([]);
    // Each row is one event or one skip; a row that gives its mark but implied a settlement that
    // was not derived is said in the header.
    expect(s.skipped).toEqual({
      'derivative_ticker row without mark_price (and no funding settlement)': 1,
      'funding settlement before any mark price of its symbol': 1,
    });
    expect(s.messages).toBe(4);
    expect((await read(o)).header.meta?.fundingNotDerived).toBe('funding_timestamp moved more than a minute before its time came (no settlement assumed): 1');
    expect(events.filter((e) => e.k === 'mark').map((e) => (e.k === 'mark' ? [e.r, e.n] : []))).toEqual([['0.0002', 1_722_528_000_000], ['-0.0000005', 1_722_556_800_000]]);
  });

  test('derivative_ticker: mark and index prices (to more decimals than the tick) are put on the grid of the traded prices', async () => {
    const lines = readFileSync(TICKER, 'utf8').split('\n');
    lines[1] = lines[1].replace('64010.5,64005.2', '64010.54999999,64005.21483696');
    lines[2] = lines[2].replace('64010.4,64005.1', '64010.45,64005.149999999999');
    const f = write('ticker-decimals.csv', lines.join('\n'));
    const o = out();
    const s = await importTardis({ files: [L2, f], out: o });
    const { header, events } = await read(o);
    const marks = events.filter((e) => e.k === 'mark');
    // The first ticker row comes before any book row: the grid was read ahead from the book file.
    expect(marks.slice(0, 2).map((e) => (e.k === 'mark' ? [e.t, e.p, e.i] : []))).toEqual([
      [T0 + 2, '64005.2', '64010.5'],
      [T0 + 1002, '64005.1', '64010.5'],
    ]);
    expect(header.symbols[0].tickSize).toBe('0.1');
    expect(header.meta?.marksRounded).toBe(2);
    expect(s.notes).toEqual(['2 mark prices rounded to the price grid']);
  });

  test('derivative_ticker alone: no price grid to put marks on, so they are counted, not written; --tick gives one', async () => {
    expect(await refused([TICKER])).toMatch(/derivative_ticker_2024-08-01_BTCUSDT\.csv: no message became an event \(skipped: derivative_ticker mark before two different prices of its symbol were seen \(no price grid to put it on; pass --tick\) 6, derivative_ticker row without mark_price \(and no funding settlement\) 1\)$/);
    const o = out();
    const s = await importTardis({ files: [TICKER], out: o, tick: '0.1' });
    expect(s.events.mark).toBe(6);
    const r = await importTardis({ files: [TICKER, TRADES], out: out() });
    // The trades give the grid (read ahead): every mark is written.
    expect(r.events.mark).toBe(6);
    expect(r.skipped["derivative_ticker mark before two different prices of its symbol were seen (no price grid to put it on; pass --tick)"]).toBeUndefined();
  });

  test('the header: sources with sha256, inferred grid, exchanges, rows', () => {
    const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
    expect(header.source).toBe('import:tardis');
    expect(header.sources).toEqual([l2gz, TRADES, QUOTES, TICKER].map((f) => ({ file: path.basename(f), sha256: sha(f), bytes: readFileSync(f).length })));
    expect(header.symbols[0]).toMatchObject({ symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', tickSize: '0.1', stepSize: '0.001' });
    expect(header.meta).toMatchObject({ importer: 'perpkit import tardis', exchanges: 'binance-futures', rows: 46, derivedFunding: 1 });
  });

  test('inspect: the book rebuilt from snapshot + deltas equals every quote; feed latency from local_timestamp - timestamp', async () => {
    const r = await inspectRecording([rec]);
    expect(r.symbols.BTCUSDT.receiveOrder).toEqual({ compared: 8, agree: 8, samePrices: 8 });
    expect(r.symbols.BTCUSDT.book).toEqual({ crossed: 0, locked: 0, deltas: 7, unknownDeltas: 0 });
    expect(r.latencyMs).toMatchObject({ min: 2, max: 30 });
  });
});

describe('import tardis: merge order, other data types, options', () => {
  test('files merge by local_timestamp; at equal times the file given first comes first', async () => {
    const a = out();
    await importTardis({ files: [L2, TRADES], out: a });
    const b = out();
    await importTardis({ files: [TRADES, L2], out: b });
    // The delta and the trade both arrived at T0 + 305.
    const at = async (f: string): Promise<string[]> => (await read(f)).events.filter((e) => e.t === T0 + 305).map((e) => e.k);
    expect(await at(a)).toEqual(['book', 'trade']);
    expect(await at(b)).toEqual(['trade', 'book']);
  });

  test('a row whose local_timestamp goes back keeps its place, stamped with the time before it, and is counted', async () => {
    const lines = readFileSync(TRADES, 'utf8').split('\n');
    // The third trade arrives "before" the second.
    lines[3] = lines[3].replace('1722499199604000', '1722499198300000');
    const f = write('late_trades.csv', lines.join('\n'));
    const o = out();
    await importTardis({ files: [L2, f], out: o });
    const { header, events } = await read(o);
    for (let i = 1; i < events.length; i++) expect(events[i].t).toBeGreaterThanOrEqual(events[i - 1].t);
    expect(events.find((e) => e.k === 'trade' && e.id === '5000003')).toMatchObject({ t: T0 + 305, et: T0 + 1600 });
    expect(header.meta?.rowsOutOfOrder).toBe(1);
  });

  test('quotes without derivative_ticker: each derived mark comes right after the quote it is computed from, never before it', async () => {
    const o = out();
    await importTardis({ files: [QUOTES, TRADES], out: o });
    const { events } = await read(o);
    const marks = events.map((e, i) => [e, i] as const).filter(([e]) => e.k === 'mark');
    expect(marks.length).toBeGreaterThan(0);
    for (const [m, i] of marks) {
      const q = events[i - 1];
      expect(q).toMatchObject({ k: 'quote', t: m.t });
      if (q.k === 'quote' && m.k === 'mark') expect(Number(m.p)).toBe(Math.floor(((Number(q.bp) + Number(q.ap)) / 2) * 10) / 10);
    }
  });

  test('book_snapshot_5: a snapshot and a quote per row; without derivative_ticker, marks are derived from the quotes', async () => {
    const o = out();
    const s = await importTardis({ files: [SNAP5, TRADES], out: o });
    const { header, events } = await read(o);
    expect(s.events).toEqual({ snapshot: 5, quote: 5, trade: 6 });
    expect(events[0]).toEqual({ t: T0 + 120, et: T0 + 100, k: 'snapshot', s: 'BTCUSDT', u: 1, b: [['64000', '0.5'], ['63999.9', '1.5'], ['63999.8', '3']], a: [['64000.1', '1.2'], ['64000.2', '0.8'], ['64000.3', '2']] });
    expect(events[1]).toEqual({ t: T0 + 120, et: T0 + 100, k: 'quote', s: 'BTCUSDT', bp: '64000', bq: '0.5', ap: '64000.1', aq: '1.2' });
    // The mid of that top (64000.05) rounded down to the tick; funding rate 0, next 8-hour boundary.
    expect(events[2]).toEqual({ t: T0 + 120, k: 'mark', s: 'BTCUSDT', p: '64000', i: '64000', r: '0', n: T0 + 2000 });
    // The last row has fewer levels than 5: empty cells are no level.
    const last = events.filter((e) => e.k === 'snapshot').pop();
    expect(last).toMatchObject({ b: [['64000.1', '0.9'], ['64000', '1']], a: [['64000.2', '1'], ['64000.3', '1'], ['64000.4', '2']] });
    expect(header.marks?.BTCUSDT).toEqual({ source: 'derived', method: expect.stringMatching(/^the mid price of the first quote of each second/) as unknown as string });
    expect(s.added.derivedMarks).toBe(4);
  });

  test('incremental_book_L2 alone: marks derived from the rebuilt book top', async () => {
    const o = out();
    const s = await importTardis({ files: [L2], out: o });
    const { header } = await read(o);
    expect(header.marks?.BTCUSDT.method).toMatch(/rebuilt L2 book top/);
    // One per second with a book message: 07:59:58, :59, 08:00:00, :01, :02, :03.
    expect(s.added.derivedMarks).toBe(6);
  });

  test('--from keeps the book across the cut and writes it as a snapshot; --to stops reading', async () => {
    const o = out();
    const s = await importTardis({ files: [L2, TRADES, QUOTES, TICKER], out: o, from: T0 + 2000, to: T0 + 3000 });
    const { events } = await read(o);
    expect(events[0]).toEqual({ t: T0 + 2004, k: 'snapshot', s: 'BTCUSDT', u: 4, b: [['63999.9', '1.2'], ['63999.8', '3']], a: [['64000.1', '0.4'], ['64000.2', '0.8'], ['64000.3', '2']] });
    expect(events.every((e) => e.t >= T0 + 2000 && e.t < T0 + 3000)).toBe(true);
    expect(s.added.rebuiltSnapshots).toBe(1);
    expect(s.skipped['message before --from']).toBeGreaterThan(0);
    expect(s.stoppedAt).toMatch(/derivative_ticker.*:6$/);
  });

  test('--symbol: another symbol is counted as skipped; a symbol not in the files is refused', async () => {
    const eth = write('eth_trades.csv', readFileSync(TRADES, 'utf8').replace(/,BTCUSDT,/g, ',ETHUSDT,'));
    const o = out();
    const s = await importTardis({ files: [L2, eth], out: o, symbol: 'BTCUSDT' });
    expect(s.skipped['message of another symbol (--symbol)']).toBe(7);
    expect(await refused([L2], { symbol: 'ETHUSDT' })).toMatch(/^--symbol ETHUSDT: no message of that symbol in the files \(they hold BTCUSDT/);
  });

  test('progress: reported every progressEvery rows and at the end, with bytes read of the total', async () => {
    const seen: Array<{ lines: number; bytesDone: number; bytesTotal: number }> = [];
    await importTardis({ files: [L2, TRADES], out: out(), progressEvery: 10, onProgress: (p) => seen.push({ lines: p.lines, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal }) });
    const total = readFileSync(L2).length + readFileSync(TRADES).length;
    // 30 rows: every 10th, then the end of the input.
    expect(seen.map((p) => p.lines)).toEqual([10, 20, 30, 30]);
    expect(seen.every((p) => p.bytesTotal === total && p.bytesDone <= total)).toBe(true);
    expect(seen[seen.length - 1].bytesDone).toBe(total);
  });

  test('plain decimals from scientific notation', () => {
    expect(plainDecimal('1e-7')).toBe('0.0000001');
    expect(plainDecimal('1.5e-3')).toBe('0.0015');
    expect(plainDecimal('2.5e3')).toBe('2500');
    expect(plainDecimal('64000.1')).toBe('64000.1');
    expect(plainDecimal('-1')).toBeUndefined();
    expect(plainDecimal('abc')).toBeUndefined();
  });
});

describe('import tardis: bad input is one line naming the file, line and rule', () => {
  test('a file of another format', async () => {
    const f = write('capture.gz', `1723161255000000000 {"stream":"btcusdt@trade","data":{}}\n`, true);
    expect(await refused([f])).toMatch(/capture\.gz:1: not a Tardis CSV header \(expected it to begin with exchange,symbol,timestamp,local_timestamp\), got "1723161255000000000/);
  });

  test('a torn gzip', async () => {
    const whole = gzipSync(readFileSync(L2));
    const f = write('torn.csv.gz', '');
    writeFileSync(f, whole.subarray(0, whole.length - 20));
    expect(await refused([f])).toMatch(/torn\.csv\.gz: the gzip data ends early \(a torn or truncated file\)/);
  });

  test('wrong header columns', async () => {
    const f = write('bad-header.csv', 'exchange,symbol,timestamp,local_timestamp,id,side,price\nx,BTCUSDT,1,1,1,buy,1\n');
    expect(await refused([f])).toMatch(/bad-header\.csv:1: the header's columns after local_timestamp fit no Tardis data type .*got "id,side,price"$/);
  });

  test('a row that does not fit its header', async () => {
    const lines = readFileSync(TRADES, 'utf8').split('\n');
    lines[3] = lines[3].split(',').slice(0, 7).join(',');
    const f = write('short-row.csv', lines.join('\n'));
    expect(await refused([f])).toMatch(/short-row\.csv:4: trades row: expected 8 columns as in the header, found 7, got "binance-futures,BTCUSDT/);
    const g = write('bad-side.csv', readFileSync(L2, 'utf8').replace('false,bid,63999.9,1.5', 'false,buy,63999.9,1.5'));
    expect(await refused([g])).toMatch(/bad-side\.csv:2: incremental_book_L2 row: expected side bid or ask/);
  });

  test('--tick / --step: a row off the grid stops the import, naming the option, the value, the file and its line', async () => {
    expect(await refused([TRADES], { tick: '0.2' })).toMatch(/trades_2024-08-01_BTCUSDT\.csv:2: --tick 0\.2: price 64000\.1 of BTCUSDT is not a multiple of 0\.2/);
    // A row of an incremental_book_L2 message is named by its own line, not the message's first.
    expect(await refused([L2], { step: '0.5' })).toMatch(/incremental_book_L2_2024-08-01_BTCUSDT\.csv:3: --step 0\.5: quantity 0\.8 of BTCUSDT is not a multiple of 0\.5 \(every quantity must lie on the grid the option gives; the quantities before it lie on 1\.5\)/);
  });

  test('a file name that says another data type than its header', async () => {
    const f = write('binance-futures_trades_2024-08-01_BTCUSDT.csv', readFileSync(QUOTES, 'utf8'));
    expect(await refused([f])).toMatch(/:1: the file name says trades but the header is that of quotes$/);
  });

  test('liquidations (the columns of trades) are told apart by their Tardis file name and refused; book_ticker reads as quotes', async () => {
    const liq = write('binance-futures_liquidations_2024-08-01_BTCUSDT.csv', readFileSync(TRADES, 'utf8'));
    expect(await refused([liq])).toMatch(/liquidations_2024-08-01_BTCUSDT\.csv: a Tardis liquidations file; it is not imported \(a liquidation is no recording event/);
    const bt = write('binance-futures_book_ticker_2024-08-01_BTCUSDT.csv', readFileSync(QUOTES, 'utf8'));
    const s = await importTardis({ files: [bt], out: out() });
    expect(s.events.quote).toBe(8);
  });

  test('two sources of the book, an empty file, an empty range', async () => {
    expect(await refused([L2, SNAP5])).toMatch(/book_snapshot_5 and incremental_book_L2 .* both hold the book; import one of them$/);
    expect(await refused([TRADES, QUOTES, TRADES])).toMatch(/trades_2024-08-01_BTCUSDT\.csv: given twice; each file is imported once$/);
    expect(await refused([write('empty.csv', '')])).toMatch(/empty\.csv: empty file; expected a Tardis CSV file with a header row$/);
    expect(await refused([TRADES], { from: Date.parse('2030-01-01') })).toMatch(/^--from\/--to: no message in 2030-01-01T00:00:00.000Z to the end; the files run from 2024-08-01T07:59:58.204Z/);
  });
});

describe('import tardis: data a mark cannot come from', () => {
  test('a one-sided book snapshot (as in a Deribit sample) imports, and the summary says a backtest cannot start on it', async () => {
    const rows = ['exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount'];
    for (const [p, a] of [['6421.5', '18640'], ['6422', '1190'], ['6422.5', '1080']]) rows.push(`deribit,BTC-PERPETUAL,1585699200245000,1585699200355684,true,ask,${p},${a}`);
    const f = write('deribit_incremental_book_L2_2020-04-01_BTC-PERPETUAL.csv', `${rows.join('\n')}\n`);
    const o = out();
    const s = await importTardis({ files: [f], out: o });
    expect(s.events).toMatchObject({ snapshot: 1 });
    expect(s.added.derivedMarks).toBe(0);
    const text = importSummaryText(s, 0);
    expect(text).toContain('note: no mark price in the output (none recorded, and no quote or book top to derive one from): a backtest on it cannot start its strategies');
    // With a mark derived (the fixtures' quotes), no such note.
    expect(importSummaryText(await importTardis({ files: [QUOTES], out: out() }), 0)).not.toContain('no mark price');
  });
});
