/**
 * The order executor: turns the intents of one tick into as few venue calls as possible
 * (tick-plan.ts plans them, tick-send.ts sends them: cancels first, then batch-place, batch-move,
 * place-strategy for brackets), and tracks every order through the OrderTracker's table. A call
 * whose outcome is unknown is never resent: its orders are settled by querying the venue by
 * clientOrderId. After a stream reconnect or gap nothing new is sent until open orders and
 * positions have been reconciled from REST (reconcile.ts).
 */
import type { Clock, Scheduler } from '../../core/clock';
import type { OrderStatus } from '../../core/enums';
import type { OrderRecord, TradeRecord } from '../../protocol/records';
import type { EventBus } from '../bus/event-bus';
import type { StateCache } from '../state/cache';
import type { Intent } from '../strategy/intents';
import type { Venue } from '../venue/venue';
import { ClientIdAllocator } from './client-ids';
import { OrderTracker, type LocalState, type TrackerInput } from './order-tracker';
import { OwedFills } from './owed-fills';
import { Reconciler } from './reconcile';
import type { Queued } from './tick-plan';
import { TickSender } from './tick-send';

/** Orders made final by a REST answer kept for reconciliation until the stream confirms them. */
const MAX_UNCONFIRMED = 1000;
/** The longest wait between two rounds of queries of an order whose fate the venue has not told (the venue down). */
const SETTLE_AGAIN_MAX_MS = 30_000;
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
  /**
   * Orders made final by a REST answer (a cancel, a placement's or amendment's status) that the
   * stream has not confirmed with the order's record. Such an answer carries no fills: if the
   * stream was down, fills made before the end are known only to the venue, and reconciliation
   * asks for these orders as well as the live ones. Oldest first, bounded.
   */
  private readonly unconfirmedFinals = new Set<string>();
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
  /** The tick's calls and the venue's answers (tick-send.ts). */
  private readonly sender: TickSender;
  /** Reconciliations with the venue, one at a time (reconcile.ts). */
  private readonly reconciler: Reconciler;

  constructor(opts: ExecutorOptions) {
    this.o = {
      unknownRetries: 5,
      unknownRetryDelayMs: 300,
      onError: () => undefined,
      ...opts,
    };
    const call = <T>(context: string, fn: () => Promise<T>): Promise<T> => this.call(context, fn);
    const now = (): number => this.now();
    const settle = (cid: string): Promise<void> => this.settle(cid);
    const { venue, bus, cache, tracker, clientIds, scheduler } = this.o;
    this.sender = new TickSender({
      venue,
      bus,
      tracker,
      clientIds,
      scheduler,
      unsent: this.unsent,
      now,
      call,
      apply: (cid, input) => this.apply(cid, input),
      applyAnswer: (cid, input) => this.applyAnswer(cid, input),
      settle,
      tracked: (intent) => this.tracked(intent),
      onError: (e, context, level) => this.o.onError(e, context, level),
      onStaleView: this.o.onStaleView,
    });
    this.reconciler = new Reconciler({
      venue,
      bus,
      cache,
      tracker,
      unsent: this.unsent,
      unconfirmedFinals: this.unconfirmedFinals,
      now,
      call,
      onOrderUpdate: (o, strategyOf, fromQuery) => this.onOrderUpdate(o, strategyOf, fromQuery),
      settle,
      retryOwedFills: () => this.owedFills.retry(),
      onError: (e, context) => this.o.onError(e, context),
    });
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
    while (this.running || this.queue.length > 0 || this.reconciler.running) {
      const reconciling = this.reconciler.running;
      if (reconciling) await reconciling;
      await this.flush();
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const reconciling = this.reconciler.running;
      if (reconciling) await reconciling;
      const batch = this.queue.splice(0, this.queue.length);
      await this.sender.send(batch);
    }
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
    if (fromQuery && t.state === 'PENDING_CANCEL' && (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') && !this.sender.isCancelling(o.clientOrderId)) {
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
    return this.reconciler.reconcile(reason, strategyOf, strict);
  }

  get callsInFlight(): number {
    return this.inFlight;
  }
}
