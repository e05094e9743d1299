/**
 * Every order the bot sends, tracked through an exhaustive state-transition table. A transition
 * the table does not list is illegal: it is reported and NOT applied; the executor then asks the
 * venue for the truth (reconciliation). Duplicated or reordered stream events therefore never
 * move an order backwards.
 */
import type { OrderStatus } from '../../core/enums';

export const LOCAL_STATES = [
  'PENDING_NEW',
  'NEW',
  'PARTIALLY_FILLED',
  'PENDING_CANCEL',
  'FILLED',
  'CANCELED',
  'REJECTED',
  'EXPIRED',
  'UNKNOWN',
] as const;
export type LocalState = (typeof LOCAL_STATES)[number];

/**
 * Inputs: a venue status (stream, query or batch answer), or an executor action/outcome:
 * `refused` (the venue said no), `unknown` (sent, no answer), `notFound` (a query found nothing),
 * `cancelSent`, `cancelFailed` (the cancel was refused; the order's fate comes from the venue).
 */
export type TrackerInput = OrderStatus | 'refused' | 'unknown' | 'notFound' | 'cancelSent' | 'cancelFailed';

const FINAL: ReadonlySet<LocalState> = new Set(['FILLED', 'CANCELED', 'REJECTED', 'EXPIRED']);

type Row = Partial<Record<TrackerInput, LocalState>>;

/** The table. A missing cell is an illegal transition. */
export const TRANSITIONS: Readonly<Record<LocalState, Row>> = {
  PENDING_NEW: {
    NEW: 'NEW',
    PARTIALLY_FILLED: 'PARTIALLY_FILLED',
    FILLED: 'FILLED',
    CANCELED: 'CANCELED',
    EXPIRED: 'EXPIRED',
    REJECTED: 'REJECTED',
    refused: 'REJECTED',
    unknown: 'UNKNOWN',
    cancelSent: 'PENDING_CANCEL',
  },
  NEW: {
    NEW: 'NEW',
    PARTIALLY_FILLED: 'PARTIALLY_FILLED',
    FILLED: 'FILLED',
    CANCELED: 'CANCELED',
    EXPIRED: 'EXPIRED',
    REJECTED: 'REJECTED',
    cancelSent: 'PENDING_CANCEL',
    notFound: 'REJECTED',
  },
  PARTIALLY_FILLED: {
    PARTIALLY_FILLED: 'PARTIALLY_FILLED',
    FILLED: 'FILLED',
    CANCELED: 'CANCELED',
    EXPIRED: 'EXPIRED',
    cancelSent: 'PENDING_CANCEL',
  },
  PENDING_CANCEL: {
    // A fill may still land before the cancel; NEW is the late answer of the placement.
    NEW: 'PENDING_CANCEL',
    PARTIALLY_FILLED: 'PENDING_CANCEL',
    FILLED: 'FILLED',
    CANCELED: 'CANCELED',
    EXPIRED: 'EXPIRED',
    REJECTED: 'REJECTED',
    cancelSent: 'PENDING_CANCEL',
    cancelFailed: 'NEW',
    notFound: 'REJECTED',
  },
  // Final states absorb repeats of themselves (duplicate events) and late placement answers.
  FILLED: { FILLED: 'FILLED', NEW: 'FILLED', PARTIALLY_FILLED: 'FILLED', cancelFailed: 'FILLED' },
  CANCELED: { CANCELED: 'CANCELED', NEW: 'CANCELED', cancelFailed: 'CANCELED', cancelSent: 'CANCELED' },
  REJECTED: { REJECTED: 'REJECTED', refused: 'REJECTED', notFound: 'REJECTED' },
  EXPIRED: { EXPIRED: 'EXPIRED', NEW: 'EXPIRED', PARTIALLY_FILLED: 'EXPIRED', cancelFailed: 'EXPIRED', cancelSent: 'EXPIRED' },
  UNKNOWN: {
    NEW: 'NEW',
    PARTIALLY_FILLED: 'PARTIALLY_FILLED',
    FILLED: 'FILLED',
    CANCELED: 'CANCELED',
    EXPIRED: 'EXPIRED',
    REJECTED: 'REJECTED',
    notFound: 'REJECTED',
    unknown: 'UNKNOWN',
  },
};

export interface TrackedOrderView {
  readonly clientOrderId: string;
  readonly strategyId: string;
  readonly symbol: string;
  readonly side: 'BUY' | 'SELL';
  readonly price: string;
  readonly quantity: string;
  readonly executedQty: string;
  readonly state: LocalState;
  readonly orderId: string;
  readonly tag: string | undefined;
  readonly reduceOnly: boolean;
  readonly sentAt: number;
}

export interface TrackedOrder {
  clientOrderId: string;
  strategyId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  price: string;
  quantity: string;
  executedQty: string;
  state: LocalState;
  orderId: string;
  tag: string | undefined;
  reduceOnly: boolean;
  sentAt: number;
  updatedAt: number;
}

export type TransitionResult = { applied: true; from: LocalState; to: LocalState } | { applied: false; from: LocalState; input: TrackerInput };

export class OrderTracker {
  private readonly orders = new Map<string, TrackedOrder>();
  /**
   * The orders that are not final, kept apart: `live()` runs in several risk checks of every
   * intent, and scanning the up to `keepFinals` retained final orders there cost ~100 µs per
   * intent once 10,000 had accumulated (bench suite `latency`).
   */
  private readonly liveOrders = new Map<string, TrackedOrder>();
  /** Final orders are kept for a while for late events, then forgotten (memory stays flat). */
  private readonly finals: string[] = [];
  /** Index of the oldest entry of `finals` still kept (a queue without shifting the array). */
  private finalsHead = 0;
  private readonly keepFinals: number;

  constructor(keepFinals = 10000) {
    this.keepFinals = keepFinals;
  }

  add(o: TrackedOrder): void {
    if (this.orders.has(o.clientOrderId)) throw new Error(`clientOrderId ${o.clientOrderId} is already tracked`);
    this.orders.set(o.clientOrderId, o);
    if (!FINAL.has(o.state)) this.liveOrders.set(o.clientOrderId, o);
  }

  get(clientOrderId: string): TrackedOrder | undefined {
    return this.orders.get(clientOrderId);
  }

  /** Applies an input through the table. Illegal inputs change nothing. */
  transition(clientOrderId: string, input: TrackerInput, now: number): TransitionResult | undefined {
    const o = this.orders.get(clientOrderId);
    if (!o) return undefined;
    const to = TRANSITIONS[o.state][input];
    if (to === undefined) return { applied: false, from: o.state, input };
    const from = o.state;
    o.state = to;
    o.updatedAt = now;
    if (!FINAL.has(from) && FINAL.has(to)) {
      this.liveOrders.delete(clientOrderId);
      this.retire(clientOrderId);
    }
    return { applied: true, from, to };
  }

  /**
   * Sets an order to the venue's status where the table has no move to it: for the answer of a
   * query, which is the venue's truth (an order concluded never placed that the venue does hold,
   * a fill reported after a cancel). Keeps the live and final sets in step.
   */
  resync(clientOrderId: string, status: OrderStatus, now: number): void {
    const o = this.orders.get(clientOrderId);
    if (!o) return;
    const wasFinal = FINAL.has(o.state);
    o.state = status;
    o.updatedAt = now;
    if (!wasFinal && FINAL.has(status)) {
      this.liveOrders.delete(clientOrderId);
      this.retire(clientOrderId);
    } else if (wasFinal && !FINAL.has(status)) {
      this.liveOrders.set(clientOrderId, o);
    }
  }

  private retire(clientOrderId: string): void {
    this.finals.push(clientOrderId);
    while (this.finals.length - this.finalsHead > this.keepFinals) {
      const old = this.finals[this.finalsHead++];
      const o = this.orders.get(old);
      if (o && FINAL.has(o.state)) this.orders.delete(old);
    }
    // Drop the consumed head now and then, so the array does not grow without bound.
    if (this.finalsHead > 4096 && this.finalsHead * 2 > this.finals.length) {
      this.finals.splice(0, this.finalsHead);
      this.finalsHead = 0;
    }
  }

  /** Orders not final (including pending and unknown ones), optionally of one strategy/symbol. */
  live(strategyId?: string, symbol?: string): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    for (const o of this.liveOrders.values()) {
      if (strategyId !== undefined && o.strategyId !== strategyId) continue;
      if (symbol !== undefined && o.symbol !== symbol) continue;
      out.push(o);
    }
    return out;
  }

  /** Counts by state, for metrics. */
  countByState(): Record<LocalState, number> {
    const c = Object.fromEntries(LOCAL_STATES.map((s) => [s, 0])) as Record<LocalState, number>;
    for (const o of this.orders.values()) c[o.state]++;
    return c;
  }

  static isFinal(s: LocalState): boolean {
    return FINAL.has(s);
  }
}
