/**
 * The trade records of orders whose query showed fills the stream may not have delivered. The
 * tracker has taken such an order's executed quantity already, so no later query shows these
 * fills as new: a fetch that fails is owed, asked again after FILL_RETRY_DELAYS_MS and then at
 * every reconciliation (`retry`) until it is answered (fills are published once each, by fill
 * id). Once they were lost: a 30 s outage of the trades endpoint left a strategy 5 fills short
 * for good.
 */
import type { OrderRecord, TradeRecord } from '../../protocol/records';

const FILL_RETRY_DELAYS_MS = [1000, 2000, 4000, 8000];

export interface OwedFillsDeps {
  /** The venue's trade records of the order (the executor's call, counted in flight). */
  fetch(o: OrderRecord): Promise<TradeRecord[]>;
  found(o: OrderRecord, fills: TradeRecord[], strategyId: string): void;
  onError(e: unknown, context: string): void;
  sleep(ms: number): Promise<void>;
}

export class OwedFills {
  /** Orders (by order id) whose trade records a query showed and no fetch has answered yet. */
  private readonly owed = new Map<string, { order: OrderRecord; strategyId: string }>();
  /** Orders whose fills are being fetched (one fetch and its retries at a time). */
  private readonly fetching = new Set<string>();

  constructor(private readonly d: OwedFillsDeps) {}

  /** Asks again for every order still owed (at a reconciliation: the venue answers again). */
  retry(): void {
    for (const { order, strategyId } of [...this.owed.values()]) void this.fetch(order, strategyId);
  }

  async fetch(o: OrderRecord, strategyId: string): Promise<void> {
    this.owed.set(o.orderId, { order: o, strategyId });
    if (this.fetching.has(o.orderId)) return;
    this.fetching.add(o.orderId);
    try {
      for (let attempt = 0; ; attempt++) {
        const owed = this.owed.get(o.orderId);
        if (owed === undefined) return;
        try {
          const fills = await this.d.fetch(owed.order);
          this.d.found(owed.order, fills, owed.strategyId);
          // A query that showed more fills meanwhile asked again: the loop fetches once more.
          if (this.owed.get(o.orderId) !== owed) continue;
          this.owed.delete(o.orderId);
          return;
        } catch (e) {
          const last = attempt === FILL_RETRY_DELAYS_MS.length;
          if (attempt === 0 || last) {
            this.d.onError(e, `order fills of ${o.symbol} order ${o.orderId} (${o.clientOrderId}): ${last ? 'still not fetched; asked again at each reconciliation' : 'asked again shortly'}`);
          }
          if (last) return;
          await this.d.sleep(FILL_RETRY_DELAYS_MS[attempt]);
        }
      }
    } finally {
      this.fetching.delete(o.orderId);
    }
  }
}
