/** Writes the replay cache (layout: cache-format.ts): a recording file converted once into columns. */
import { closeSync, existsSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { fractionDigits, toScaledInt } from '../../core/decimal';
import type { Level, RecordedEvent } from '../../market-data/format';
import { CHUNK_EVENTS, CHUNK_HEAD, chunkChecksum, K_BOOK, K_DEPTH, K_FUNDING, K_MARK, K_QUOTE, K_RAW, K_SNAPSHOT, K_TRADE, MAGIC, cacheKeyOf, codecs, pad8, unitsText, type CacheMeta, type SymbolCodec } from './cache-format';
import { JsonlSource } from './jsonl-source';

/** Levels after which a chunk ends early (about 4.5 MB of level columns). */
const CHUNK_LEVELS = 1 << 18;
const ID = /^\d{1,15}$/;
/** The fields a book, snapshot or depth event may have to go into columns (any other would be lost). */
const BOOK_KEYS = new Set(['t', 'et', 'k', 's', 'U', 'u', 'pu', 'b', 'a']);
const SNAPSHOT_KEYS = new Set(['t', 'et', 'k', 's', 'u', 'b', 'a']);
const DEPTH_KEYS = new Set(['t', 'k', 's', 'b', 'a']);
const isId = (v: number | undefined): boolean => v === undefined || (Number.isSafeInteger(v) && v >= 0);

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
  /** Levels of the chunk's book and snapshot events (grown as needed). */
  ticks = new Float64Array(CHUNK_EVENTS);
  steps = new Float64Array(CHUNK_EVENTS);
  priceDigits = new Uint8Array(CHUNK_EVENTS);
  qtyDigits = new Uint8Array(CHUNK_EVENTS);
  levels = 0;
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
    if (e.k === 'book' || e.k === 'snapshot' || e.k === 'depth') return this.book(e, i);
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

  /** A book, snapshot or depth event into columns; false (nothing kept) when any part does not fit. */
  private book(e: Extract<RecordedEvent, { k: 'book' | 'snapshot' | 'depth' }>, i: number): boolean {
    const si = this.symIndex.get(e.s);
    if (si === undefined) return false;
    const keys = e.k === 'book' ? BOOK_KEYS : e.k === 'snapshot' ? SNAPSHOT_KEYS : DEPTH_KEYS;
    for (const key of Object.keys(e)) if (!keys.has(key)) return false;
    if (e.k !== 'depth') {
      if (e.et !== undefined && !Number.isSafeInteger(e.et)) return false;
      if (!isId(e.u) || (e.k === 'book' && (!isId(e.U) || !isId(e.pu)))) return false;
    }
    const start = this.levels;
    if (!this.addLevels(this.codec[si], e.b) || !this.addLevels(this.codec[si], e.a)) {
      this.levels = start;
      return false;
    }
    this.sym[i] = si;
    this.b[i] = e.b.length;
    this.c[i] = e.a.length;
    if (e.k === 'depth') {
      this.kind[i] = K_DEPTH;
      return true;
    }
    this.kind[i] = e.k === 'book' ? K_BOOK : K_SNAPSHOT;
    this.u[i] = e.u;
    this.a[i] = e.k === 'book' && e.pu !== undefined ? e.pu : NaN;
    this.d[i] = e.k === 'book' ? e.U : NaN;
    this.e[i] = e.et ?? NaN;
    return true;
  }

  /** Appends levels whose strings the reader can give back exactly from units and digits. */
  private addLevels(g: SymbolCodec, levels: readonly Level[]): boolean {
    for (const [p, q] of levels) {
      const ticks = g.tick.toUnits(p);
      const steps = g.step.toUnits(q);
      if (ticks === undefined || steps === undefined) return false;
      const pd = fractionDigits(p);
      const qd = fractionDigits(q);
      if (pd > 255 || qd > 255 || unitsText(ticks, g.tick, pd) !== p || unitsText(steps, g.step, qd) !== q) return false;
      const k = this.levels;
      if (k === this.ticks.length) this.growLevels();
      this.ticks[k] = ticks;
      this.steps[k] = steps;
      this.priceDigits[k] = pd;
      this.qtyDigits[k] = qd;
      this.levels = k + 1;
    }
    return true;
  }

  private growLevels(): void {
    const grow = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(a.length * 2);
      b.set(a);
      return b;
    };
    this.ticks = grow(this.ticks, (n) => new Float64Array(n));
    this.steps = grow(this.steps, (n) => new Float64Array(n));
    this.priceDigits = grow(this.priceDigits, (n) => new Uint8Array(n));
    this.qtyDigits = grow(this.qtyDigits, (n) => new Uint8Array(n));
  }

  write(fd: number): void {
    const n = this.n;
    const levels = this.levels;
    // The body in one buffer (8-aligned, as the reader reads it), for its checksum and one write.
    const levelsAt = 56 * n + pad8(3 * n);
    const blobAt = levelsAt + (levels > 0 ? 16 * levels + pad8(2 * levels) : 0);
    const body = Buffer.alloc(blobAt + pad8(this.blobLen));
    let at = 0;
    for (const col of [this.t, this.a, this.b, this.c, this.d, this.e, this.u]) {
      body.set(new Uint8Array(col.buffer, 0, n * 8), at);
      at += n * 8;
    }
    body.set(this.kind.subarray(0, n), at);
    body.set(this.sym.subarray(0, n), at + n);
    body.set(this.x.subarray(0, n), at + 2 * n);
    if (levels > 0) {
      body.set(new Uint8Array(this.ticks.buffer, 0, levels * 8), levelsAt);
      body.set(new Uint8Array(this.steps.buffer, 0, levels * 8), levelsAt + 8 * levels);
      body.set(this.priceDigits.subarray(0, levels), levelsAt + 16 * levels);
      body.set(this.qtyDigits.subarray(0, levels), levelsAt + 17 * levels);
    }
    at = blobAt;
    for (const b of this.blob) {
      body.set(b, at);
      at += b.length;
    }
    const head = Buffer.alloc(CHUNK_HEAD);
    head.writeUInt32LE(n, 0);
    head.writeUInt32LE(this.blobLen, 4);
    head.writeUInt32LE(levels, 8);
    head.writeUInt32LE(chunkChecksum(n, this.blobLen, levels, body), 12);
    writeSync(fd, head);
    writeSync(fd, body);
    this.n = 0;
    this.levels = 0;
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
  // Per process and thread: a sweep's threads may build the cache of one recording at once (each
  // renames a whole cache over the name; the last one stays).
  const tmp = `${cachePath}.tmp-${process.pid}-${threadId}`;
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
        // A chunk also ends at CHUNK_LEVELS levels: a run of full snapshots stays a few MB in memory.
        if (w.n === CHUNK_EVENTS || w.levels >= CHUNK_LEVELS) w.write(fd);
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
