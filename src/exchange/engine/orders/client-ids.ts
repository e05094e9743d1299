/**
 * Client order ids. Every order has one: the user's, or `auto-<order id>` made by the engine.
 *
 * Open orders: `liveClientIds` indexes the ids users gave (a small map); an open order with an
 * engine-made id is found from the id it carries (`liveOrderIdOf`), so placing and ending an order
 * without a client id hashes no text (a set and a delete of a fresh string key were about 5 % of a
 * place+cancel). Only a user-given id that names a later engine-made one (`auto-9` given to order
 * 7) could collide with it: such an account is marked, and when order 9 comes it takes the id over,
 * as it did when every id was indexed. Snapshots hold the index as it was always kept
 * (`liveClientIdsOf`).
 *
 * All orders: `lastClientIds` answers "the latest order with this client id, final or not".
 * Putting every id in it as orders were made grew a string-keyed map by an entry per order for the
 * life of the exchange (about 11 % of a placement's cost on `npm run bench -- engine`, 4 % of the
 * local exchange's under load). So an engine-made id is not indexed there either: the order it
 * names is found from the id it carries. A user's id is appended to a list kept beside the account
 * (not part of its state: it only holds what the map is owed) and goes into the map when a lookup
 * needs it. The latest order with an id is then the later of the two, as order ids grow. Accounts
 * whose final orders are forgotten index every id at once (their index shrinks as orders end).
 * Snapshots hold the index as it was always kept: `lastClientIdsOf` rebuilds it from the
 * account's order history.
 */
import { numericId } from '../../../core/ids';
import type { EngineAccount, EngineOrder } from '../model';
import { ErrorCodes } from '../../../core/errors';
import { fail, type EngineState } from '../state';

export const autoClientId = (id: number): string => `auto-${id}`;

/** The order id an `auto-<id>` client id names, or undefined for any other text. */
function autoIdOf(clientOrderId: string): number | undefined {
  if (!clientOrderId.startsWith('auto-')) return undefined;
  const n = numericId(clientOrderId.slice(5));
  return Number.isNaN(n) ? undefined : n;
}

/** Accounts that gave an order a client id naming another order's engine-made id (`auto-<n>`). */
const AUTO_LIKE = new WeakSet<EngineAccount>();

/** Id of the open order of `acct` with this client id, or undefined. */
export function liveOrderIdOf(acct: EngineAccount, cid: string): number | undefined {
  const id = acct.liveClientIds.get(cid);
  if (id !== undefined) return id;
  const n = autoIdOf(cid);
  if (n === undefined) return undefined;
  const o = acct.openOrders.get(n);
  return o !== undefined && o.clientOrderId === cid ? n : undefined;
}

/** Indexes the client id of order `o`, just opened; `userGiven`: the id is the user's (or a condition's), not made by the engine. */
export function noteLiveClientId(acct: EngineAccount, o: EngineOrder, userGiven: boolean): void {
  if (userGiven) {
    acct.liveClientIds.set(o.clientOrderId, o.id);
    const n = autoIdOf(o.clientOrderId);
    if (n !== undefined && n !== o.id) AUTO_LIKE.add(acct);
  } else if (AUTO_LIKE.has(acct)) {
    // An open order the user gave this id loses it to this order, as when every id was indexed.
    acct.liveClientIds.delete(o.clientOrderId);
  }
}

/** Drops the client id of order `o`, now final, from the index (a ChurnMap: core/churn-map.ts). */
export function forgetLiveClientId(acct: EngineAccount, o: EngineOrder): void {
  const live = acct.liveClientIds;
  if (live.size > 0 && live.get(o.clientOrderId) === o.id) live.delete(o.clientOrderId);
}

/** The open orders' index as snapshots hold it (every open order's id, engine-made or not), in the order orders opened. */
export function liveClientIdsOf(acct: EngineAccount): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const o of acct.openOrders.values()) if (liveOrderIdOf(acct, o.clientOrderId) === o.id) out.push([o.clientOrderId, o.id]);
  return out;
}

/**
 * After an account is restored from a snapshot (its `lastClientIds` whole, as snapshots hold it):
 * marks it if a user-given id there names another order's engine-made id.
 */
export function noteRestoredClientIds(acct: EngineAccount): void {
  for (const [cid, id] of acct.liveClientIds) {
    const n = autoIdOf(cid);
    if (n !== undefined && n !== id) AUTO_LIKE.add(acct);
  }
  INDEXED.set(acct, acct.orders.length);
}

/**
 * How many of each account's orders (`acct.orders`, in creation order) `lastClientIds` has taken
 * in; the users' ids of the orders after those go into it when a lookup needs it (`catchUp`).
 * The orders hold the ids already: a list of the ids noted as orders came, kept until a lookup,
 * grew by two entries an order for the life of an account that never looked one up.
 */
const INDEXED = new WeakMap<EngineAccount, number>();

/** Records that order `o`, just created with a client id the user gave or not, is the latest with it. */
export function noteClientId(s: EngineState, acct: EngineAccount, o: EngineOrder): void {
  // Others' ids are taken from their order list when needed (catchUp).
  if (s.forgetful.has(acct.userId)) acct.lastClientIds.set(o.clientOrderId, o.id);
}

/** Brings `lastClientIds` up to date with the account's orders since the last lookup, in the order they came. */
function catchUp(s: Pick<EngineState, 'forgetful' | 'ordersById'>, acct: EngineAccount): void {
  if (s.forgetful.has(acct.userId)) return;
  const orders = acct.orders;
  for (let i = INDEXED.get(acct) ?? 0; i < orders.length; i++) {
    const o = s.ordersById.peek(orders.at(i)) as EngineOrder;
    // An engine-made id is found from the id it carries; takeovers never entered the index.
    if (autoIdOf(o.clientOrderId) !== o.id && !isTakeover(o)) acct.lastClientIds.set(o.clientOrderId, o.id);
  }
  INDEXED.set(acct, orders.length);
}

/** Id of the latest order of `acct` with this client id (open ones first), or undefined. */
export function orderIdByClientId(s: EngineState, acct: EngineAccount, cid: string): number | undefined {
  const live = liveOrderIdOf(acct, cid);
  if (live !== undefined) return live;
  catchUp(s, acct);
  const last = acct.lastClientIds.get(cid);
  const n = autoIdOf(cid);
  const o = n === undefined ? undefined : s.ordersById.get(n);
  const auto = o !== undefined && o.userId === acct.userId && o.clientOrderId === cid ? n : undefined;
  if (last === undefined) return auto;
  return auto !== undefined && auto > last ? auto : last;
}

/**
 * Orders the insurance fund's takeover makes (liquidation.ts) never entered the client id index:
 * they are the only orders whose client id is `liq-<own id>` with placeType LIQUIDATION.
 */
const isTakeover = (o: EngineOrder): boolean => o.placeType === 'LIQUIDATION' && o.clientOrderId === `liq-${o.id}`;

/**
 * The account's client id index with every engine-made id in it, as snapshots hold it: replayed
 * from the order history (kept whole unless final orders are forgotten, in which case the index
 * is kept whole instead).
 */
export function lastClientIdsOf(s: Pick<EngineState, 'forgetful' | 'ordersById'>, acct: EngineAccount): Map<string, number> {
  if (s.forgetful.has(acct.userId)) return acct.lastClientIds;
  const m = new Map<string, number>();
  for (const id of acct.orders) {
    const o = s.ordersById.peek(id) as EngineOrder;
    if (!isTakeover(o)) m.set(o.clientOrderId, o.id);
  }
  return m;
}

/** Before an account starts forgetting final orders: its index gets every id, as forgetful accounts keep it. */
export function indexEveryClientId(s: Pick<EngineState, 'forgetful' | 'ordersById'>, acct: EngineAccount): void {
  if (s.forgetful.has(acct.userId)) return;
  catchUp(s, acct);
  const m = lastClientIdsOf(s, acct);
  // Entries no order in the history explains (an index restored from a snapshot) stay.
  for (const [k, v] of acct.lastClientIds) if (!m.has(k)) m.set(k, v);
  acct.lastClientIds = m;
}

/**
 * The client ids of strategy sub-orders not placed yet (`PENDING`) are reserved: no other order,
 * condition order or sub-order may take one (30002, as an open order's) until that sub-order is
 * placed or dropped, so it cannot be refused for its own id when its driver fires. Kept beside
 * the account, not part of its state (it follows from the account's strategy orders): built from
 * them when first needed (an account restored from a snapshot), then kept by strategy-orders.ts.
 */
const RESERVED = new WeakMap<EngineAccount, Map<string, { strategyId: number; subId: number }>>();

function reservedOf(acct: EngineAccount): Map<string, { strategyId: number; subId: number }> {
  let m = RESERVED.get(acct);
  if (m === undefined) {
    m = new Map();
    for (const st of acct.strategies) {
      if (st.status !== 'WORKING') continue;
      for (const sub of st.subs) if (sub.status === 'PENDING' && sub.clientOrderId !== '') m.set(sub.clientOrderId, { strategyId: st.id, subId: sub.subId });
    }
    RESERVED.set(acct, m);
  }
  return m;
}

/** Refuses (30002) a client id a pending strategy sub-order of the account holds. */
export function refuseReservedClientId(acct: EngineAccount, cid: string, field = 'clientOrderId'): void {
  if (acct.strategies.length === 0) return;
  const r = reservedOf(acct).get(cid);
  if (r !== undefined) fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `clientOrderId '${cid}' is reserved by sub-order ${r.subId} of strategy order ${r.strategyId}, which is not placed yet`, field);
}

/** A strategy sub-order waits to be placed: its client id is reserved until then. */
export function reserveClientId(acct: EngineAccount, cid: string, strategyId: number, subId: number): void {
  if (cid !== '') reservedOf(acct).set(cid, { strategyId, subId });
}

/** A strategy sub-order no longer waits (placed, cancelled): its client id is free for it, or anyone. */
export function releaseClientId(acct: EngineAccount, cid: string, strategyId: number): void {
  if (cid === '') return;
  const m = reservedOf(acct);
  if (m.get(cid)?.strategyId === strategyId) m.delete(cid);
}
