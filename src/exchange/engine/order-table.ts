/**
 * Orders by id. The engine hands ids out in sequence (EngineState.nextOrderId), so a paged array
 * indexes them: a lookup is two array reads, nothing is hashed, and no table grows and rehashes
 * as the history lengthens (a Map<number, order> holding a long run's history was about 7 % of a
 * placement's cost on `npm run bench -- engine`). Pages whose orders have all been deleted (users
 * whose final orders are forgotten) are freed, so memory follows what is kept; the last freed page
 * is kept for the next new one (a backtest's tape quotes leave the book one by one, far apart in
 * id: each took a fresh 8 KB page and gave it back). Iteration is in id order, which is creation
 * order.
 */
const PAGE = 1024;

export class OrderTable<T> {
  private pages: Array<Array<T | undefined> | undefined> = [];
  private counts: number[] = [];
  private n = 0;
  /** A freed page (every slot undefined again), reused by the next page made. */
  private spare: Array<T | undefined> | undefined;

  get size(): number {
    return this.n;
  }

  get(id: number): T | undefined {
    const page = this.pages[Math.floor(id / PAGE)];
    return page === undefined ? undefined : page[id % PAGE];
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, value: T): void {
    if (!Number.isSafeInteger(id) || id <= 0) throw new RangeError(`order id must be a positive safe integer, got ${id}`);
    const p = Math.floor(id / PAGE);
    let page = this.pages[p];
    if (page === undefined) {
      page = this.spare ?? new Array<T | undefined>(PAGE).fill(undefined);
      this.spare = undefined;
      this.pages[p] = page;
      this.counts[p] = 0;
    }
    const slot = id % PAGE;
    if (page[slot] === undefined) {
      this.counts[p]++;
      this.n++;
    }
    page[slot] = value;
  }

  delete(id: number): boolean {
    const p = Math.floor(id / PAGE);
    const page = this.pages[p];
    if (page === undefined) return false;
    const slot = id % PAGE;
    if (page[slot] === undefined) return false;
    page[slot] = undefined;
    this.n--;
    if (--this.counts[p] === 0) {
      this.pages[p] = undefined;
      this.spare = page;
    }
    return true;
  }

  clear(): void {
    this.pages = [];
    this.counts = [];
    this.n = 0;
    this.spare = undefined;
  }

  *values(): IterableIterator<T> {
    for (const page of this.pages) {
      if (page === undefined) continue;
      for (const v of page) if (v !== undefined) yield v;
    }
  }
}
