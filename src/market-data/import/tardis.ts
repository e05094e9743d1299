/**
 * Import of Tardis.dev CSV files (tardis-csv.ts has the layouts) into a recording (format v2).
 * Every file's rows are merged in receive-time order (`local_timestamp`), so a day's book, trades,
 * quotes and ticker interleave as they arrived; `t` is the receive time and `et` the exchange's
 * `timestamp`, both in ms (µs cut). What each data type becomes:
 *
 * - `incremental_book_L2`: the rows of one message (consecutive rows of a symbol with the same
 *   timestamp, local_timestamp and is_snapshot) become one event. Snapshot rows that follow a
 *   non-snapshot message (or start the data) begin a new book: a `snapshot`. Snapshot rows right
 *   after snapshot rows of another message add to that book: a `book` delta. Other messages are
 *   `book` deltas (amount 0 removes the level). Tardis has no update ids: `U` = `u` = the symbol's
 *   message counter (1, 2, ...; `pu` absent). Deltas before the first snapshot of a symbol are
 *   skipped, counted (Tardis: they were buffered before the exchange's first snapshot).
 * - `book_snapshot_N`: each row is a `snapshot` of N levels a side, and a `quote` from its top
 *   (none when `quotes` files are imported too, or when a side is empty).
 * - `trades`: `trade` (id as given, or `line:<n>` when empty; side the taker's; `unknown` side is
 *   skipped, counted). `quotes`: `quote` (a row with an empty side is skipped, counted).
 * - `derivative_ticker`: `mark` from mark_price (index = index_price, or the mark when empty; `r`
 *   funding_rate, or the last one seen, or 0; `n` funding_timestamp, or the last one seen, or the
 *   next 8-hour boundary); a row without mark_price gives no mark (counted). A `funding` event is
 *   derived when funding_timestamp moves forward (funding-times.ts, importer.ts): the settlement at
 *   the previous funding_timestamp took place, at the last funding_rate seen before the move and
 *   the last mark; it is stamped with the receive time of the row that shows the move, `et` the
 *   settlement time.
 * - Without derivative_ticker for a symbol, marks are derived (importer.ts) and the header says so.
 */
import { statSync } from 'node:fs';
import type { Level } from '../format';
import { L2Book } from '../l2-book';
import { checkImportOptions, nextFunding, refuseRepeatedInputs, signedDecimal, sourceOf, type ImportOptions, type ImportSummary } from './common';
import { ImportInputError } from './errors';
import { RecordingImporter, symBase, type SymBase } from './importer';
import { TardisFile, TardisMerge, type TardisRow } from './tardis-csv';

const R_BEFORE_SNAPSHOT = 'incremental_book_L2 message before the first snapshot of its symbol';
const R_TRADE_SIDE = "trade with side 'unknown' (the venue did not say the taker's side)";
const R_QUOTE_EMPTY = 'quote with an empty side';
const R_NO_MARK = 'derivative_ticker row without mark_price (and no funding settlement)';
const R_MARK_NO_GRID = 'derivative_ticker mark before two different prices of its symbol were seen (no price grid to put it on; pass --tick)';
/** Rows of each book, quotes and trades file read ahead for the price grid of the marks. */
const PRIME_ROWS = 5_000;

interface SymState extends SymBase {
  exchange: string;
  /** Messages of the book (update-id counter). */
  seq: number;
  /** The last incremental_book_L2 message of the symbol was a snapshot. */
  inSnapshot: boolean;
}

/** An incremental_book_L2 message being gathered from its rows. */
interface Group {
  s: SymState;
  file: number;
  lt: number;
  etRaw: string;
  snapshot: boolean;
  t: number;
  et: number;
  b: Level[];
  a: Level[];
}

export class TardisImporter extends RecordingImporter<SymState> {
  private group: Group | undefined;
  private skippedKey: string | undefined;
  /** Symbols whose marks the inputs hold from their first row: none is derived. */
  private readonly tickerSymbols = new Set<string>();
  private quotesImported = false;
  private marksRounded = 0;
  private lines = 0;
  /** The row (or first row of the book message) being read, for where(). */
  private cur: { file: number; line: number } | undefined;

  constructor(o: ImportOptions) {
    super(o, { id: 'tardis', quoteStream: 'quote', markStream: 'derivative_ticker mark_price', messagesNoun: 'Tardis rows', fundingTime: 'funding_timestamp' });
    this.summary.added.derivedFunding = 0;
  }

  protected newSym(name: string): SymState {
    return { ...symBase(name, 'derivative_ticker: mark_price and index_price (the mark when empty), rounded half up to the price grid; funding settlements where funding_timestamp moves forward', this.o), exchange: '', seq: 0, inSnapshot: false };
  }

  protected override marksGiven(s: SymState): boolean {
    return this.tickerSymbols.has(s.name);
  }

  protected async read(): Promise<void> {
    const total = this.o.files.reduce((n, f) => n + statSync(f).size, 0);
    const shas = this.o.files.map((f) => sourceOf(f));
    // Awaited after reading; a failed read must not leave them rejecting unobserved.
    for (const p of shas) p.catch(() => undefined);
    const merge = new TardisMerge(this.o.files);
    try {
      await merge.open();
      this.checkKinds(merge);
      if (this.o.tick === undefined && merge.files.some((f) => f.kind === 'derivative_ticker')) await this.primeGrid(merge);
      const every = this.o.progressEvery ?? 100_000;
      let last = { file: this.o.files[0], line: 0 };
      const progress = (file: string, line: number): void => {
        this.o.signal?.throwIfAborted();
        this.o.onProgress?.({ file, line, lines: this.lines, bytesDone: merge.files.reduce((n, f) => n + f.bytesRead(), 0), bytesTotal: total });
      };
      for (;;) {
        if (merge.needsRead !== undefined) await merge.fill();
        const row = merge.take();
        if (row === undefined) break;
        this.lines++;
        last = { file: this.o.files[row.file], line: row.line };
        if (!this.row(row)) {
          this.summary.stoppedAt = this.whereOf(row);
          break;
        }
        if (this.lines % every === 0) progress(last.file, last.line);
        if (this.chunk.length >= 1 << 16) await this.flushChunk();
      }
      this.flushGroup();
      progress(last.file, last.line);
      const late = merge.files.reduce((k, f) => k + f.outOfOrder, 0);
      if (late > 0) this.meta.rowsOutOfOrder = late;
    } finally {
      await merge.close();
    }
    for (const s of shas) this.summary.sources.push(await s);
    this.meta.rows = this.lines;
    const notes: string[] = [];
    if (this.marksRounded > 0) {
      this.meta.marksRounded = this.marksRounded;
      notes.push(`${this.marksRounded} mark prices rounded to the price grid`);
    }
    const funding = this.fundingNotes();
    if (funding !== undefined) notes.push(funding);
    if (this.meta.rowsOutOfOrder !== undefined) notes.push(`${this.meta.rowsOutOfOrder} rows earlier than the row before them in their file, stamped with its time`);
    if (notes.length > 0) this.summary.notes = [...(this.summary.notes ?? []), ...notes];
    this.meta.exchanges = [...new Set([...this.syms.values()].map((s) => s.exchange))].join(', ');
  }

  /**
   * The price grid of each symbol from the first rows of its book, quotes and trades files, read
   * ahead once, so the first marks (a ticker row often comes first) can be put on it. The same
   * prices are noted again when their rows are imported: the grid is their gcd either way.
   */
  private async primeGrid(merge: TardisMerge): Promise<void> {
    for (const f of merge.files) {
      if (f.kind === 'derivative_ticker' || f.kind === undefined) continue;
      const ahead = new TardisFile(f.path, f.index);
      try {
        for (let k = 0; k < PRIME_ROWS; k++) {
          await ahead.advance();
          const r = ahead.head;
          if (r === undefined || (this.o.to !== undefined && r.t >= this.o.to)) break;
          if (this.o.symbol !== undefined && r.sym !== this.o.symbol) continue;
          const s = this.state(r.sym);
          this.cur = r;
          if (r.kind === 'incremental_book_L2' || r.kind === 'trades') this.grid.notePrice(s, r.price);
          else if (r.kind === 'book_snapshot') this.grid.noteLevels(s, [...r.b, ...r.a]);
          else if (r.kind === 'quotes') for (const p of [r.bp, r.ap]) if (p !== '') this.grid.notePrice(s, p);
        }
      } finally {
        await ahead.close();
      }
    }
  }

  /** One book source per import; marks are recorded for the symbols of derivative_ticker files. */
  private checkKinds(merge: TardisMerge): void {
    const l2 = merge.files.find((f) => f.kind === 'incremental_book_L2');
    const snaps = merge.files.filter((f) => f.kind === 'book_snapshot');
    if (l2 !== undefined && snaps.length > 0) throw new ImportInputError(`${snaps[0].path}: book_snapshot_${snaps[0].depth} and incremental_book_L2 (${l2.path}) both hold the book; import one of them`);
    const depths = new Set(snaps.map((f) => f.depth));
    if (depths.size > 1) throw new ImportInputError(`${snaps[0].path}: book snapshots of different depths (${[...depths].join(', ')} levels) in one import; import one of them`);
    this.quotesImported = merge.files.some((f) => f.kind === 'quotes');
    for (const f of merge.files) {
      const h = f.head;
      if (h?.kind === 'derivative_ticker' && h.markPrice !== '') this.tickerSymbols.add(h.sym);
    }
  }

  protected where(): string {
    return this.cur !== undefined ? `${this.o.files[this.cur.file]}:${this.cur.line}` : this.o.files.join(', ');
  }

  private whereOf(r: TardisRow): string {
    return `${this.o.files[r.file]}:${r.line}`;
  }

  /** One row; false to stop reading (at --to). */
  private row(r: TardisRow): boolean {
    const g = this.group;
    if (g !== undefined && r.kind === 'incremental_book_L2' && g.file === r.file && g.lt === r.lt && g.etRaw === r.etRaw && g.snapshot === r.snapshot && g.s.name === r.sym) {
      this.cur = r;
      this.bookRow(g, r);
      return true;
    }
    this.flushGroup();
    const key = r.kind === 'incremental_book_L2' && this.o.symbol !== undefined ? `${r.file},${r.sym},${r.etRaw},${r.lt},${r.snapshot}` : undefined;
    // Further rows of a message of another symbol: that message is counted once.
    if (key !== undefined && key === this.skippedKey) return true;
    if (!this.accept(r.t)) return false;
    if (this.otherSymbol(r.sym)) {
      this.skippedKey = key;
      return true;
    }
    const s = this.state(r.sym);
    this.cur = r;
    if (s.exchange === '') s.exchange = r.exchange;
    else if (s.exchange !== r.exchange) throw new ImportInputError(`${this.whereOf(r)}: ${r.sym} of ${r.exchange}, while earlier rows were of ${s.exchange}; import each exchange separately`);
    switch (r.kind) {
      case 'incremental_book_L2':
        this.group = { s, file: r.file, lt: r.lt, etRaw: r.etRaw, snapshot: r.snapshot, t: r.t, et: r.et, b: [], a: [] };
        this.bookRow(this.group, r);
        return true;
      case 'book_snapshot': {
        this.grid.noteLevels(s, r.b);
        this.grid.noteLevels(s, r.a);
        const book = (s.book ??= new L2Book());
        book.reset(r.b, r.a, ++s.seq);
        this.emit({ t: r.t, et: r.et, k: 'snapshot', s: s.name, u: s.seq, b: r.b, a: r.a }, r.t);
        if (!this.quotesImported && r.b.length > 0 && r.a.length > 0) {
          s.hasQuotes = true;
          // A second event of the same row: counted as written, not as another skipped row before --from.
          if (this.emit({ t: r.t, et: r.et, k: 'quote', s: s.name, bp: r.b[0][0], bq: r.b[0][1], ap: r.a[0][0], aq: r.a[0][1] }, r.t, true)) this.summary.events.quote = (this.summary.events.quote ?? 0) + 1;
          this.deriveMark(s, r.t, r.b[0][0], r.a[0][0]);
        }
        return true;
      }
      case 'trades': {
        if (r.side !== 'buy' && r.side !== 'sell') {
          this.skip(R_TRADE_SIDE);
          return true;
        }
        this.grid.notePrice(s, r.price);
        this.grid.noteQty(s, r.amount);
        this.emit({ t: r.t, et: r.et, k: 'trade', s: s.name, id: r.id !== '' ? r.id : `line:${r.line}`, p: r.price, q: r.amount, side: r.side === 'buy' ? 'BUY' : 'SELL' }, r.t);
        return true;
      }
      case 'quotes': {
        if (r.bp === '' || r.bq === '' || r.ap === '' || r.aq === '') {
          this.skip(R_QUOTE_EMPTY);
          return true;
        }
        this.grid.notePrice(s, r.bp);
        this.grid.notePrice(s, r.ap);
        this.grid.noteQty(s, r.bq);
        this.grid.noteQty(s, r.aq);
        s.hasQuotes = true;
        this.emit({ t: r.t, et: r.et, k: 'quote', s: s.name, bp: r.bp, bq: r.bq, ap: r.ap, aq: r.aq }, r.t);
        // After the quote it is computed from (as every derived mark): never ahead of the top the tape shows.
        this.deriveMark(s, r.t, r.bp, r.ap);
        return true;
      }
      case 'derivative_ticker':
        this.ticker(s, r);
        return true;
    }
  }

  private ticker(s: SymState, r: Extract<TardisRow, { kind: 'derivative_ticker' }>): void {
    const ft = r.fundingTs !== '' ? Math.floor(Number(r.fundingTs) / 1000) : undefined;
    const seen = this.announcedFunding(s, r.t, r.et, ft, r.fundingRate !== '' ? (signedDecimal(r.fundingRate) ?? r.fundingRate) : undefined);
    const settled = seen === true;
    const notSettled = typeof seen === 'string' ? seen : undefined;
    if (r.markPrice === '') {
      // The row gives no event: it is counted once, by the reason that matters most.
      if (!settled) this.skip(notSettled ?? R_NO_MARK);
      return;
    }
    // The row gives its mark; the settlement it implied is not derived: said in the header.
    if (notSettled !== undefined) this.fundingNotDerivedBy(notSettled);
    this.markSeen(s, r.t);
    const p = this.grid.onGrid(s, r.markPrice);
    if (p === undefined) {
      this.skip(R_MARK_NO_GRID);
      return;
    }
    const i = r.indexPrice !== '' ? (this.grid.onGrid(s, r.indexPrice) ?? p) : p;
    if (p !== r.markPrice) this.marksRounded++;
    s.lastMark = p;
    const n = s.funding.next ?? nextFunding(r.et);
    this.emit({ t: r.t, et: r.et, k: 'mark', s: s.name, p, i, r: s.funding.rate ?? '0', n }, r.t);
  }

  /** A row of an incremental_book_L2 message: its level, noted (on the grid) as its row is read. */
  private bookRow(g: Group, r: Extract<TardisRow, { kind: 'incremental_book_L2' }>): void {
    this.grid.notePrice(g.s, r.price);
    this.grid.noteQty(g.s, r.amount);
    (r.bid ? g.b : g.a).push([r.price, r.amount]);
  }

  /** Writes the incremental_book_L2 message gathered so far. */
  private flushGroup(): void {
    const g = this.group;
    if (g === undefined) return;
    this.group = undefined;
    const s = g.s;
    // Tardis lists bids and asks in the exchange's order; best first for a snapshot.
    if (g.snapshot && !s.inSnapshot) {
      s.inSnapshot = true;
      const book = (s.book ??= new L2Book());
      book.reset(g.b, g.a, ++s.seq);
      const { bids, asks } = book.levels();
      this.emit({ t: g.t, et: g.et, k: 'snapshot', s: s.name, u: s.seq, b: bids, a: asks }, g.t);
      this.markFromBook(s, g.t);
      return;
    }
    s.inSnapshot = g.snapshot;
    if (s.book === undefined) {
      this.skip(R_BEFORE_SNAPSHOT);
      return;
    }
    s.book.apply(g.b, g.a, ++s.seq);
    this.emit({ t: g.t, et: g.et, k: 'book', s: s.name, U: s.seq, u: s.seq, b: g.b, a: g.a }, g.t);
    this.markFromBook(s, g.t);
  }

  /** Without quotes, a derived mark from the book's top. */
  private markFromBook(s: SymState, t: number): void {
    if (s.hasQuotes || s.book === undefined) return;
    const top = s.book.top();
    if (top.bid !== undefined && top.ask !== undefined) this.deriveMark(s, t, top.bid[0], top.ask[0]);
  }
}

export async function importTardis(o: ImportOptions): Promise<ImportSummary> {
  checkImportOptions(o, 'Tardis CSV files');
  await refuseRepeatedInputs(o.files);
  return new TardisImporter(o).run();
}
