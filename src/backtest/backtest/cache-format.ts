/**
 * The binary replay cache: a recording file converted once into columns of numbers, so the replay
 * decodes events by reading typed arrays instead of splitting and JSON-parsing text (which tops
 * out near a million lines a second on the machines we measure on).
 *
 * One cache file per recording file, `<recording>.perpkit-cache` beside it, valid while the
 * recording's size, mtime and header line are unchanged (the key is stored in the cache and
 * compared before use). It is written to a temporary name and renamed, so a crash never leaves a
 * half-written cache that looks valid.
 *
 * Layout (little-endian):
 *   "PKCACHE1" | u32 metaLength | meta JSON (key, header) | pad to 8
 *   chunks:  u32 count | u32 blobLength | u32 levelCount | u32 checksum (chunkChecksum)
 *            | f64 t[count] | f64 a[count] | f64 b[count] | f64 c[count] | f64 d[count]
 *            | f64 e[count] | f64 u[count] | u8 kind[count] | u8 sym[count] | u8 x[count] | pad to 8
 *            | f64 ticks[levelCount] | f64 steps[levelCount] | u8 priceDigits[levelCount]
 *            | u8 qtyDigits[levelCount] | pad to 8 | blob | pad to 8
 *   a chunk of count 0 ends the file.
 * The key says whether a cache is of the recording as it is now; the checksums whether the cache
 * is as it was written: the reader checks each chunk's as it reads it, and a chunk that does not
 * match, or a file that ends before its last chunk, is a damaged cache (ReplayCacheDamaged), never
 * events replayed from damaged bytes.
 * Columns by kind (prices in ticks and quantities in steps of the symbol's grid, exact integers):
 *   trade:   a price, b quantity, c trade id, x side (0 BUY, 1 SELL)
 *   mark:    a mark, b index, c funding-rate mantissa, x its scale, d next funding time
 *   funding: a price, c rate mantissa, x its scale
 *   quote:   a bid price, b bid quantity, c ask price, d ask quantity, u the venue's update id
 *   book:    b bid levels, c ask levels, d the first update id `U`, u the final one, a `pu`
 *   snapshot: b bid levels, c ask levels, u the update id
 *   and for these six kinds, e: the exchange's time (`et`); NaN in a, e and u means absent.
 *   depth:   b bid levels, c ask levels (a depth line: the recorder's top-of-book levels)
 *   The levels of book, snapshot and depth events are in the chunk's level columns, in event
 *   order, bids then asks (so an event's first level is the sum of the levels of the book,
 *   snapshot and depth events before it in the chunk): price in ticks, quantity in steps, and the
 *   number of fraction digits each had in the recording, so that the decoded strings are the
 *   recorded ones ("61738.70", "0.000"), not only equal in value. The L2 replay reads the integers
 *   of book and snapshot events without any string.
 *   raw:     a blob offset, b length: the event's JSON line, for every kind and value that does not
 *            fit the columns (ticker, private, positions, gap, off-grid values, odd ids, levels
 *            whose text is not the plain decimal of their units, unknown fields of a book,
 *            snapshot or depth event).
 * Decoding gives back the same values (trade, mark, funding and quote decimal strings may lose
 * trailing zeros: "0.00010" comes back as "0.0001"; the engine parses both to the same number;
 * book, snapshot and depth events come back exactly as recorded).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { Grid } from '../../core/values';
import type { RecordingHeader } from '../../market-data/format';
import { readFileHeader } from './jsonl-source';

export const MAGIC = 'PKCACHE1';
/**
 * Bump when the layout changes, or what a cache may hold does: older caches are then rebuilt.
 * 5: built by a reader that refuses prices, quantities and rates that are not plain decimals
 * (a cache of layout 4 may hold such a line, which the JSON lines are now refused for).
 * 6: each chunk's checksum in its head (its fourth u32 was 0).
 */
export const CACHE_LAYOUT = 6;
export const CHUNK_EVENTS = 8192;
export const K_RAW = 0;
export const K_TRADE = 1;
export const K_MARK = 2;
export const K_FUNDING = 3;
export const K_QUOTE = 4;
export const K_BOOK = 5;
export const K_SNAPSHOT = 6;
export const K_DEPTH = 7;
/** Bytes of a chunk's head: count, blob length, level count, checksum. */
export const CHUNK_HEAD = 16;

/**
 * A chunk's checksum: FNV-1a over the three counts of its head and the 32-bit words of its body
 * (`body`: the body's bytes from an 8-aligned offset, its length a multiple of 8). Each step is a
 * bijection of the running value, so any one word changed always changes the result; about 1 in
 * 4 billion for other damage. A few ms for the 2-hour sample's 8.5 MB cache.
 */
export function chunkChecksum(count: number, blobLength: number, levelCount: number, body: Uint8Array): number {
  let h = Math.imul(0x811c9dc5 ^ count, 0x01000193);
  h = Math.imul(h ^ blobLength, 0x01000193);
  h = Math.imul(h ^ levelCount, 0x01000193);
  const words = new Int32Array(body.buffer, body.byteOffset, body.byteLength >>> 2);
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i], 0x01000193);
  return h >>> 0;
}

/**
 * A replay cache that is not as it was written (a chunk whose checksum does not match, or a file
 * that ends before its last chunk): the reader removes it, so the next run builds it anew from the
 * recording, and says so.
 */
export class ReplayCacheDamaged extends Error {
  constructor(
    readonly cache: string,
    readonly recording: string,
    readonly problem: string,
  ) {
    super(`${cache}: the replay cache is damaged (${problem}); removed it: the next run builds it again from ${recording} (data.cache: false, or perpkit backtest --no-cache, reads the JSON lines instead)`);
    this.name = 'ReplayCacheDamaged';
  }
}

export interface CacheKey {
  layout: number;
  size: number;
  mtimeMs: number;
  headerSha256: string;
}

export interface CacheMeta {
  key: CacheKey;
  header: RecordingHeader;
}

export function cachePathFor(recording: string): string {
  return `${recording}.perpkit-cache`;
}

export async function cacheKeyOf(recording: string): Promise<CacheKey> {
  const st = statSync(recording);
  const { line } = await readFileHeader(recording);
  return { layout: CACHE_LAYOUT, size: st.size, mtimeMs: st.mtimeMs, headerSha256: createHash('sha256').update(line).digest('hex') };
}

export const pad8 = (n: number): number => (n + 7) & ~7;
const sameKey = (a: CacheKey, b: CacheKey): boolean => a.layout === b.layout && a.size === b.size && a.mtimeMs === b.mtimeMs && a.headerSha256 === b.headerSha256;

export function readMeta(fd: number): { meta: CacheMeta; dataStart: number } | undefined {
  const head = Buffer.alloc(12);
  if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 8) !== MAGIC) return undefined;
  const len = head.readUInt32LE(8);
  const buf = Buffer.alloc(len);
  if (readSync(fd, buf, 0, len, 12) !== len) return undefined;
  try {
    return { meta: JSON.parse(buf.toString('utf8')) as CacheMeta, dataStart: pad8(12 + len) };
  } catch {
    return undefined;
  }
}

/** True when `cachePath` holds a complete cache of `recording` as it is now. */
export async function cacheIsValid(recording: string, cachePath: string): Promise<boolean> {
  if (!existsSync(cachePath)) return false;
  const fd = openSync(cachePath, 'r');
  try {
    const m = readMeta(fd);
    return m !== undefined && sameKey(m.meta.key, await cacheKeyOf(recording));
  } finally {
    closeSync(fd);
  }
}

export interface SymbolCodec {
  tick: Grid;
  step: Grid;
}

export function codecs(header: RecordingHeader): SymbolCodec[] {
  return header.symbols.map((s) => ({ tick: new Grid(s.tickSize), step: new Grid(s.stepSize) }));
}

/**
 * The text of `units` of grid `g` written with exactly `digits` fraction digits (`digits` may be
 * fewer than the grid's scale when the dropped digits are zeros), or undefined when it cannot be
 * (negative, unsafe, or a nonzero digit would be dropped). The writer keeps a level in columns only
 * when this gives back the recorded string, so the reader's strings are the recorded ones.
 */
export function unitsText(units: number, g: Grid, digits: number): string | undefined {
  if (!(units >= 0)) return undefined;
  let v = units * g.unitScaled;
  if (digits >= g.scale) v *= 10 ** (digits - g.scale);
  else {
    const div = 10 ** (g.scale - digits);
    if (v % div !== 0) return undefined;
    v /= div;
  }
  if (!Number.isSafeInteger(v)) return undefined;
  const s = String(v);
  if (digits === 0) return s;
  const padded = s.length > digits ? s : '0'.repeat(digits + 1 - s.length) + s;
  return `${padded.slice(0, padded.length - digits)}.${padded.slice(padded.length - digits)}`;
}
