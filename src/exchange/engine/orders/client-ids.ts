/**
 * Client order ids. Every order has one: the user's, or `auto-<order id>` made by the engine.
 * `liveClientIds` indexes those of open orders (a small map). `lastClientIds` answers "the latest
 * order with this client id, final or not". Indexing every engine-made id there grew a
 * string-keyed map by an entry per order for the life of the exchange (about 11 % of a
 * placement's cost on `npm run bench -- engine`), so an engine-made id is indexed only when an
 * order has already used the same text; otherwise the order it names is found from the id it
 * carries. Accounts whose final orders are forgotten index every id (their index shrinks as
 * orders end). Snapshots hold the index as it was always kept: `lastClientIdsOf` rebuilds it
 * from the account's order history.
 */
import type { EngineAccount, EngineOrder } from '../model';
import type { EngineState } from '../state';

export const autoClientId = (id: number): string => `auto-${id}`;

/** The order id an `auto-<id>` client id names, or undefined for any other text. */
function autoIdOf(clientOrderId: string): number | undefined {
  if (!clientOrderId.startsWith('auto-')) return undefined;
  const digits = clientOrderId.slice(5);
  return /^[1-9]\d{0,15}$/.test(digits) ? Number(digits) : undefined;
}

/** Records that order `o`, just created with a client id the user gave or not, is the latest with it. */
export function noteClientId(s: EngineState, acct: EngineAccount, o: EngineOrder, userGiven: boolean): void {
  const cid = o.clientOrderId;
  if (userGiven || s.forgetful.has(acct.userId) || acct.lastClientIds.has(cid)) acct.lastClientIds.set(cid, o.id);
}

/** Id of the latest order of `acct` with this client id (open ones first), or undefined. */
export function orderIdByClientId(s: EngineState, acct: EngineAccount, cid: string): number | undefined {
  const id = acct.liveClientIds.get(cid) ?? acct.lastClientIds.get(cid);
  if (id !== undefined) return id;
  const auto = autoIdOf(cid);
  if (auto === undefined) return undefined;
  const o = s.ordersById.get(auto);
  return o !== undefined && o.userId === acct.userId && o.clientOrderId === cid ? auto : undefined;
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
export function lastClientIdsOf(s: Pick<EngineState, 'forgetful'>, acct: EngineAccount): Map<string, number> {
  if (s.forgetful.has(acct.userId)) return acct.lastClientIds;
  const m = new Map<string, number>();
  for (const o of acct.orders) if (!isTakeover(o)) m.set(o.clientOrderId, o.id);
  return m;
}

/** Before an account starts forgetting final orders: its index gets every id, as forgetful accounts keep it. */
export function indexEveryClientId(s: Pick<EngineState, 'forgetful'>, acct: EngineAccount): void {
  if (s.forgetful.has(acct.userId)) return;
  const m = lastClientIdsOf(s, acct);
  // Entries no order in the history explains (an index restored from a snapshot) stay.
  for (const [k, v] of acct.lastClientIds) if (!m.has(k)) m.set(k, v);
  acct.lastClientIds = m;
}
