/**
 * The recorded L2 book of one symbol in integers: price in ticks -> quantity in steps, per side.
 * Keyed by ticks, not by the venue's decimal strings, so "60000.0" from a depth diff and "60000"
 * from the replay cache's columns are one level. The best price of each side is kept as levels
 * change; only removing the best level costs a scan of that side.
 */
export const BIDS = 0;
export const ASKS = 1;
export type TickSide = 0 | 1;

export class TickBook {
  private readonly sides: [Map<number, number>, Map<number, number>] = [new Map(), new Map()];
  private readonly best: [number, number] = [NaN, NaN];
  private readonly stale: [boolean, boolean] = [false, false];

  /** Quantity at a price, 0 when there is no such level. */
  get(side: TickSide, ticks: number): number {
    return this.sides[side].get(ticks) ?? 0;
  }

  /** Sets a level's quantity; 0 removes it. */
  set(side: TickSide, ticks: number, steps: number): void {
    const m = this.sides[side];
    if (steps <= 0) {
      if (m.delete(ticks) && ticks === this.best[side]) this.stale[side] = true;
      return;
    }
    m.set(ticks, steps);
    if (this.stale[side]) return;
    const b = this.best[side];
    if (b !== b || (side === BIDS ? ticks > b : ticks < b)) this.best[side] = ticks;
  }

  clear(): void {
    for (const side of [BIDS, ASKS] as const) {
      this.sides[side].clear();
      this.best[side] = NaN;
      this.stale[side] = false;
    }
  }

  /** The best price of a side, undefined when it is empty. */
  bestOf(side: TickSide): number | undefined {
    if (this.stale[side]) {
      let b = NaN;
      for (const p of this.sides[side].keys()) if (b !== b || (side === BIDS ? p > b : p < b)) b = p;
      this.best[side] = b;
      this.stale[side] = false;
    }
    const b = this.best[side];
    return b === b ? b : undefined;
  }

  /** Prices of a side (any order). */
  prices(side: TickSide): IterableIterator<number> {
    return this.sides[side].keys();
  }
}
