import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { importBinanceFutures as importOnce, type BinanceImportOptions } from '../../src/market-data/import/binance-futures';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { readRecording } from '../../src/market-data/reader';

/** These tests write one output path again and again: each import replaces the one before (--overwrite). */
const importBinanceFutures = (o: BinanceImportOptions): ReturnType<typeof importOnce> => importOnce({ ...o, overwrite: true });

const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-csv-'));
const T = 1_722_470_400_000; // 2024-08-01T00:00:00Z

/** A zip of one file, made by python's zipfile (deflate), as Binance ships its archives. */
function zip(zipPath: string, name: string, text: string, extra?: [string, string]): string {
  const script = 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)\nz.writestr(sys.argv[2], sys.argv[3])\nif len(sys.argv) > 4: z.writestr(sys.argv[4], sys.argv[5])\nz.close()';
  execFileSync('python3', ['-c', script, zipPath, name, text, ...(extra ?? [])]);
  return zipPath;
}

async function read(out: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([out])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

describe('import binance-futures: CSV archives', () => {
  const trades = path.join(dir, 'BTCUSDT-trades-2024-08-01.csv');
  writeFileSync(trades, `id,price,qty,quote_qty,time,is_buyer_maker\n100,64000.1,0.010,640.001,${T + 500},true\n101,64000.2,0.020,1280.004,${T + 2500},false\n`);
  const book = zip(path.join(dir, 'BTCUSDT-bookTicker-2024-08-01.zip'), 'BTCUSDT-bookTicker-2024-08-01.csv', `update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,transaction_time,event_time\n7,64000.0,1.500,64000.3,0.700,${T + 100},${T + 101}\n8,64000.1,1.000,64000.2,0.600,${T + 2000},${T + 2001}\n`);
  mkdirSync(path.join(dir, 'markPriceKlines'));
  // Without a header row: the kind comes from the path.
  const marks = zip(path.join(dir, 'markPriceKlines', 'BTCUSDT-1m-2024-08-01.zip'), 'BTCUSDT-1m-2024-08-01.csv', `${T},64000.0,64010.0,63990.0,64005.3,0,${T + 59_999},0,0,0,0,0\n`);
  const funding = path.join(dir, 'BTCUSDT-fundingRate-2024-08.csv');
  writeFileSync(funding, `calc_time,funding_interval_hours,last_funding_rate\n${T + 60_000},8,0.00010000\n`);
  const klines = path.join(dir, 'BTCUSDT-1m-2024-08-01.csv');
  writeFileSync(klines, `open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore\n${T},1,1,1,1,1,${T + 59_999},1,1,1,1,0\n`);

  test('trades, bookTicker (zipped), markPriceKlines and fundingRate merge in time order; klines are counted, not written', async () => {
    const out = path.join(dir, 'csv.jsonl.gz');
    const s = await importBinanceFutures({ files: [trades, book, marks, funding, klines], out });
    const { header, events } = await read(out);
    expect(events.map((e) => [e.k, e.t])).toEqual([
      ['quote', T + 100],
      ['trade', T + 500],
      ['quote', T + 2000],
      ['trade', T + 2500],
      ['mark', T + 60_000],
      ['funding', T + 60_000],
    ]);
    expect(events[1]).toEqual({ t: T + 500, et: T + 500, k: 'trade', s: 'BTCUSDT', id: '100', p: '64000.1', q: '0.010', side: 'SELL' });
    expect(events[4]).toEqual({ t: T + 60_000, et: T + 60_000, k: 'mark', s: 'BTCUSDT', p: '64005.3', i: '64005.3', r: '0', n: T + 8 * 3_600_000 });
    expect(events[5]).toEqual({ t: T + 60_000, et: T + 60_000, k: 'funding', s: 'BTCUSDT', r: '0.00010000', p: '64005.3' });
    expect(s.skipped).toEqual({ 'klines row (a bar is no recording event; import trades or aggTrades)': 1 });
    expect(header.marks?.BTCUSDT).toEqual({ source: 'recorded', method: expect.stringMatching(/^markPriceKlines/) as unknown as string });
    expect(header.sources?.map((f) => f.file)).toEqual(['BTCUSDT-trades-2024-08-01.csv', 'BTCUSDT-bookTicker-2024-08-01.zip', 'BTCUSDT-1m-2024-08-01.zip', 'BTCUSDT-fundingRate-2024-08.csv', 'BTCUSDT-1m-2024-08-01.csv']);
    expect(s.messages).toBe(7);
  });

  test('without mark prices the marks are derived from bookTicker and flagged', async () => {
    const out = path.join(dir, 'derived.jsonl.gz');
    await importBinanceFutures({ files: [book], out });
    const { header, events } = await read(out);
    expect(events.filter((e) => e.k === 'mark').map((e) => (e as Extract<RecordedEvent, { k: 'mark' }>).p)).toEqual(['64000.1', '64000.1']);
    expect(header.marks?.BTCUSDT.source).toBe('derived');
  });

  test.each([
    ['a zip with two files', () => zip(path.join(dir, 'BTCUSDT-trades-two.zip'), 'a.csv', 'x', ['b.csv', 'y']), /the zip holds 2 files; a Binance archive holds one CSV/],
    ['a torn zip', () => {
      const f = path.join(dir, 'BTCUSDT-trades-torn.zip');
      const whole = readFileSync(book);
      writeFileSync(f, whole.subarray(0, whole.length - 30));
      return f;
    }, /not a zip archive \(no end of central directory\); a torn download\?/],
    ['a CSV of another kind', () => {
      const f = path.join(dir, 'BTCUSDT-other-2024.csv');
      writeFileSync(f, 'a,b,c\n1,2,3\n');
      return f;
    }, /:1: not a Binance CSV archive header/],
    ['a bad row', () => {
      const f = path.join(dir, 'BTCUSDT-trades-bad.csv');
      writeFileSync(f, `id,price,qty,quote_qty,time,is_buyer_maker\n1,abc,1,1,${T},true\n`);
      return f;
    }, /:2: trades row: expected id, price, qty/],
    ['a price with more decimals than the import holds', () => {
      const f = path.join(dir, 'BTCUSDT-trades-decimals.csv');
      writeFileSync(f, `id,price,qty,quote_qty,time,is_buyer_maker\n1,100.000000001,1,1,${T},true\n`);
      return f;
    }, /BTCUSDT-trades-decimals\.csv:2: price "100\.000000001" of BTCUSDT: more than 8 decimals/],
  ])('%s is refused with one line', async (_what, make, msg) => {
    await expect(importBinanceFutures({ files: [make()], out: path.join(dir, 'bad.jsonl.gz') })).rejects.toThrow(msg);
  });

  test('--tick and --step: a row off the grid stops the import at its line, nothing written', async () => {
    const f = path.join(dir, 'BTCUSDT-trades-grid.csv');
    writeFileSync(f, `id,price,qty,quote_qty,time,is_buyer_maker\n1,61000.2,0.01,610,${T},true\n2,61000.3,0.02,610,${T + 100},false\n`);
    const out = path.join(dir, 'grid.jsonl.gz');
    await expect(importBinanceFutures({ files: [f], out, tick: '0.2' })).rejects.toThrow(/BTCUSDT-trades-grid\.csv:3: --tick 0\.2: price 61000\.3 of BTCUSDT is not a multiple of 0\.2/);
    await expect(importBinanceFutures({ files: [f], out, step: '0.02' })).rejects.toThrow(/BTCUSDT-trades-grid\.csv:2: --step 0\.02: quantity 0\.01 of BTCUSDT is not a multiple of 0\.02/);
    expect(existsSync(out)).toBe(false);
    await importBinanceFutures({ files: [f], out, tick: '0.1', step: '0.01' });
    expect(existsSync(out)).toBe(true);
  });

  test('a tick or step inferred from fewer than 10 distinct values is warned of, naming the symbol, the count and the option', async () => {
    const rows = (prices: string[]): string => `id,price,qty,quote_qty,time,is_buyer_maker\n${prices.map((p, i) => `${i + 1},${p},0.01,610,${T + i},true`).join('\n')}\n`;
    const one = path.join(dir, 'BTCUSDT-trades-one.csv');
    writeFileSync(one, rows(['61000.1']));
    const out = path.join(dir, 'one.jsonl.gz');
    const s = await importBinanceFutures({ files: [one], out });
    expect(s.symbols.map((x) => [x.tickSize, x.stepSize])).toEqual([['61000.1', '0.01']]);
    const warning = "BTCUSDT: tick 61000.1 inferred from 1 distinct price, step 0.01 inferred from 1 distinct quantity: too few to trust (fewer than 10 values may all lie on a coarser grid than the venue's); pass --tick and --step with the venue's tick and step size";
    expect(s.warnings).toEqual([warning]);
    expect((await read(out)).header.meta?.gridWarning).toBe(warning);
    // Given by the options, no warning; a step given leaves the tick's.
    expect((await importBinanceFutures({ files: [one], out, tick: '0.1', step: '0.01' })).warnings).toBeUndefined();
    expect((await importBinanceFutures({ files: [one], out, step: '0.01' })).warnings).toEqual([expect.stringMatching(/^BTCUSDT: tick 61000\.1 inferred from 1 distinct price: too few to trust .*; pass --tick with the venue's tick size$/)]);
    // Ten distinct prices (repeats do not count): trusted.
    const ten = path.join(dir, 'BTCUSDT-trades-ten.csv');
    writeFileSync(ten, rows(['61000.1', '61000.1', ...Array.from({ length: 10 }, (_, i) => `61000.${i}`)]));
    const st = await importBinanceFutures({ files: [ten], out, step: '0.01' });
    expect(st.symbols[0].tickSize).toBe('0.1');
    expect(st.warnings).toBeUndefined();
  });

  test('a CSV archive and a stream capture in one import are refused', async () => {
    const cap = path.join(dir, 'cap.gz');
    writeFileSync(cap, gzipSync(`${T}000000 {"stream":"btcusdt@trade","data":{"e":"trade","E":${T},"T":${T},"s":"BTCUSDT","t":1,"p":"1","q":"1","m":true}}\n`));
    await expect(importBinanceFutures({ files: [trades, cap], out: path.join(dir, 'mixed.jsonl.gz') })).rejects.toThrow(/is a CSV archive and .*cap\.gz a stream capture: import them separately/);
  });
});

describe('import binance-futures: real archive variants', () => {
  const vdir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-csv-variants-'));
  const out = path.join(vdir, 'out.jsonl.gz');
  const aggRows = (n: number): string => Array.from({ length: n }, (_, i) => `${10 + i},6400${i}.${i},0.0${i + 1}0,${i},${i},${T + i * 1000},${i % 2 === 0 ? 'true' : 'false'}`).join('\r\n');

  test('COIN-M: the symbol of BTCUSD_PERP-trades-... (contracts, base_qty header) and of a delivery contract', async () => {
    const f = path.join(vdir, 'BTCUSD_PERP-trades-2024-08-01.csv');
    writeFileSync(f, `id,price,qty,base_qty,time,is_buyer_maker\n1,64000.1,10,0.00015624,${T},true\n2,64000.3,3,0.00004687,${T + 5},false\n`);
    const s = await importBinanceFutures({ files: [f], out });
    const { header, events } = await read(out);
    expect(events[0]).toEqual({ t: T, et: T, k: 'trade', s: 'BTCUSD_PERP', id: '1', p: '64000.1', q: '10', side: 'SELL' });
    expect(header.symbols[0]).toMatchObject({ symbol: 'BTCUSD_PERP', baseAsset: 'BTC', quoteAsset: 'USD', stepSize: '1' });
    expect(s.messages).toBe(2);
    const q = path.join(vdir, 'BTCUSD_240927-aggTrades-2024-08-01.csv');
    writeFileSync(q, `${aggRows(2)}\n`);
    await importBinanceFutures({ files: [q], out });
    expect((await read(out)).header.symbols[0].symbol).toBe('BTCUSD_240927');
  });

  test('a zip whose inner name differs, CRLF lines, a trailing empty line, monthly names', async () => {
    const z = zip(path.join(vdir, 'BTCUSDT-aggTrades-2024-08.zip'), 'data.csv', `agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\r\n${aggRows(3)}\r\n\r\n`);
    const s = await importBinanceFutures({ files: [z], out });
    const { events } = await read(out);
    expect(events.map((e) => (e.k === 'trade' ? [e.id, e.p, e.q, e.side] : e.k))).toEqual([
      ['10', '64000.0', '0.010', 'SELL'],
      ['11', '64001.1', '0.020', 'BUY'],
      ['12', '64002.2', '0.030', 'SELL'],
    ]);
    expect(s.skipped).toEqual({});
  });

  test('spot archives are refused as spot: 8-column aggTrades (is_best_match, microseconds), 7-column trades, a spot/ path', async () => {
    const agg = path.join(vdir, 'BTCUSDT-aggTrades-2025-01-01.csv');
    writeFileSync(agg, `1,64000.10000000,0.01000000,1,1,${T}000,True,True\n`);
    await expect(importBinanceFutures({ files: [agg], out })).rejects.toThrow(/aggTrades-2025-01-01\.csv:1: a Binance spot aggTrades archive \(8 columns, the last is spot's is_best_match; futures have 7\)/);
    const tr = path.join(vdir, 'BTCUSDT-trades-2025-01-01.csv');
    writeFileSync(tr, `1,64000.10000000,0.01000000,640.001,${T}000,False,True\n`);
    await expect(importBinanceFutures({ files: [tr], out })).rejects.toThrow(/:1: a Binance spot trades archive \(7 columns/);
    mkdirSync(path.join(vdir, 'data', 'spot', 'daily', 'klines'), { recursive: true });
    const k = path.join(vdir, 'data', 'spot', 'daily', 'klines', 'BTCUSDT-1m-2025-01-01.csv');
    writeFileSync(k, `${T}000,1,1,1,1,1,${T + 59_999}999,1,1,1,1,0\n`);
    await expect(importBinanceFutures({ files: [k], out })).rejects.toThrow(/a Binance spot archive \(its path says spot\/\)/);
    const other = path.join(vdir, 'BTCUSDT-bookTicker-2024-08-01.csv');
    writeFileSync(other, `1,64000.0,1.0,64000.1,1.0,${T},${T},9\n`);
    await expect(importBinanceFutures({ files: [other], out })).rejects.toThrow(/:1: a bookTicker row has 7 columns, got 8/);
  });

  test('mark prices to 8 decimals (markPriceKlines) are put on the traded price grid and take no part in the tick', async () => {
    mkdirSync(path.join(vdir, 'markPriceKlines'), { recursive: true });
    const m = path.join(vdir, 'markPriceKlines', 'BTCUSDT-1m-2024-08-01.csv');
    writeFileSync(m, `open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore\n${T},64000.12345678,64010,63990,64001.16666667,0,${T + 59_999},0,60,0,0,0\n`);
    const a = path.join(vdir, 'BTCUSDT-aggTrades-2024-08-01.csv');
    writeFileSync(a, `${aggRows(3)}\n`);
    const s = await importBinanceFutures({ files: [m, a], out });
    const { header, events } = await read(out);
    expect(header.symbols[0].tickSize).toBe('0.1');
    expect(events.find((e) => e.k === 'mark')).toMatchObject({ p: '64001.2', i: '64001.2' });
    expect(header.meta?.marksRounded).toBe(1);
    expect(s.notes).toEqual(['1 mark prices rounded to the price grid']);
    // Alone, no price grid: the mark is counted, not written; --tick gives one.
    await expect(importBinanceFutures({ files: [m], out })).rejects.toThrow(/no message became an event \(skipped: mark price before two different prices/);
    await importBinanceFutures({ files: [m], out, tick: '0.01' });
    expect((await read(out)).events[0]).toMatchObject({ k: 'mark', p: '64001.17' });
  });

  test('a monthly fundingRate archive: settlements after the daily archives end are counted, not written; rates in e-notation become decimals', async () => {
    const b = path.join(vdir, 'BTCUSDT-bookTicker-2024-08-01.csv');
    writeFileSync(b, `update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,transaction_time,event_time\n1,64000.0,1.0,64000.2,1.0,${T},${T}\n2,64000.1,1.0,64000.3,1.0,${T + 8 * 3_600_000},${T + 8 * 3_600_000}\n`);
    const f = path.join(vdir, 'BTCUSDT-fundingRate-2024-08.csv');
    writeFileSync(f, `calc_time,funding_interval_hours,last_funding_rate\n${T + 8 * 3_600_000 - 1},8,-1.2e-05\n${T + 16 * 3_600_000},8,0.00010000\n${T + 24 * 3_600_000},8,0.00010000\n`);
    const s = await importBinanceFutures({ files: [b, f], out });
    const { events } = await read(out);
    expect(events.filter((e) => e.k === 'funding')).toEqual([{ t: T + 8 * 3_600_000 - 1, et: T + 8 * 3_600_000 - 1, k: 'funding', s: 'BTCUSDT', r: '-0.000012', p: '64000' }]);
    expect(s.skipped).toEqual({ 'fundingRate row after the end of the other archives (a monthly fundingRate archive runs past daily ones)': 2 });
    expect(events[events.length - 1].t).toBe(T + 8 * 3_600_000);
  });

  test('index and premium index klines are refused; a zero-volume kline outside its folder is refused as a price-index kline', async () => {
    for (const kind of ['indexPriceKlines', 'premiumIndexKlines']) {
      mkdirSync(path.join(vdir, kind), { recursive: true });
      const f = path.join(vdir, kind, 'BTCUSDT-1m-2024-08-01.csv');
      writeFileSync(f, `${T},1,1,1,1,0,${T + 59_999},0,60,0,0,0\n`);
      await expect(importBinanceFutures({ files: [f], out })).rejects.toThrow(new RegExp(`an ${kind} archive \\(its path says so\\); it is not imported`));
    }
    const loose = path.join(vdir, 'BTCUSDT-5m-2024-08-01.csv');
    writeFileSync(loose, `${T},64000.1,64000.1,64000.1,64000.1,0,${T + 299_999},0,300,0,0,0\n`);
    await expect(importBinanceFutures({ files: [loose], out })).rejects.toThrow(/5m-2024-08-01\.csv:1: a kline of volume 0 built from 300 price samples/);
  });
});
