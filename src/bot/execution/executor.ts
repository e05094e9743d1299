/**
 * The order executor: turns the intents of one tick into as few venue calls as possible
 * (batch-place, batch-cancel, batch-move, place-strategy for brackets), cancels first, and tracks
 * every order through the OrderTracker's table. A call whose outcome is unknown is never resent:
 * its orders are settled by querying the venue by clientOrderId. After a stream reconnect or gap
 * nothing new is sent until open orders and positions have been reconciled from REST.
 */
import type { Clock, Scheduler } from '../../core/clock';
import type { OrderStatus } from '../../core/enums';
import { ErrorCodes } from '../../core/errors';
import type { OrderRecord, TradeRecord } from '../../protocol/records';
import type { BatchResult } from '../../protocol/rest/common';
import type { PlaceOrderParams } from '../../protocol/rest/orders';
import type { EventBus } from '../bus/event-bus';
import type { StateCache } from '../state/cache';
import type { Intent } from '../strategy/intents';
import type { Venue } from '../venue/venue';
import { ClientIdAllocator } from './client-ids';
import { OrderTracker, type LocalState, type TrackerInput } from './order-tracker';
import { venueCodeOf } from './refusals';
import { OwedFills } from './owed-fills';
import { BATCH_LIMIT, bracketSubOrders, chunks, placeParams, planTick, type AmendItem, type PlannedCancel, type PlannedPlace, type Queued } from './tick-plan';

/** Orders made final by a REST answer kept for reconciliation until the stream confirms them. */
const MAX_UNCONFIRMED = 1000;
/** The longest wait between two rounds of queries of an order whose fate the venue has not told (the venue down). */
const SETTLE_AGAIN_MAX_MS = 30_000;
/**
 * How long the stream gets to bring the end of an order the venue called final in answer to an
 * amend (30007) before the order is asked for: the end is normally on its way (a quote filled as
 * the bot requoted), but a silent stream never brings it.
 */
export const LATE_END_GRACE_MS = 1000;
const VENUE_STATUSES: ReadonlySet<string> = new Set<OrderStatus>(['NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED', 'EXPIRED']);
const isVenueStatus = (i: TrackerInput): i is OrderStatus => VENUE_STATUSES.has(i);

export interface ExecutorOptions {
  venue: Venue;
  bus: EventBus;
  cache: StateCache;
  tracker: OrderTracker;
  clientIds: ClientIdAllocator;
  clock: Clock;
  scheduler: Scheduler;
  /** Queries made to settle an unknown outcome before concluding the order was not placed. */
  unknownRetries?: number;
  unknownRetryDelayMs?: number;
  /** A failure the executor recovers from; `level` when it is not the error's own (warn: a retryable one). */
  onError?: (error: unknown, context: string, level?: 'error' | 'warn') => void;
  /**
   * Fills of an order that a query showed and the stream had not delivered (it was down, or is
   * late): the venue's trade records of the order, for the bot to publish those it has not seen.
   */
  onFillsFound?: (order: OrderRecord, fills: TradeRecord[], strategyId: string) => void;
  /**
   * The venue said something the stream should have told first (an order ended): local state is
   * stale, and the bot reconciles (orders, their fills, positions). Without it, the order is
   * only queried.
   */
  onStaleView?: (reason: string) => void;
}

export class OrderExecutor {
  private readonly queue: Queued[] = [];
  private running: Promise<void> | undefined;
  private reconciling: Promise<void> | undefined;
  private readonly o: Required<Omit<ExecutorOptions, 'onError' | 'onFillsFound' | 'onStaleView'>> & Pick<ExecutorOptions, 'onFillsFound' | 'onStaleView'> & { onError: (error: unknown, context: string, level?: 'error' | 'warn') => void };
  /** Calls in flight, so a stop can wait for them. */
  private inFlight = 0;
  /**
   * Bracket intents that passed the risk engine but are not in the tracker yet (queued for this
   * tick, or waiting behind the tick's cancels). The risk engine counts them: otherwise one tick
   * could pass N orders against a limit of N - 1 (max open orders, max position). Placements are
   * tracked when queued.
   */
  private readonly untracked: Intent[] = [];
  /** Placements tracked but not sent yet: the venue cannot know them, so no query is made. */
  private readonly unsent = new Set<string>();
  /** Orders with a cancel request in flight: a venue answer of NEW then is not a failed cancel. */
  private readonly cancelling = new Set<string>();
  /**
   * Orders made final by a REST answer (a cancel, a placement's or amendment's status) that the
   * stream has not confirmed with the order's record. Such an answer carries no fills: if the
   * stream was down, fills made before the end are known only to the venue, and reconciliation
   * asks for these orders as well as the live ones. Oldest first, bounded.
   */
  private readonly unconfirmedFinals = new Set<string>();
  /** Orders the venue called final in answer to an amend, waiting for the stream to say so. */
  private readonly endedAtVenue = new Set<string>();
  /**
   * Orders whose settle had no answer from the venue (every query failed: the venue down or
   * refusing the account): asked again later, with the rounds so far and the cancel of the timer.
   * A 30 s outage left such orders UNKNOWN for good, and a market maker quoted that side no more.
   */
  private readonly settleAgain = new Map<string, { rounds: number; cancel: () => void }>();
  private closed = false;
  /** Fills a query showed that the stream may not have delivered, fetched until answered (owed-fills.ts). */
  private readonly owedFills = new OwedFills({
    fetch: (o) => this.call('order-fills', () => this.o.venue.orderFills(o.symbol, o.orderId)),
    found: (o, fills, strategyId) => this.o.onFillsFound?.(o, fills, strategyId),
    onError: (e, context) => this.o.onError(e, context),
    sleep: (ms) => this.sleep(ms),
  });

  constructor(opts: ExecutorOptions) {
    this.o = {
      unknownRetries: 5,
      unknownRetryDelayMs: 300,
      onError: () => undefined,
      ...opts,
    };
  }

  get tracker(): OrderTracker {
    return this.o.tracker;
  }

  /**
   * Adds an intent (already passed by the risk engine) to the current tick. A placement is
   * tracked at once, as PENDING_NEW under the clientOrderId it will be sent with: the strategy's
   * `myOrders` must show what it has asked for even while nothing can be sent (during a
   * reconciliation, sends wait), or it asks again on every event and each ask becomes one more
   * working order once the sends resume (issue 12: 198 quotes of a two-quote market maker).
   */
  enqueue(strategyId: string, intent: Intent): void {
    if (intent.kind === 'place') {
      const cid = this.o.clientIds.next(strategyId);
      this.o.tracker.add({
        clientOrderId: cid,
        strategyId,
        symbol: intent.symbol,
        side: intent.side,
        price: intent.price ?? '0',
        quantity: intent.quantity,
        executedQty: '0',
        state: 'PENDING_NEW',
        orderId: '',
        tag: intent.tag,
        reduceOnly: intent.reduceOnly ?? false,
        sentAt: this.now(),
        updatedAt: this.now(),
      });
      this.unsent.add(cid);
      this.queue.push({ strategyId, intent, cid });
      return;
    }
    this.queue.push({ strategyId, intent });
    if (intent.kind === 'bracket') this.untracked.push(intent);
  }

  /** Orders passed by risk and not tracked yet; see `untracked`. */
  get pendingOrders(): readonly Intent[] {
    return this.untracked;
  }

  /** The intent is in the tracker now (or never will be): stop counting it as pending. */
  private tracked(intent: Intent): void {
    const k = this.untracked.indexOf(intent);
    if (k >= 0) this.untracked.splice(k, 1);
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Sends everything queued; resolves when the calls (and any resolution of unknowns) are done. */
  flush(): Promise<void> {
    if (!this.running) {
      this.running = this.drain().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  /** Resolves once nothing is queued or in flight. */
  async idle(): Promise<void> {
    while (this.running || this.queue.length > 0 || this.reconciling) {
      if (this.reconciling) await this.reconciling;
      await this.flush();
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      if (this.reconciling) await this.reconciling;
      const batch = this.queue.splice(0, this.queue.length);
      await this.send(batch);
    }
  }

  private async send(items: Queued[]): Promise<void> {
    const plan = planTick(items, this.o.tracker, this.unsent, this.endedAtVenue);
    for (const r of plan.refusals) this.publishRejection(r.strategyId, r.intent, r.code, r.message);
    for (const cid of plan.withdrawn) {
      this.unsent.delete(cid);
      this.apply(cid, 'CANCELED');
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

  private async call<T>(_context: string, fn: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await fn();
    } finally {
      this.inFlight--;
    }
  }

  private now(): number {
    return this.o.clock.now();
  }

  /**
   * One input through the tracker's table. An illegal one is published and the venue asked; when
   * the input is itself the venue's answer to a query, the answer is the truth and the tracker
   * takes it (asking again would only get the same answer, forever).
   */
  private apply(cid: string, input: TrackerInput, fromQuery = false): void {
    const r = this.o.tracker.transition(cid, input, this.now());
    if (r && !r.applied) {
      this.o.bus.publish({ type: 'illegalTransition', time: this.now(), clientOrderId: cid, from: r.from, input: r.input });
      if (fromQuery && isVenueStatus(input)) this.o.tracker.resync(cid, input, this.now());
      else void this.settle(cid);
    }
  }

  /** `apply` for a REST answer: a final state reached this way waits for the order's record. */
  private applyAnswer(cid: string, input: TrackerInput): void {
    this.apply(cid, input);
    const t = this.o.tracker.get(cid);
    if (t === undefined || !OrderTracker.isFinal(t.state) || t.state === 'REJECTED') return;
    this.unconfirmedFinals.add(cid);
    if (this.unconfirmedFinals.size > MAX_UNCONFIRMED) {
      const oldest = this.unconfirmedFinals.values().next();
      if (oldest.done !== true) this.unconfirmedFinals.delete(oldest.value);
    }
  }

  private publishRejection(strategyId: string, intent: Intent, code: number, message: string): void {
    this.o.bus.publish({ type: 'rejection', time: this.now(), strategyId, intent, code, message });
  }

  private async sendPlaces(chunk: PlannedPlace[]): Promise<void> {
    const orders: PlaceOrderParams[] = chunk.map(({ intent: i, cid }) => {
      this.unsent.delete(cid);
      const t = this.o.tracker.get(cid);
      if (t) t.sentAt = this.now();
      return placeParams(i, cid);
    });
    let result: BatchResult;
    try {
      result = await this.call('batch-place', () => this.o.venue.placeOrders(orders));
    } catch (e) {
      // No answer: the orders may or may not exist. Never resend; ask the venue (settle reports a query that fails).
      this.o.onError(e, 'batch-place', 'warn');
      for (const p of orders) this.apply(p.clientOrderId as string, 'unknown');
      await Promise.all(orders.map((p) => this.settle(p.clientOrderId as string)));
      return;
    }
    result.results.forEach((r, idx) => {
      const cid = orders[idx].clientOrderId as string;
      const t = this.o.tracker.get(cid);
      if (r.success) {
        if (t && t.orderId === '') t.orderId = r.orderId;
        this.applyAnswer(cid, r.status as OrderStatus);
      } else {
        this.apply(cid, 'refused');
        this.publishRejection(chunk[idx].strategyId, chunk[idx].intent, r.code, r.message);
      }
    });
  }

  private async sendCancels(chunk: PlannedCancel[]): Promise<void> {
    const refs = chunk.flatMap(({ cid }) => {
      const t = this.o.tracker.get(cid);
      if (!t || OrderTracker.isFinal(t.state)) return [];
      this.apply(cid, 'cancelSent');
      return [{ symbol: t.symbol, clientOrderId: cid }];
    });
    if (refs.length === 0) return;
    let result: BatchResult;
    for (const r of refs) this.cancelling.add(r.clientOrderId);
    try {
      result = await this.call('batch-cancel', () => this.o.venue.cancelOrders(refs));
    } catch (e) {
      this.o.onError(e, 'batch-cancel');
      for (const r of refs) this.cancelling.delete(r.clientOrderId);
      // The query says whether the cancel took effect: an order still open is working again.
      await Promise.all(refs.map((r) => this.settle(r.clientOrderId)));
      return;
    }
    for (const r of refs) this.cancelling.delete(r.clientOrderId);
    result.results.forEach((r, idx) => {
      const cid = refs[idx].clientOrderId;
      if (r.success) this.applyAnswer(cid, 'CANCELED');
      else {
        this.apply(cid, 'cancelFailed');
        void this.settle(cid);
      }
    });
  }

  private async sendAmends(symbol: string, chunk: AmendItem[]): Promise<void> {
    let result: BatchResult;
    try {
      result = await this.call('batch-move', () => this.o.venue.amendOrders(symbol, chunk.map((c) => ({ orderId: c.orderId, price: c.price, quantity: c.quantity }))));
    } catch (e) {
      this.o.onError(e, 'batch-move');
      await Promise.all(chunk.map((c) => this.settle(c.cid)));
      return;
    }
    result.results.forEach((r, idx) => {
      const c = chunk[idx];
      const t = this.o.tracker.get(c.cid);
      if (r.success) {
        if (t) {
          t.price = c.price;
          t.quantity = c.quantity;
        }
        if (r.status !== '') this.applyAnswer(c.cid, r.status as OrderStatus);
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
    this.o.scheduler.after(LATE_END_GRACE_MS, () => {
      this.endedAtVenue.delete(cid);
      const t = this.o.tracker.get(cid);
      if (t === undefined || OrderTracker.isFinal(t.state)) return;
      if (this.o.onStaleView) this.o.onStaleView(`order ${orderId} ended at the venue (an amend was refused with 30007) and the stream has not said so in ${LATE_END_GRACE_MS} ms`);
      else void this.settle(cid);
    });
  }

  private async sendOther(q: Queued): Promise<void> {
    const i = q.intent;
    if (i.kind === 'bracket') return this.sendBracket(q.strategyId, i);
    try {
      if (i.kind === 'setLeverage') await this.call('leverage', () => this.o.venue.setLeverage(i.symbol, i.leverage));
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
    if (code === undefined || code === ErrorCodes.INTERNAL || code === ErrorCodes.BUSY) this.o.onError(e, i.kind);
    this.publishRejection(strategyId, i, code ?? 0, e instanceof Error ? e.message : String(e));
  }

  private async sendBracket(strategyId: string, i: Extract<Intent, { kind: 'bracket' }>): Promise<void> {
    const base = this.o.clientIds.next(strategyId);
    const subs = bracketSubOrders(base, i);
    this.tracked(i);
    // Only the entry is tracked now: the take-profit and stop-loss exist only once the venue
    // places them (after the entry fills) and are adopted from the stream by their prefix. A
    // pre-tracked take-profit would stay pending forever when the entry is cancelled.
    for (const s of [subs[0]]) {
      this.o.tracker.add({
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
        sentAt: this.now(),
        updatedAt: this.now(),
      });
    }
    try {
      await this.call('place-strategy', () => this.o.venue.placeStrategy({ strategyType: 'OTOCO', subOrderList: subs }));
    } catch (e) {
      if (venueCodeOf(e) === undefined) {
        // No answer (or one the SDK could not settle): the bracket may exist on the venue. It is
        // neither refused nor sent again; its entry is asked for by its client id, as a placement
        // without an answer is (its exits are adopted from the stream once the entry fills).
        this.o.onError(e, i.kind, 'warn');
        this.apply(`${base}e`, 'unknown');
        await this.settle(`${base}e`);
        return;
      }
      this.apply(`${base}e`, 'refused');
      this.refusedOrFailed(strategyId, i, e);
    }
  }

  /**
   * An order update from the stream (or a query). Tracks it, adopting orders of our strategies
   * the tracker does not know (placed by a condition, a bracket, or before a restart).
   */
  onOrderUpdate(o: OrderRecord, strategyOf: (cid: string) => string | undefined, fromQuery = false): void {
    let t = this.o.tracker.get(o.clientOrderId);
    if (!t) {
      const sid = strategyOf(o.clientOrderId);
      if (sid === undefined) return;
      this.o.tracker.add({
        clientOrderId: o.clientOrderId,
        strategyId: sid,
        symbol: o.symbol,
        side: o.side,
        price: o.price,
        quantity: o.quantity,
        executedQty: o.executedQty,
        state: 'UNKNOWN',
        orderId: o.orderId,
        tag: undefined,
        reduceOnly: o.reduceOnly || o.closePosition,
        sentAt: o.createdAt,
        updatedAt: o.updateTime,
      });
      t = this.o.tracker.get(o.clientOrderId);
    }
    if (!t) return;
    if (t.orderId === '') t.orderId = o.orderId;
    const known = Number(t.executedQty);
    if (Number(o.executedQty) >= known) t.executedQty = o.executedQty;
    t.quantity = o.quantity;
    if (o.price !== '0') t.price = o.price;
    if (OrderTracker.isFinal(o.status as LocalState)) this.unconfirmedFinals.delete(o.clientOrderId);
    // A queried order still open while the tracker waits on a cancel no longer in flight: that
    // cancel failed or never arrived, and the order is working again (else it stays
    // PENDING_CANCEL forever, never cancelled again, and the strategy quotes beside it).
    if (fromQuery && t.state === 'PENDING_CANCEL' && (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') && !this.cancelling.has(o.clientOrderId)) {
      this.apply(o.clientOrderId, 'cancelFailed');
    }
    this.apply(o.clientOrderId, o.status, fromQuery);
    if (fromQuery && Number(o.executedQty) > known && this.o.onFillsFound) void this.owedFills.fetch(o, t.strategyId);
  }

  /** Settles one order from the venue's answer, with bounded retries while it is not found. */
  async settle(cid: string): Promise<void> {
    const t = this.o.tracker.get(cid);
    if (!t) return;
    for (let attempt = 0; attempt <= this.o.unknownRetries; attempt++) {
      let rec: OrderRecord | undefined;
      try {
        rec = await this.call('query', () => this.o.venue.queryOrder({ symbol: t.symbol, clientOrderId: cid }));
      } catch (e) {
        this.o.onError(e, 'query');
        rec = undefined;
        if (attempt === this.o.unknownRetries) {
          this.settleLater(cid);
          return;
        }
        await this.sleep(this.o.unknownRetryDelayMs * (attempt + 1));
        continue;
      }
      this.settleAgain.delete(cid);
      if (rec) {
        this.o.cache.applyOrder(rec);
        this.onOrderUpdate(rec, () => t.strategyId, true);
        return;
      }
      if (attempt < this.o.unknownRetries) await this.sleep(this.o.unknownRetryDelayMs * (attempt + 1));
    }
    // Asked enough times: the venue has no such order, so it was never placed (an order already
    // final here has nothing left to learn).
    this.unconfirmedFinals.delete(cid);
    if (OrderTracker.isFinal(t.state)) return;
    // An order the venue had acknowledged (it gave an id) and no longer knows: the venue lost it
    // (a local exchange restarted without its data directory), not an order never placed.
    if (t.orderId !== '') {
      this.o.onError(new Error(`order ${cid} (venue id ${t.orderId}, ${t.state}, ${t.executedQty} of ${t.quantity} filled) is unknown to the venue now: it lost the order (restarted without its data?); taken as ended with no further fills`), 'reconcile', 'warn');
    }
    this.apply(cid, 'notFound');
  }

  /**
   * The venue answered none of a settle's queries: the order may be working, filled or never
   * placed. Asks again after a wait that doubles each round (to SETTLE_AGAIN_MAX_MS), for as long
   * as the order is not final and the queries fail; said at warn at the first round.
   */
  private settleLater(cid: string): void {
    if (this.closed) return;
    const before = this.settleAgain.get(cid);
    before?.cancel();
    const rounds = (before?.rounds ?? 0) + 1;
    const delay = Math.min(SETTLE_AGAIN_MAX_MS, this.o.unknownRetryDelayMs * (this.o.unknownRetries + 1) * 2 ** Math.min(rounds - 1, 10));
    if (rounds === 1) {
      this.o.onError(new Error(`order ${cid}: the venue answered none of ${this.o.unknownRetries + 1} queries of it, so whether it works, filled or was never placed is unknown; asked again until the venue answers (every ${Math.round(delay / 1000)} s at first, at most every ${SETTLE_AGAIN_MAX_MS / 1000} s)`), 'query', 'warn');
    }
    const cancel = this.o.scheduler.after(delay, () => {
      const t = this.o.tracker.get(cid);
      if (this.closed || t === undefined || OrderTracker.isFinal(t.state)) {
        this.settleAgain.delete(cid);
        return;
      }
      void this.settle(cid);
    });
    this.settleAgain.set(cid, { rounds, cancel });
  }

  /** The bot stopped: no order is asked about again. */
  close(): void {
    this.closed = true;
    for (const s of this.settleAgain.values()) s.cancel();
    this.settleAgain.clear();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.o.scheduler.after(ms, resolve);
    });
  }

  /**
   * Brings local state back in line with the venue: open orders and positions over REST, the
   * fate of every live tracked order the venue no longer lists, adoption of our orders it does.
   * New sends wait until this is done.
   */
  reconcile(reason: string, strategyOf: (cid: string) => string | undefined, strict = false): Promise<void> {
    if (this.reconciling) return this.reconciling;
    this.reconciling = this.doReconcile(reason, strategyOf, strict).finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  /** `strict`: a failed read of the venue is thrown (the start's, start-reconcile.ts), not only reported. */
  private async doReconcile(reason: string, strategyOf: (cid: string) => string | undefined, strict: boolean): Promise<void> {
    let open: OrderRecord[];
    try {
      open = await this.call('open-orders', () => this.o.venue.openOrders());
      const positions = await this.call('positions', () => this.o.venue.positions());
      this.o.cache.replacePositions(positions);
      for (const p of positions) this.o.bus.publish({ type: 'position', time: this.now(), position: p, source: 'poll' });
    } catch (e) {
      if (strict) throw e;
      this.o.onError(e, 'reconcile');
      return;
    }
    this.o.cache.replaceOpenOrders(open);
    const openIds = new Set(open.map((o) => o.clientOrderId));
    let adopted = 0;
    let corrected = 0;
    const revived: OrderRecord[] = [];
    for (const o of open) {
      const held = this.o.tracker.get(o.clientOrderId);
      // An order of ours the bot saw end, working at the venue again (a venue restored from an
      // older state): no strategy manages it now, and a final order never reopens in the
      // tracker. It worked on unmanaged until it filled; it is cancelled.
      if (held !== undefined && OrderTracker.isFinal(held.state) && strategyOf(o.clientOrderId) !== undefined) {
        revived.push(o);
        continue;
      }
      if (!held && strategyOf(o.clientOrderId) !== undefined) adopted++;
      const before = this.o.tracker.get(o.clientOrderId)?.state;
      this.onOrderUpdate(o, strategyOf, true);
      if (before !== undefined && before !== this.o.tracker.get(o.clientOrderId)?.state) corrected++;
    }
    // Live orders the venue no longer lists, and orders made final by a REST answer the stream
    // never confirmed (their fills may be lost), are asked for one by one. Placements not sent
    // yet are not on the venue by construction.
    const gone = this.o.tracker.live().filter((t) => !openIds.has(t.clientOrderId) && !this.unsent.has(t.clientOrderId));
    for (const cid of this.unconfirmedFinals) {
      const t = this.o.tracker.get(cid);
      if (t === undefined) this.unconfirmedFinals.delete(cid);
      else if (!openIds.has(cid)) gone.push(t);
    }
    for (const t of gone) {
      const before = t.state;
      const filled = t.executedQty;
      await this.settle(t.clientOrderId);
      const after = this.o.tracker.get(t.clientOrderId);
      if (after?.state !== before || after.executedQty !== filled) corrected++;
    }
    // Fills owed since an earlier fetch failed: asked again now that the venue answers.
    this.owedFills.retry();
    const back = await this.cancelRevived(revived);
    this.o.bus.publish({ type: 'reconciled', time: this.now(), reason, adopted, corrected, ...(back.revived.length > 0 ? back : {}) });
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
        const result = await this.call('batch-cancel', () => this.o.venue.cancelOrders(chunk.map((o) => ({ symbol: o.symbol, clientOrderId: o.clientOrderId }))));
        for (const r of result.results) {
          if (!r.success && (r.code === ErrorCodes.ORDER_FINAL || r.code === ErrorCodes.ORDER_NOT_FOUND)) continue;
          revived.push(chunk[r.index].clientOrderId);
          if (r.success) cancelled++;
        }
      } catch (e) {
        revived.push(...chunk.map((o) => o.clientOrderId));
        this.o.onError(e, 'cancel of orders the venue listed working after they had ended');
      }
    }
    return { revived, cancelled };
  }

  get callsInFlight(): number {
    return this.inFlight;
  }
}
