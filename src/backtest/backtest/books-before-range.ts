/**
 * The recorded L2 books as they stand at `data.from`, for the `l2` fill model.
 *
 * A recording's L2 book is a `snapshot` followed by `book` deltas (and the `quote` events'
 * levels), or v1 `depth` lines, each a snapshot: a range that starts after the snapshot (a `data.from`, a walk-forward window, a
 * successive-halving slice) would otherwise begin with no book at all, its deltas skipped as if
 * after a gap, and the `l2` model would not be the recorded book. So the events before `from` keep
 * these books here, by the rules the L2 fill model applies them with (l2-tape.ts: a snapshot
 * replaces the book, a delta or a quote sets the levels it names unless a newer update id already
 * did, a `gap` leaves the book unknown until the next snapshot), and at the first event of the
 * range each known book is handed to the fill model as a snapshot at the book's update id, as
 * `perpkit import --from` writes one.
 */
import type { Level, RecordedEvent, RecordingHeader } from '../../market-data/format';
import type { TapeReplayer } from '../../exchange/engine/market/tape';
import { levelSteps, specInfo, type SpecInfo } from '../../exchange/engine/market/tape-specs';
import { ASKS, BIDS, TickBook, type TickSide } from '../../exchange/engine/market/tick-book';
import { UpdateIds } from '../../exchange/engine/market/l2-update-ids';

interface Kept {
  g: SpecInfo;
  book: TickBook;
  known: boolean;
  /** Final update id of the last snapshot or delta, and the levels quotes set (the fill model's rule). */
  ids: UpdateIds;
  /** The update id of the last snapshot or delta (NaN: none, or without ids), handed on with the book. */
  bookU: number;
}

export class BooksBeforeRange {
  private readonly books = new Map<string, Kept>();
  /** The stale quotes and levels left out before the range (the fill model counts its own). */
  private readonly stale = { staleQuotes: 0, staleLevels: 0 };

  constructor(header: RecordingHeader) {
    for (const s of header.symbols) {
      const g = specInfo(s);
      if (g !== undefined) this.books.set(s.symbol, { g, book: new TickBook(), known: false, ids: new UpdateIds(this.stale), bookU: NaN });
    }
  }

  /** An event before the range: the books follow its L2 content; anything else is not theirs. */
  apply(e: RecordedEvent): void {
    switch (e.k) {
      case 'snapshot':
      case 'depth': {
        // A v1 depth line is a whole top-of-book snapshot without update id (l2-tape.ts).
        const k = this.books.get(e.s);
        if (k === undefined) return;
        const u = e.k === 'snapshot' ? e.u : NaN;
        k.book = new TickBook();
        k.ids.reset(u === u ? u : undefined);
        this.levels(k, BIDS, e.b, undefined);
        this.levels(k, ASKS, e.a, undefined);
        k.known = true;
        k.bookU = u;
        return;
      }
      case 'book': {
        const k = this.books.get(e.s);
        if (k === undefined || !k.known) return;
        this.levels(k, BIDS, e.b, e.u);
        this.levels(k, ASKS, e.a, e.u);
        k.ids.applied(e.u);
        k.bookU = e.u;
        return;
      }
      case 'quote': {
        const k = this.books.get(e.s);
        // Older than the book's last delta: its levels are not news.
        if (k === undefined || k.ids.staleQuote(e.u)) return;
        this.levels(k, BIDS, [[e.bp, e.bq]], undefined, e.u);
        this.levels(k, ASKS, [[e.ap, e.aq]], undefined, e.u);
        return;
      }
      case 'gap':
        if (e.stream !== 'public') return;
        for (const [name, k] of this.books) if (e.s === undefined || e.s === name) k.known = false;
        return;
      default:
        return;
    }
  }

  /** Another recording file begins: every book unknown until its next snapshot (the fill model's rule, l2-tape.ts forgetBooks). */
  forgetBooks(): void {
    for (const k of this.books.values()) k.known = false;
  }

  /** At the range's first event: each known book to the fill model, as a snapshot. Returns how many. */
  handTo(replayer: TapeReplayer): number {
    let n = 0;
    for (const [symbol, k] of this.books) {
      if (!k.known) continue;
      const ticks: number[] = [];
      const steps: number[] = [];
      const side = (s: TickSide): number => {
        const prices = [...k.book.prices(s)].filter((p) => k.book.get(s, p) > 0).sort((a, b) => (s === BIDS ? b - a : a - b));
        for (const p of prices) {
          ticks.push(p);
          steps.push(k.book.get(s, p));
        }
        return prices.length;
      };
      const bids = side(BIDS);
      const asks = side(ASKS);
      if (replayer.applyBookUnits(symbol, true, k.g.tick.size, k.g.step.size, ticks, steps, 0, bids, asks, k.bookU === k.bookU ? k.bookU : undefined)) n++;
    }
    return n;
  }

  /** Sets levels: of a delta with update id `u` (a level a newer quote set stays), or of a quote with id `quoteU`. */
  private levels(k: Kept, side: TickSide, levels: readonly Level[], u: number | undefined, quoteU?: number): void {
    for (const [p, q] of levels) {
      const ticks = k.g.tick.toUnits(p);
      if (ticks === undefined) continue;
      if (quoteU !== undefined) k.ids.quoted(side, ticks, quoteU);
      else if (k.ids.staleLevel(side, ticks, u)) continue;
      k.book.set(side, ticks, levelSteps(k.g, q));
    }
  }
}
