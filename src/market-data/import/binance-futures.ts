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
 *   chain) and, when the data has no mark price stream, derived `mark` events (importer.ts).
 * - Depth diffs follow Binance's documented procedure for USD-M futures: diffs are buffered until
 *   a snapshot; then those with `u` < `lastUpdateId` are dropped (counted), the first applied one
 *   must have `U` <= `lastUpdateId` <= `u`, and each later one's `pu` must equal the previous `u`.
 *   Buffered diffs are written right after the snapshot, stamped with its receive time (that is
 *   when a live client could apply them). A break becomes a `gap` of the symbol; its book is
 *   unknown and diffs buffer again until the next snapshot.
 * - Time: `t` is the receive time (ms) of the line, or for plain JSON lines the event time `E`;
 *   `et` is the exchange's event time `E`. --from/--to select by receive time.
 * - Output, range, specs, derived marks and counting are shared with the other importers
 *   (importer.ts); memory is flat in the file size (files are streamed, common.ts).
 */
import { statSync } from 'node:fs';
import type { Level, RecordedEvent } from '../format';
import { L2Book } from '../l2-book';
import { csvItems, isCsvInput } from './binance-csv';
import { checkImportOptions, EIGHT_HOURS, excerpt, fileLineBatches, isLevels, isNum, isObj, isStr, sourceOf, type ImportOptions, type ImportSummary } from './common';
import { ImportInputError } from './errors';
import { RecordingImporter, symBase, type SymBase } from './importer';

export type { ImportProgress, ImportSummary } from './common';
export type BinanceImportOptions = ImportOptions;

/** Diffs kept per symbol while waiting for a snapshot; older ones are counted and dropped. */
const MAX_PENDING = 200_000;

const R_BEFORE_SNAPSHOT = 'depthUpdate older than the snapshot (u < lastUpdateId)';
const R_NO_SNAPSHOT = 'depthUpdate with no snapshot to apply it to';
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

interface SymState extends SymBase {
  /** The book was set from a snapshot and no diff is applied yet (the first must straddle it). */
  awaitingFirst: boolean;
  /** Receive time of the last book event written. */
  lastBookT: number;
  pending: Diff[];
  trades: 'trade' | 'aggTrade' | undefined;
  /** The last settled funding rate and interval (CSV archives). */
  lastRate: string | undefined;
  fundingIntervalMs: number;
}

export class BinanceFuturesImporter extends RecordingImporter<SymState> {
  /** A snapshot with no symbol seen before any depth message: it belongs to the next one's symbol. */
  private orphanSnapshot: { t: number; et: number; u: number; b: Level[]; a: Level[]; where: string } | undefined;
  /** The inputs hold mark prices (markPriceKlines archives): derive none. */
  private marksInInputs = false;

  constructor(o: BinanceImportOptions) {
    super(o, { id: 'binance-futures', quoteStream: 'bookTicker', markStream: 'markPriceUpdate', messagesNoun: 'Binance messages' });
  }

  protected newSym(name: string): SymState {
    return { ...symBase(name, 'markPriceUpdate stream', this.o.tick), awaitingFirst: false, lastBookT: 0, pending: [], trades: undefined, lastRate: undefined, fundingIntervalMs: EIGHT_HOURS };
  }

  protected override marksGiven(): boolean {
    return this.marksInInputs;
  }

  protected async read(): Promise<void> {
    const total = this.o.files.reduce((s, f) => s + statSync(f).size, 0);
    const csv = this.o.files.filter((f) => isCsvInput(f));
    if (csv.length > 0 && csv.length < this.o.files.length) {
      throw new ImportInputError(`${csv[0]} is a CSV archive and ${this.o.files.find((f) => !csv.includes(f)) ?? ''} a stream capture: import them separately (their times differ: exchange time vs receive time)`);
    }
    if (csv.length > 0) {
      // Mark prices among the inputs: no mark is derived, not even before their first bar.
      this.marksInInputs = csv.some((f) => /markPriceKlines/i.test(f));
      const shas = this.o.files.map((f) => sourceOf(f));
      await this.readCsv(total);
      for (const s of shas) this.summary.sources.push(await s);
      return;
    }
    let before = 0;
    for (const file of this.o.files) {
      const sha = sourceOf(file);
      const stopped = await this.readFile(file, before, total);
      before += statSync(file).size;
      this.summary.sources.push(await sha);
      if (stopped) break;
    }
  }

  // ---- reading ------------------------------------------------------------------------------

  /** Reads one file; returns true when reading stopped at --to. */
  private async readFile(file: string, before: number, total: number): Promise<boolean> {
    const { batches, bytesRead } = fileLineBatches(file);
    const every = this.o.progressEvery ?? 100_000;
    let line = 0;
    const progress = (): void => this.o.onProgress?.({ file, lines: line, bytesDone: before + bytesRead(), bytesTotal: total });
    for await (const batch of batches) {
      for (let i = 0; i < batch.length; i++) {
        line++;
        if (!this.line(batch[i], file, line)) {
          this.summary.stoppedAt = `${file}:${line}`;
          progress();
          return true;
        }
        if (line % every === 0) progress();
      }
      if (this.chunk.length >= 1 << 16) await this.flushChunk();
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
    if (this.otherSymbol(sym)) return;
    const s = this.state(sym);
    this.markSeen(s, t);
    s.markMethod = 'markPriceKlines: the close of each bar at its close time; index = mark; funding rate = the last settled rate of the fundingRate archive (0 without one)';
    this.notePrice(s, p);
    s.lastMark = p;
    this.emit({ t, et: t, k: 'mark', s: sym, p, i: p, r: s.lastRate ?? '0', n: (Math.floor(t / s.fundingIntervalMs) + 1) * s.fundingIntervalMs }, t);
  }

  /** A fundingRate row: a settlement at the last mark known. */
  private csvFunding(sym: string, r: string, intervalMs: number, t: number): void {
    if (this.otherSymbol(sym)) return;
    const s = this.state(sym);
    s.lastRate = r;
    s.fundingIntervalMs = intervalMs;
    if (s.lastMark === undefined) {
      this.skip('fundingRate row before any mark price of its symbol (import markPriceKlines or bookTicker of the same days)');
      return;
    }
    this.emit({ t, et: t, k: 'funding', s: sym, r, p: s.lastMark }, t);
  }

  private message(d: Record<string, unknown>, t: number, where: string): void {
    if (d.lastUpdateId !== undefined) {
      this.snapshotMessage(d, t, where);
      return;
    }
    const e = d.e;
    const sym = d.s;
    if (!isStr(e) || !isStr(sym)) throw new ImportInputError(`${where}: not a Binance message (no event type "e" and symbol "s", and not a depth snapshot with lastUpdateId)`);
    if (this.otherSymbol(sym)) return;
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
        this.markSeen(s, t);
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
    if (isStr(d.symbol) && this.otherSymbol(d.symbol)) return;
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
  protected override finish(): void {
    for (const s of this.syms.values()) {
      for (let i = 0; i < s.pending.length; i++) this.skip(R_NO_SNAPSHOT);
      s.pending = [];
    }
    if (this.orphanSnapshot !== undefined) {
      throw new ImportInputError(`${this.orphanSnapshot.where}: a depth snapshot without a symbol and no depth message after it to say whose it is; pass --symbol`);
    }
  }
}

export async function importBinanceFutures(o: BinanceImportOptions): Promise<ImportSummary> {
  checkImportOptions(o, 'Binance capture files');
  return new BinanceFuturesImporter(o).run();
}
