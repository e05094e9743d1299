/**
 * Binance's public daily/monthly CSV archives (data.binance.vision, USD-M futures), zipped or not,
 * as a stream of messages for the Binance importer, merged across files in time order (each file
 * is in time order; several files of one day, e.g. trades and bookTicker, interleave by time).
 *
 * | archive | columns (a header row is optional) | becomes |
 * |---|---|---|
 * | trades | id, price, qty, quote_qty, time, is_buyer_maker | a `trade` message |
 * | aggTrades | agg_trade_id, price, quantity, first_trade_id, last_trade_id, transact_time, is_buyer_maker | an `aggTrade` message |
 * | bookTicker | update_id, best_bid_price, best_bid_qty, best_ask_price, best_ask_qty, transaction_time, event_time | a `bookTicker` message |
 * | markPriceKlines | open_time, open, high, low, close, volume, close_time, ... | a `mark` at the bar's close (mark = index = close) |
 * | fundingRate | calc_time, funding_interval_hours, last_funding_rate | a funding settlement |
 * | klines | as markPriceKlines | counted as skipped: a bar is no event of a recording (use trades) |
 *
 * The kind comes from the header row, else from the path (`.../markPriceKlines/...`,
 * `BTCUSDT-aggTrades-2024-08-08.zip`); kline-shaped files are mark prices only under a
 * `markPriceKlines` path. The symbol comes from the file name (`BTCUSDT-...`) or --symbol.
 * Times are the exchange's (the archives have no receive time), in ms (us values are scaled).
 */
import { createReadStream, openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { basename } from 'node:path';
import { createInflateRaw } from 'node:zlib';
import type { Readable } from 'node:stream';
import { textLines, zlibProblem } from '../text';
import { ImportInputError } from './errors';
import { signedDecimal } from './common';

export type CsvKind = 'trades' | 'aggTrades' | 'bookTicker' | 'markPriceKlines' | 'fundingRate' | 'klines';

/** One row as the importer takes it: a Binance-shaped message, a funding settlement, or a counted skip. */
export type CsvItem =
  | { t: number; where: string; msg: Record<string, unknown> }
  | { t: number; where: string; mark: { s: string; p: string } }
  | { t: number; where: string; funding: { s: string; r: string; intervalMs: number } }
  | { t: number; where: string; skip: string };

const KIND_BY_HEADER: Array<[CsvKind, string]> = [
  ['aggTrades', 'agg_trade_id'],
  ['trades', 'id'],
  ['bookTicker', 'update_id'],
  ['fundingRate', 'calc_time'],
  ['klines', 'open_time'],
];
const COLUMNS: Record<CsvKind, number> = { trades: 6, aggTrades: 7, bookTicker: 7, markPriceKlines: 12, fundingRate: 3, klines: 12 };
/** Binance spot's archives: trades and aggTrades with one more column, `is_best_match` (futures have none). */
const SPOT_COLUMNS: Partial<Record<CsvKind, number>> = { trades: 7, aggTrades: 8 };
/** Binance's archive layout: `data/spot/daily/...`, `data/futures/um/daily/...`. */
const SPOT_PATH = /(^|[\\/])spot[\\/](daily|monthly)[\\/]/;
const R_FUNDING_AFTER = 'fundingRate row after the end of the other archives (a monthly fundingRate archive runs past daily ones)';

/** Is this file a CSV archive (by name or its first bytes) rather than a stream capture? */
export function isCsvInput(path: string): boolean {
  return /\.(zip|csv)$/i.test(path) || isZipMagic(path);
}

/** The one entry of a Binance zip archive, inflated (sizes from the central directory). */
function openZip(path: string): Readable {
  const fd = openSync(path, 'r');
  let start: number;
  let size: number;
  let method: number;
  try {
    const len = fstatSync(fd).size;
    const tailLen = Math.min(len, 65_557);
    const tail = Buffer.alloc(tailLen);
    readSync(fd, tail, 0, tailLen, len - tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new ImportInputError(`${path}: not a zip archive (no end of central directory); a torn download?`);
    const entries = tail.readUInt16LE(eocd + 10);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (entries !== 1) throw new ImportInputError(`${path}: the zip holds ${entries} files; a Binance archive holds one CSV`);
    const cd = Buffer.alloc(46);
    readSync(fd, cd, 0, 46, cdOffset);
    if (cd.readUInt32LE(0) !== 0x02014b50) throw new ImportInputError(`${path}: damaged zip (no central directory entry)`);
    method = cd.readUInt16LE(10);
    size = cd.readUInt32LE(20);
    const local = cd.readUInt32LE(42);
    if (size === 0xffffffff || local === 0xffffffff) throw new ImportInputError(`${path}: zip64 archives are not supported; unzip it and import the CSV`);
    const lh = Buffer.alloc(30);
    readSync(fd, lh, 0, 30, local);
    if (lh.readUInt32LE(0) !== 0x04034b50) throw new ImportInputError(`${path}: damaged zip (no local header)`);
    start = local + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28);
    if (method !== 0 && method !== 8) throw new ImportInputError(`${path}: zip compression method ${method} is not supported (expected deflate)`);
  } finally {
    closeSync(fd);
  }
  if (size === 0) return createReadStream(path, { start: 0, end: -1 });
  const raw = createReadStream(path, { start, end: start + size - 1, highWaterMark: 1 << 20 });
  if (method === 0) return raw;
  const inflate = createInflateRaw({ chunkSize: 1 << 18 });
  raw.on('error', (e) => inflate.destroy(e));
  return raw.pipe(inflate);
}

/** The lines of a CSV file; damaged compressed data is bad input, not a zlib stack trace. */
async function* csvLines(stream: Readable, path: string): AsyncGenerator<string> {
  try {
    yield* textLines(stream);
  } catch (e) {
    if (e instanceof ImportInputError || zlibProblem(e) === undefined) throw e;
    throw new ImportInputError(`${path}: the compressed data is damaged or ends early (${(e as Error).message})`);
  }
}

const ms = (v: string): number => {
  const n = Number(v);
  return n > 1e14 ? Math.floor(n / 1000) : n;
};
const bool = (v: string): boolean | undefined => (/^true$/i.test(v) ? true : /^false$/i.test(v) ? false : undefined);
const DEC = /^\d+(\.\d+)?$/;

function kindOfPath(path: string): CsvKind | undefined {
  const other = /(indexPriceKlines|premiumIndexKlines)/i.exec(path)?.[1];
  if (other !== undefined) {
    throw new ImportInputError(`${path}: an ${other} archive (its path says so); it is not imported: ${/^index/i.test(other) ? 'index prices are no mark prices' : 'a premium index is no price'} (import markPriceKlines for the marks)`);
  }
  if (/markPriceKlines/i.test(path)) return 'markPriceKlines';
  const m = /-(trades|aggTrades|bookTicker|fundingRate)-/.exec(basename(path));
  if (m) return m[1] as CsvKind;
  if (/-(1s|1m|3m|5m|15m|30m|1h|2h|4h|6h|8h|12h|1d)-\d{4}-\d{2}/.test(basename(path))) return 'klines';
  return undefined;
}

/** One file's rows as items, in file order. */
async function* fileItems(path: string, symbolOpt: string | undefined): AsyncGenerator<CsvItem> {
  if (SPOT_PATH.test(path)) throw new ImportInputError(`${path}: a Binance spot archive (its path says spot/); import binance-futures reads USD-M and COIN-M futures archives`);
  // USD-M BTCUSDT, COIN-M BTCUSD_PERP, delivery contracts BTCUSD_240927.
  const sym = /^([A-Z0-9]+(?:_[A-Z0-9]+)?)-/.exec(basename(path))?.[1] ?? symbolOpt;
  if (sym === undefined) throw new ImportInputError(`${path}: no symbol in the file name (Binance names them SYMBOL-kind-date); pass --symbol`);
  const stream = /\.zip$/i.test(path) || isZipMagic(path) ? openZip(path) : createReadStream(path, { highWaterMark: 1 << 20 });
  let kind = kindOfPath(path);
  let n = 0;
  for await (const raw of csvLines(stream, path)) {
    n++;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (n === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.length === 0) continue;
    const cols = line.split(',');
    const where = `${path}:${n}`;
    if (n === 1 && !/^\d/.test(line)) {
      const byHeader = KIND_BY_HEADER.find(([, first]) => cols[0] === first)?.[0];
      if (byHeader === undefined) throw new ImportInputError(`${where}: not a Binance CSV archive header (expected a first column of ${KIND_BY_HEADER.map(([, c]) => c).join(', ')}), got ${JSON.stringify(line.slice(0, 60))}`);
      if (cols.includes('is_best_match')) throw new ImportInputError(`${where}: a Binance spot ${byHeader} archive (its header has is_best_match); import binance-futures reads USD-M and COIN-M futures archives`);
      kind = byHeader === 'klines' && kind === 'markPriceKlines' ? 'markPriceKlines' : byHeader;
      continue;
    }
    if (kind === undefined) throw new ImportInputError(`${where}: a CSV without a header row whose kind the file name does not say (expected SYMBOL-trades-..., -aggTrades-, -bookTicker-, -fundingRate- or a markPriceKlines path)`);
    if (cols.length !== COLUMNS[kind]) {
      if (cols.length === SPOT_COLUMNS[kind] && bool(cols[cols.length - 1]) !== undefined) {
        throw new ImportInputError(`${where}: a Binance spot ${kind} archive (${cols.length} columns, the last is spot's is_best_match; futures have ${COLUMNS[kind]}); import binance-futures reads USD-M and COIN-M futures archives`);
      }
      throw new ImportInputError(`${where}: a ${kind} row has ${COLUMNS[kind]} columns, got ${cols.length}: ${JSON.stringify(line.slice(0, 60))}`);
    }
    const bad = (what: string): never => {
      throw new ImportInputError(`${where}: ${kind} row: expected ${what}, got ${JSON.stringify(line.slice(0, 80))}`);
    };
    switch (kind) {
      case 'trades': {
        const m = bool(cols[5]);
        if (!/^\d+$/.test(cols[0]) || !DEC.test(cols[1]) || !DEC.test(cols[2]) || !/^\d+$/.test(cols[4]) || m === undefined) bad('id, price, qty, quote_qty, time, is_buyer_maker');
        const t = ms(cols[4]);
        yield { t, where, msg: { e: 'trade', s: sym, t: Number(cols[0]), p: cols[1], q: cols[2], T: t, E: t, m } };
        break;
      }
      case 'aggTrades': {
        const m = bool(cols[6]);
        if (!/^\d+$/.test(cols[0]) || !DEC.test(cols[1]) || !DEC.test(cols[2]) || !/^\d+$/.test(cols[5]) || m === undefined) bad('agg_trade_id, price, quantity, first_trade_id, last_trade_id, transact_time, is_buyer_maker');
        const t = ms(cols[5]);
        yield { t, where, msg: { e: 'aggTrade', s: sym, a: Number(cols[0]), p: cols[1], q: cols[2], T: t, E: t, m } };
        break;
      }
      case 'bookTicker': {
        if (!/^\d+$/.test(cols[0]) || !DEC.test(cols[1]) || !DEC.test(cols[2]) || !DEC.test(cols[3]) || !DEC.test(cols[4]) || !/^\d+$/.test(cols[5])) bad('update_id, best_bid_price, best_bid_qty, best_ask_price, best_ask_qty, transaction_time, event_time');
        const t = ms(cols[5]);
        yield { t, where, msg: { e: 'bookTicker', s: sym, u: Number(cols[0]), b: cols[1], B: cols[2], a: cols[3], A: cols[4], T: t, E: /^\d+$/.test(cols[6]) ? ms(cols[6]) : t } };
        break;
      }
      case 'markPriceKlines': {
        if (!DEC.test(cols[4]) || !/^\d+$/.test(cols[6])) bad('open_time, open, high, low, close, volume, close_time, ...');
        // The bar's close is the mark at its close time (close_time is the last ms of the bar).
        const t = ms(cols[6]) + 1;
        yield { t, where, mark: { s: sym, p: cols[4] } };
        break;
      }
      case 'fundingRate': {
        const rate = signedDecimal(cols[2]);
        if (!/^\d+$/.test(cols[0]) || rate === undefined) bad('calc_time, funding_interval_hours, last_funding_rate');
        yield { t: ms(cols[0]), where, funding: { s: sym, r: rate as string, intervalMs: /^\d+$/.test(cols[1]) ? Number(cols[1]) * 3_600_000 : 8 * 3_600_000 } };
        break;
      }
      case 'klines':
        // A bar of no trade volume built from price data: a price-index kline whose path was lost.
        if (/^0(\.0+)?$/.test(cols[5]) && /^[1-9]\d*$/.test(cols[8])) {
          throw new ImportInputError(`${where}: a kline of volume 0 built from ${cols[8]} price samples: a markPriceKlines, indexPriceKlines or premiumIndexKlines archive, and its name (SYMBOL-interval-date) does not say which; keep it under its .../markPriceKlines/... folder as Binance lays it out`);
        }
        yield { t: ms(cols[6]) + 1, where, skip: 'klines row (a bar is no recording event; import trades or aggTrades)' };
        break;
    }
  }
  if (n === 0) throw new ImportInputError(`${path}: empty file; expected a Binance CSV archive`);
}

function isZipMagic(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b.readUInt32LE(0) === 0x04034b50;
  } finally {
    closeSync(fd);
  }
}

/** What a file's rows are, for telling two files of the same rows apart: kind and symbol ("trade BTCUSDT"); undefined for skipped rows. */
function rowsOf(h: CsvItem): string | undefined {
  if ('msg' in h) return `${String(h.msg.e)} ${String(h.msg.s)}`;
  if ('mark' in h) return `markPriceKlines ${h.mark.s}`;
  if ('funding' in h) return `fundingRate ${h.funding.s}`;
  return undefined;
}

/**
 * The rows of every file merged in time order (ties: the order the files were given), one file
 * open per input and one row of each in memory. Two files of the same rows (kind and symbol) whose
 * times overlap are refused at the first row of the later one.
 */
export async function* csvItems(paths: string[], symbol: string | undefined): AsyncGenerator<CsvItem> {
  const its = paths.map((p) => fileItems(p, symbol));
  const heads: Array<CsvItem | undefined> = [];
  for (const it of its) {
    const r = await it.next();
    heads.push(r.done === true ? undefined : r.value);
  }
  // Files of market data (not fundingRate): settlements after the last of their rows are past the data.
  const data = heads.map((h) => h !== undefined && !('funding' in h));
  // What each file holds (kind and symbol) and whether its rows have started: two files of the same
  // rows whose times overlap (a daily and a monthly archive of the same days) would import each row twice.
  const what = heads.map((h) => (h === undefined ? undefined : rowsOf(h)));
  const started = heads.map(() => false);
  try {
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h !== undefined && (best < 0 || h.t < (heads[best] as CsvItem).t)) best = i;
      }
      if (best < 0) return;
      const h = heads[best] as CsvItem;
      if (!started[best]) {
        started[best] = true;
        const other = what[best] === undefined ? -1 : heads.findIndex((x, j) => j !== best && x !== undefined && started[j] && what[j] === what[best]);
        if (other >= 0) {
          throw new ImportInputError(
            `${h.where}: ${paths[best]} and ${paths[other]} hold the same rows (${what[best] ?? ''}) over the same time: ${paths[best]} starts at ${new Date(h.t).toISOString()}, before ${paths[other]} ends; every row of that time would be imported twice (a daily and a monthly archive of the same days?); import one of them, or archives of times that do not overlap`,
          );
        }
      }
      if ('funding' in h && data.some((d) => d) && !heads.some((x, i) => data[i] && x !== undefined)) yield { t: h.t, where: h.where, skip: R_FUNDING_AFTER };
      else yield h;
      const r = await its[best].next();
      heads[best] = r.done === true ? undefined : r.value;
    }
  } finally {
    for (const it of its) await it.return(undefined);
  }
}
