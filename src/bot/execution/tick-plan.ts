/**
 * What one tick's intents become, before anything is sent: cancels, placements, amends (the last
 * one per order) and other calls, with the intents refused without asking the venue; and the
 * request bodies of a placement and of a bracket. Pure: tick-send.ts sends the plan.
 */
import { ErrorCodes } from '../../core/errors';
import type { PlaceOrderParams, StrategySubOrderParams } from '../../protocol/rest/orders';
import type { Intent, PlaceIntent } from '../strategy/intents';
import { OrderTracker } from './order-tracker';

/** Most orders in one batch call (PROTOCOL.md section 3). */
export const BATCH_LIMIT = 20;

/** One intent of the tick: a placement's clientOrderId is given (and tracked) when it is queued. */
export interface Queued {
  strategyId: string;
  intent: Intent;
  cid?: string;
}

export interface PlannedCancel {
  strategyId: string;
  cid: string;
}

export interface PlannedPlace {
  strategyId: string;
  intent: PlaceIntent;
  cid: string;
}

/** One amend on its way to a batch-move. */
export interface AmendItem {
  cid: string;
  price: string;
  quantity: string;
  orderId: string;
  strategyId: string;
  intent: Intent;
}

/** An intent refused before any call, with the code and message the venue would have given. */
export interface PlannedRefusal {
  strategyId: string;
  intent: Intent;
  code: number;
  message: string;
}

export interface TickPlan {
  /** Cancels to send, one per order, first: when throttled or in trouble, taking risk off matters most. */
  cancels: PlannedCancel[];
  /** Placements to send: those cancelled in the same tick before they were sent are `withdrawn`. */
  places: PlannedPlace[];
  /** Placements cancelled before they were sent: neither goes to the venue. */
  withdrawn: string[];
  /** Amends by symbol, one per order (the tick's last), none of an order cancelled in the tick. */
  amends: Map<string, AmendItem[]>;
  others: Queued[];
  /** Amends refused without asking the venue (with its code and message), one per order: the tick's last. */
  refusals: PlannedRefusal[];
}

/**
 * Sorts a tick's intents into calls. `unsent` holds the placements tracked but not sent yet;
 * `endedAtVenue` the live orders the venue has called final in answer to an amend (30007) while
 * the stream has not said so yet: amending them again would only be refused again.
 */
export function planTick(items: readonly Queued[], tracker: OrderTracker, unsent: ReadonlySet<string>, endedAtVenue: ReadonlySet<string> = new Set()): TickPlan {
  const cancels: PlannedCancel[] = [];
  const places: PlannedPlace[] = [];
  const amendsBySymbol = new Map<string, Map<string, AmendItem>>();
  const others: Queued[] = [];
  // Amends refused without asking the venue, one per order (the tick's last), as the amends sent
  // are: the amends of an order that queued behind a reconciliation were refused one by one (83 at
  // once for one order that the reconciliation found gone).
  const refusedByCid = new Map<string, PlannedRefusal>();
  const refuse = (cid: string, r: PlannedRefusal): void => {
    refusedByCid.delete(cid);
    refusedByCid.set(cid, r);
  };
  for (const q of items) {
    const i = q.intent;
    if (i.kind === 'cancel') cancels.push({ strategyId: q.strategyId, cid: i.clientOrderId });
    else if (i.kind === 'cancelAll') {
      for (const o of tracker.live(q.strategyId, i.symbol)) cancels.push({ strategyId: q.strategyId, cid: o.clientOrderId });
    } else if (i.kind === 'place') places.push({ strategyId: q.strategyId, intent: i, cid: q.cid as string });
    else if (i.kind === 'amend') {
      const t = tracker.get(i.clientOrderId);
      if (!t || t.orderId === '') {
        refuse(i.clientOrderId, { strategyId: q.strategyId, intent: i, code: 30001, message: `cannot amend ${i.clientOrderId}: the venue has not acknowledged it yet` });
        continue;
      }
      if (OrderTracker.isFinal(t.state)) {
        // Its end reached the bot while the amend waited (behind a 429 or a reconciliation):
        // what the venue would answer, said without asking it.
        refuse(i.clientOrderId, { strategyId: q.strategyId, intent: i, code: ErrorCodes.ORDER_FINAL, message: `order ${t.orderId} is ${t.state} and cannot be amended (it ended before the amend was sent)` });
        continue;
      }
      if (endedAtVenue.has(i.clientOrderId)) {
        // A quoting strategy requotes on every mark: without this, each tick until the stream
        // brought the end sent one more amend the venue refused (84 in 7 ms for one order, live).
        refuse(i.clientOrderId, { strategyId: q.strategyId, intent: i, code: ErrorCodes.ORDER_FINAL, message: `order ${t.orderId} has ended at the venue (an earlier amend was refused with ${ErrorCodes.ORDER_FINAL}) and cannot be amended` });
        continue;
      }
      // Several amends of one order in a tick (a strategy that requoted while an earlier one
      // waited): only the last goes out, in the first one's place.
      const bySymbol = amendsBySymbol.get(t.symbol) ?? new Map<string, AmendItem>();
      bySymbol.set(i.clientOrderId, { cid: i.clientOrderId, price: i.price, quantity: i.quantity, orderId: t.orderId, strategyId: q.strategyId, intent: i });
      amendsBySymbol.set(t.symbol, bySymbol);
    } else others.push(q);
  }
  // A cancel of a placement not sent yet: neither goes to the venue.
  const withdrawn = new Set(cancels.filter((c) => unsent.has(c.cid)).map((c) => c.cid));
  const uniqueCancels = [...new Map(cancels.filter((c) => !withdrawn.has(c.cid)).map((c) => [c.cid, c])).values()];
  // An order cancelled in this tick is not amended as well.
  const cancelled = new Set(cancels.map((c) => c.cid));
  const amends = new Map<string, AmendItem[]>();
  for (const [symbol, byCid] of amendsBySymbol) {
    const list = [...byCid.values()].filter((a) => !cancelled.has(a.cid));
    if (list.length > 0) amends.set(symbol, list);
  }
  return {
    cancels: uniqueCancels,
    places: withdrawn.size > 0 ? places.filter((p) => !withdrawn.has(p.cid)) : places,
    withdrawn: [...withdrawn],
    amends,
    others,
    refusals: [...refusedByCid.values()],
  };
}

/** `xs` in chunks of at most `n`. */
export function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** The request of a placement sent under `cid`. */
export function placeParams(i: PlaceIntent, cid: string): PlaceOrderParams {
  const p: PlaceOrderParams = { symbol: i.symbol, side: i.side, type: i.type, quantity: i.quantity, clientOrderId: cid };
  if (i.price !== undefined && i.type === 'LIMIT') p.price = i.price;
  if (i.timeInForce !== undefined) p.timeInForce = i.timeInForce;
  if (i.reduceOnly) p.reduceOnly = true;
  if (i.makerOnly) p.makerOnly = true;
  if (i.positionSide !== undefined) p.positionSide = i.positionSide;
  return p;
}

/**
 * The three sub-orders of a bracket (an OTOCO strategy order) whose client ids start with `base`:
 * the entry (`<base>e`, MARKET without an entry price), the reduce-only take-profit (`<base>t`)
 * and stop-loss (`<base>s`), which the venue places once the entry fills.
 */
export function bracketSubOrders(base: string, i: Extract<Intent, { kind: 'bracket' }>): StrategySubOrderParams[] {
  const exit = i.side === 'BUY' ? 'SELL' : 'BUY';
  const entry: StrategySubOrderParams = { strategySubId: 1, symbol: i.symbol, side: i.side, type: i.entryPrice === undefined ? 'MARKET' : 'LIMIT', quantity: i.quantity, clientOrderId: `${base}e` };
  if (i.entryPrice !== undefined) entry.price = i.entryPrice;
  return [
    entry,
    { strategySubId: 2, symbol: i.symbol, side: exit, type: 'LIMIT', price: i.takeProfitPrice, quantity: i.quantity, reduceOnly: true, clientOrderId: `${base}t` },
    { strategySubId: 3, symbol: i.symbol, side: exit, type: 'STOP_MARKET', stopPrice: i.stopLossPrice, quantity: i.quantity, reduceOnly: true, workingType: i.workingType ?? 'MARK_PRICE', clientOrderId: `${base}s` },
  ];
}
