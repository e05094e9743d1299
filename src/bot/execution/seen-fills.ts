/**
 * Fills seen, by order and fill id: a duplicated TRADE event (a venue or network may deliver one
 * twice), or a fill found again by reconciliation, is the same fill, and strategies hear of each
 * fill once. Bounded, oldest forgotten first: duplicates arrive close together.
 */
export class SeenFills {
  private readonly seen = new Set<string>();

  constructor(private readonly keep = 10000) {}

  /** True the first time a fill (orderId + fill or trade id) is seen; fills without an id always count. */
  firstSight(orderId: string, fillId: string | undefined): boolean {
    if (fillId === undefined || fillId === '') return true;
    const key = `${orderId}:${fillId}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > this.keep) {
      const oldest = this.seen.values().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
    return true;
  }
}
