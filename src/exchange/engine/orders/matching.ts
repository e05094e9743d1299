/**
 * The life of a normal order once accepted: it is created, matched against the book (price-time
 * priority, the maker's price), rests, fills, and ends (filled, cancelled, expired, rejected).
 * Status changes go through the transition table (status.ts). Follow-ups for condition and
 * strategy orders are signalled (state.follow), never called: orders know nothing of them.
 */
import type { ExecutionType, OrderStatus } from '../../../core/enums';
import { formatUnits, unitsTimesRate } from '../../../core/money-units';
import type { Ledger } from '../accounts/ledger';
import type { MarginMemo } from '../accounts/margin-memo';
import { ZERO_RATE } from '../accounts/margin-rate';
import { ASK, BID, type BookSide } from '../book/order-book';
import { EngineOrder, type EngineAccount } from '../model';
import type { SymbolSpec } from '../symbols';
import { isReducing, type Positions } from '../positions/positions';
import { INSURANCE_ACCOUNT, isFinal, type EngineState, type SymbolState } from '../state';
import type { PreparedOrder } from './prepare';
import { autoClientId, forgetLiveClientId, noteClientId, noteLiveClientId } from './client-ids';
import { transition } from './status';

export interface OrderLink {
  conditionId?: number;
  strategyId?: number;
  placeType?: string;
  /** The id and time the order was given when it was accepted, for one put in the book later (a deferred tape quote). */
  reserved?: { id: number; at: number };
  /**
   * The order of a triggered GTE_GTC condition: it ends with the position it closes (PROTOCOL.md),
   * rechecked as a reduce-only order is (cut to what is left to close, cancelled once nothing is).
   */
  closesPosition?: boolean;
}

export class Matching {
  constructor(
    private readonly s: EngineState,
    private readonly ledger: Ledger,
    private readonly positions: Positions,
    /** The symbol's margin memo (the intake's, prepare.ts): a frozen amount made again after a closing fill. */
    private readonly memoOf: (spec: SymbolSpec) => MarginMemo,
  ) {}

  /** Creates the order and runs it: matching, then rest, expire or reject. Never throws. */
  commit(p: PreparedOrder, link: OrderLink): EngineOrder {
    const { acct, st, input } = p;
    const s = this.s;
    const now = link.reserved?.at ?? s.clock.now();
    const id = link.reserved?.id ?? s.nextOrderId++;
    // `new`, not an object literal: model.ts EngineOrder says why.
    const o = new EngineOrder();
    o.id = id;
    o.userId = acct.userId;
    o.symbol = st.spec;
    o.side = input.side;
    o.positionSide = p.positionSide;
    o.type = input.type;
    o.timeInForce = input.timeInForce ?? 'GTC';
    o.price = p.price;
    o.qty = p.qty;
    o.reduceOnly = input.reduceOnly ?? false;
    o.makerOnly = input.makerOnly ?? false;
    o.closePosition = input.closePosition ?? false;
    o.priceType = input.priceType ?? 0;
    o.placeType = link.placeType ?? input.placeType ?? '';
    o.clientOrderId = p.clientOrderId !== '' ? p.clientOrderId : autoClientId(id);
    o.createdAt = now;
    o.updateTime = now;
    o.conditionId = link.conditionId ?? 0;
    o.strategyId = link.strategyId ?? 0;
    o.frozenPerStep = p.frozenPerStep;
    s.ordersById.set(id, o);
    if (!s.forgetful.has(acct.userId)) acct.orders.push(id);
    noteClientId(s, acct, o);
    const book = st.book;
    const opp: BookSide = o.side === 'BUY' ? ASK : BID;
    if (o.makerOnly) {
      const touch = book.bestPrice(opp);
      if (touch !== 0 && (o.side === 'BUY' ? o.price >= touch : o.price <= touch)) {
        transition(o, 'REJECTED');
        s.emitOrder(o, 'REJECTED');
        this.changed(o);
        this.retireIfFinal(o);
        return o;
      }
    }
    acct.openOrders.set(id, o);
    acct.openCountBySymbol.set(st.spec.name, (acct.openCountBySymbol.get(st.spec.name) ?? 0) + 1);
    if (isReducing(o) || link.closesPosition === true) acct.reducingOpen.add(o);
    noteLiveClientId(acct, o, p.clientOrderId !== '');
    this.ledger.freeze(o, o.qty);
    s.emitOrder(o, 'NEW');
    this.changed(o);
    let fillable = true;
    if (o.timeInForce === 'FOK') {
      fillable = book.availableUpTo(opp, o.price, o.qty) >= o.qty;
    }
    if (fillable) this.matchTaker(o, st);
    if (!isFinal(o.status)) {
      const remaining = o.qty - o.executed;
      if (o.type === 'LIMIT' && o.timeInForce === 'GTC' && remaining > 0 && this.stillPlaceable(o)) {
        book.add(o.id, o.side === 'BUY' ? BID : ASK, o.price, remaining);
        // Frozen for the whole quantity above: only a part that traded changes it.
        if (remaining !== o.qty) this.ledger.freeze(o, remaining);
      } else {
        this.finish(o, 'EXPIRED', 'EXPIRED');
      }
    }
    s.follow.marketMoved(st);
    this.matched();
    return o;
  }

  /**
   * An order's matching is finished (it rests, ended or was amended through the book): the accounts
   * its fills changed are checked for liquidation now, once each, not per fill (state.ts `traded`).
   */
  matched(): void {
    if (this.s.traded.pending) this.s.follow.traded();
  }

  /** A reduce-only order whose position is gone after its taker part does not rest. */
  stillPlaceable(o: EngineOrder): boolean {
    if (!isReducing(o)) return true;
    return this.positions.closable(this.s.owner(o.userId), o.symbol.name, o.side, o.positionSide) > 0;
  }

  /** Takes liquidity for `o` while the book offers it at `o`'s price or better. */
  matchTaker(o: EngineOrder, st: SymbolState): void {
    const book = st.book;
    const opp: BookSide = o.side === 'BUY' ? ASK : BID;
    const acct = this.s.owner(o.userId);
    const reducing = isReducing(o);
    while (o.executed < o.qty) {
      const makerId = book.peekBest(opp);
      if (makerId < 0) break;
      const price = book.bestPrice(opp);
      if (o.price !== 0 && (o.side === 'BUY' ? price > o.price : price < o.price)) break;
      let q = Math.min(o.qty - o.executed, book.remainingOf(makerId));
      if (reducing) {
        const cap = this.positions.closable(acct, st.spec.name, o.side, o.positionSide);
        if (cap <= 0) break;
        q = Math.min(q, cap);
      }
      const maker = this.s.ordersById.get(makerId) as EngineOrder;
      book.fillHead(opp, q);
      this.trade(st, maker, o, price, q);
    }
  }

  /** One trade between a resting maker and a taker at the maker's price. */
  trade(st: SymbolState, maker: EngineOrder, taker: EngineOrder, price: number, q: number): void {
    const s = this.s;
    const tradeNo = s.nextTradeId++;
    const tradeId = String(tradeNo);
    const now = s.clock.now();
    this.applyFill(maker, price, q, 'maker', tradeNo, tradeId);
    this.applyFill(taker, price, q, 'taker', tradeNo, tradeId);
    st.market.last = price;
    s.out.push({ kind: 'trade', symbol: st.spec.name, time: now, tradeId, price: st.spec.tick.fromUnits(price), quantity: st.spec.step.fromUnits(q), side: taker.side });
    const makerAcct = s.owner(maker.userId);
    const takerAcct = s.owner(taker.userId);
    this.noteTraded(takerAcct, st);
    if (takerAcct !== makerAcct) this.noteTraded(makerAcct, st);
    this.positionChanged(makerAcct, st);
    if (takerAcct !== makerAcct) this.positionChanged(takerAcct, st);
  }

  /** The account's position changed: it is checked for liquidation once the order's matching is done. */
  private noteTraded(acct: EngineAccount, st: SymbolState): void {
    if (acct.userId === INSURANCE_ACCOUNT || this.s.marginExempt.has(acct.userId)) return;
    this.s.traded.add(acct, st);
  }

  private applyFill(o: EngineOrder, price: number, q: number, role: 'maker' | 'taker', tradeNo: number, tradeId: string): void {
    const s = this.s;
    const acct = s.owner(o.userId);
    const spec = o.symbol;
    const notional = spec.notionalMoney(price, q);
    const fee = unitsTimesRate(notional, role === 'maker' ? spec.makerFeeRate : spec.takerFeeRate);
    const liquidation = o.placeType === 'LIQUIDATION';
    // A one-way order that closes part of the position before it opens: the closing part fills
    // first, so what stays frozen is made again after such a fill (below), not released pro rata.
    const closedBefore = acct.positionMode === 'ONE_WAY' && o.frozenPerStep.m !== 0n ? this.positions.closable(acct, spec.name, o.side, o.positionSide) : 0;
    const realized = this.positions.applyFill(acct, o, price, q, fee, liquidation);
    o.executed += q;
    o.cumQuote += notional;
    o.updateTime = s.clock.now();
    transition(o, o.executed === o.qty ? 'FILLED' : 'PARTIALLY_FILLED');
    const fillNo = s.nextFillId++;
    this.ledger.changeWallet(acct, realized, liquidation ? 'LIQUIDATION' : 'REALIZED_PNL', o.id, spec.name);
    this.ledger.changeWallet(acct, -fee, 'TRADE_FEE', o.id, spec.name);
    s.feePool += fee;
    s.touch(acct, 'ORDER', spec.name);
    if (acct.userId !== INSURANCE_ACCOUNT) acct.trades.push(fillNo, tradeNo, o.id, spec, o.side, role, o.positionSide, price, q, notional, fee, realized, o.updateTime);
    if (o.status === 'FILLED') {
      this.release(o);
    } else if (closedBefore > 0) {
      this.refreezeOpening(acct, o);
    } else {
      this.ledger.freeze(o, o.qty - o.executed);
    }
    if (s.emitsOrders(o.userId)) {
      s.emitOrder(o, 'TRADE', {
        tradeId,
        fillId: String(fillNo),
        lastFilledQty: spec.step.fromUnits(q),
        lastFilledPrice: spec.tick.fromUnits(price),
        roleType: role,
        handlingFee: formatUnits(fee),
        realizedPnl: formatUnits(realized),
      });
    }
    this.changed(o);
  }

  /**
   * After a fill that closed part of the one-way position, or a change of leverage: the order keeps
   * frozen the margin of what its rest would still open (price x (rest - what it can still close) /
   * leverage now), as an order of that rest placed now would. Pro rata over the whole order would
   * release the opening part's margin as the closing part fills, and let the account promise it twice.
   */
  refreezeOpening(acct: EngineAccount, o: EngineOrder): void {
    const rest = o.qty - o.executed;
    const opening = Math.max(0, rest - this.positions.closable(acct, o.symbol.name, o.side, o.positionSide));
    if (opening === 0) {
      o.frozenPerStep = ZERO_RATE;
      this.ledger.setFrozen(o, 0n);
      return;
    }
    const memo = this.memoOf(o.symbol);
    memo.lookup(o.price, opening, rest, this.s.settingsOf(acct, o.symbol.name).leverage);
    o.frozenPerStep = memo.perStep;
    this.ledger.freeze(o, rest);
  }

  /** Drops a final order from the live indexes and unfreezes its margin. */
  private release(o: EngineOrder): void {
    const acct = this.s.owner(o.userId);
    if (acct.openOrders.delete(o.id)) acct.openCountBySymbol.set(o.symbol.name, (acct.openCountBySymbol.get(o.symbol.name) ?? 1) - 1);
    acct.reducingOpen.delete(o);
    forgetLiveClientId(acct, o);
    this.ledger.setFrozen(o, 0n);
    this.retireIfFinal(o);
  }

  /**
   * A final order leaves the open orders' table: into the final orders' columns (order-store.ts),
   * or, for users set to forgetFinalOrders, out of every index, so memory stays flat.
   */
  private retireIfFinal(o: EngineOrder): void {
    if (!isFinal(o.status)) return;
    if (!this.s.forgetful.has(o.userId)) {
      this.s.ordersById.retire(o);
      return;
    }
    this.s.ordersById.delete(o.id);
    const acct = this.s.owner(o.userId);
    if (acct.lastClientIds.get(o.clientOrderId) === o.id) acct.lastClientIds.delete(o.clientOrderId);
  }

  /** Ends an order that is not filled: out of the book, final status, event. */
  finish(o: EngineOrder, status: OrderStatus, exec: ExecutionType): void {
    this.s.symbols.get(o.symbol.name)?.book.remove(o.id);
    transition(o, status);
    o.updateTime = this.s.clock.now();
    this.release(o);
    this.s.emitOrder(o, exec);
    this.changed(o);
  }

  /**
   * After a position changed: reduce-only and closing orders never exceed what they can close
   * (cut, keeping queue priority), and are cancelled once there is nothing to close. Then the
   * contexts above hear of it (GTE_GTC condition orders end when their position is gone).
   */
  private positionChanged(acct: EngineAccount, st: SymbolState): void {
    if (acct.userId === INSURANCE_ACCOUNT) return;
    if (acct.reducingOpen.size > 0) this.recheckReducingOrders(acct, st);
    this.s.follow.positionChanged(acct, st);
  }

  private recheckReducingOrders(acct: EngineAccount, st: SymbolState): void {
    for (const o of [...acct.reducingOpen]) {
      if (o.symbol !== st.spec || !st.book.has(o.id)) continue;
      const cap = this.positions.closable(acct, st.spec.name, o.side, o.positionSide);
      const remaining = o.qty - o.executed;
      if (cap === 0) {
        this.finish(o, 'CANCELED', 'CANCELED');
      } else if (remaining > cap) {
        st.book.reduce(o.id, cap);
        o.qty = o.executed + cap;
        o.updateTime = this.s.clock.now();
        this.s.emitOrder(o, 'AMENDED');
      }
    }
  }

  /** An order changed status or fill: the strategy order holding it may need to move. */
  private changed(o: EngineOrder): void {
    if (o.strategyId) this.s.follow.strategyTouched(o.strategyId);
  }
}
