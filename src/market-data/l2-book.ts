/**
 * An L2 order book rebuilt from recorded `snapshot` and `book` events (format v2): price level ->
 * quantity per side, keyed by the price's exact decimal string as the venue sent it (a venue sends
 * one spelling per price: Binance always pads to its price precision). The best price of each
 * side is kept as levels change; only removing the best level costs a scan of that side.
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
  private bestBid: string | undefined;
  private bestAsk: string | undefined;
  /** The best level of a side was removed: find the new one at the next top(). */
  private bidStale = false;
  private askStale = false;

  /** Replaces the whole book. */
  reset(bids: readonly Level[], asks: readonly Level[], updateId: number): void {
    this.bids.clear();
    this.asks.clear();
    for (const [p, q] of bids) if (!isZeroQty(q)) this.bids.set(p, q);
    for (const [p, q] of asks) if (!isZeroQty(q)) this.asks.set(p, q);
    this.lastUpdateId = updateId;
    this.bidStale = true;
    this.askStale = true;
  }

  /** Applies one delta message: each level set to its quantity, or removed when it is zero. */
  apply(bids: readonly Level[], asks: readonly Level[], updateId: number): void {
    for (const [p, q] of bids) {
      if (isZeroQty(q)) {
        if (this.bids.delete(p) && p === this.bestBid) this.bidStale = true;
      } else {
        this.bids.set(p, q);
        if (!this.bidStale && (this.bestBid === undefined || compareDecimalStrings(p, this.bestBid) > 0)) this.bestBid = p;
      }
    }
    for (const [p, q] of asks) {
      if (isZeroQty(q)) {
        if (this.asks.delete(p) && p === this.bestAsk) this.askStale = true;
      } else {
        this.asks.set(p, q);
        if (!this.askStale && (this.bestAsk === undefined || compareDecimalStrings(p, this.bestAsk) < 0)) this.bestAsk = p;
      }
    }
    this.lastUpdateId = updateId;
  }

  /** Best bid and ask levels (undefined for an empty side). */
  top(): { bid: Level | undefined; ask: Level | undefined } {
    if (this.bidStale) {
      this.bestBid = undefined;
      for (const p of this.bids.keys()) if (this.bestBid === undefined || compareDecimalStrings(p, this.bestBid) > 0) this.bestBid = p;
      this.bidStale = false;
    }
    if (this.askStale) {
      this.bestAsk = undefined;
      for (const p of this.asks.keys()) if (this.bestAsk === undefined || compareDecimalStrings(p, this.bestAsk) < 0) this.bestAsk = p;
      this.askStale = false;
    }
    const bid = this.bestBid;
    const ask = this.bestAsk;
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
