/**
 * The executor's reconciliation (executor.ts): local state brought back in line with the venue
 * after a stream reconnect, a gap, a stale view or the start (start-reconcile.ts retries that
 * one). Open orders and positions are read over REST; our orders the venue lists are adopted or
 * corrected, live ones it no longer lists (and ones a REST answer made final that the stream never
 * confirmed) are asked for one by one, and ours it lists working after the bot saw them end are
 * cancelled. The executor sends nothing new while one runs.
 */
import { ErrorCodes } from '../../core/errors';
import type { OrderRecord } from '../../protocol/records';
import type { EventBus } from '../bus/event-bus';
import type { StateCache } from '../state/cache';
import type { Venue } from '../venue/venue';
import { OrderTracker } from './order-tracker';
import { BATCH_LIMIT, chunks } from './tick-plan';

/** What a reconciliation needs of the executor that owns it. */
export interface ReconcileDeps {
  venue: Venue;
  bus: EventBus;
  cache: StateCache;
  tracker: OrderTracker;
  /** Placements tracked but not sent yet: not on the venue by construction. */
  unsent: ReadonlySet<string>;
  /** Orders made final by a REST answer that the stream has not confirmed (the executor's). */
  unconfirmedFinals: Set<string>;
  now(): number;
  /** A venue call, counted in flight. */
  call<T>(context: string, fn: () => Promise<T>): Promise<T>;
  /** The executor's `onOrderUpdate`: tracks (or adopts) an order the venue showed. */
  onOrderUpdate(o: OrderRecord, strategyOf: (cid: string) => string | undefined, fromQuery: boolean): void;
  /** Asks the venue for one order. */
  settle(cid: string): Promise<void>;
  /** Fills owed since an earlier fetch failed: asked for again. */
  retryOwedFills(): void;
  onError(error: unknown, context: string): void;
}

export class Reconciler {
  private current: Promise<void> | undefined;

  constructor(private readonly d: ReconcileDeps) {}

  /** The reconciliation under way, if any. */
  get running(): Promise<void> | undefined {
    return this.current;
  }

  /** Starts one, or joins the one under way. */
  reconcile(reason: string, strategyOf: (cid: string) => string | undefined, strict: boolean): Promise<void> {
    if (this.current) return this.current;
    this.current = this.run(reason, strategyOf, strict).finally(() => {
      this.current = undefined;
    });
    return this.current;
  }

  /** `strict`: a failed read of the venue is thrown (the start's, start-reconcile.ts), not only reported. */
  private async run(reason: string, strategyOf: (cid: string) => string | undefined, strict: boolean): Promise<void> {
    let open: OrderRecord[];
    try {
      open = await this.d.call('open-orders', () => this.d.venue.openOrders());
      const positions = await this.d.call('positions', () => this.d.venue.positions());
      this.d.cache.replacePositions(positions);
      for (const p of positions) this.d.bus.publish({ type: 'position', time: this.d.now(), position: p, source: 'poll' });
    } catch (e) {
      if (strict) throw e;
      this.d.onError(e, 'reconcile');
      return;
    }
    this.d.cache.replaceOpenOrders(open);
    const openIds = new Set(open.map((o) => o.clientOrderId));
    let adopted = 0;
    let corrected = 0;
    const revived: OrderRecord[] = [];
    for (const o of open) {
      const held = this.d.tracker.get(o.clientOrderId);
      // An order of ours the bot saw end, working at the venue again (a venue restored from an
      // older state): no strategy manages it now, and a final order never reopens in the
      // tracker. It worked on unmanaged until it filled; it is cancelled.
      if (held !== undefined && OrderTracker.isFinal(held.state) && strategyOf(o.clientOrderId) !== undefined) {
        revived.push(o);
        continue;
      }
      if (!held && strategyOf(o.clientOrderId) !== undefined) adopted++;
      const before = this.d.tracker.get(o.clientOrderId)?.state;
      this.d.onOrderUpdate(o, strategyOf, true);
      if (before !== undefined && before !== this.d.tracker.get(o.clientOrderId)?.state) corrected++;
    }
    // Live orders the venue no longer lists, and orders made final by a REST answer the stream
    // never confirmed (their fills may be lost), are asked for one by one. Placements not sent
    // yet are not on the venue by construction.
    const gone = this.d.tracker.live().filter((t) => !openIds.has(t.clientOrderId) && !this.d.unsent.has(t.clientOrderId));
    for (const cid of this.d.unconfirmedFinals) {
      const t = this.d.tracker.get(cid);
      if (t === undefined) this.d.unconfirmedFinals.delete(cid);
      else if (!openIds.has(cid)) gone.push(t);
    }
    for (const t of gone) {
      const before = t.state;
      const filled = t.executedQty;
      await this.d.settle(t.clientOrderId);
      const after = this.d.tracker.get(t.clientOrderId);
      if (after?.state !== before || after.executedQty !== filled) corrected++;
    }
    // Fills owed since an earlier fetch failed: asked again now that the venue answers.
    this.d.retryOwedFills();
    const back = await this.cancelRevived(revived);
    this.d.bus.publish({ type: 'reconciled', time: this.d.now(), reason, adopted, corrected, ...(back.revived.length > 0 ? back : {}) });
  }

  /**
   * Cancels orders of ours the venue listed as working though the bot had seen them end. One the
   * venue answers is already final or unknown had ended by the time it was asked (the list was
   * read before an end the bot already had): not one that came back. A cancel that failed
   * otherwise is reported; the next reconciliation meets the order again.
   */
  private async cancelRevived(listed: OrderRecord[]): Promise<{ revived: string[]; cancelled: number }> {
    const revived: string[] = [];
    let cancelled = 0;
    for (const chunk of chunks(listed, BATCH_LIMIT)) {
      try {
        const result = await this.d.call('batch-cancel', () => this.d.venue.cancelOrders(chunk.map((o) => ({ symbol: o.symbol, clientOrderId: o.clientOrderId }))));
        for (const r of result.results) {
          if (!r.success && (r.code === ErrorCodes.ORDER_FINAL || r.code === ErrorCodes.ORDER_NOT_FOUND)) continue;
          revived.push(chunk[r.index].clientOrderId);
          if (r.success) cancelled++;
        }
      } catch (e) {
        revived.push(...chunk.map((o) => o.clientOrderId));
        this.d.onError(e, 'cancel of orders the venue listed working after they had ended');
      }
    }
    return { revived, cancelled };
  }
}
