/**
 * Each symbol's L2 book in an import of Binance USD-M captures (binance-futures.ts), from one of
 * its two depth streams, whichever comes first:
 *
 * - Diffs under Binance's documented procedure (binance-diff-chain.ts): buffered until a REST
 *   snapshot, written as `book` events once the chain holds; a break becomes a `gap` of the
 *   symbol, and the diffs buffer again until the next snapshot. A snapshot without a symbol is
 *   the symbol's whose depth its file holds (binance-snapshot-owner.ts). Diffs still waiting at
 *   the end are counted, never written.
 * - Partial book depth (`@depth5/10/20`): each message a `snapshot` of the top levels.
 *
 * Without quotes, marks are derived from the book's top (importer.ts).
 */
import type { Level, RecordedEvent } from '../format';
import { L2Book } from '../l2-book';
import { breakChain, chainFromSnapshot, diffStep, R_NO_SNAPSHOT, type DiffChain } from './binance-diff-chain';
import { R_DIFF_AFTER_PARTIAL, R_PARTIAL_DEPTH } from './binance-depth-kind';
import { levelsOf, type Diff } from './binance-scan';
import { SnapshotOwners } from './binance-snapshot-owner';
import { isLevels, isNum, isStr } from './common';
import { ImportInputError } from './errors';
import { R_OTHER_SYMBOL, type SymBase } from './importer';
import type { SymbolGrid } from './symbol-grid';

/** What the import keeps of a symbol's book (a part of its symbol state). */
export interface BookState extends SymBase, DiffChain {
  /**
   * Where the symbol's book comes from, decided by the first depth message: diffs applied to REST
   * snapshots, or partial book depth (each message a snapshot of the top levels). The other kind
   * is then counted as skipped.
   */
  depth: 'diff' | 'partial' | undefined;
  /** Most levels a side in one partial depth message. */
  partialLevels: number;
  /** Receive time of the last book event written. */
  lastBookT: number;
}

/** A symbol's book before any depth message. */
export function bookState(): Pick<BookState, 'depth' | 'partialLevels' | 'awaitingFirst' | 'lastBookT' | 'pending' | 'taken'> {
  return { depth: undefined, partialLevels: 0, awaitingFirst: false, lastBookT: 0, pending: [], taken: undefined };
}

/** What the books need of the importer that owns them (binance-futures.ts, over importer.ts). */
export interface BookDeps<S extends BookState> {
  /** --symbol. */
  symbol: string | undefined;
  grid: SymbolGrid;
  /** The input file being read. */
  file(): string;
  /** Where the values being read come from (file:line of a held snapshot); undefined: the line read. */
  at(where: string | undefined): void;
  state(name: string): S;
  /** Is this symbol outside --symbol? Then the message is counted as skipped. */
  otherSymbol(name: string): boolean;
  emit(e: RecordedEvent, t: number): boolean;
  emitText(k: 'book', json: string, t: number): boolean;
  skip(reason: string, n?: number, t?: number): void;
  deriveMark(s: S, t: number, bid: string, ask: string): void;
  /** Will the books' levels still be read as snapshots at --from? */
  snapshotsToRebuild(): boolean;
  /** A gap event was written. */
  gapWritten(): void;
}

export class BinanceBooks<S extends BookState> {
  /** Whose the REST snapshots without a symbol are (binance-snapshot-owner.ts). */
  private readonly owners = new SnapshotOwners();

  constructor(private readonly d: BookDeps<S>) {}

  /** Is a snapshot waiting for a depth message of its file (lines then take the general path)? */
  get snapshotWaiting(): boolean {
    return this.owners.waiting;
  }

  /** A REST depth snapshot message (`lastUpdateId`, `bids`, `asks`, a `symbol` or not). */
  snapshotMessage(d: Record<string, unknown>, t: number, where: string): void {
    const bids = d.bids;
    const asks = d.asks;
    if (!isNum(d.lastUpdateId) || !isLevels(bids) || !isLevels(asks)) throw new ImportInputError(`${where}: depth snapshot: expected lastUpdateId as a number and bids, asks as [price, quantity] string pairs`);
    const et = isNum(d.E) ? d.E : t;
    const b = bids.map((l): Level => [l[0], l[1]]);
    const a = asks.map((l): Level => [l[0], l[1]]);
    // Without a symbol in it: the symbol's whose depth its file holds (binance-snapshot-owner.ts).
    const snap = { t, et, u: d.lastUpdateId, b, a, where };
    const name = isStr(d.symbol) ? d.symbol : this.owners.ownerOf(this.d.file(), this.d.symbol, snap);
    if (name === undefined || this.d.otherSymbol(name)) return;
    this.applySnapshot(this.d.state(name), t, et, d.lastUpdateId, b, a);
  }

  /** A depth message of `sym` (imported or not): a snapshot of its file that waited for one is its. */
  depthOfFile(sym: string): void {
    const h = this.owners.depth(this.d.file(), sym);
    if (h === undefined) return;
    if (this.d.symbol !== undefined && sym !== this.d.symbol) this.d.skip(R_OTHER_SYMBOL);
    else {
      this.d.at(h.where);
      this.applySnapshot(this.d.state(sym), h.t, h.et, h.u, h.b, h.a);
      this.d.at(undefined);
    }
  }

  private applySnapshot(s: S, t: number, et: number, L: number, b: Level[], a: Level[]): void {
    this.d.grid.noteLevels(s, b);
    this.d.grid.noteLevels(s, a);
    // Written before the book is replaced: at --from, the snapshot rebuilt first is the book before this one.
    this.d.emit({ t, et, k: 'snapshot', s: s.name, u: L, b, a }, t);
    const pending = chainFromSnapshot(s, b, a, L);
    s.lastBookT = t;
    // The diffs buffered while there was no book, in order, as if they arrived now.
    for (const d of pending) this.diff(s, { ...d, t });
  }

  /**
   * A partial book depth message (`<symbol>@depth5/10/20`, known by the envelope's stream name):
   * the top levels a side as they are now, so a `snapshot` of them (levels deeper than the
   * message's are unknown to the replay), unless the symbol's book comes from diffs.
   */
  partialDepth(s: S, t: number, et: number, u: number, bids: Level[], asks: Level[]): void {
    if (s.depth === 'diff') {
      this.d.skip(R_PARTIAL_DEPTH);
      return;
    }
    s.depth = 'partial';
    const b = bids.map((l): Level => [l[0], l[1]]);
    const a = asks.map((l): Level => [l[0], l[1]]);
    this.d.grid.noteLevels(s, b);
    this.d.grid.noteLevels(s, a);
    s.partialLevels = Math.max(s.partialLevels, b.length, a.length);
    // Written before the book is replaced: at --from, the snapshot rebuilt first is the book before this one.
    this.d.emit({ t, et, k: 'snapshot', s: s.name, u, b, a }, t);
    const book = new L2Book();
    book.reset(b, a, u);
    s.book = book;
    s.awaitingFirst = false;
    s.lastBookT = t;
    if (!s.hasQuotes) {
      const top = book.top();
      if (top.bid !== undefined && top.ask !== undefined) this.d.deriveMark(s, t, top.bid[0], top.ask[0]);
    }
  }

  /** A depth diff, through the update-id chain (binance-diff-chain.ts). */
  diff(s: S, d: Diff): void {
    if (s.depth === 'partial') {
      this.d.skip(R_DIFF_AFTER_PARTIAL, 1, d.t);
      return;
    }
    s.depth = 'diff';
    const step = diffStep(s, d);
    if (step.take === 'apply') this.writeBook(s, d);
    else if (step.take === 'skip') this.d.skip(step.reason, 1, d.t);
    else if (step.take === 'gap') {
      this.gap(s, d.t, step.reason);
      breakChain(s, d);
    }
  }

  private writeBook(s: S, d: Diff): void {
    const book = s.book as L2Book;
    // The levels are read only for marks from the book's top (no quotes) and snapshots at --from;
    // past both (each holds for good once it holds) only the update id chain matters.
    if (!s.hasQuotes || this.d.snapshotsToRebuild()) {
      const { b, a } = levelsOf(d);
      book.apply(b, a, d.u);
    } else {
      book.lastUpdateId = d.u;
    }
    s.lastBookT = d.t;
    if (d.bJson !== undefined && d.aJson !== undefined) {
      this.d.emitText('book', `{"t":${d.t},"et":${d.et},"k":"book","s":${JSON.stringify(s.name)},"U":${d.U},"u":${d.u},"pu":${d.pu},"b":${d.bJson},"a":${d.aJson}}`, d.t);
    } else {
      const { b, a } = levelsOf(d);
      this.d.emit({ t: d.t, et: d.et, k: 'book', s: s.name, U: d.U, u: d.u, pu: d.pu, b, a }, d.t);
    }
    if (!s.hasQuotes) {
      const top = (s.book as L2Book).top();
      if (top.bid !== undefined && top.ask !== undefined) this.d.deriveMark(s, d.t, top.bid[0], top.ask[0]);
    }
  }

  private gap(s: S, t: number, why: string): void {
    if (this.d.emit({ t, k: 'gap', stream: 'public', from: s.lastBookT, reason: `book: ${why}; the book is unknown until the next snapshot`, s: s.name }, t)) this.d.gapWritten();
  }

  /** After reading: diffs still waiting for a snapshot are counted, never written; a snapshot no depth message claimed is refused. */
  finish(syms: Iterable<S>): void {
    for (const s of syms) {
      for (const d of s.pending) this.d.skip(R_NO_SNAPSHOT, 1, d.t);
      s.pending = [];
    }
    this.owners.finish();
  }
}
