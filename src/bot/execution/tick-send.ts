/**
 * One tick's calls to the venue: the tick's plan (tick-plan.ts) sent as batch-cancel first, then
 * batch-place, batch-move, place-strategy for brackets and the other calls side by side, and the
 * venue's answers taken into the tracker through the executor (executor.ts). A refused item is a
 * rejection under the venue's code; a call without an answer is never resent: its orders are
 * settled by querying the venue.
 */
import type { Scheduler } from '../../core/clock';
import type { OrderStatus } from '../../core/enums';
import { ErrorCodes } from '../../core/errors';
import type { BatchResult } from '../../protocol/rest/common';
import type { PlaceOrderParams } from '../../protocol/rest/orders';
import type { EventBus } from '../bus/event-bus';
import type { Intent } from '../strategy/intents';
import type { Venue } from '../venue/venue';
import type { ClientIdAllocator } from './client-ids';
import { OrderTracker, type TrackerInput } from './order-tracker';
import { venueCodeOf } from './refusals';
import { BATCH_LIMIT, bracketSubOrders, chunks, placeParams, planTick, type AmendItem, type PlannedCancel, type PlannedPlace, type Queued } from './tick-plan';

/**
 * How long the stream gets to bring the end of an order the venue called final in answer to an
 * amend (30007) before the order is asked for: the end is normally on its way (a quote filled as
 * the bot requoted), but a silent stream never brings it.
 */
export const LATE_END_GRACE_MS = 1000;

/** What the sends need of the executor that owns them. */
export interface TickSendDeps {
  venue: Venue;
  bus: EventBus;
  tracker: OrderTracker;
  clientIds: ClientIdAllocator;
  scheduler: Scheduler;
  /** Placements tracked but not sent yet (the executor adds them as it queues them). */
  unsent: Set<string>;
  now(): number;
  /** A venue call, counted in flight. */
  call<T>(context: string, fn: () => Promise<T>): Promise<T>;
  /** One input through the tracker's table (an illegal one is published and the order asked for). */
  apply(cid: string, input: TrackerInput): void;
  /** `apply` for a REST answer: a final state reached this way waits for the order's record. */
  applyAnswer(cid: string, input: TrackerInput): void;
  /** Asks the venue for an order whose fate is unknown. */
  settle(cid: string): Promise<void>;
  /** A bracket intent is in the tracker now: no longer counted as pending. */
  tracked(intent: Intent): void;
  onError(error: unknown, context: string, level?: 'error' | 'warn'): void;
  /** See ExecutorOptions.onStaleView. */
  onStaleView?: (reason: string) => void;
}

export class TickSender {
  /** Orders with a cancel request in flight: a venue answer of NEW then is not a failed cancel. */
  private readonly cancelling = new Set<string>();
  /** Orders the venue called final in answer to an amend, waiting for the stream to say so. */
  private readonly endedAtVenue = new Set<string>();

  constructor(private readonly d: TickSendDeps) {}

  /** Is a cancel of this order in flight? */
  isCancelling(cid: string): boolean {
    return this.cancelling.has(cid);
  }

  /** Sends one tick's intents: cancels first, then the rest side by side. */
  async send(items: Queued[]): Promise<void> {
    const plan = planTick(items, this.d.tracker, this.d.unsent, this.endedAtVenue);
    for (const r of plan.refusals) this.publishRejection(r.strategyId, r.intent, r.code, r.message);
    for (const cid of plan.withdrawn) {
      this.d.unsent.delete(cid);
      this.d.apply(cid, 'CANCELED');
    }
    await Promise.all(chunks(plan.cancels, BATCH_LIMIT).map((chunk) => this.sendCancels(chunk)));
    const calls: Array<Promise<void>> = [];
    for (const chunk of chunks(plan.places, BATCH_LIMIT)) calls.push(this.sendPlaces(chunk));
    for (const [symbol, list] of plan.amends) {
      for (const chunk of chunks(list, BATCH_LIMIT)) calls.push(this.sendAmends(symbol, chunk));
    }
    for (const q of plan.others) calls.push(this.sendOther(q));
    await Promise.all(calls);
  }

  private publishRejection(strategyId: string, intent: Intent, code: number, message: string): void {
    this.d.bus.publish({ type: 'rejection', time: this.d.now(), strategyId, intent, code, message });
  }

  private async sendPlaces(chunk: PlannedPlace[]): Promise<void> {
    const orders: PlaceOrderParams[] = chunk.map(({ intent: i, cid }) => {
      this.d.unsent.delete(cid);
      const t = this.d.tracker.get(cid);
      if (t) t.sentAt = this.d.now();
      return placeParams(i, cid);
    });
    let result: BatchResult;
    try {
      result = await this.d.call('batch-place', () => this.d.venue.placeOrders(orders));
    } catch (e) {
      // No answer: the orders may or may not exist. Never resend; ask the venue (settle reports a query that fails).
      this.d.onError(e, 'batch-place', 'warn');
      for (const p of orders) this.d.apply(p.clientOrderId as string, 'unknown');
      await Promise.all(orders.map((p) => this.d.settle(p.clientOrderId as string)));
      return;
    }
    result.results.forEach((r, idx) => {
      const cid = orders[idx].clientOrderId as string;
      const t = this.d.tracker.get(cid);
      if (r.success) {
        if (t && t.orderId === '') t.orderId = r.orderId;
        this.d.applyAnswer(cid, r.status as OrderStatus);
      } else {
        this.d.apply(cid, 'refused');
        this.publishRejection(chunk[idx].strategyId, chunk[idx].intent, r.code, r.message);
      }
    });
  }

  private async sendCancels(chunk: PlannedCancel[]): Promise<void> {
    const refs = chunk.flatMap(({ cid }) => {
      const t = this.d.tracker.get(cid);
      if (!t || OrderTracker.isFinal(t.state)) return [];
      this.d.apply(cid, 'cancelSent');
      return [{ symbol: t.symbol, clientOrderId: cid }];
    });
    if (refs.length === 0) return;
    let result: BatchResult;
    for (const r of refs) this.cancelling.add(r.clientOrderId);
    try {
      result = await this.d.call('batch-cancel', () => this.d.venue.cancelOrders(refs));
    } catch (e) {
      this.d.onError(e, 'batch-cancel');
      for (const r of refs) this.cancelling.delete(r.clientOrderId);
      // The query says whether the cancel took effect: an order still open is working again.
      await Promise.all(refs.map((r) => this.d.settle(r.clientOrderId)));
      return;
    }
    for (const r of refs) this.cancelling.delete(r.clientOrderId);
    result.results.forEach((r, idx) => {
      const cid = refs[idx].clientOrderId;
      if (r.success) this.d.applyAnswer(cid, 'CANCELED');
      else {
        this.d.apply(cid, 'cancelFailed');
        void this.d.settle(cid);
      }
    });
  }

  private async sendAmends(symbol: string, chunk: AmendItem[]): Promise<void> {
    let result: BatchResult;
    try {
      result = await this.d.call('batch-move', () => this.d.venue.amendOrders(symbol, chunk.map((c) => ({ orderId: c.orderId, price: c.price, quantity: c.quantity }))));
    } catch (e) {
      this.d.onError(e, 'batch-move');
      await Promise.all(chunk.map((c) => this.d.settle(c.cid)));
      return;
    }
    result.results.forEach((r, idx) => {
      const c = chunk[idx];
      const t = this.d.tracker.get(c.cid);
      if (r.success) {
        if (t) {
          t.price = c.price;
          t.quantity = c.quantity;
        }
        if (r.status !== '') this.d.applyAnswer(c.cid, r.status as OrderStatus);
      } else {
        if (r.code === ErrorCodes.ORDER_FINAL) this.watchLateEnd(c.cid, c.orderId);
        this.publishRejection(c.strategyId, c.intent, r.code, r.message);
      }
    });
  }

  /**
   * The venue says an order has ended that the tracker holds live. The stream normally brings the
   * end at once; if it has not after LATE_END_GRACE_MS, the bot's view is stale (the stream is
   * silent or lost the event) and is reconciled: else a strategy that requotes on every mark
   * amends a filled order for as long as the stream is silent, and never learns of the fill nor
   * of the position it made (50 s and ~600 refused amends, live).
   */
  private watchLateEnd(cid: string, orderId: string): void {
    if (this.endedAtVenue.has(cid)) return;
    this.endedAtVenue.add(cid);
    this.d.scheduler.after(LATE_END_GRACE_MS, () => {
      this.endedAtVenue.delete(cid);
      const t = this.d.tracker.get(cid);
      if (t === undefined || OrderTracker.isFinal(t.state)) return;
      if (this.d.onStaleView) this.d.onStaleView(`order ${orderId} ended at the venue (an amend was refused with 30007) and the stream has not said so in ${LATE_END_GRACE_MS} ms`);
      else void this.d.settle(cid);
    });
  }

  private async sendOther(q: Queued): Promise<void> {
    const i = q.intent;
    if (i.kind === 'bracket') return this.sendBracket(q.strategyId, i);
    try {
      if (i.kind === 'setLeverage') await this.d.call('leverage', () => this.d.venue.setLeverage(i.symbol, i.leverage));
    } catch (e) {
      this.refusedOrFailed(q.strategyId, i, e);
    }
  }

  /**
   * A call that threw. The venue answered and refused (margin, a rule, its rate limit): a rejection
   * under the venue's code, as a refused item of a batch is. Without an answer (network, timeout,
   * an outcome that could not be settled, the venue's own failure) it is an error as well.
   */
  private refusedOrFailed(strategyId: string, i: Intent, e: unknown): void {
    const code = venueCodeOf(e);
    if (code === undefined || code === ErrorCodes.INTERNAL || code === ErrorCodes.BUSY) this.d.onError(e, i.kind);
    this.publishRejection(strategyId, i, code ?? 0, e instanceof Error ? e.message : String(e));
  }

  private async sendBracket(strategyId: string, i: Extract<Intent, { kind: 'bracket' }>): Promise<void> {
    const base = this.d.clientIds.next(strategyId);
    const subs = bracketSubOrders(base, i);
    this.d.tracked(i);
    // Only the entry is tracked now: the take-profit and stop-loss exist only once the venue
    // places them (after the entry fills) and are adopted from the stream by their prefix. A
    // pre-tracked take-profit would stay pending forever when the entry is cancelled.
    for (const s of [subs[0]]) {
      this.d.tracker.add({
        clientOrderId: s.clientOrderId as string,
        strategyId,
        symbol: i.symbol,
        side: s.side,
        price: s.price ?? '0',
        quantity: i.quantity,
        executedQty: '0',
        state: 'PENDING_NEW',
        orderId: '',
        tag: i.tag,
        reduceOnly: s.reduceOnly ?? false,
        sentAt: this.d.now(),
        updatedAt: this.d.now(),
      });
    }
    try {
      await this.d.call('place-strategy', () => this.d.venue.placeStrategy({ strategyType: 'OTOCO', subOrderList: subs }));
    } catch (e) {
      if (venueCodeOf(e) === undefined) {
        // No answer (or one the SDK could not settle): the bracket may exist on the venue. It is
        // neither refused nor sent again; its entry is asked for by its client id, as a placement
        // without an answer is (its exits are adopted from the stream once the entry fills).
        this.d.onError(e, i.kind, 'warn');
        this.d.apply(`${base}e`, 'unknown');
        await this.d.settle(`${base}e`);
        return;
      }
      this.d.apply(`${base}e`, 'refused');
      this.refusedOrFailed(strategyId, i, e);
    }
  }
}
