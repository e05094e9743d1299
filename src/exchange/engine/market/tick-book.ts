/**
 * The recorded L2 book of one symbol in integers: price in ticks -> quantity in steps, per side.
 * Keyed by ticks, not by the venue's decimal strings, so "60000.0" from a depth diff and "60000"
 * from the replay cache's columns are one level.
 *
 * Each side is a ladder of pages of PAGE consecutive ticks (a Float64Array of quantities, 0 for no
 * level), with the pages that hold a level kept in price order. A level change is a page lookup (the
 * last page used is remembered: the levels of one depth message are near each other) and an array
 * write, not a hash-map insert or delete (~80 ns a level with a Map of the replayed Binance diffs,
 * 445,000 levels in 6 minutes). An emptied page is dropped, so memory follows the levels the book
 * holds, not the recording's length or price range (up to SPARE_PAGES emptied pages a side are
 * kept for reuse: levels far from the touch come and go, and a new page was ~1 % of a replay).
 * The best price of each side is kept as levels change; only removing the best level costs a
 * scan, outward from it.
 */
export const BIDS = 0;
export const ASKS = 1;
export type TickSide = 0 | 1;

const PAGE_BITS = 8;
const PAGE = 1 << PAGE_BITS;
/** Entries of a ladder's page cache (a power of two). */
const RECENT = 128;
/** Emptied pages kept for reuse (all their quantities are 0 again), at most this many per side. */
const SPARE_PAGES = 32;

interface Page {
  /** The page's first tick is `index * PAGE`. */
  index: number;
  qty: Float64Array;
  /** Levels with a quantity in this page. */
  count: number;
}

/** The page of a price: a shift while ticks fit 31 bits (a small integer all the way down), else a division. */
const pageOf = (ticks: number): number => (ticks < 0x80000000 && ticks >= 0 ? ticks >> PAGE_BITS : Math.floor(ticks / PAGE));

class Ladder {
  private readonly pages = new Map<number, Page>();
  /** Pages holding a level, ascending by index. */
  private readonly sorted: Page[] = [];
  /**
   * Pages by the low bits of their index (a direct-mapped cache in front of the map): a book's
   * pages near the touch all stay in it, so a lookup is an array read and a compare.
   */
  private readonly recent: Array<Page | undefined> = new Array<Page | undefined>(RECENT).fill(undefined);
  /** Emptied pages, reused by `add`: a level appearing in a new page and gone again costs no allocation. */
  private readonly spare: Page[] = [];
  best = NaN;
  stale = false;

  constructor(private readonly bids: boolean) {}

  private page(index: number): Page | undefined {
    const slot = index & (RECENT - 1);
    const c = this.recent[slot];
    if (c !== undefined && c.index === index) return c;
    const p = this.pages.get(index);
    if (p !== undefined) this.recent[slot] = p;
    return p;
  }

  get(ticks: number): number {
    const index = pageOf(ticks);
    const p = this.page(index);
    return p === undefined ? 0 : p.qty[ticks - index * PAGE];
  }

  set(ticks: number, steps: number): void {
    const index = pageOf(ticks);
    const at = ticks - index * PAGE;
    let p = this.page(index);
    if (steps <= 0) {
      if (p === undefined || p.qty[at] === 0) return;
      p.qty[at] = 0;
      if (--p.count === 0) this.drop(p);
      if (ticks === this.best) this.stale = true;
      return;
    }
    if (p === undefined) p = this.add(index);
    if (p.qty[at] === 0) p.count++;
    p.qty[at] = steps;
    if (this.stale) return;
    const b = this.best;
    if (b !== b || (this.bids ? ticks > b : ticks < b)) this.best = ticks;
  }

  private add(index: number): Page {
    let p = this.spare.pop();
    if (p === undefined) p = { index, qty: new Float64Array(PAGE), count: 0 };
    else p.index = index;
    this.pages.set(index, p);
    const s = this.sorted;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid].index < index) lo = mid + 1;
      else hi = mid;
    }
    s.splice(lo, 0, p);
    this.recent[index & (RECENT - 1)] = p;
    return p;
  }

  private drop(p: Page): void {
    this.pages.delete(p.index);
    const s = this.sorted;
    const i = s.indexOf(p);
    if (i >= 0) s.splice(i, 1);
    const slot = p.index & (RECENT - 1);
    if (this.recent[slot] === p) this.recent[slot] = undefined;
    // Its count is 0: every quantity in it is 0.
    if (this.spare.length < SPARE_PAGES) this.spare.push(p);
  }

  /** The best price, found again when the best level was removed. */
  bestPrice(): number {
    if (this.stale) {
      this.best = this.scan();
      this.stale = false;
    }
    return this.best;
  }

  /** The best level from scratch: the highest bid or lowest ask of the outermost page. */
  private scan(): number {
    const s = this.sorted;
    if (s.length === 0) return NaN;
    const p = this.bids ? s[s.length - 1] : s[0];
    const q = p.qty;
    if (this.bids) {
      for (let k = PAGE - 1; k >= 0; k--) if (q[k] !== 0) return p.index * PAGE + k;
    } else {
      for (let k = 0; k < PAGE; k++) if (q[k] !== 0) return p.index * PAGE + k;
    }
    return NaN;
  }

  prices(): number[] {
    const out: number[] = [];
    for (const p of this.sorted) {
      const q = p.qty;
      for (let k = 0; k < PAGE; k++) if (q[k] !== 0) out.push(p.index * PAGE + k);
    }
    return out;
  }

  clear(): void {
    this.pages.clear();
    this.sorted.length = 0;
    this.recent.fill(undefined);
    this.best = NaN;
    this.stale = false;
  }
}

export class TickBook {
  private readonly sides: [Ladder, Ladder] = [new Ladder(true), new Ladder(false)];

  /** Quantity at a price, 0 when there is no such level. */
  get(side: TickSide, ticks: number): number {
    return this.sides[side].get(ticks);
  }

  /** Sets a level's quantity; 0 removes it. */
  set(side: TickSide, ticks: number, steps: number): void {
    this.sides[side].set(ticks, steps);
  }

  clear(): void {
    this.sides[BIDS].clear();
    this.sides[ASKS].clear();
  }

  /** The best price of a side, undefined when it is empty. */
  bestOf(side: TickSide): number | undefined {
    const b = this.sides[side].bestPrice();
    return b === b ? b : undefined;
  }

  /** Prices of a side (any order). */
  prices(side: TickSide): Iterable<number> {
    return this.sides[side].prices();
  }
}
