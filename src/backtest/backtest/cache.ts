/** Reads the replay cache (layout: cache-format.ts): one chunk of columns in memory at a time. */
import { closeSync, fstatSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { fromScaledInt } from '../../core/decimal';
import type { Grid } from '../../core/values';
import type { Level, RecordedEvent, RecordingHeader } from '../../market-data/format';
import { CACHE_LAYOUT, CHUNK_HEAD, chunkChecksum, ReplayCacheDamaged, K_BOOK, K_DEPTH, K_FUNDING, K_MARK, K_QUOTE, K_SNAPSHOT, K_TRADE, codecs, pad8, readMeta, unitsText } from './cache-format';
import type { EventBatch, EventOrigin, EventSource, LevelColumns, QuoteColumns, TradeColumns } from './source';

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
type BookEv = Extract<RecordedEvent, { k: 'book' }>;
type SnapshotEv = Extract<RecordedEvent, { k: 'snapshot' }>;

/** Slots of a LevelText table (a power of two). */
const LEVEL_TEXT_SLOTS = 4096;

/**
 * Level strings of one grid as recorded: units written with the recorded number of fraction
 * digits. Recent answers are kept in a direct-mapped table (slot = units mod size): the levels of
 * a book repeat from message to message.
 */
class LevelText {
  private readonly keys = new Float64Array(LEVEL_TEXT_SLOTS).fill(NaN);
  private readonly digits = new Uint8Array(LEVEL_TEXT_SLOTS);
  private readonly values: string[] = new Array<string>(LEVEL_TEXT_SLOTS).fill('');

  constructor(private readonly grid: Grid) {}

  text(units: number, digits: number): string {
    const slot = units & (LEVEL_TEXT_SLOTS - 1);
    if (this.keys[slot] === units && this.digits[slot] === digits) return this.values[slot];
    // The writer kept the level in columns only when this gives back the recorded string.
    const s = unitsText(units, this.grid, digits) ?? this.grid.fromUnits(units);
    this.keys[slot] = units;
    this.digits[slot] = digits;
    this.values[slot] = s;
    return s;
  }
}

/** One chunk's columns over a reused buffer; decodes into one reused object per kind. */
class CacheBatch implements EventBatch, TradeColumns, LevelColumns, QuoteColumns {
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
  /** Levels of the chunk's book, snapshot and depth events: ticks, steps, recorded fraction digits. */
  ticks = new Float64Array(0);
  steps = new Float64Array(0);
  priceDigits = new Uint8Array(0);
  qtyDigits = new Uint8Array(0);
  /** First level of each book, snapshot or depth event of the chunk (set by `indexLevels`). */
  private starts = new Int32Array(0);
  private readonly trade: TradeEv = lazyIdTrade(this);
  private readonly mark: MarkEv = { t: 0, k: 'mark', s: '', p: '', i: '', r: '', n: 0 };
  private readonly funding: FundingEv = { t: 0, k: 'funding', s: '', r: '', p: '' };
  private readonly quote: QuoteEv = { t: 0, k: 'quote', s: '', bp: '', bq: '', ap: '', aq: '' };
  private readonly book: BookEv = { t: 0, et: undefined, k: 'book', s: '', U: 0, u: 0, pu: undefined, b: [], a: [] };
  private readonly snapshot: SnapshotEv = { t: 0, et: undefined, k: 'snapshot', s: '', u: 0, b: [], a: [] };
  /** Level pairs reused by the decoded book and snapshot events (bids, asks). */
  private readonly bidPairs: Level[] = [];
  private readonly askPairs: Level[] = [];
  private readonly priceText: LevelText[];
  private readonly qtyText: LevelText[];
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
    this.priceText = prices.map((g) => new LevelText(g));
    this.qtyText = qtys.map((g) => new LevelText(g));
  }

  /** Works out where each book, snapshot and depth event's levels start (after a chunk is read). */
  indexLevels(): void {
    const n = this.count;
    if (this.starts.length < n) this.starts = new Int32Array(Math.max(n, 2 * this.starts.length));
    const kind = this.kind;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const k = kind[i];
      if (k === K_BOOK || k === K_SNAPSHOT || k === K_DEPTH) {
        this.starts[i] = at;
        at += this.b[i] + this.c[i];
      }
    }
  }

  get levels(): LevelColumns {
    return this;
  }

  get quotes(): QuoteColumns {
    return this;
  }

  quoteSymbol(i: number): number {
    return this.kind[i] === K_QUOTE ? this.sym[i] : -1;
  }

  bidTicks(i: number): number {
    return this.a[i];
  }

  bidSteps(i: number): number {
    return this.b[i];
  }

  askTicks(i: number): number {
    return this.c[i];
  }

  askSteps(i: number): number {
    return this.d[i];
  }

  updateId(i: number): number {
    return this.u[i];
  }

  levelSymbol(i: number): number {
    const k = this.kind[i];
    return k === K_BOOK || k === K_SNAPSHOT ? this.sym[i] : -1;
  }

  isSnapshot(i: number): boolean {
    return this.kind[i] === K_SNAPSHOT;
  }

  levelStart(i: number): number {
    return this.starts[i];
  }

  bidCount(i: number): number {
    return this.b[i];
  }

  askCount(i: number): number {
    return this.c[i];
  }

  tickSize(si: number): string {
    return this.prices[si].size;
  }

  stepSize(si: number): string {
    return this.qtys[si].size;
  }

  /** The recorded strings of `count` levels from `start` into `out`, reusing the pairs of `pool`. */
  private decodeLevels(out: Level[], pool: Level[], si: number, start: number, count: number): void {
    const pt = this.priceText[si];
    const qt = this.qtyText[si];
    out.length = count;
    for (let k = 0; k < count; k++) {
      let l = pool[k];
      if (l === undefined) {
        l = ['', ''];
        pool.push(l);
      }
      const j = start + k;
      l[0] = pt.text(this.ticks[j], this.priceDigits[j]);
      l[1] = qt.text(this.steps[j], this.qtyDigits[j]);
      out[k] = l;
    }
  }

  /**
   * The recorded strings of `count` levels from `start`, in new arrays: a depth event's levels are
   * kept by whoever takes them (the bot's market state holds the last depth of each symbol).
   */
  private newLevels(si: number, start: number, count: number): Level[] {
    const out: Level[] = [];
    this.decodeLevels(out, [], si, start, count);
    return out;
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
    if (k === K_BOOK || k === K_SNAPSHOT) {
      const e = k === K_BOOK ? this.book : this.snapshot;
      e.t = this.t[i];
      e.s = this.names[si];
      e.u = this.u[i];
      if (e.k === 'book') {
        e.U = this.d[i];
        const pu = this.a[i];
        e.pu = pu === pu ? pu : undefined;
      }
      const start = this.starts[i];
      const nb = this.b[i];
      this.decodeLevels(e.b, this.bidPairs, si, start, nb);
      this.decodeLevels(e.a, this.askPairs, si, start + nb, this.c[i]);
      this.exchangeTime(e, i);
      return e;
    }
    if (k === K_DEPTH) {
      const start = this.starts[i];
      const nb = this.b[i];
      return { t: this.t[i], k: 'depth', s: this.names[si], b: this.newLevels(si, start, nb), a: this.newLevels(si, start + nb, this.c[i]) };
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
  /** Events of the current file before the batch returned last, and after it (origin()). */
  private batchStart = 0;
  private fileEvents = 0;

  private constructor(
    private readonly paths: string[],
    readonly header: RecordingHeader,
    private readonly fileHeaders: RecordingHeader[],
    /** The recording file each cache was built from, for origin(). */
    private readonly recordings: string[],
  ) {
    this.total = paths.reduce((s, p) => s + statSync(p).size, 0);
  }

  /** `recordings`: the file each cache was built from (origin() names it), else the caches themselves. */
  static open(cachePaths: string[], header: RecordingHeader, recordings: string[] = cachePaths): CacheSource {
    const headers: RecordingHeader[] = [];
    for (const p of cachePaths) {
      const fd = openSync(p, 'r');
      try {
        const m = readMeta(fd);
        if (!m) throw new Error(`${p}: not a perpkit replay cache`);
        if (m.meta.key.layout !== CACHE_LAYOUT) throw new Error(`${p}: a replay cache of layout ${m.meta.key.layout}, this version reads layout ${CACHE_LAYOUT}; delete it or let the backtest rebuild it`);
        headers.push(m.meta.header);
      } finally {
        closeSync(fd);
      }
    }
    return new CacheSource(cachePaths, header, headers, recordings);
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
    this.batchStart = 0;
    this.fileEvents = 0;
    const h = this.fileHeaders[this.fileIndex];
    const names = h.symbols.map((s) => s.symbol);
    const cs = codecs(h);
    this.batch = new CacheBatch(names, cs.map((c) => c.tick), cs.map((c) => c.step));
    return true;
  }

  async next(): Promise<EventBatch | undefined> {
    for (;;) {
      if (this.fd < 0 && !this.openNext()) return undefined;
      const head = Buffer.alloc(CHUNK_HEAD);
      if (readSync(this.fd, head, 0, CHUNK_HEAD, this.pos) !== CHUNK_HEAD) this.damaged(`it ends at byte ${this.pos}, before its last chunk`);
      const n = head.readUInt32LE(0);
      const blobLen = head.readUInt32LE(4);
      const levels = head.readUInt32LE(8);
      if (n === 0) {
        if (!this.openNext()) return undefined;
        continue;
      }
      const levelsAt = 56 * n + pad8(3 * n);
      const blobAt = levelsAt + 16 * levels + pad8(2 * levels);
      const bodyLen = blobAt + pad8(blobLen);
      if (this.buf.byteLength < bodyLen) this.buf = new ArrayBuffer(Math.max(bodyLen, this.buf.byteLength * 2));
      const bytes = new Uint8Array(this.buf, 0, bodyLen);
      if (readSync(this.fd, bytes, 0, bodyLen, this.pos + CHUNK_HEAD) !== bodyLen) this.damaged(`it ends within the chunk at byte ${this.pos}`);
      if (chunkChecksum(n, blobLen, levels, bytes) !== head.readUInt32LE(12)) this.damaged(`the chunk at byte ${this.pos} does not match its checksum`);
      this.pos += CHUNK_HEAD + bodyLen;
      const b = this.batch as CacheBatch;
      this.batchStart = this.fileEvents;
      this.fileEvents += n;
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
      b.ticks = new Float64Array(this.buf, levelsAt, levels);
      b.steps = new Float64Array(this.buf, levelsAt + 8 * levels, levels);
      b.priceDigits = new Uint8Array(this.buf, levelsAt + 16 * levels, levels);
      b.qtyDigits = new Uint8Array(this.buf, levelsAt + 17 * levels, levels);
      b.blob = Buffer.from(this.buf, blobAt, blobLen);
      if (levels > 0) b.indexLevels();
      return b;
    }
  }

  /** Ends the read of a damaged cache: removes it (the next run builds it again) and throws ReplayCacheDamaged. */
  private damaged(problem: string): never {
    const cache = this.paths[this.fileIndex];
    closeSync(this.fd);
    this.fd = -1;
    rmSync(cache, { force: true });
    throw new ReplayCacheDamaged(cache, this.recordings[this.fileIndex], problem);
  }

  /** The cache holds every event of its recording in order, one a line after the header: event k is line k + 2. */
  origin(i: number): EventOrigin {
    return { file: this.recordings[Math.max(0, this.fileIndex)], line: this.batchStart + i + 2 };
  }

  async close(): Promise<void> {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
