/**
 * Newest by update id, for one symbol's recorded L2 book (l2-tape.ts, its rules): the venue's
 * update ids order the book's states, but the quote and depth streams arrive each in its own
 * order. This keeps the final update id of the last snapshot or delta applied and, per level a
 * quote set, the quote's id, and says which quotes and delta levels are older than what the book
 * already holds (counted in the tape's stats). Events without update ids are never stale.
 */
import { ASKS, BIDS, type TickSide } from './tick-book';

/** Above this many quoted levels a side, those the book has passed are dropped. */
const KEEP = 1024;

export class UpdateIds {
  /** Final update id of the last snapshot or delta applied (NaN: none, or without ids). */
  private bookU = NaN;
  /** Levels set by a quote, by side: ticks -> the quote's update id (only while newer than bookU can matter). */
  private readonly quoteU: [Map<number, number>, Map<number, number>] = [new Map(), new Map()];

  constructor(private readonly stats: { staleQuotes: number; staleLevels: number }) {}

  /** A snapshot with final update id `u` replaced the book. */
  reset(u: number | undefined): void {
    this.bookU = u ?? NaN;
    this.quoteU[BIDS].clear();
    this.quoteU[ASKS].clear();
  }

  /** A delta with final update id `u` was applied: the book is at `u`; quote marks it passed no longer matter. */
  applied(u: number | undefined): void {
    if (u === undefined) return;
    this.bookU = u;
    for (const m of this.quoteU) {
      if (m.size <= KEEP) continue;
      for (const [t, qu] of m) if (qu <= u) m.delete(t);
    }
  }

  /** Is a quote with update id `u` older than the book (its levels not to be applied)? Counted. */
  staleQuote(u: number | undefined): boolean {
    if (u === undefined || !(u < this.bookU)) return false;
    this.stats.staleQuotes++;
    return true;
  }

  /** A quote with update id `u` set the level at `ticks`. */
  quoted(bs: TickSide, ticks: number, u: number | undefined): void {
    if (u !== undefined) this.quoteU[bs].set(ticks, u);
  }

  /** Whether any level of the side was set by a quote the book has not passed (else no level is stale). */
  anyQuoted(bs: TickSide): boolean {
    return this.quoteU[bs].size > 0;
  }

  /** Is a delta's level at `ticks` (update id `u`) older than the quote that set it? Counted. */
  staleLevel(bs: TickSide, ticks: number, u: number | undefined): boolean {
    const m = this.quoteU[bs];
    if (m.size === 0 || u === undefined) return false;
    const qu = m.get(ticks);
    if (qu === undefined) return false;
    if (qu > u) {
      this.stats.staleLevels++;
      return true;
    }
    m.delete(ticks);
    return false;
  }
}
