import { compareDecimalStrings } from '../../core/decimal';

/** Best resting bid and ask of the participant, from its order events (for the tape shortcut). */
export class RestingOrders {
  private readonly orders = new Map<string, { buy: boolean; price: string; symbol: string }>();
  /** Best bid and ask per symbol as decimal strings; undefined when that side has no order. */
  private best = new Map<string, { bid: string | undefined; ask: string | undefined }>();
  private dirty = false;

  onOrder(o: { orderId: string; symbol: string; side: string; price: string; status: string; type: string }): void {
    const open = o.status === 'NEW' || o.status === 'PARTIALLY_FILLED';
    if (open && o.type === 'LIMIT') this.orders.set(o.orderId, { buy: o.side === 'BUY', price: o.price, symbol: o.symbol });
    else if (!this.orders.delete(o.orderId)) return;
    this.dirty = true;
    this.version++;
  }

  /** Changes whenever the resting orders do. */
  version = 0;

  /** Could a trade at `priceText` on `symbol` fill one of the participant's orders? Exact decimal comparison. */
  reaches(symbol: string, priceText: string): boolean {
    if (this.orders.size === 0) return false;
    // Consecutive trades mostly repeat a price (the cache hands out the same string) while the
    // participant's orders stay put: reuse the last answer then.
    if (!this.dirty && priceText === this.lastPriceText && symbol === this.lastSymbol) return this.lastAnswer;
    if (this.dirty) this.recompute();
    const b = this.best.get(symbol);
    const answer = b !== undefined && ((b.bid !== undefined && compareDecimalStrings(b.bid, priceText) >= 0) || (b.ask !== undefined && compareDecimalStrings(b.ask, priceText) <= 0));
    this.lastPriceText = priceText;
    this.lastSymbol = symbol;
    this.lastAnswer = answer;
    return answer;
  }

  private lastPriceText = '';
  private lastSymbol = '';
  private lastAnswer = false;

  /** The participant's best bid and ask on `symbol` (decimal strings), undefined where none. */
  bestOf(symbol: string): { bid: string | undefined; ask: string | undefined } {
    if (this.dirty) this.recompute();
    const b = this.best.get(symbol);
    return { bid: b?.bid, ask: b?.ask };
  }

  private recompute(): void {
    // `bestOf` recomputes too: the answer `reaches` kept is of the orders before.
    this.lastSymbol = '';
    this.best = new Map();
    for (const o of this.orders.values()) {
      let b = this.best.get(o.symbol);
      if (!b) {
        b = { bid: undefined, ask: undefined };
        this.best.set(o.symbol, b);
      }
      if (o.buy) {
        if (b.bid === undefined || compareDecimalStrings(o.price, b.bid) > 0) b.bid = o.price;
      } else if (b.ask === undefined || compareDecimalStrings(o.price, b.ask) < 0) b.ask = o.price;
    }
    this.dirty = false;
  }
}
