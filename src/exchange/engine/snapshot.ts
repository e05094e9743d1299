/**
 * The engine's whole state as plain JSON-ready data, and back. A snapshot lets the server start
 * from a saved state and replay only the journal entries after it; restoring must give exactly
 * the state that replaying every command would have built, so everything observable is kept:
 * accounts (Map insertion orders included, since iteration order decides event order), positions,
 * every order with its book position and queue priority, conditions in creation order, strategies
 * with their sub-order progress, market state, id counters, the fee pool and deposits.
 *
 * Money is exact: money units and Dec values are written as plain decimal strings. Objects shared between indexes
 * (an order in `ordersById`, `acct.openOrders` and `acct.reducingOpen`) are written once and
 * referred to by id, so the restored indexes share objects again; orders that have ended go back
 * into the final orders' columns (order-store.ts).
 *
 * Plain fields are copied with a spread so a field added to the model is carried without a change
 * here; a new bigint, Dec, Map, Set or object-reference field needs a line here
 * (test/exchange/service/snapshot.test.ts guards this by listing the known keys).
 */
import { Dec } from '../../core/decimal';
import { NumberList } from '../../core/columns';
import { IdMap } from '../../core/id-map';
import { ChurnMap } from '../../core/churn-map';
import { FINAL_ORDER_STATUSES } from '../../core/enums';
import { formatUnits, parseUnits } from '../../core/money-units';
import { parseRate, rateText } from './accounts/margin-rate';
import type { AccountChangeRecord, PositionHistoryRecord, TradeRecord } from '../../protocol/records';
import { ASK, BID, OrderBook, type BookSide } from './book/order-book';
import {
  EngineOrder,
  type EngineAccount,
  type EngineCondition,
  type EnginePosition,
  type EngineStrategy,
  type EngineSubOrder,
  type MarketState,
  type SymbolSettings,
} from './model';
import type { SymbolSpec } from './symbols';
import type { OrderStore } from './order-store';
import { lastClientIdsOf, liveClientIdsOf, noteRestoredClientIds } from './orders/client-ids';
import { ChangeLog, TradeLog } from './accounts/history';
import { ClosedPositions } from './positions/closed-positions';

export const ENGINE_SNAPSHOT_VERSION = 1;

type Replace<T, R> = Omit<T, keyof R> & R;

export type OrderSnapshot = Replace<EngineOrder, { symbol: string; cumQuote: string; frozenPerStep: string; frozen: string }>;
export type ConditionSnapshot = Replace<EngineCondition, { symbol: string }>;
export type SubOrderSnapshot = Replace<EngineSubOrder, { reached: string[] }>;
export type StrategySnapshot = Replace<EngineStrategy, { symbol: string; subs: SubOrderSnapshot[] }>;
export type PositionSnapshot = Replace<
  EnginePosition,
  {
    symbol: string;
    cost: string;
    openFees: string;
    isolatedMargin: string;
    fundingAccum: string;
    realizedAccum: string;
    closeQuote: string;
    openQuote: string;
  }
>;

export interface AccountSnapshot {
  userId: string;
  seq: number;
  positionMode: EngineAccount['positionMode'];
  wallet: string;
  frozen: string;
  transferIn: string;
  settings: Array<[string, SymbolSettings]>;
  positions: Array<[string, PositionSnapshot]>;
  /** Ids in the map's insertion order. */
  openOrders: number[];
  /** Ids of open orders that only reduce, in the set's insertion order. */
  reducingOpen: number[];
  liveClientIds: Array<[string, number]>;
  lastClientIds: Array<[string, number]>;
  orders: number[];
  conditions: number[];
  strategies: number[];
  trades: TradeRecord[];
  changes: AccountChangeRecord[];
  positionHistory: Array<{ record: PositionHistoryRecord; long: boolean }>;
}

export interface SymbolSnapshot {
  symbol: string;
  market: Replace<MarketState, { fundingRate: string }>;
  /** Resting orders per side, best level first, queue order within a level: [orderId, price ticks, remaining steps]. */
  bids: Array<[number, number, number]>;
  asks: Array<[number, number, number]>;
  /** Waiting condition ids in creation order. */
  conditions: number[];
  /** User ids holding a position, in the set's insertion order. */
  holders: string[];
}

export interface EngineCounters {
  nextOrderId: number;
  nextConditionId: number;
  nextStrategyId: number;
  nextTradeId: number;
  nextFillId: number;
  accountSeq: number;
  feePool: bigint;
  deposits: bigint;
}

export interface EngineSnapshot {
  version: typeof ENGINE_SNAPSHOT_VERSION;
  counters: Replace<EngineCounters, { feePool: string; deposits: string }>;
  symbols: SymbolSnapshot[];
  /** Every order, in id-index insertion order. */
  orders: OrderSnapshot[];
  conditions: ConditionSnapshot[];
  strategies: StrategySnapshot[];
  /** Every account (the insurance fund included), in creation order. */
  accounts: AccountSnapshot[];
}

/** The engine's per-symbol state, structurally (engine.ts keeps the type private). */
export interface SymbolStateRef {
  spec: SymbolSpec;
  book: OrderBook;
  market: MarketState;
  conditions: EngineCondition[];
  holders: Set<EngineAccount>;
}

/** The engine's indexes, handed over by `Engine.exportState`/`importState`. */
export interface EngineStateRefs {
  symbols: Map<string, SymbolStateRef>;
  accounts: Map<string, EngineAccount>;
  ordersById: OrderStore;
  conditionsById: Map<number, EngineCondition>;
  strategiesById: Map<number, EngineStrategy>;
  /** Users whose final orders are forgotten (Engine.forgetFinalOrders). */
  forgetful: Set<string>;
}

const str = (d: Dec): string => d.toFixed();

/** A money-units field of a snapshot: a plain decimal of at most 8 decimals. */
function units(text: string, what: string): bigint {
  const u = parseUnits(text);
  if (u === undefined) throw new RangeError(`snapshot: ${what} "${text}" is not an amount of at most 8 decimals`);
  return u;
}

function bookSide(book: OrderBook, side: BookSide): Array<[number, number, number]> {
  return book.ids(side).map((id) => [id, book.priceOf(id), book.remainingOf(id)]);
}

export function exportEngineState(refs: EngineStateRefs, c: EngineCounters): EngineSnapshot {
  const symbols: SymbolSnapshot[] = [];
  for (const st of refs.symbols.values()) {
    symbols.push({
      symbol: st.spec.name,
      market: { ...st.market, fundingRate: str(st.market.fundingRate) },
      bids: bookSide(st.book, BID),
      asks: bookSide(st.book, ASK),
      conditions: st.conditions.map((x) => x.id),
      holders: [...st.holders].map((a) => a.userId),
    });
  }
  const orders: OrderSnapshot[] = [];
  for (const o of refs.ordersById.values()) {
    orders.push({ ...o, symbol: o.symbol.name, cumQuote: formatUnits(o.cumQuote), frozenPerStep: rateText(o.frozenPerStep), frozen: formatUnits(o.frozen) });
  }
  const conditions: ConditionSnapshot[] = [];
  for (const x of refs.conditionsById.values()) conditions.push({ ...x, symbol: x.symbol.name });
  const strategies: StrategySnapshot[] = [];
  for (const s of refs.strategiesById.values()) {
    strategies.push({ ...s, symbol: s.symbol.name, subs: s.subs.map((sub) => ({ ...sub, input: { ...sub.input }, reached: [...sub.reached] })) });
  }
  const accounts: AccountSnapshot[] = [];
  for (const a of refs.accounts.values()) {
    accounts.push({
      userId: a.userId,
      seq: a.seq,
      positionMode: a.positionMode,
      wallet: formatUnits(a.wallet),
      frozen: formatUnits(a.frozen),
      transferIn: formatUnits(a.transferIn),
      settings: [...a.settings].map(([k, v]) => [k, { ...v }]),
      positions: [...a.positions].map(([k, p]) => [
        k,
        {
          ...p,
          symbol: p.symbol.name,
          cost: formatUnits(p.cost),
          openFees: formatUnits(p.openFees),
          isolatedMargin: formatUnits(p.isolatedMargin),
          fundingAccum: formatUnits(p.fundingAccum),
          realizedAccum: formatUnits(p.realizedAccum),
          closeQuote: formatUnits(p.closeQuote),
          openQuote: formatUnits(p.openQuote),
        },
      ]),
      openOrders: [...a.openOrders.keys()],
      reducingOpen: [...a.reducingOpen].map((o) => o.id),
      liveClientIds: liveClientIdsOf(a),
      lastClientIds: [...lastClientIdsOf(refs, a)],
      orders: a.orders.toArray(),
      conditions: a.conditions.map((x) => x.id),
      strategies: a.strategies.map((s) => s.id),
      // Records made for the snapshot: nothing later changes them.
      trades: a.trades.toArray(),
      changes: a.changes.toArray(),
      positionHistory: a.positionHistory.entries(),
    });
  }
  return {
    version: ENGINE_SNAPSHOT_VERSION,
    counters: { ...c, feePool: formatUnits(c.feePool), deposits: formatUnits(c.deposits) },
    symbols,
    orders,
    conditions,
    strategies,
    accounts,
  };
}

function need<K, V>(m: { get(k: K): V | undefined }, k: K, what: string): V {
  const v = m.get(k);
  if (v === undefined) throw new Error(`snapshot is inconsistent: it refers to ${what} '${String(k)}' that it does not contain`);
  return v;
}

/**
 * Replaces the state behind `refs` with the snapshot's and returns the counters for the engine to
 * set. The engine must have been built with the same symbols the snapshot was taken with.
 */
export function importEngineState(refs: EngineStateRefs, s: EngineSnapshot): EngineCounters {
  if (s.version !== ENGINE_SNAPSHOT_VERSION) throw new Error(`engine snapshot version ${String(s.version)} is not supported (expected ${ENGINE_SNAPSHOT_VERSION})`);
  const snapSymbols = s.symbols.map((x) => x.symbol).join(',');
  const ourSymbols = [...refs.symbols.keys()].join(',');
  if (snapSymbols !== ourSymbols) {
    throw new Error(`snapshot was taken with symbols [${snapSymbols}] but the exchange is configured with [${ourSymbols}]; start with the same symbols or a fresh data directory`);
  }
  const spec = (name: string): SymbolSpec => need(refs.symbols, name, 'symbol').spec;

  refs.ordersById.clear();
  refs.conditionsById.clear();
  refs.strategiesById.clear();
  refs.accounts.clear();

  for (const o of s.orders) {
    refs.ordersById.set(o.id, EngineOrder.from({ ...o, symbol: spec(o.symbol), cumQuote: units(o.cumQuote, `order ${o.id} cumQuote`), frozenPerStep: parseRate(o.frozenPerStep), frozen: units(o.frozen, `order ${o.id} frozen`) }));
  }
  // Snapshots written before callbackRate was "0" when unused hold "" there.
  for (const x of s.conditions) refs.conditionsById.set(x.id, { ...x, callbackRate: x.callbackRate === '' ? '0' : x.callbackRate, symbol: spec(x.symbol) });
  for (const st of s.strategies) {
    refs.strategiesById.set(st.id, { ...st, symbol: spec(st.symbol), subs: st.subs.map((sub) => ({ ...sub, input: { ...sub.input }, reached: new Set(sub.reached) })) });
  }
  for (const a of s.accounts) {
    const openOrders = new IdMap<EngineOrder>();
    const openCountBySymbol = new Map<string, number>();
    for (const id of a.openOrders) {
      const o = need(refs.ordersById, id, 'order');
      openOrders.set(id, o);
      openCountBySymbol.set(o.symbol.name, (openCountBySymbol.get(o.symbol.name) ?? 0) + 1);
    }
    const acct: EngineAccount = {
      userId: a.userId,
      seq: a.seq,
      positionMode: a.positionMode,
      wallet: units(a.wallet, `account ${a.userId} wallet`),
      frozen: units(a.frozen, `account ${a.userId} frozen`),
      transferIn: units(a.transferIn, `account ${a.userId} transferIn`),
      settings: new Map(a.settings.map(([k, v]) => [k, { ...v }])),
      positions: new Map(
        a.positions.map(([k, p]) => [
          k,
          {
            ...p,
            symbol: spec(p.symbol),
            cost: units(p.cost, `position cost`),
            openFees: units(p.openFees, `position openFees`),
            isolatedMargin: units(p.isolatedMargin, `position isolatedMargin`),
            fundingAccum: units(p.fundingAccum, `position fundingAccum`),
            realizedAccum: units(p.realizedAccum, `position realizedAccum`),
            closeQuote: units(p.closeQuote, `position closeQuote`),
            openQuote: units(p.openQuote, `position openQuote`),
          },
        ]),
      ),
      openOrders,
      // Derived from openOrders rather than stored: it can never disagree with it.
      openCountBySymbol,
      reducingOpen: new Set(a.reducingOpen.map((id) => need(refs.ordersById, id, 'order'))),
      liveClientIds: new ChurnMap(a.liveClientIds),
      lastClientIds: new Map(a.lastClientIds),
      orders: NumberList.of(a.orders.map((id) => need(refs.ordersById, id, 'order').id)),
      conditions: a.conditions.map((id) => need(refs.conditionsById, id, 'condition')),
      strategies: a.strategies.map((id) => need(refs.strategiesById, id, 'strategy')),
      trades: new TradeLog(a.trades.map((t) => ({ ...t }))),
      changes: new ChangeLog(a.changes.map((x) => ({ ...x }))),
      positionHistory: new ClosedPositions(a.positionHistory.map((h) => ({ record: { ...h.record }, long: h.long }))),
    };
    noteRestoredClientIds(acct);
    refs.accounts.set(acct.userId, acct);
  }
  for (const x of s.symbols) {
    const st = need(refs.symbols, x.symbol, 'symbol');
    st.market = { ...x.market, fundingRate: new Dec(x.market.fundingRate) };
    // A fresh book, filled level by level in queue order, has the same priorities as the original.
    const book = new OrderBook();
    for (const [id, price, qty] of x.bids) book.add(id, BID, price, qty);
    for (const [id, price, qty] of x.asks) book.add(id, ASK, price, qty);
    st.book = book;
    st.conditions = x.conditions.map((id) => need(refs.conditionsById, id, 'condition'));
    st.holders = new Set(x.holders.map((u) => need(refs.accounts, u, 'account')));
  }
  // Orders that have ended go into the final orders' columns, as they do when they end.
  for (const x of s.orders) {
    const o = need(refs.ordersById, x.id, 'order');
    if (FINAL_ORDER_STATUSES.has(o.status) && o.frozen === 0n) refs.ordersById.retire(o);
  }
  return { ...s.counters, feePool: units(s.counters.feePool, 'feePool'), deposits: units(s.counters.deposits, 'deposits') };
}
