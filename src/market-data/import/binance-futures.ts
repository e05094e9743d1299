/**
 * Import of raw Binance USD-M futures captures into a recording (format v2): combined-stream lines
 * `<receive time ns> <{"stream":...,"data":{...}}>` as a collector writes them, or plain JSON lines
 * (a combined-stream envelope or a bare event per line), gzip or not, with REST depth snapshots
 * (`{"lastUpdateId":...,"bids":...,"asks":...}`) among them; or Binance's public CSV archives,
 * zipped or not (binance-csv.ts turns their rows into the same messages, merged in time order).
 *
 * - One output event per input message: `depthUpdate` -> `book`, `bookTicker` -> `quote`, `trade`
 *   and `aggTrade` -> `trade`, `markPriceUpdate` -> `mark`, a REST snapshot -> `snapshot`. A
 *   message that does not become an event is counted by reason (`skipped`, in the header and the
 *   summary): nothing is dropped silently. The importer adds `gap` events (a broken update-id
 *   chain) and, when the data has no mark price stream, derived `mark` events (below).
 * - Depth diffs follow Binance's documented procedure for USD-M futures: diffs are buffered until
 *   a snapshot; then those with `u` < `lastUpdateId` are dropped (counted), the first applied one
 *   must have `U` <= `lastUpdateId` <= `u`, and each later one's `pu` must equal the previous `u`.
 *   Buffered diffs are written right after the snapshot, stamped with its receive time (that is
 *   when a live client could apply them). A break becomes a `gap` of the symbol; its book is
 *   unknown and diffs buffer again until the next snapshot.
 * - Marks: `markPriceUpdate` when the data has it. Otherwise derived: the mid price of the first
 *   `bookTicker` of each second of receive time, rounded down to the tick, with index = mark,
 *   funding rate 0 and the next 8-hourly funding time; the header says so per symbol.
 * - Specs: tick and step are the largest grids every price and quantity of the symbol lie on (the
 *   greatest common divisor), unless --tick/--step say; the other fields are documented defaults.
 * - Time: `t` is the receive time (ms) of the line, or for plain JSON lines the event time `E`;
 *   `et` is the exchange's event time `E`. --from/--to select by receive time; the book is kept
 *   across the cut and written as a `snapshot` at the first event inside the range.
 * - Memory is flat in the file size: files are streamed (zlib + line split); the body goes to a
 *   temporary gzip file, and the header (which holds what only the end knows: specs, counts) is
 *   written as a first gzip member before it (a multi-member gzip is one stream to any reader).
 */
import { zlibProblem } from '../text';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync, unlinkSync, existsSync, renameSync, writeFileSync, appendFileSync, openSync, readSync, closeSync } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip, gzipSync, type ZlibOptions } from 'node:zlib';
import type { Readable } from 'node:stream';
import { toScaledInt, fromScaledInt } from '../../core/decimal';
import type { SymbolSpec } from '../../protocol/rest/market';
import { RECORDING_FORMAT, type Level, type MarkProvenance, type RecordedEvent, type RecordingHeader, type RecordingSourceFile } from '../format';
import { L2Book } from '../l2-book';
import { csvItems, isCsvInput } from './binance-csv';
import { ImportInputError } from './errors';


export interface BinanceImportOptions {
  files: string[];
  out: string;
  /** Import only this symbol (others are counted as skipped); upper case as Binance spells it. */
  symbol?: string;
  /** Receive-time range, epoch ms: [from, to). */
  from?: number;
  to?: number;
  /** Grid overrides (with several symbols in the data, only together with `symbol`). */
  tick?: string;
  step?: string;
  /** Called about every `progressEvery` input lines and at the end of each file. */
  onProgress?: (p: ImportProgress) => void;
  progressEvery?: number;
}

export interface ImportProgress {
  file: string;
  lines: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface ImportSummary {
  out: string;
  /** Input messages (lines that hold one). */
  messages: number;
  /** Events written that came from a message, by output kind. */
  events: Record<string, number>;
  /** Events the importer added: derived marks, gaps, snapshots rebuilt at --from. */
  added: { derivedMarks: number; gaps: number; rebuiltSnapshots: number };
  /** Messages that became no event, by reason. */
  skipped: Record<string, number>;
  symbols: SymbolSpec[];
  marks: Record<string, MarkProvenance>;
  sources: RecordingSourceFile[];
  firstTime: number;
  lastTime: number;
  /** Set when reading stopped at --to: the file and line where it stopped. */
  stoppedAt?: string;
}

/** Prices and quantities are compared on this fixed scale (Binance sends at most 8 decimals). */
const SCALE = 8;
const EIGHT_HOURS = 8 * 3_600_000;
/** Diffs kept per symbol while waiting for a snapshot; older ones are counted and dropped. */
const MAX_PENDING = 200_000;

const R_BEFORE_SNAPSHOT = 'depthUpdate older than the snapshot (u < lastUpdateId)';
const R_NO_SNAPSHOT = 'depthUpdate with no snapshot to apply it to';
const R_OTHER_SYMBOL = 'message of another symbol (--symbol)';
const R_OUT_OF_RANGE = 'message before --from';
const R_AGG_DUP = 'aggTrade while the trade stream of the symbol is imported (or the reverse)';

interface Diff {
  t: number;
  et: number;
  U: number;
  u: number;
  pu: number;
  b: Level[];
  a: Level[];
}

interface SymState {
  name: string;
  book: L2Book | undefined;
  /** The book was set from a snapshot and no diff is applied yet (the first must straddle it). */
  awaitingFirst: boolean;
  /** Receive time of the last book event written. */
  lastBookT: number;
  pending: Diff[];
  trades: 'trade' | 'aggTrade' | undefined;
  markRecorded: boolean;
  derivedMarks: number;
  firstRecordedMark: number | undefined;
  lastMarkSecond: number;
  hasQuotes: boolean;
  /** gcd of every price / quantity seen, scaled by 10^SCALE (0: none yet). */
  priceGcd: number;
  qtyGcd: number;
  tickScaled: number | undefined;
  /** The last mark written, the last settled funding rate and interval (CSV archives). */
  lastMark: string | undefined;
  lastRate: string | undefined;
  fundingIntervalMs: number;
  /** How recorded marks were obtained, for the header. */
  markMethod: string;
}

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isLevels = (v: unknown): v is Level[] => Array.isArray(v) && v.every((l) => Array.isArray(l) && l.length >= 2 && isStr(l[0]) && isStr(l[1]));

/** Next 8-hourly funding time (00:00, 08:00, 16:00 UTC) after `t`. */
const nextFunding = (t: number): number => (Math.floor(t / EIGHT_HOURS) + 1) * EIGHT_HOURS;

async function sha256Of(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) h.update(chunk);
  return h.digest('hex');
}

function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** A short, printable excerpt of a bad line for an error message. */
const excerpt = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}...` : s);

export class BinanceFuturesImporter {
  private readonly syms = new Map<string, SymState>();
  private readonly summary: ImportSummary;
  private chunk = '';
  // A deep write buffer lets parsing and compression (on the thread pool) overlap instead of taking turns.
  private gzip = createGzip({ level: 6, writableHighWaterMark: 8 << 20 } as ZlibOptions & { writableHighWaterMark: number });
  private readonly bodyPath: string;
  private body: ReturnType<typeof createWriteStream>;
  private bodyDone: Promise<void>;
  private failure: Error | undefined;
  private inRange = false;
  /** A snapshot with no symbol seen before any depth message: it belongs to the next one's symbol. */
  private orphanSnapshot: { t: number; et: number; u: number; b: Level[]; a: Level[]; where: string } | undefined;
  private lastT = 0;
  /** The inputs hold mark prices (markPriceKlines archives): derive none. */
  private marksGiven = false;
  /** Symbols of messages skipped under --symbol, for the error when --symbol is not in the data. */
  private readonly otherSymbols = new Set<string>();

  constructor(private readonly o: BinanceImportOptions) {
    for (const [name, v] of [['tick', o.tick], ['step', o.step]] as const) {
      if (v !== undefined && !((toScaledInt(v, SCALE) ?? 0) > 0)) throw new ImportInputError(`--${name}: expected a positive decimal with at most ${SCALE} decimals, got '${v}'`);
    }
    this.summary = { out: o.out, messages: 0, events: {}, added: { derivedMarks: 0, gaps: 0, rebuiltSnapshots: 0 }, skipped: {}, symbols: [], marks: {}, sources: [], firstTime: 0, lastTime: 0 };
    this.bodyPath = `${o.out}.body-${process.pid}.tmp`;
    this.body = createWriteStream(this.bodyPath);
    const fail = (e: Error): void => {
      this.failure ??= e;
    };
    this.gzip.on('error', fail);
    this.body.on('error', fail);
    this.gzip.pipe(this.body);
    this.bodyDone = once(this.body, 'close').then(() => undefined, fail);
  }

  async run(): Promise<ImportSummary> {
    try {
      const total = this.o.files.reduce((s, f) => s + statSync(f).size, 0);
      const csv = this.o.files.filter((f) => isCsvInput(f));
      if (csv.length > 0 && csv.length < this.o.files.length) {
        throw new ImportInputError(`${csv[0]} is a CSV archive and ${this.o.files.find((f) => !csv.includes(f)) ?? ''} a stream capture: import them separately (their times differ: exchange time vs receive time)`);
      }
      if (csv.length > 0) {
        // Mark prices among the inputs: no mark is derived, not even before their first bar.
        this.marksGiven = csv.some((f) => /markPriceKlines/i.test(f));
        const shas = this.o.files.map((f) => sha256Of(f));
        await this.readCsv(total);
        for (let i = 0; i < this.o.files.length; i++) this.summary.sources.push({ file: basename(this.o.files[i]), sha256: await shas[i], bytes: statSync(this.o.files[i]).size });
      } else {
        let before = 0;
        for (const file of this.o.files) {
          const sha = sha256Of(file);
          const stopped = await this.readFile(file, before, total);
          before += statSync(file).size;
          this.summary.sources.push({ file: basename(file), sha256: await sha, bytes: statSync(file).size });
          if (stopped) break;
        }
      }
      this.finishPending();
      await this.closeBody();
      this.checkOutcome();
      this.summary.symbols = [...this.syms.values()].map((s) => this.specOf(s));
      this.summary.marks = Object.fromEntries([...this.syms.values()].map((s) => [s.name, this.markProvenance(s)]));
      this.writeOut();
      return this.summary;
    } catch (e) {
      this.gzip.destroy();
      this.body.destroy();
      await this.bodyDone.catch(() => undefined);
      if (existsSync(this.bodyPath)) unlinkSync(this.bodyPath);
      throw e;
    }
  }

  // ---- reading ------------------------------------------------------------------------------

  /** Reads one file; returns true when reading stopped at --to. */
  private async readFile(file: string, before: number, total: number): Promise<boolean> {
    const raw = createReadStream(file, { highWaterMark: 1 << 20 });
    let stream: Readable = raw;
    if (isGzip(file)) {
      const gz = createGunzip({ chunkSize: 1 << 18 });
      raw.on('error', (e) => gz.destroy(e));
      stream = raw.pipe(gz);
    }
    const decoder = new StringDecoder('utf8');
    const every = this.o.progressEvery ?? 100_000;
    let rest = '';
    let line = 0;
    const progress = (): void => this.o.onProgress?.({ file, lines: line, bytesDone: before + raw.bytesRead, bytesTotal: total });
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const text = rest + decoder.write(chunk);
        let start = 0;
        for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
          line++;
          if (!this.line(text.slice(start, nl), file, line)) {
            stream.destroy();
            this.summary.stoppedAt = `${file}:${line}`;
            progress();
            return true;
          }
          start = nl + 1;
          if (line % every === 0) progress();
        }
        rest = text.slice(start);
        if (this.chunk.length >= 1 << 16) await this.flushChunk();
      }
    } catch (e) {
      if (e instanceof ImportInputError) throw e;
      const problem = zlibProblem(e);
      if (problem === 'torn') throw new ImportInputError(`${file}: the gzip data ends early (a torn or truncated file) after line ${line}`);
      if (problem === 'damaged') throw new ImportInputError(`${file}: not a readable gzip file (${(e as Error).message})`);
      throw e;
    }
    rest += decoder.end();
    if (rest.length > 0) {
      line++;
      if (!this.line(rest, file, line)) {
        this.summary.stoppedAt = `${file}:${line}`;
        return true;
      }
    }
    if (line === 0) throw new ImportInputError(`${file}: empty file; expected Binance capture lines`);
    progress();
    return false;
  }

  /** One input line. Returns false to stop reading (past --to). */
  private line(text: string, file: string, n: number): boolean {
    if (text.length === 0 || (text.length === 1 && text === '\r')) return true;
    let t: number | undefined;
    let json = text;
    const c0 = text.charCodeAt(0);
    if (c0 >= 48 && c0 <= 57) {
      const sp = text.indexOf(' ');
      // The receive time's unit by its digits (epoch times of this century): ns 19, us 16, ms 13.
      const cut = sp === 19 ? 6 : sp === 16 ? 3 : sp === 13 ? 0 : -1;
      if (cut < 0 || !/^\d+$/.test(text.slice(0, sp))) throw new ImportInputError(`${file}:${n}: not a Binance capture line (expected '<receive time ns> <json>' or a JSON object), got ${excerpt(text)}`);
      // Nanoseconds overflow a double's exact range: cut the digits, not the number.
      t = Number(text.slice(0, sp - cut));
      json = text.slice(sp + 1);
    } else if (c0 !== 123) {
      throw new ImportInputError(`${file}:${n}: not a Binance capture line (expected '<receive time ns> <json>' or a JSON object), got ${excerpt(text)}`);
    }
    let v: unknown;
    try {
      v = JSON.parse(json);
    } catch {
      throw new ImportInputError(`${file}:${n}: not JSON after the receive time, got ${excerpt(json)}`);
    }
    if (!isObj(v)) throw new ImportInputError(`${file}:${n}: expected a JSON object, got ${excerpt(json)}`);
    const d = isObj(v.data) ? v.data : v;
    if (t === undefined) t = isNum(d.E) ? d.E : this.lastT;
    if (!this.accept(t)) return false;
    this.message(d, t, `${file}:${n}`);
    return true;
  }

  /** Counts a message at time `t`; false when it is at or past --to (reading stops). */
  private accept(t: number): boolean {
    if (this.o.to !== undefined && t >= this.o.to) return false;
    this.summary.messages++;
    if (this.summary.messages === 1) this.summary.firstTime = t;
    this.lastT = t;
    this.summary.lastTime = Math.max(this.summary.lastTime, t);
    return true;
  }

  /** CSV archives (binance-csv.ts): rows merged in time order; `t` and `et` are the exchange's time. */
  private async readCsv(total: number): Promise<void> {
    const every = this.o.progressEvery ?? 100_000;
    let rows = 0;
    for await (const it of csvItems(this.o.files, this.o.symbol)) {
      if (!this.accept(it.t)) {
        this.summary.stoppedAt = it.where;
        break;
      }
      if ('msg' in it) this.message(it.msg, it.t, it.where);
      else if ('mark' in it) this.csvMark(it.mark.s, it.mark.p, it.t);
      else if ('funding' in it) this.csvFunding(it.funding.s, it.funding.r, it.funding.intervalMs, it.t);
      else this.skip(it.skip);
      if (++rows % every === 0) {
        this.o.onProgress?.({ file: it.where.replace(/:\d+$/, ''), lines: rows, bytesDone: 0, bytesTotal: total });
        if (this.chunk.length >= 1 << 16) await this.flushChunk();
      } else if (this.chunk.length >= 1 << 20) await this.flushChunk();
    }
    await this.flushChunk();
  }

  /** A markPriceKlines bar's close as the mark (index unknown: = mark; rate: the last settled one). */
  private csvMark(sym: string, p: string, t: number): void {
    if (this.o.symbol !== undefined && sym !== this.o.symbol) {
      this.otherSymbols.add(sym);
      this.skip(R_OTHER_SYMBOL);
      return;
    }
    const s = this.state(sym);
    s.markRecorded = true;
    s.markMethod = 'markPriceKlines: the close of each bar at its close time; index = mark; funding rate = the last settled rate of the fundingRate archive (0 without one)';
    s.firstRecordedMark ??= t;
    this.notePrice(s, p);
    s.lastMark = p;
    this.emit({ t, et: t, k: 'mark', s: sym, p, i: p, r: s.lastRate ?? '0', n: (Math.floor(t / s.fundingIntervalMs) + 1) * s.fundingIntervalMs }, t);
  }

  /** A fundingRate row: a settlement at the last mark known. */
  private csvFunding(sym: string, r: string, intervalMs: number, t: number): void {
    if (this.o.symbol !== undefined && sym !== this.o.symbol) {
      this.otherSymbols.add(sym);
      this.skip(R_OTHER_SYMBOL);
      return;
    }
    const s = this.state(sym);
    s.lastRate = r;
    s.fundingIntervalMs = intervalMs;
    if (s.lastMark === undefined) {
      this.skip('fundingRate row before any mark price of its symbol (import markPriceKlines or bookTicker of the same days)');
      return;
    }
    this.emit({ t, et: t, k: 'funding', s: sym, r, p: s.lastMark }, t);
  }

  private skip(reason: string): void {
    this.summary.skipped[reason] = (this.summary.skipped[reason] ?? 0) + 1;
  }

  private state(name: string): SymState {
    let s = this.syms.get(name);
    if (s === undefined) {
      s = { name, book: undefined, awaitingFirst: false, lastBookT: 0, pending: [], trades: undefined, markRecorded: false, derivedMarks: 0, firstRecordedMark: undefined, lastMarkSecond: -1, hasQuotes: false, priceGcd: 0, qtyGcd: 0, tickScaled: undefined, lastMark: undefined, lastRate: undefined, fundingIntervalMs: EIGHT_HOURS, markMethod: 'markPriceUpdate stream' };
      if (this.o.tick !== undefined) s.tickScaled = toScaledInt(this.o.tick, SCALE);
      this.syms.set(name, s);
    }
    return s;
  }

  private message(d: Record<string, unknown>, t: number, where: string): void {
    if (d.lastUpdateId !== undefined) {
      this.snapshotMessage(d, t, where);
      return;
    }
    const e = d.e;
    const sym = d.s;
    if (!isStr(e) || !isStr(sym)) throw new ImportInputError(`${where}: not a Binance message (no event type "e" and symbol "s", and not a depth snapshot with lastUpdateId)`);
    if (this.o.symbol !== undefined && sym !== this.o.symbol) {
      this.otherSymbols.add(sym);
      this.skip(R_OTHER_SYMBOL);
      return;
    }
    if (e !== 'depthUpdate' && e !== 'bookTicker' && e !== 'trade' && e !== 'aggTrade' && e !== 'markPriceUpdate') {
      this.skip(`unsupported event type '${e}'`);
      return;
    }
    const s = this.state(sym);
    if (this.orphanSnapshot !== undefined && e === 'depthUpdate') {
      const o = this.orphanSnapshot;
      this.orphanSnapshot = undefined;
      this.applySnapshot(s, o.t, o.et, o.u, o.b, o.a);
    }
    const et = isNum(d.E) ? d.E : t;
    const bad = (what: string): never => {
      throw new ImportInputError(`${where}: ${e} message: expected ${what}`);
    };
    switch (e) {
      case 'depthUpdate': {
        if (!isNum(d.U) || !isNum(d.u) || !isNum(d.pu) || !isLevels(d.b) || !isLevels(d.a)) bad('U, u, pu as numbers and b, a as [price, quantity] string pairs');
        const diff: Diff = { t, et, U: d.U as number, u: d.u as number, pu: d.pu as number, b: (d.b as Level[]).map((l) => [l[0], l[1]]), a: (d.a as Level[]).map((l) => [l[0], l[1]]) };
        this.noteLevels(s, diff.b);
        this.noteLevels(s, diff.a);
        this.depthMessage(s, diff);
        return;
      }
      case 'bookTicker': {
        if (!isStr(d.b) || !isStr(d.B) || !isStr(d.a) || !isStr(d.A)) bad('b, B, a, A as strings');
        const q: RecordedEvent = { t, et, k: 'quote', s: sym, bp: d.b as string, bq: d.B as string, ap: d.a as string, aq: d.A as string, ...(isNum(d.u) ? { u: d.u } : {}) };
        this.notePrice(s, q.bp);
        this.notePrice(s, q.ap);
        this.noteQty(s, q.bq);
        this.noteQty(s, q.aq);
        s.hasQuotes = true;
        this.deriveMark(s, t, q.bp, q.ap);
        this.emit(q, t);
        return;
      }
      case 'trade':
      case 'aggTrade': {
        const id = e === 'trade' ? d.t : d.a;
        if (!isNum(id) || !isStr(d.p) || !isStr(d.q) || typeof d.m !== 'boolean') bad(`${e === 'trade' ? 't' : 'a'} as a number, p, q as strings and m as a boolean`);
        if (s.trades !== undefined && s.trades !== e) {
          this.skip(R_AGG_DUP);
          return;
        }
        s.trades = e;
        this.notePrice(s, d.p as string);
        this.noteQty(s, d.q as string);
        // m: the buyer is the maker, so the taker sold.
        this.emit({ t, et: isNum(d.T) ? d.T : et, k: 'trade', s: sym, id: String(id), p: d.p as string, q: d.q as string, side: d.m === true ? 'SELL' : 'BUY' }, t);
        return;
      }
      case 'markPriceUpdate': {
        if (!isStr(d.p) || !isStr(d.i) || !isStr(d.r) || !isNum(d.T)) bad('p, i, r as strings and T (next funding time) as a number');
        s.markRecorded = true;
        s.firstRecordedMark ??= t;
        s.lastMark = d.p as string;
        this.notePrice(s, d.p as string);
        this.emit({ t, et, k: 'mark', s: sym, p: d.p as string, i: d.i as string, r: d.r as string, n: d.T as number }, t);
        return;
      }
    }
  }

  // ---- depth: Binance's procedure ----------------------------------------------------------------

  private snapshotMessage(d: Record<string, unknown>, t: number, where: string): void {
    const bids = d.bids;
    const asks = d.asks;
    if (!isNum(d.lastUpdateId) || !isLevels(bids) || !isLevels(asks)) throw new ImportInputError(`${where}: depth snapshot: expected lastUpdateId as a number and bids, asks as [price, quantity] string pairs`);
    const et = isNum(d.E) ? d.E : t;
    const b = bids.map((l): Level => [l[0], l[1]]);
    const a = asks.map((l): Level => [l[0], l[1]]);
    // A REST snapshot carries no symbol: it is --symbol's, or the one symbol with depth so far.
    let name: string | undefined = isStr(d.symbol) ? d.symbol : this.o.symbol;
    if (name === undefined) {
      const withDepth = [...this.syms.values()].filter((s) => s.pending.length > 0 || s.book !== undefined);
      if (withDepth.length > 1) throw new ImportInputError(`${where}: a depth snapshot without a symbol while the data holds depth of ${withDepth.map((s) => s.name).join(', ')}; pass --symbol`);
      name = withDepth[0]?.name;
    }
    if (name === undefined) {
      this.orphanSnapshot = { t, et, u: d.lastUpdateId, b, a, where };
      return;
    }
    if (this.o.symbol !== undefined && isStr(d.symbol) && d.symbol !== this.o.symbol) {
      this.skip(R_OTHER_SYMBOL);
      return;
    }
    this.applySnapshot(this.state(name), t, et, d.lastUpdateId, b, a);
  }

  private applySnapshot(s: SymState, t: number, et: number, L: number, b: Level[], a: Level[]): void {
    this.noteLevels(s, b);
    this.noteLevels(s, a);
    const book = new L2Book();
    book.reset(b, a, L);
    this.emit({ t, et, k: 'snapshot', s: s.name, u: L, b, a }, t);
    s.book = book;
    s.awaitingFirst = true;
    s.lastBookT = t;
    // The diffs buffered while there was no book, in order, as if they arrived now.
    const pending = s.pending;
    s.pending = [];
    for (const d of pending) this.depthMessage(s, { ...d, t });
  }

  private depthMessage(s: SymState, d: Diff): void {
    const book = s.book;
    if (book === undefined) {
      s.pending.push(d);
      if (s.pending.length > MAX_PENDING) {
        s.pending.shift();
        this.skip(R_NO_SNAPSHOT);
      }
      return;
    }
    if (s.awaitingFirst) {
      // Binance: drop diffs with u < lastUpdateId; the first applied has U <= lastUpdateId <= u.
      const L = book.lastUpdateId;
      if (d.u < L) {
        this.skip(R_BEFORE_SNAPSHOT);
        return;
      }
      if (!(d.U <= L && L <= d.u)) {
        this.gap(s, d.t, `snapshot lastUpdateId ${L} is not inside the first following diff's U..u ${d.U}..${d.u}`);
        s.book = undefined;
        s.pending.push(d);
        return;
      }
      s.awaitingFirst = false;
      this.writeBook(s, d);
      return;
    }
    if (d.pu !== book.lastUpdateId) {
      this.gap(s, d.t, `pu ${d.pu} does not follow the previous diff's u ${book.lastUpdateId}`);
      s.book = undefined;
      s.pending.push(d);
      return;
    }
    this.writeBook(s, d);
  }

  private writeBook(s: SymState, d: Diff): void {
    (s.book as L2Book).apply(d.b, d.a, d.u);
    s.lastBookT = d.t;
    this.emit({ t: d.t, et: d.et, k: 'book', s: s.name, U: d.U, u: d.u, pu: d.pu, b: d.b, a: d.a }, d.t);
    if (!s.hasQuotes) {
      const top = (s.book as L2Book).top();
      if (top.bid !== undefined && top.ask !== undefined) this.deriveMark(s, d.t, top.bid[0], top.ask[0]);
    }
  }

  private gap(s: SymState, t: number, why: string): void {
    this.summary.added.gaps++;
    this.emit({ t, k: 'gap', stream: 'public', from: s.lastBookT, reason: `book: ${why}; the book is unknown until the next snapshot`, s: s.name }, t);
  }

  /** Diffs still waiting for a snapshot at the end: counted, never written. */
  private finishPending(): void {
    for (const s of this.syms.values()) {
      for (let i = 0; i < s.pending.length; i++) this.skip(R_NO_SNAPSHOT);
      s.pending = [];
    }
    if (this.orphanSnapshot !== undefined) {
      throw new ImportInputError(`${this.orphanSnapshot.where}: a depth snapshot without a symbol and no depth message after it to say whose it is; pass --symbol`);
    }
  }

  // ---- marks -------------------------------------------------------------------------------------

  private deriveMark(s: SymState, t: number, bid: string, ask: string): void {
    if (s.markRecorded || this.marksGiven) return;
    const sec = Math.floor(t / 1000);
    if (sec === s.lastMarkSecond) return;
    const b = toScaledInt(bid, SCALE);
    const a = toScaledInt(ask, SCALE);
    const tick = s.tickScaled ?? s.priceGcd;
    if (b === undefined || a === undefined || tick <= 0) return;
    s.lastMarkSecond = sec;
    // Rounded down to the tick known so far: the final tick divides it, so the mark stays on the grid.
    const mid = Math.floor((b + a) / 2 / tick) * tick;
    const p = fromScaledInt(mid, SCALE);
    s.lastMark = p;
    s.derivedMarks++;
    this.summary.added.derivedMarks++;
    this.emit({ t, k: 'mark', s: s.name, p, i: p, r: '0', n: nextFunding(t) }, t, true);
  }

  private markProvenance(s: SymState): MarkProvenance {
    if (s.derivedMarks === 0 && s.markRecorded) return { source: 'recorded', method: s.markMethod };
    const method = `the mid price of the first ${s.hasQuotes ? 'bookTicker' : 'rebuilt L2 book top'} of each second of receive time, rounded down to the tick; index = mark, funding rate 0, next funding at the next 8-hour boundary`;
    return { source: 'derived', method: s.markRecorded ? `${method} (until the first markPriceUpdate at ${new Date(s.firstRecordedMark ?? 0).toISOString()})` : method };
  }

  // ---- specs -------------------------------------------------------------------------------------

  private notePrice(s: SymState, p: string): void {
    const v = toScaledInt(p, SCALE);
    if (v !== undefined && v > 0) s.priceGcd = gcd(v, s.priceGcd);
  }

  private noteQty(s: SymState, q: string): void {
    const v = toScaledInt(q, SCALE);
    if (v !== undefined && v > 0) s.qtyGcd = gcd(v, s.qtyGcd);
  }

  private noteLevels(s: SymState, levels: Level[]): void {
    for (let i = 0; i < levels.length; i++) {
      this.notePrice(s, levels[i][0]);
      this.noteQty(s, levels[i][1]);
    }
  }

  private specOf(s: SymState): SymbolSpec {
    const tick = this.o.tick ?? (s.priceGcd > 0 ? fromScaledInt(s.priceGcd, SCALE) : '0.01');
    const step = this.o.step ?? (s.qtyGcd > 0 ? fromScaledInt(s.qtyGcd, SCALE) : '0.001');
    const quote = ['USDT', 'USDC', 'BUSD'].find((q) => s.name.endsWith(q) && s.name.length > q.length) ?? 'USDT';
    const stepScaled = toScaledInt(step, SCALE) ?? 1;
    // The largest multiple of the step not above 1e6 units of the base asset (a safe bound, not the venue's).
    const maxQty = fromScaledInt(Math.floor(1e6 * 10 ** SCALE / stepScaled) * stepScaled, SCALE);
    return {
      symbol: s.name,
      baseAsset: s.name.endsWith(quote) ? s.name.slice(0, s.name.length - quote.length) : s.name,
      quoteAsset: quote,
      tickSize: tick,
      stepSize: step,
      minQty: step,
      maxQty,
      minNotional: '0',
      maxLeverage: 125,
      makerFee: '0.0002',
      takerFee: '0.0005',
      marginTiers: [{ tier: 1, maxNotional: '0', maxLeverage: 125, maintenanceMarginRate: '0.004', maintenanceAmount: '0' }],
    };
  }

  // ---- output ------------------------------------------------------------------------------------

  private emit(e: RecordedEvent, t: number, added = false): void {
    if (!this.inRange) {
      if (this.o.from !== undefined && t < this.o.from) {
        // Outside the range: the book and marks are kept, the event is not written.
        if (!added && e.k !== 'gap') this.skip(R_OUT_OF_RANGE);
        return;
      }
      this.inRange = true;
      if (this.o.from !== undefined) this.rebuildSnapshots(t);
    }
    if (!added && e.k !== 'gap') this.summary.events[e.k] = (this.summary.events[e.k] ?? 0) + 1;
    this.chunk += `${JSON.stringify(e)}\n`;
  }

  /** At the first event inside --from: the books kept so far, as snapshots (the output starts there). */
  private rebuildSnapshots(t: number): void {
    for (const s of this.syms.values()) {
      if (s.book === undefined) continue;
      const { bids, asks } = s.book.levels();
      this.summary.added.rebuiltSnapshots++;
      this.chunk += `${JSON.stringify({ t, k: 'snapshot', s: s.name, u: s.book.lastUpdateId, b: bids, a: asks } satisfies RecordedEvent)}\n`;
    }
  }

  private async flushChunk(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.chunk.length === 0) return;
    const ok = this.gzip.write(this.chunk);
    this.chunk = '';
    if (!ok) await once(this.gzip, 'drain');
  }

  private async closeBody(): Promise<void> {
    await this.flushChunk();
    this.gzip.end();
    await this.bodyDone;
    if (this.failure) throw this.failure;
  }

  /** Refuses an import that produced nothing usable, naming why. */
  private checkOutcome(): void {
    const o = this.o;
    const iso = (t: number): string => new Date(t).toISOString();
    if (this.summary.messages === 0) {
      if (o.to !== undefined && this.lastT === 0) throw new ImportInputError(`--from/--to: no message before --to ${iso(o.to)} in ${o.files.join(', ')}`);
      throw new ImportInputError(`${o.files.join(', ')}: no Binance messages in the files`);
    }
    const written = Object.values(this.summary.events).reduce((a, b) => a + b, 0);
    if (o.symbol !== undefined && !this.syms.has(o.symbol)) {
      throw new ImportInputError(`--symbol ${o.symbol}: no message of that symbol in the files (they hold ${[...this.otherSymbols].join(', ') || 'no symbol messages'}; symbols are upper case, e.g. BTCUSDT)`);
    }
    if (written === 0) {
      throw new ImportInputError(`--from/--to: no message in ${o.from !== undefined ? iso(o.from) : 'the start'} to ${o.to !== undefined ? iso(o.to) : 'the end'}; the files run from ${iso(this.summary.firstTime)} to ${iso(this.summary.lastTime)}`);
    }
    if ((o.tick !== undefined || o.step !== undefined) && this.syms.size > 1) {
      throw new ImportInputError(`--tick/--step: the files hold ${[...this.syms.keys()].join(', ')}; pass --symbol to say which symbol the grid is for`);
    }
  }

  /** The header as the first gzip member, then the body's gzip members: renamed into place last. */
  private writeOut(): void {
    const header: RecordingHeader = {
      type: 'header',
      format: RECORDING_FORMAT,
      version: 2,
      source: 'import:binance-futures',
      startTime: this.o.from ?? this.summary.firstTime,
      symbols: this.summary.symbols,
      part: 0,
      sources: this.summary.sources,
      marks: this.summary.marks,
      skipped: this.summary.skipped,
      meta: {
        importer: 'perpkit import binance-futures',
        messages: this.summary.messages,
        derivedMarks: this.summary.added.derivedMarks,
        gaps: this.summary.added.gaps,
        specs: `${this.o.tick !== undefined ? 'tickSize from --tick' : 'tickSize inferred (the largest grid every price lies on)'}, ${this.o.step !== undefined ? 'stepSize from --step' : 'stepSize inferred (the largest grid every quantity lies on)'}; minNotional 0, fees and margin tier are defaults`,
        ...(this.o.from !== undefined ? { from: this.o.from } : {}),
        ...(this.o.to !== undefined ? { to: this.o.to } : {}),
        ...(this.summary.stoppedAt !== undefined ? { stoppedAt: this.summary.stoppedAt } : {}),
      },
    };
    const tmp = `${this.o.out}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, gzipSync(`${JSON.stringify(header)}\n`));
      appendBody(tmp, this.bodyPath);
      renameSync(tmp, this.o.out);
    } finally {
      if (existsSync(tmp)) unlinkSync(tmp);
      if (existsSync(this.bodyPath)) unlinkSync(this.bodyPath);
    }
  }
}

/** Appends a file to another in 1 MiB pieces (memory flat in the size). */
function appendBody(to: string, from: string): void {
  const fd = openSync(from, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      appendFileSync(to, buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

export async function importBinanceFutures(o: BinanceImportOptions): Promise<ImportSummary> {
  if (o.files.length === 0) throw new ImportInputError('no input files; expected one or more Binance capture files');
  for (const f of o.files) {
    if (!existsSync(f)) throw new ImportInputError(`${f}: no such file`);
  }
  if (!existsSync(dirname(resolve(o.out)))) throw new ImportInputError(`--out ${o.out}: the directory ${dirname(resolve(o.out))} does not exist`);
  if (o.from !== undefined && o.to !== undefined && o.from >= o.to) throw new ImportInputError(`--from/--to: --from ${new Date(o.from).toISOString()} is not before --to ${new Date(o.to).toISOString()}`);
  return new BinanceFuturesImporter(o).run();
}
