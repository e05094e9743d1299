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
 *   chunks:  u32 count | u32 blobLength | f64 t[count] | f64 a[count] | f64 b[count] | f64 c[count]
 *            | f64 d[count] | f64 e[count] | f64 u[count] | u8 kind[count] | u8 sym[count]
 *            | u8 x[count] | pad to 8 | blob | pad to 8
 *   a chunk of count 0 ends the file.
 * Columns by kind (prices in ticks and quantities in steps of the symbol's grid, exact integers):
 *   trade:   a price, b quantity, c trade id, x side (0 BUY, 1 SELL)
 *   mark:    a mark, b index, c funding-rate mantissa, x its scale, d next funding time
 *   funding: a price, c rate mantissa, x its scale
 *   quote:   a bid price, b bid quantity, c ask price, d ask quantity, u the venue's update id
 *   and for these four kinds, e: the exchange's time (`et`); NaN in e and u means absent.
 *   raw:     a blob offset, b length: the event's JSON line, for every kind and value that does not
 *            fit the columns (book, snapshot, depth, ticker, private, positions, gap, off-grid
 *            values or odd ids).
 * Decoding gives back the same values (decimal strings may lose trailing zeros: "0.00010" comes
 * back as "0.0001"; the engine parses both to the same number).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { fractionDigits, fromScaledInt, toScaledInt } from '../../core/decimal';
import { Grid } from '../../core/values';
import type { RecordedEvent, RecordingHeader } from '../../market-data/format';
import { JsonlSource, readFileHeader } from './jsonl-source';
import type { EventBatch, EventSource, TradeColumns } from './source';

const MAGIC = 'PKCACHE1';
/** Bump when the layout changes: older caches are then rebuilt. */
const CACHE_LAYOUT = 2;
export const CHUNK_EVENTS = 8192;
const K_RAW = 0;
const K_TRADE = 1;
const K_MARK = 2;
const K_FUNDING = 3;
const K_QUOTE = 4;

export interface CacheKey {
  layout: number;
  size: number;
  mtimeMs: number;
  headerSha256: string;
}

interface CacheMeta {
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

const pad8 = (n: number): number => (n + 7) & ~7;
const sameKey = (a: CacheKey, b: CacheKey): boolean => a.layout === b.layout && a.size === b.size && a.mtimeMs === b.mtimeMs && a.headerSha256 === b.headerSha256;

function readMeta(fd: number): { meta: CacheMeta; dataStart: number } | undefined {
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

interface SymbolCodec {
  tick: Grid;
  step: Grid;
}

function codecs(header: RecordingHeader): SymbolCodec[] {
  return header.symbols.map((s) => ({ tick: new Grid(s.tickSize), step: new Grid(s.stepSize) }));
}

const ID = /^\d{1,15}$/;

/** Mantissa and scale of a plain decimal string, or undefined when it does not fit exactly. */
function scaled(s: string): { m: number; scale: number } | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(s)) return undefined;
  const scale = fractionDigits(s);
  if (scale > 255) return undefined;
  const m = toScaledInt(s, scale);
  return m === undefined ? undefined : { m, scale };
}

/** Column buffers of one chunk while writing. */
class ChunkWriter {
  readonly t = new Float64Array(CHUNK_EVENTS);
  readonly a = new Float64Array(CHUNK_EVENTS);
  readonly b = new Float64Array(CHUNK_EVENTS);
  readonly c = new Float64Array(CHUNK_EVENTS);
  readonly d = new Float64Array(CHUNK_EVENTS);
  readonly e = new Float64Array(CHUNK_EVENTS);
  readonly u = new Float64Array(CHUNK_EVENTS);
  readonly kind = new Uint8Array(CHUNK_EVENTS);
  readonly sym = new Uint8Array(CHUNK_EVENTS);
  readonly x = new Uint8Array(CHUNK_EVENTS);
  n = 0;
  blob: Buffer[] = [];
  blobLen = 0;

  constructor(
    private readonly symIndex: Map<string, number>,
    private readonly codec: SymbolCodec[],
  ) {}

  add(e: RecordedEvent): void {
    const i = this.n;
    this.t[i] = e.t;
    this.a[i] = this.b[i] = this.c[i] = this.d[i] = 0;
    this.e[i] = this.u[i] = NaN;
    this.x[i] = 0;
    this.sym[i] = 0;
    if (!this.columns(e, i)) {
      const line = Buffer.from(JSON.stringify(e), 'utf8');
      this.kind[i] = K_RAW;
      this.a[i] = this.blobLen;
      this.b[i] = line.length;
      this.blob.push(line);
      this.blobLen += line.length;
    }
    this.n++;
  }

  private columns(e: RecordedEvent, i: number): boolean {
    if (e.k !== 'trade' && e.k !== 'mark' && e.k !== 'funding' && e.k !== 'quote') return false;
    const si = this.symIndex.get(e.s);
    if (si === undefined) return false;
    const g = this.codec[si];
    this.sym[i] = si;
    if (e.et !== undefined) {
      if (!Number.isSafeInteger(e.et)) return false;
      this.e[i] = e.et;
    }
    if (e.k === 'quote') {
      const bp = g.tick.toUnits(e.bp);
      const bq = g.step.toUnits(e.bq);
      const ap = g.tick.toUnits(e.ap);
      const aq = g.step.toUnits(e.aq);
      if (bp === undefined || bq === undefined || ap === undefined || aq === undefined) return false;
      if (e.u !== undefined && !Number.isSafeInteger(e.u)) return false;
      this.kind[i] = K_QUOTE;
      this.a[i] = bp;
      this.b[i] = bq;
      this.c[i] = ap;
      this.d[i] = aq;
      if (e.u !== undefined) this.u[i] = e.u;
      return true;
    }
    if (e.k === 'trade') {
      const p = g.tick.toUnits(e.p);
      const q = g.step.toUnits(e.q);
      if (p === undefined || q === undefined || !ID.test(e.id) || String(Number(e.id)) !== e.id) return false;
      this.kind[i] = K_TRADE;
      this.a[i] = p;
      this.b[i] = q;
      this.c[i] = Number(e.id);
      this.x[i] = e.side === 'BUY' ? 0 : 1;
      return true;
    }
    if (e.k === 'mark') {
      const p = g.tick.toUnits(e.p);
      const ix = g.tick.toUnits(e.i);
      const r = scaled(e.r);
      if (p === undefined || ix === undefined || r === undefined) return false;
      this.kind[i] = K_MARK;
      this.a[i] = p;
      this.b[i] = ix;
      this.c[i] = r.m;
      this.x[i] = r.scale;
      this.d[i] = e.n;
      return true;
    }
    const p = g.tick.toUnits(e.p);
    const r = scaled(e.r);
    if (p === undefined || r === undefined) return false;
    this.kind[i] = K_FUNDING;
    this.a[i] = p;
    this.c[i] = r.m;
    this.x[i] = r.scale;
    return true;
  }

  write(fd: number): void {
    const n = this.n;
    const head = Buffer.alloc(8);
    head.writeUInt32LE(n, 0);
    head.writeUInt32LE(this.blobLen, 4);
    writeSync(fd, head);
    for (const col of [this.t, this.a, this.b, this.c, this.d, this.e, this.u]) writeSync(fd, new Uint8Array(col.buffer, 0, n * 8));
    const bytes = Buffer.alloc(pad8(3 * n));
    bytes.set(this.kind.subarray(0, n), 0);
    bytes.set(this.sym.subarray(0, n), n);
    bytes.set(this.x.subarray(0, n), 2 * n);
    writeSync(fd, bytes);
    for (const b of this.blob) writeSync(fd, b);
    const padding = pad8(this.blobLen) - this.blobLen;
    if (padding > 0) writeSync(fd, Buffer.alloc(padding));
    this.n = 0;
    this.blob = [];
    this.blobLen = 0;
  }
}

/** Converts one recording file into its cache. Returns the number of events written. */
export async function buildCache(recording: string, cachePath: string): Promise<number> {
  const key = await cacheKeyOf(recording);
  const src = await JsonlSource.open([recording]);
  const header = src.header;
  const symIndex = new Map(header.symbols.map((s, i) => [s.symbol, i]));
  if (header.symbols.length > 255) throw new Error(`${recording}: the cache holds at most 255 symbols, the header has ${header.symbols.length}`);
  const tmp = `${cachePath}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  let events = 0;
  try {
    const meta = Buffer.from(JSON.stringify({ key, header } satisfies CacheMeta), 'utf8');
    const head = Buffer.alloc(12);
    head.write(MAGIC, 0, 'latin1');
    head.writeUInt32LE(meta.length, 8);
    writeSync(fd, head);
    writeSync(fd, meta);
    const padding = pad8(12 + meta.length) - (12 + meta.length);
    if (padding > 0) writeSync(fd, Buffer.alloc(padding));
    const w = new ChunkWriter(symIndex, codecs(header));
    for (;;) {
      const batch = await src.next();
      if (!batch) break;
      for (let i = 0; i < batch.count; i++) {
        w.add(batch.event(i));
        events++;
        if (w.n === CHUNK_EVENTS) w.write(fd);
      }
    }
    if (w.n > 0) w.write(fd);
    w.write(fd); // count 0: the end
    closeSync(fd);
    renameSync(tmp, cachePath);
  } catch (e) {
    closeSync(fd);
    if (existsSync(tmp)) unlinkSync(tmp);
    throw e;
  } finally {
    await src.close();
  }
  return events;
}

type TradeEv = Extract<RecordedEvent, { k: 'trade' }>;
type MarkEv = Extract<RecordedEvent, { k: 'mark' }>;

/**
 * The reused trade event of a batch, whose `id` string is made only when someone reads it: most
 * replayed trades are never looked at by id, and a string per trade is a tenth of the decode.
 * `id` is an own enumerable getter, so spreading or serializing the event still carries it.
 */
function lazyIdTrade(batch: { tradeId: number }): TradeEv {
  const e = { t: 0, k: 'trade', s: '', p: '', q: '', side: 'BUY' } as Omit<TradeEv, 'id'>;
  Object.defineProperty(e, 'id', { enumerable: true, get: () => String(batch.tradeId) });
  return e as TradeEv;
}
type FundingEv = Extract<RecordedEvent, { k: 'funding' }>;
type QuoteEv = Extract<RecordedEvent, { k: 'quote' }>;

/** One chunk's columns over a reused buffer; decodes into one reused object per kind. */
class CacheBatch implements EventBatch, TradeColumns {
  count = 0;
  t = new Float64Array(0);
  a = new Float64Array(0);
  b = new Float64Array(0);
  c = new Float64Array(0);
  d = new Float64Array(0);
  e = new Float64Array(0);
  u = new Float64Array(0);
  kind = new Uint8Array(0);
  sym = new Uint8Array(0);
  x = new Uint8Array(0);
  blob = Buffer.alloc(0);
  private readonly trade: TradeEv = lazyIdTrade(this);
  private readonly mark: MarkEv = { t: 0, k: 'mark', s: '', p: '', i: '', r: '', n: 0 };
  private readonly funding: FundingEv = { t: 0, k: 'funding', s: '', r: '', p: '' };
  private readonly quote: QuoteEv = { t: 0, k: 'quote', s: '', bp: '', bq: '', ap: '', aq: '' };
  private readonly rateCache: Array<{ m: number; scale: number; s: string }>;
  /** The numeric trade id of the trade last decoded; its string is made only when read. */
  tradeId = 0;

  constructor(
    private readonly names: string[],
    /** Tick and step grids per symbol: their fromUnits keeps recent strings (Grid). */
    private readonly prices: Grid[],
    private readonly qtys: Grid[],
  ) {
    this.rateCache = names.map(() => ({ m: NaN, scale: -1, s: '' }));
  }

  time(i: number): number {
    return this.t[i];
  }

  get trades(): TradeColumns {
    return this;
  }

  get symbolNames(): readonly string[] {
    return this.names;
  }

  tradeSymbol(i: number): number {
    return this.kind[i] === K_TRADE ? this.sym[i] : -1;
  }

  tradeTicks(i: number): number {
    return this.a[i];
  }

  tradePrice(i: number): string {
    return this.prices[this.sym[i]].fromUnits(this.a[i]);
  }

  private rate(si: number, m: number, scale: number): string {
    const c = this.rateCache[si];
    if (c.m !== m || c.scale !== scale) {
      c.m = m;
      c.scale = scale;
      c.s = fromScaledInt(m, scale);
    }
    return c.s;
  }

  /** Sets or removes the reused event's exchange time (NaN in the column: none recorded). */
  private exchangeTime(e: { et?: number }, i: number): void {
    const et = this.e[i];
    e.et = et === et ? et : undefined;
  }

  event(i: number): RecordedEvent {
    const k = this.kind[i];
    const si = this.sym[i];
    if (k === K_TRADE) {
      const e = this.trade;
      e.t = this.t[i];
      e.s = this.names[si];
      this.tradeId = this.c[i];
      e.p = this.prices[si].fromUnits(this.a[i]);
      e.q = this.qtys[si].fromUnits(this.b[i]);
      e.side = this.x[i] === 0 ? 'BUY' : 'SELL';
      this.exchangeTime(e, i);
      return e;
    }
    if (k === K_MARK) {
      const e = this.mark;
      e.t = this.t[i];
      e.s = this.names[si];
      e.p = this.prices[si].fromUnits(this.a[i]);
      e.i = this.prices[si].fromUnits(this.b[i]);
      e.r = this.rate(si, this.c[i], this.x[i]);
      e.n = this.d[i];
      this.exchangeTime(e, i);
      return e;
    }
    if (k === K_FUNDING) {
      const e = this.funding;
      e.t = this.t[i];
      e.s = this.names[si];
      e.p = this.prices[si].fromUnits(this.a[i]);
      e.r = this.rate(si, this.c[i], this.x[i]);
      this.exchangeTime(e, i);
      return e;
    }
    if (k === K_QUOTE) {
      const e = this.quote;
      e.t = this.t[i];
      e.s = this.names[si];
      e.bp = this.prices[si].fromUnits(this.a[i]);
      e.bq = this.qtys[si].fromUnits(this.b[i]);
      e.ap = this.prices[si].fromUnits(this.c[i]);
      e.aq = this.qtys[si].fromUnits(this.d[i]);
      const u = this.u[i];
      // Assigned, not deleted, when absent: the reused object keeps its shape.
      e.u = u === u ? u : undefined;
      this.exchangeTime(e, i);
      return e;
    }
    const off = this.a[i];
    return JSON.parse(this.blob.toString('utf8', off, off + this.b[i])) as RecordedEvent;
  }
}

/** Replays cache files in order, one chunk in memory at a time. */
export class CacheSource implements EventSource {
  private fileIndex = -1;
  private fd = -1;
  private pos = 0;
  private buf = new ArrayBuffer(0);
  /** One batch object over one read buffer: a batch is valid until the next `next()`. */
  private batch: CacheBatch | undefined;
  private doneBytes = 0;
  private readonly total: number;

  private constructor(
    private readonly paths: string[],
    readonly header: RecordingHeader,
    private readonly fileHeaders: RecordingHeader[],
  ) {
    this.total = paths.reduce((s, p) => s + statSync(p).size, 0);
  }

  static open(cachePaths: string[], header: RecordingHeader): CacheSource {
    const headers: RecordingHeader[] = [];
    for (const p of cachePaths) {
      const fd = openSync(p, 'r');
      try {
        const m = readMeta(fd);
        if (!m) throw new Error(`${p}: not a perpkit replay cache`);
        headers.push(m.meta.header);
      } finally {
        closeSync(fd);
      }
    }
    return new CacheSource(cachePaths, header, headers);
  }

  progress(): { done: number; total: number } {
    return { done: this.doneBytes + Math.max(0, this.pos), total: this.total };
  }

  private openNext(): boolean {
    if (this.fd >= 0) {
      this.doneBytes += fstatSync(this.fd).size;
      closeSync(this.fd);
      this.fd = -1;
    }
    if (this.fileIndex + 1 >= this.paths.length) return false;
    this.fileIndex++;
    this.fd = openSync(this.paths[this.fileIndex], 'r');
    const m = readMeta(this.fd);
    if (!m) throw new Error(`${this.paths[this.fileIndex]}: not a perpkit replay cache`);
    this.pos = m.dataStart;
    const h = this.fileHeaders[this.fileIndex];
    const names = h.symbols.map((s) => s.symbol);
    const cs = codecs(h);
    this.batch = new CacheBatch(names, cs.map((c) => c.tick), cs.map((c) => c.step));
    return true;
  }

  async next(): Promise<EventBatch | undefined> {
    for (;;) {
      if (this.fd < 0 && !this.openNext()) return undefined;
      const head = Buffer.alloc(8);
      if (readSync(this.fd, head, 0, 8, this.pos) !== 8) throw new Error(`${this.paths[this.fileIndex]}: the cache ends early`);
      const n = head.readUInt32LE(0);
      const blobLen = head.readUInt32LE(4);
      if (n === 0) {
        if (!this.openNext()) return undefined;
        continue;
      }
      const bodyLen = 56 * n + pad8(3 * n) + pad8(blobLen);
      if (this.buf.byteLength < bodyLen) this.buf = new ArrayBuffer(Math.max(bodyLen, this.buf.byteLength * 2));
      const bytes = new Uint8Array(this.buf, 0, bodyLen);
      if (readSync(this.fd, bytes, 0, bodyLen, this.pos + 8) !== bodyLen) throw new Error(`${this.paths[this.fileIndex]}: the cache ends early`);
      this.pos += 8 + bodyLen;
      const b = this.batch as CacheBatch;
      // The columns are views of the read buffer: nothing is copied.
      b.count = n;
      b.t = new Float64Array(this.buf, 0, n);
      b.a = new Float64Array(this.buf, 8 * n, n);
      b.b = new Float64Array(this.buf, 16 * n, n);
      b.c = new Float64Array(this.buf, 24 * n, n);
      b.d = new Float64Array(this.buf, 32 * n, n);
      b.e = new Float64Array(this.buf, 40 * n, n);
      b.u = new Float64Array(this.buf, 48 * n, n);
      b.kind = new Uint8Array(this.buf, 56 * n, n);
      b.sym = new Uint8Array(this.buf, 57 * n, n);
      b.x = new Uint8Array(this.buf, 58 * n, n);
      b.blob = Buffer.from(this.buf, 56 * n + pad8(3 * n), blobLen);
      return b;
    }
  }

  async close(): Promise<void> {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
