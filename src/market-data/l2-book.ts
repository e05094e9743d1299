/**
 * An L2 order book rebuilt from recorded `snapshot` and `book` events (format v2): price level ->
 * quantity per side, keyed by the price's exact decimal string as the venue sent it (a venue sends
 * one spelling per price: Binance always pads to its price precision). The best levels are found
 * by a scan, which is fine for the importer and inspection (they ask at a few moments), not for a
 * per-event hot path.
 */
import { compareDecimalStrings } from '../core/decimal';
import type { Level } from './format';

/** Is a decimal quantity string zero ("0", "0.000")? */
export function isZeroQty(q: string): boolean {
  for (let i = 0; i < q.length; i++) {
    const c = q.charCodeAt(i);
    if (c !== 48 && c !== 46) return false;
  }
  return true;
}

export class L2Book {
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();
  /** Final update id of the last message applied. */
  lastUpdateId = 0;

  /** Replaces the whole book. */
  reset(bids: readonly Level[], asks: readonly Level[], updateId: number): void {
    this.bids.clear();
    this.asks.clear();
    for (const [p, q] of bids) if (!isZeroQty(q)) this.bids.set(p, q);
    for (const [p, q] of asks) if (!isZeroQty(q)) this.asks.set(p, q);
    this.lastUpdateId = updateId;
  }

  /** Applies one delta message: each level set to its quantity, or removed when it is zero. */
  apply(bids: readonly Level[], asks: readonly Level[], updateId: number): void {
    for (const [p, q] of bids) {
      if (isZeroQty(q)) this.bids.delete(p);
      else this.bids.set(p, q);
    }
    for (const [p, q] of asks) {
      if (isZeroQty(q)) this.asks.delete(p);
      else this.asks.set(p, q);
    }
    this.lastUpdateId = updateId;
  }

  /** Best bid and ask levels (undefined for an empty side). */
  top(): { bid: Level | undefined; ask: Level | undefined } {
    let bid: string | undefined;
    for (const p of this.bids.keys()) if (bid === undefined || compareDecimalStrings(p, bid) > 0) bid = p;
    let ask: string | undefined;
    for (const p of this.asks.keys()) if (ask === undefined || compareDecimalStrings(p, ask) < 0) ask = p;
    return {
      bid: bid === undefined ? undefined : [bid, this.bids.get(bid) as string],
      ask: ask === undefined ? undefined : [ask, this.asks.get(ask) as string],
    };
  }

  /** Both sides, best first (for a snapshot). */
  levels(): { bids: Level[]; asks: Level[] } {
    const bids = [...this.bids.entries()].sort((a, b) => compareDecimalStrings(b[0], a[0]));
    const asks = [...this.asks.entries()].sort((a, b) => compareDecimalStrings(a[0], b[0]));
    return { bids, asks };
  }
}
