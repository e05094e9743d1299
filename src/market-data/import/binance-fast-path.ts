/**
 * The fast path of an import of Binance captures (binance-futures.ts): a line in Binance's own
 * text form, read by binance-scan.ts, becomes its output line from slices of its text, with no
 * JSON.parse and no JSON.stringify. Only quotes, market trades, aggregate trades and depth diffs
 * with every field their kind needs take it; every other line, and every error, goes through the
 * general path. Both ways write the same bytes (test/market-data/binance-scan.test.ts).
 */
import type { RecordedKind } from '../format';
import type { BinanceBooks, BookState } from './binance-book';
import { PARTIAL_DEPTH, zeroQtyIn, type BareDepth } from './binance-depth-kind';
import { F_BOOL, F_INT, F_LEVELS, F_NONE, F_STR, scanMessage, scannedMessage, strIs, strOf, type ScannedMessage } from './binance-scan';
import type { SymbolGrid } from './symbol-grid';

export const R_AGG_DUP = 'aggTrade while the trade stream of the symbol is imported (or the reverse)';

/** Messages read by scanMessage, by kind (0: the general path reads the line). */
const K_QUOTE = 1;
const K_TRADE = 2;
const K_AGG_TRADE = 3;
const K_DEPTH = 4;
export type ScannedKind = 0 | typeof K_QUOTE | typeof K_TRADE | typeof K_AGG_TRADE | typeof K_DEPTH;

/** A symbol's state as the fast path sees it: its book, and which trade stream it takes. */
export interface FastPathSym extends BookState {
  trades: 'trade' | 'aggTrade' | undefined;
}

/** What the fast path needs of the importer that owns it. */
export interface FastPathDeps<S extends FastPathSym> {
  books: BinanceBooks<S>;
  grid: SymbolGrid;
  /** What bare depthUpdate messages are (binance-depth-kind.ts). */
  bare: BareDepth;
  /** file:line of the line being read. */
  line(): string;
  state(name: string): S;
  /** Is this symbol outside --symbol? Then the message is counted as skipped. */
  otherSymbol(name: string): boolean;
  emitText(k: RecordedKind, json: string, t: number): boolean;
  deriveMark(s: S, t: number, bid: string, ask: string): void;
  skip(reason: string): void;
}

export class FastPath<S extends FastPathSym> {
  /** The line being read (one object, reused). */
  private readonly m = scannedMessage();
  /** The last symbol name read (reused instead of a new string per line). */
  private lastSym = '';

  constructor(private readonly d: FastPathDeps<S>) {}

  /** Scans the message at `start` of a line: its kind when the fast path takes it, else 0. */
  read(text: string, start: number): ScannedKind {
    return scanMessage(text, start, this.m) ? this.kindOf(this.m) : 0;
  }

  /** The event time `E` of the message read, when it has one. */
  eventTime(): number | undefined {
    return this.m.E.type === F_INT ? this.m.E.num : undefined;
  }

  /**
   * The kind of a scanned message when it has every field its kind needs with the right types
   * (what message() would accept); 0 sends the line to the general path, which says what is
   * wrong.
   */
  private kindOf(m: ScannedMessage): ScannedKind {
    if (m.e.type !== F_STR || m.s.type !== F_STR || this.d.books.snapshotWaiting) return 0;
    if (strIs(m, m.e, 'bookTicker')) return m.b.type === F_STR && m.B.type === F_STR && m.a.type === F_STR && m.A.type === F_STR ? K_QUOTE : 0;
    if (strIs(m, m.e, 'trade')) return m.t.type === F_INT && m.p.type === F_STR && m.q.type === F_STR && m.m.type === F_BOOL && (m.X.type === F_NONE || strIs(m, m.X, 'MARKET')) ? K_TRADE : 0;
    if (strIs(m, m.e, 'depthUpdate')) return !(m.stream.type === F_STR ? PARTIAL_DEPTH.test(strOf(m, m.stream)) : this.d.bare.partial) && m.U.type === F_INT && m.u.type === F_INT && m.pu.type === F_INT && m.b.type === F_LEVELS && m.a.type === F_LEVELS ? K_DEPTH : 0;
    if (strIs(m, m.e, 'aggTrade')) return m.a.type === F_INT && m.p.type === F_STR && m.q.type === F_STR && m.m.type === F_BOOL ? K_AGG_TRADE : 0;
    return 0;
  }

  /**
   * The general path's message() (binance-futures.ts) for the message read, of a kind the fast
   * path takes, writing the output line from the message's text: its strings are plain (their
   * JSON is `"` + the text + `"`) and its integers print back as read, so the line is byte for
   * byte what JSON.stringify writes in message().
   */
  write(kind: ScannedKind, t: number): void {
    const m = this.m;
    const sym = strIs(m, m.s, this.lastSym) ? this.lastSym : (this.lastSym = strOf(m, m.s));
    if (kind === K_DEPTH) this.d.books.depthOfFile(sym);
    if (this.d.otherSymbol(sym)) return;
    const s = this.d.state(sym);
    const et = m.E.type === F_INT ? m.E.num : t;
    if (kind === K_QUOTE) {
      const bp = strOf(m, m.b);
      const bq = strOf(m, m.B);
      const ap = strOf(m, m.a);
      const aq = strOf(m, m.A);
      this.d.grid.notePrice(s, bp);
      this.d.grid.notePrice(s, ap);
      this.d.grid.noteQty(s, bq);
      this.d.grid.noteQty(s, aq);
      s.hasQuotes = true;
      this.d.emitText('quote', `{"t":${t},"et":${et},"k":"quote","s":"${sym}","bp":"${bp}","bq":"${bq}","ap":"${ap}","aq":"${aq}"${m.u.type === F_INT ? `,"u":${m.u.num}` : ''}}`, t);
      // After the quote it is computed from: a mark before it moved stops on a top the tape did not show yet.
      this.d.deriveMark(s, t, bp, ap);
      return;
    }
    if (kind === K_TRADE || kind === K_AGG_TRADE) {
      const e = kind === K_TRADE ? 'trade' : 'aggTrade';
      if (s.trades !== undefined && s.trades !== e) {
        this.d.skip(R_AGG_DUP);
        return;
      }
      s.trades = e;
      const p = strOf(m, m.p);
      const q = strOf(m, m.q);
      this.d.grid.notePrice(s, p);
      this.d.grid.noteQty(s, q);
      const id = kind === K_TRADE ? m.t.num : m.a.num;
      // m: the buyer is the maker, so the taker sold.
      this.d.emitText('trade', `{"t":${t},"et":${m.T.type === F_INT ? m.T.num : et},"k":"trade","s":"${sym}","id":"${id}","p":"${p}","q":"${q}","side":"${m.m.bool ? 'SELL' : 'BUY'}"}`, t);
      return;
    }
    const text = m.text;
    if (m.stream.type !== F_STR && this.d.bare.watching(sym)) {
      this.d.bare.message(sym, m.b.count, m.a.count, zeroQtyIn(text, m.b.spans, m.b.count) || zeroQtyIn(text, m.a.spans, m.a.count), this.d.line());
    }
    this.noteSpans(s, text, m.b.spans, m.b.count);
    this.noteSpans(s, text, m.a.spans, m.a.count);
    this.d.books.diff(s, { t, et, U: m.U.num, u: m.u.num, pu: m.pu.num, b: undefined, a: undefined, bJson: text.slice(m.b.start, m.b.end), aJson: text.slice(m.a.start, m.a.end) });
  }

  /** noteLevels of a scanned level list (its strings are not made). */
  private noteSpans(s: S, text: string, spans: number[], count: number): void {
    for (let i = 0; i < 4 * count; i += 4) {
      this.d.grid.notePriceIn(s, text, spans[i], spans[i + 1]);
      this.d.grid.noteQtyIn(s, text, spans[i + 2], spans[i + 3]);
    }
  }
}
