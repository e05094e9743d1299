/**
 * What a recording holds, read in one streaming pass (`perpkit data inspect`): time range,
 * symbols, counts per kind, gaps, feed latency (receive time minus exchange time), crossed or
 * locked books, and how the L2 book rebuilt from `snapshot` + `book` events agrees with the
 * `quote` events:
 *  - exactly, at the quotes whose update id equals a delta's final update id (the two describe
 *    the same book state; anything but 100 % is a bug in the data or the import);
 *  - in receive order, at every quote while the book is known (the depth stream is sparser than
 *    the quote stream, so this measures the staleness a fill model on the L2 book lives with).
 * Memory is flat in the recording's length: latencies go into a histogram of whole ms, and update
 * ids are matched within a window of recent ones.
 */
import { compareDecimalStrings } from '../core/decimal';
import type { Level, MarkProvenance, RecordedEvent, RecordingHeader } from './format';
import { L2Book } from './l2-book';
import { mergeHeaders, readRecording } from './reader';
import { silenceBefore, type Silence } from './silence';

export interface LatencyStats {
  count: number;
  min: number;
  p1: number;
  p50: number;
  p99: number;
  max: number;
}

export interface SymbolInspection {
  counts: Record<string, number>;
  firstTime: number;
  lastTime: number;
  /** Quotes with bid above ask (crossed) or equal to it (locked). */
  quotes: { crossed: number; locked: number };
  /** The rebuilt book's top after each delta, crossed or locked. */
  book: { crossed: number; locked: number; deltas: number; unknownDeltas: number };
  /** Rebuilt book vs quote at equal update ids: compared, equal. */
  sameUpdateId: { compared: number; agree: number; firstDisagreement?: string };
  /** Rebuilt book vs each quote in receive order while the book is known. */
  receiveOrder: { compared: number; agree: number; samePrices: number };
  marks?: MarkProvenance;
}

export interface Inspection {
  files: string[];
  version: number;
  source: string;
  firstTime: number;
  lastTime: number;
  events: number;
  counts: Record<string, number>;
  symbols: Record<string, SymbolInspection>;
  gaps: Array<{ t: number; from: number; s?: string; reason: string }>;
  /** Receive time minus exchange time, ms, of events that carry both (`et`). */
  latencyMs: LatencyStats | null;
  /**
   * Written by `perpkit record`: its `t` is the venue's event time and `et` is set only on a push
   * that arrived after a later line and was written at that line's time, so `t - et` is how late
   * such pushes were, not a feed latency (imports: `t` the receive time, `et` the exchange's).
   */
  recorded: boolean;
  skippedByImport: Record<string, number>;
  /** The longest silence (silence.ts: the time between two consecutive events); null with fewer than two events. */
  longestSilence: Silence | null;
  /** Events whose time is earlier than the event before them (replay follows the line order). */
  backInTime: number;
}

/** Update ids remembered for matching a quote with a delta of the same id (either may come first). */
const MATCH_WINDOW = 8192;
/** Gaps listed in full; the rest are counted. */
const MAX_GAPS = 1000;

interface SymState {
  info: SymbolInspection;
  book: L2Book | undefined;
  /** Top after the delta with this final update id. */
  tops: Map<number, string>;
  /** Quotes by update id not matched yet. */
  quotes: Map<number, string>;
}

const topKey = (bid: Level | undefined, ask: Level | undefined): string => `${bid?.[0] ?? '-'} x ${bid?.[1] ?? '-'} / ${ask?.[0] ?? '-'} x ${ask?.[1] ?? '-'}`;

function remember(m: Map<number, string>, k: number, v: string): void {
  m.set(k, v);
  if (m.size > MATCH_WINDOW) m.delete(m.keys().next().value as number);
}

function percentile(hist: Map<number, number>, count: number, q: number, keys: number[]): number {
  const want = Math.max(1, Math.ceil(q * count));
  let seen = 0;
  for (const k of keys) {
    seen += hist.get(k) ?? 0;
    if (seen >= want) return k;
  }
  return keys[keys.length - 1];
}

export async function inspectRecording(files: string[]): Promise<Inspection> {
  const out: Inspection = { files, version: 0, source: '', firstTime: 0, lastTime: 0, events: 0, counts: {}, symbols: {}, gaps: [], latencyMs: null, recorded: false, skippedByImport: {}, longestSilence: null, backInTime: 0 };
  const syms = new Map<string, SymState>();
  const hist = new Map<number, number>();
  let latCount = 0;
  /** The latest event time so far. */
  let prevT = 0;
  let header: RecordingHeader | undefined;
  const sym = (s: string): SymState => {
    let st = syms.get(s);
    if (st === undefined) {
      st = {
        info: { counts: {}, firstTime: 0, lastTime: 0, quotes: { crossed: 0, locked: 0 }, book: { crossed: 0, locked: 0, deltas: 0, unknownDeltas: 0 }, sameUpdateId: { compared: 0, agree: 0 }, receiveOrder: { compared: 0, agree: 0, samePrices: 0 } },
        book: undefined,
        tops: new Map(),
        quotes: new Map(),
      };
      if (header?.marks?.[s] !== undefined) st.info.marks = header.marks[s];
      syms.set(s, st);
    }
    return st;
  };
  const match = (st: SymState, u: number, quote: string, top: string): void => {
    st.info.sameUpdateId.compared++;
    if (quote === top) st.info.sameUpdateId.agree++;
    else st.info.sameUpdateId.firstDisagreement ??= `update id ${u}: quote ${quote}, rebuilt book ${top}`;
  };
  const headers: RecordingHeader[] = [];
  for await (const x of readRecording(files)) {
    if ((x as RecordingHeader).type === 'header') {
      // Every file's header counts (its import's skips, how its marks were obtained), merged as a backtest merges them.
      headers.push(x as RecordingHeader);
      header = mergeHeaders(headers);
      out.version = header.version;
      out.source = header.source;
      out.recorded = header.meta?.recorder === 'perpkit record';
      out.skippedByImport = { ...(header.skipped ?? {}) };
      for (const [s, st] of syms) if (header.marks?.[s] !== undefined) st.info.marks = header.marks[s];
      continue;
    }
    const e = x as RecordedEvent;
    if (out.events > 0) {
      const ms = silenceBefore(prevT, e.t);
      if (e.t < prevT) out.backInTime++;
      else if (ms > (out.longestSilence?.ms ?? 0)) out.longestSilence = { from: prevT, to: e.t, ms };
    }
    prevT = Math.max(prevT, e.t);
    // The earliest event, not the first read: files given out of time order (or events back in time) start earlier.
    out.firstTime = out.events === 0 ? e.t : Math.min(out.firstTime, e.t);
    out.events++;
    out.lastTime = Math.max(out.lastTime, e.t);
    out.counts[e.k] = (out.counts[e.k] ?? 0) + 1;
    if ('et' in e && e.et !== undefined) {
      const d = Math.round(e.t - e.et);
      hist.set(d, (hist.get(d) ?? 0) + 1);
      latCount++;
    }
    if (e.k === 'gap') {
      if (out.gaps.length < MAX_GAPS) out.gaps.push({ t: e.t, from: e.from, reason: e.reason, ...(e.s !== undefined ? { s: e.s } : {}) });
      if (e.s !== undefined) {
        const st = sym(e.s);
        st.book = undefined;
        st.info.counts.gap = (st.info.counts.gap ?? 0) + 1;
      }
      continue;
    }
    if (!('s' in e)) continue;
    const st = sym(e.s);
    const info = st.info;
    info.firstTime = info.firstTime === 0 ? e.t : Math.min(info.firstTime, e.t);
    info.counts[e.k] = (info.counts[e.k] ?? 0) + 1;
    info.lastTime = Math.max(info.lastTime, e.t);
    switch (e.k) {
      case 'snapshot':
        st.book ??= new L2Book();
        st.book.reset(e.b, e.a, e.u);
        break;
      case 'book': {
        info.book.deltas++;
        if (st.book === undefined) {
          info.book.unknownDeltas++;
          break;
        }
        st.book.apply(e.b, e.a, e.u);
        const { bid, ask } = st.book.top();
        if (bid !== undefined && ask !== undefined) {
          const c = compareDecimalStrings(bid[0], ask[0]);
          if (c > 0) info.book.crossed++;
          else if (c === 0) info.book.locked++;
        }
        const top = topKey(bid, ask);
        const q = st.quotes.get(e.u);
        if (q !== undefined) {
          st.quotes.delete(e.u);
          match(st, e.u, q, top);
        } else remember(st.tops, e.u, top);
        break;
      }
      case 'quote': {
        const c = compareDecimalStrings(e.bp, e.ap);
        if (c > 0) info.quotes.crossed++;
        else if (c === 0) info.quotes.locked++;
        const quote = topKey([e.bp, e.bq], [e.ap, e.aq]);
        if (e.u !== undefined) {
          const top = st.tops.get(e.u);
          if (top !== undefined) {
            st.tops.delete(e.u);
            match(st, e.u, quote, top);
          } else remember(st.quotes, e.u, quote);
        }
        if (st.book !== undefined) {
          const { bid, ask } = st.book.top();
          info.receiveOrder.compared++;
          if (topKey(bid, ask) === quote) info.receiveOrder.agree++;
          if (bid?.[0] === e.bp && ask?.[0] === e.ap) info.receiveOrder.samePrices++;
        }
        break;
      }
      default:
        break;
    }
  }
  for (const [name, st] of syms) out.symbols[name] = st.info;
  if (latCount > 0) {
    const keys = [...hist.keys()].sort((a, b) => a - b);
    out.latencyMs = { count: latCount, min: keys[0], p1: percentile(hist, latCount, 0.01, keys), p50: percentile(hist, latCount, 0.5, keys), p99: percentile(hist, latCount, 0.99, keys), max: keys[keys.length - 1] };
  }
  return out;
}
