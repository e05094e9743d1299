/**
 * Import of raw Binance USD-M futures captures into a recording (format v2): combined-stream lines
 * `<receive time ns> <{"stream":...,"data":{...}}>` as a collector writes them, or plain JSON lines
 * (a combined-stream envelope or a bare event per line), gzip or not, with REST depth snapshots
 * (`{"lastUpdateId":...,"bids":...,"asks":...}`) among them; or Binance's public CSV archives,
 * zipped or not (binance-csv.ts turns their rows into the same messages, merged in time order).
 *
 * - One output event per input message: `depthUpdate` -> `book`, `bookTicker` -> `quote`, `trade`
 *   and `aggTrade` -> `trade`, `markPriceUpdate` -> `mark`, a REST snapshot -> `snapshot`, a
 *   partial book depth message (`@depth5/10/20`, by the envelope's stream name, or bare with
 *   `bareDepth: 'partial'`; bare ones that read as partial depth stop the import) -> `snapshot`;
 *   where a `markPriceUpdate`'s `T` (next funding time) moves forward, a `funding` event is derived
 *   as the other importers derive it (importer.ts, funding-times.ts). A
 *   message that does not become an event is counted by reason (`skipped`, in the header and the
 *   summary): nothing is dropped silently. The importer adds `gap` events (a broken update-id
 *   chain) and, when the data has no mark price stream, derived `mark` events (importer.ts).
 * - Depth diffs follow Binance's documented procedure for USD-M futures (binance-book.ts,
 *   binance-diff-chain.ts): diffs are buffered until a snapshot; then those with `u` <
 *   `lastUpdateId` are dropped (counted), the first applied one must have `U` <= `lastUpdateId`
 *   <= `u`, and each later one's `pu` must equal the previous `u`. Buffered diffs are written right
 *   after the snapshot, stamped with its receive time (that is when a live client could apply
 *   them). A break becomes a `gap` of the symbol; its book is unknown and diffs buffer again until
 *   the next snapshot.
 * - Time: `t` is the receive time (ms) of the line, or for plain JSON lines the event time `E`;
 *   `et` is the exchange's event time `E`. --from/--to select by receive time.
 * - Output, range, specs, derived marks and counting are shared with the other importers
 *   (importer.ts); memory is flat in the file size (files are streamed, common.ts).
 * - Speed: lines in Binance's own text form are read by binance-scan.ts and written from slices of
 *   their text (no JSON.parse, no JSON.stringify: binance-fast-path.ts); every other line, and
 *   every error, goes through JSON.parse and message(). Both ways write the same bytes
 *   (test/market-data/binance-scan.test.ts).
 */
import { statSync } from 'node:fs';
import type { Level, RecordedEvent } from '../format';
import { BinanceBooks, bookState } from './binance-book';
import { csvItems, isCsvInput } from './binance-csv';
import { checkImportOptions, refuseRepeatedInputs, EIGHT_HOURS, excerpt, isLevels, isNum, isObj, isStr, sourceOf, type ImportOptions, type ImportSummary } from './common';
import { digitsOnly } from './binance-scan';
import { FastPath, R_AGG_DUP, type FastPathSym } from './binance-fast-path';
import { readCaptures } from './capture-merge';
import { BareDepth, PARTIAL_DEPTH, zeroQty } from './binance-depth-kind';
import { ImportInputError } from './errors';
import { isRecordedDecimal } from '../reader';
import { RecordingImporter, symBase } from './importer';

export type { ImportProgress, ImportSummary } from './common';
export interface BinanceImportOptions extends ImportOptions {
  /** What `depthUpdate`s without a stream envelope are (unset: diffs, watched: binance-depth-kind.ts). */
  bareDepth?: 'diff' | 'partial';
}

const R_WS_ANSWER = 'WebSocket answer to a subscribe request ({"result": ..., "id": ...})';
/** The event types the import reads; others are counted as skipped. */
const READ_TYPES = new Set(['depthUpdate', 'bookTicker', 'trade', 'aggTrade', 'markPriceUpdate']);
const R_CUT_OFF = 'last line of a capture cut off mid-write (no newline at its end, not a whole message)';
const R_MARK_NO_GRID = 'mark price before two different prices of its symbol were seen (no price grid to put it on; pass --tick)';

/** The furthest a message's receive time may go back from the one before it (as a backtest allows). */
const MAX_STEP_BACK_MS = 1000;

interface SymState extends FastPathSym {
  /** The last settled funding rate and interval (CSV archives). */
  lastRate: string | undefined;
  fundingIntervalMs: number;
}

export class BinanceFuturesImporter extends RecordingImporter<SymState> {
  /** Each symbol's book from the depth streams (binance-book.ts). */
  private readonly books: BinanceBooks<SymState>;
  /** What bare depthUpdate messages are (BinanceImportOptions.bareDepth), and, unsaid, what they look like. */
  private readonly bare: BareDepth;
  /** Lines in Binance's own text form (binance-fast-path.ts). */
  private readonly fast: FastPath<SymState>;
  /** The file and number of the line being read; `at`: file:line of the CSV row or held snapshot being read instead. */
  private file = '';
  private lineNo = 0;
  /** The receive time of the line being read, once it read (undefined before), and the messages counted before the line. */
  private lineT: number | undefined;
  private messagesBeforeLine = 0;
  private at: string | undefined;
  /** The inputs hold mark prices (markPriceKlines archives): derive none. */
  private marksInInputs = false;
  /** Recorded marks whose value changed when put on the price grid. */
  private marksRounded = 0;
  /** Messages whose receive time was earlier than the one before them (stamped with it), and the largest step back, ms. */
  private outOfOrder = 0;
  private outOfOrderMs = 0;

  constructor(o: BinanceImportOptions) {
    super(o, { id: 'binance-futures', quoteStream: 'bookTicker', markStream: 'markPriceUpdate', messagesNoun: 'Binance messages', fundingTime: 'markPriceUpdate T (next funding time)' });
    this.bare = new BareDepth(o.bareDepth);
    this.books = new BinanceBooks<SymState>({
      symbol: o.symbol,
      grid: this.grid,
      file: () => this.file,
      at: (where) => {
        this.at = where;
      },
      state: (name) => this.state(name),
      otherSymbol: (name) => this.otherSymbol(name),
      emit: (e, t) => this.emit(e, t),
      emitText: (k, json, t) => this.emitText(k, json, t),
      skip: (reason, n, t) => this.skip(reason, n, t),
      deriveMark: (s, t, bid, ask) => this.deriveMark(s, t, bid, ask),
      snapshotsToRebuild: () => this.snapshotsToRebuild(),
      gapWritten: () => {
        this.summary.added.gaps++;
      },
    });
    this.fast = new FastPath<SymState>({
      books: this.books,
      grid: this.grid,
      bare: this.bare,
      line: () => `${this.file}:${this.lineNo}`,
      state: (name) => this.state(name),
      otherSymbol: (name) => this.otherSymbol(name),
      emitText: (k, json, t) => this.emitText(k, json, t),
      deriveMark: (s, t, bid, ask) => this.deriveMark(s, t, bid, ask),
      skip: (reason) => this.skip(reason),
    });
  }

  protected newSym(name: string): SymState {
    return { ...symBase(name, 'markPriceUpdate stream', this.o), ...bookState(), trades: undefined, lastRate: undefined, fundingIntervalMs: EIGHT_HOURS };
  }

  protected where(): string {
    return this.at ?? `${this.file}:${this.lineNo}`;
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
    } else {
      const shas = this.o.files.map((f) => sourceOf(f));
      const stoppedAt = await readCaptures(
        this.o.files,
        total,
        this.o,
        (text, file, n) => this.line(text, file, n),
        async () => {
          if (this.chunk.length >= 1 << 16) await this.flushChunk();
        },
        (file, n) => {
          // A message read and skipped (messages = events + skipped), unless it was counted before it failed to read.
          if (this.summary.messages > this.messagesBeforeLine) this.skip(R_CUT_OFF);
          else if (!this.skipUnread(R_CUT_OFF, this.lineT)) return false;
          this.summary.notes = [...(this.summary.notes ?? []), `${file}:${n}: the last line has no newline and does not read (the capture was stopped mid-write): skipped`];
          return true;
        },
      );
      if (stoppedAt !== undefined) this.summary.stoppedAt = stoppedAt;
      for (const s of shas) this.summary.sources.push(await s);
    }
    if (this.outOfOrder > 0) {
      this.meta.messagesOutOfOrder = this.outOfOrder;
      this.summary.notes = [...(this.summary.notes ?? []), `${this.outOfOrder} messages earlier than the message before them (by up to ${this.outOfOrderMs} ms), kept in their place and stamped with its time`];
    }
    if (this.marksRounded > 0) {
      this.meta.marksRounded = this.marksRounded;
      this.summary.notes = [...(this.summary.notes ?? []), `${this.marksRounded} mark prices rounded to the price grid`];
    }
    const funding = this.fundingNotes();
    if (funding !== undefined) this.summary.notes = [...(this.summary.notes ?? []), funding];
    const bareNotes = this.bare.notes();
    if (bareNotes.length > 0) this.summary.notes = [...(this.summary.notes ?? []), ...bareNotes];
    const partial = [...this.syms.values()].filter((s) => s.depth === 'partial').map((s) => `${s.name} (up to ${s.partialLevels} levels a side)`);
    if (partial.length > 0) {
      this.meta.partialDepth = partial.join(', ');
      this.summary.notes = [...(this.summary.notes ?? []), `L2 book from partial book depth, each message a snapshot of the top levels: ${this.meta.partialDepth}; deeper levels are unknown to the replay`];
    }
  }

  // ---- reading ------------------------------------------------------------------------------

  /**
   * A message's receive time, kept in order: a line at most MAX_STEP_BACK_MS earlier than the one
   * before it (a collector's threads writing out of order) keeps its place in the stream and is
   * stamped with the time before it, counted (a recording's `t` never goes back: replay follows
   * it); further back is refused (a file of another time pasted in, or out of order).
   */
  private inOrder(t: number, order: 'receive-time' | 'time' = 'receive-time'): number {
    if (t >= this.lastT) return t;
    // Further back than a clock's jitter: not a collector's reordering but data of another time.
    if (this.lastT - t > MAX_STEP_BACK_MS) throw new ImportInputError(`${this.where()}: expected messages in ${order} order (each file in order; several files are merged by time), got a message at ${new Date(t).toISOString()}, ${this.lastT - t} ms before the message before it (${new Date(this.lastT).toISOString()}); a step back of up to ${MAX_STEP_BACK_MS} ms is stamped with the time before it and counted`);
    this.outOfOrder++;
    this.outOfOrderMs = Math.max(this.outOfOrderMs, this.lastT - t);
    return this.lastT;
  }

  /** One input line. Returns false to stop reading (past --to). */
  private line(text: string, file: string, n: number): boolean {
    this.file = file;
    this.lineNo = n;
    this.lineT = undefined;
    this.messagesBeforeLine = this.summary.messages;
    if (text.length === 0 || (text.length === 1 && text === '\r')) return true;
    let t: number | undefined;
    let start = 0;
    const c0 = text.charCodeAt(0);
    if (c0 >= 48 && c0 <= 57) {
      const sp = text.indexOf(' ');
      // The receive time's unit by its digits (epoch times of this century): ns 19, us 16, ms 13.
      const cut = sp === 19 ? 6 : sp === 16 ? 3 : sp === 13 ? 0 : -1;
      if (cut < 0 || !digitsOnly(text, sp)) throw new ImportInputError(`${file}:${n}: not a Binance capture line (expected '<receive time ns> <json>' or a JSON object), got ${excerpt(text)}`);
      // Nanoseconds overflow a double's exact range: cut the digits, not the number.
      t = this.lineT = this.inOrder(Number(text.slice(0, sp - cut)));
      start = sp + 1;
    } else if (c0 !== 123) {
      throw new ImportInputError(`${file}:${n}: not a Binance capture line (expected '<receive time ns> <json>' or a JSON object), got ${excerpt(text)}`);
    }
    // Binance's own text form of its messages: read without JSON.parse (binance-fast-path.ts).
    const kind = this.fast.read(text, start);
    if (kind !== 0) {
      if (t === undefined) {
        const e = this.fast.eventTime();
        t = e !== undefined ? this.inOrder(e) : this.lastT;
      }
      if (!this.accept(t)) return false;
      this.fast.write(kind, t);
      return true;
    }
    const json = start === 0 ? text : text.slice(start);
    let v: unknown;
    try {
      v = JSON.parse(json);
    } catch {
      throw new ImportInputError(`${file}:${n}: not JSON after the receive time, got ${excerpt(json)}`);
    }
    if (!isObj(v)) throw new ImportInputError(`${file}:${n}: expected a JSON object, got ${excerpt(json)}`);
    const stream = isStr(v.stream) ? v.stream : undefined;
    // All-market streams (`!markPrice@arr`, `!ticker@arr`) carry an array of events: each is a message.
    const events = Array.isArray(v.data) ? (v.data as unknown[]) : [isObj(v.data) ? v.data : v];
    for (const d of events) {
      if (!isObj(d)) throw new ImportInputError(`${file}:${n}: expected the events of ${stream ?? 'the line'} as JSON objects, got ${excerpt(JSON.stringify(d) ?? String(d))}`);
      const te = t ?? (isNum(d.E) ? this.inOrder(d.E) : this.lastT);
      if (!this.accept(te)) return false;
      this.message(d, te, `${file}:${n}`, stream);
    }
    return true;
  }

  /** CSV archives (binance-csv.ts): rows merged in time order; `t` and `et` are the exchange's time. */
  private async readCsv(total: number): Promise<void> {
    const every = this.o.progressEvery ?? 100_000;
    let rows = 0;
    for await (const it of csvItems(this.o.files, this.o.symbol)) {
      this.at = it.where;
      // As a capture's line: a row back in time by up to 1 s is stamped with the time before it (counted), further is refused.
      const t = this.inOrder(it.t, 'time');
      if (!this.accept(t)) {
        this.summary.stoppedAt = it.where;
        break;
      }
      if ('msg' in it) this.message(it.msg, t, it.where);
      else if ('mark' in it) this.csvMark(it.mark.s, it.mark.p, t);
      else if ('funding' in it) this.csvFunding(it.funding.s, it.funding.r, it.funding.intervalMs, t);
      else this.skip(it.skip);
      if (++rows % every === 0) {
        this.o.signal?.throwIfAborted();
        this.o.onProgress?.({ file: it.where.replace(/:\d+$/, ''), line: Number(/:(\d+)$/.exec(it.where)?.[1] ?? 0), lines: rows, bytesDone: 0, bytesTotal: total });
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
    s.markMethod = 'markPriceKlines: the close of each bar at its close time, rounded half up to the price grid; index = mark; funding rate = the last settled rate of the fundingRate archive (0 without one)';
    const m = this.markOnGrid(s, p);
    if (m === undefined) return;
    this.emit({ t, et: t, k: 'mark', s: sym, p: m, i: m, r: s.lastRate ?? '0', n: (Math.floor(t / s.fundingIntervalMs) + 1) * s.fundingIntervalMs }, t);
  }

  /**
   * A venue's mark price (computed to 8 decimals, more than the tick) on the symbol's price grid,
   * as the last mark; undefined (counted as skipped) while no grid is known. Mark prices take no
   * part in inferring the tick: they would make it 0.00000001.
   */
  private markOnGrid(s: SymState, p: string): string | undefined {
    const m = this.grid.onGrid(s, p);
    if (m === undefined) {
      this.skip(R_MARK_NO_GRID);
      return undefined;
    }
    if (m !== p) this.marksRounded++;
    s.lastMark = m;
    return m;
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

  private message(d: Record<string, unknown>, t: number, where: string, stream?: string): void {
    if (d.lastUpdateId !== undefined) {
      this.books.snapshotMessage(d, t, where);
      return;
    }
    const e = d.e;
    const sym = d.s;
    if (!isStr(e) || !isStr(sym)) {
      // Streams not read here whose symbol is not at the top (forceOrder has it in "o").
      if (isStr(e) && !READ_TYPES.has(e)) {
        this.skip(`unsupported event type '${e}'`);
        return;
      }
      // The server's answer to the collector's SUBSCRIBE request, kept in the capture.
      if (e === undefined && d.id !== undefined && ('result' in d || 'error' in d)) {
        this.skip('error' in d ? `WebSocket error answer to a request: ${excerpt(JSON.stringify(d.error) ?? '')}` : R_WS_ANSWER);
        return;
      }
      throw new ImportInputError(`${where}: not a Binance message (no event type "e" and symbol "s", and not a depth snapshot with lastUpdateId)`);
    }
    if (e === 'depthUpdate') this.books.depthOfFile(sym);
    if (this.otherSymbol(sym)) return;
    if (!READ_TYPES.has(e)) {
      this.skip(`unsupported event type '${e}'`);
      return;
    }
    const s = this.state(sym);
    const et = isNum(d.E) ? d.E : t;
    const bad = (what: string): never => {
      throw new ImportInputError(`${where}: ${e} message: expected ${what}`);
    };
    if (e === 'depthUpdate' && (stream !== undefined ? PARTIAL_DEPTH.test(stream) : this.bare.partial)) {
      if (!isNum(d.u) || !isLevels(d.b) || !isLevels(d.a)) bad(`u as a number and b, a as [price, quantity] string pairs (partial book depth, ${stream ?? 'bare, read as partial by --bare-depth partial'})`);
      this.books.partialDepth(s, t, et, d.u as number, d.b as Level[], d.a as Level[]);
      return;
    }
    switch (e) {
      case 'depthUpdate': {
        if (isNum(d.U) && isNum(d.u) && d.pu === undefined && isLevels(d.b) && isLevels(d.a)) bad("pu (the previous final update id of a futures depth stream), found none: this looks like Binance spot's depth stream, which import binance-futures does not read");
        if (!isNum(d.U) || !isNum(d.u) || !isNum(d.pu) || !isLevels(d.b) || !isLevels(d.a)) bad('U, u, pu as numbers and b, a as [price, quantity] string pairs');
        const b = (d.b as Level[]).map((l): Level => [l[0], l[1]]);
        const a = (d.a as Level[]).map((l): Level => [l[0], l[1]]);
        if (stream === undefined && this.bare.watching(sym)) this.bare.message(sym, b.length, a.length, b.some(zeroQty) || a.some(zeroQty), `${this.file}:${this.lineNo}`);
        this.grid.noteLevels(s, b);
        this.grid.noteLevels(s, a);
        this.books.diff(s, { t, et, U: d.U as number, u: d.u as number, pu: d.pu as number, b, a });
        return;
      }
      case 'bookTicker': {
        if (!isStr(d.b) || !isStr(d.B) || !isStr(d.a) || !isStr(d.A)) bad('b, B, a, A as strings');
        const q: RecordedEvent = { t, et, k: 'quote', s: sym, bp: d.b as string, bq: d.B as string, ap: d.a as string, aq: d.A as string, ...(isNum(d.u) ? { u: d.u } : {}) };
        this.grid.notePrice(s, q.bp);
        this.grid.notePrice(s, q.ap);
        this.grid.noteQty(s, q.bq);
        this.grid.noteQty(s, q.aq);
        s.hasQuotes = true;
        this.emit(q, t);
        this.deriveMark(s, t, q.bp, q.ap);
        return;
      }
      case 'trade':
      case 'aggTrade': {
        const id = e === 'trade' ? d.t : d.a;
        if (!isNum(id) || !isStr(d.p) || !isStr(d.q) || typeof d.m !== 'boolean') bad(`${e === 'trade' ? 't' : 'a'} as a number, p, q as strings and m as a boolean`);
        // Insurance-fund and auto-deleveraging fills are printed at the bankruptcy price, off the book.
        if (isStr(d.X) && d.X !== 'MARKET') {
          this.skip(`trade of type ${d.X} (not a market trade: no order in the book could have met it)`);
          return;
        }
        if (s.trades !== undefined && s.trades !== e) {
          this.skip(R_AGG_DUP);
          return;
        }
        s.trades = e;
        this.grid.notePrice(s, d.p as string);
        this.grid.noteQty(s, d.q as string);
        // m: the buyer is the maker, so the taker sold.
        this.emit({ t, et: isNum(d.T) ? d.T : et, k: 'trade', s: sym, id: String(id), p: d.p as string, q: d.q as string, side: d.m === true ? 'SELL' : 'BUY' }, t);
        return;
      }
      case 'markPriceUpdate': {
        if (!isRecordedDecimal(d.p) || !isRecordedDecimal(d.i) || !isRecordedDecimal(d.r, true) || !isNum(d.T)) bad(`p, i as plain decimal strings, r as a plain decimal string (a minus allowed) and T (next funding time) as a number, got ${(['p', 'i', 'r', 'T'] as const).map((k) => `${k} ${JSON.stringify(d[k]) ?? 'none'}`).join(', ')}`);
        this.markSeen(s, t);
        // T moved forward: the settlement at the old T took place (at the last mark, before this one).
        const funding = this.announcedFunding(s, t, et, d.T as number, d.r as string);
        const p = this.markOnGrid(s, d.p as string);
        if (typeof funding === 'string') this.fundingNotDerivedBy(funding);
        if (p === undefined) return;
        this.emit({ t, et, k: 'mark', s: sym, p, i: this.grid.onGrid(s, d.i as string) ?? p, r: d.r as string, n: d.T as number }, t);
        return;
      }
    }
  }

  /** Diffs still waiting for a snapshot at the end: counted, never written (binance-book.ts). */
  protected override finish(): void {
    this.books.finish(this.syms.values());
  }
}

export async function importBinanceFutures(o: BinanceImportOptions): Promise<ImportSummary> {
  checkImportOptions(o, 'Binance capture files');
  await refuseRepeatedInputs(o.files);
  if (o.bareDepth !== undefined && o.bareDepth !== 'diff' && o.bareDepth !== 'partial') throw new ImportInputError(`--bare-depth: expected diff or partial, got '${String(o.bareDepth)}'`);
  return new BinanceFuturesImporter(o).run();
}
