/**
 * Strategy orders (OTO, OCO, OTOCO): sub-orders placed and cancelled by the driven-on/trigger
 * rules of their structure (structure.ts), as their orders and conditions move.
 */
import { numericId } from '../../../core/ids';
import { ceilUnits, times } from '../accounts/margin-rate';
import type { DrivenOn, SubOrderStatus } from '../../../core/enums';
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { StrategyOrderRecord } from '../../../protocol/records';
import { checkConditionShape, orderTimeInForce, type Conditions, type PreparedCondition } from '../conditions/conditions';
import type { PlaceConditionInput, PlaceOrderInput, PlaceStrategyInput, StrategySubOrderInput } from '../inputs';
import type { EngineAccount, EngineCondition, EngineOrder, EngineStrategy, EngineSubOrder } from '../model';
import type { Matching } from '../orders/matching';
import { checkOrderShape, stepsOf, ticksOf, type OrderIntake, type PreparedOrder } from '../orders/prepare';
import { placedByEngine } from '../conditions/taking';
import { liveOrderIdOf, refuseReservedClientId, releaseClientId, reserveClientId } from '../orders/client-ids';
import type { Positions } from '../positions/positions';
import { strategyRecord } from '../records';
import { fail, isFinal, type EngineState } from '../state';
import { normalizeStrategy, type Driver, type NormalizedSub } from './structure';

interface CheckedSub {
  price: number;
  qty: number;
  stopPrice: number;
  activatePrice: number;
}

const reachedState = (sub: EngineSubOrder, on: DrivenOn): boolean =>
  on === 'PARTIALLY_FILLED_OR_FILLED' ? sub.reached.has('PARTIALLY_FILLED') || sub.reached.has('FILLED') : sub.reached.has(on);

const subFinal = (s: SubOrderStatus): boolean => s === 'FILLED' || s === 'CANCELED' || s === 'REJECTED' || s === 'EXPIRED';

export class StrategyOrders {
  private readonly queued = new Set<number>();
  /** Queued strategy orders one of whose orders was amended: each gets an update when driven. */
  private readonly amended = new Set<number>();

  constructor(
    private readonly s: EngineState,
    private readonly positions: Positions,
    private readonly intake: OrderIntake,
    private readonly matching: Matching,
    private readonly conditions: Conditions,
  ) {}

  /** Places a strategy order; the caller answers with `recordOf` once the command's follow-ups drove it (engine.ts). */
  place(userId: string, input: PlaceStrategyInput): EngineStrategy {
    const s = this.s;
    const acct = s.acct(userId);
    const subs = normalizeStrategy(input);
    const st = s.sym(subs[0].input.symbol, 'subOrderList[0].symbol');
    // A refusal names the sub-order by its place in the request.
    const index = (x: NormalizedSub): number => input.subOrderList.indexOf(x.input);
    // Check every sub-order now as its own endpoint would (all but margin, position and market),
    // so one that could never be placed fails the whole request.
    const checked = subs.map((x) => this.checkSub(acct, x.input, index(x)));
    const immediate = subs.filter((x) => x.first?.action !== 'PLACE_ORDER' && x.second?.action !== 'PLACE_ORDER');
    this.checkClientIds(acct, subs, index);
    // Every sub-order the request places now (OCO: both) must be placeable now (margin, position,
    // market), each with the margin of those before it held back as if they rested: else nothing
    // is applied, and the refusal names the sub-order.
    let held = 0n;
    const prepared = immediate.map((x) => {
      const p = named(index(x), () => this.prepareSub(acct, x.input, held));
      if ('frozenPerStep' in p) held += ceilUnits(times(p.frozenPerStep, p.qty));
      return p;
    });
    const now = s.clock.now();
    const strat: EngineStrategy = {
      id: s.nextStrategyId++,
      userId,
      symbol: st.spec,
      type: input.strategyType,
      status: 'WORKING',
      subs: subs.map((x, i) => subOf(x.input, x.first, x.second, checked[i])),
      bookTime: now,
      updateTime: now,
    };
    s.strategiesById.set(strat.id, strat);
    acct.strategies.push(strat);
    for (const sub of strat.subs) if (sub.status === 'PENDING') reserveClientId(acct, sub.clientOrderId, strat.id, sub.subId);
    // The first goes in as prepared; the others are prepared again, after what the ones before did
    // (a fill moves the position and the book). One refused only then becomes REJECTED.
    immediate.forEach((x, i) => this.placeSub(strat, strat.subs[x.input.strategySubId - 1], i === 0 ? prepared[0] : undefined));
    s.emitStrategy(strat);
    this.queue(strat.id);
    return strat;
  }

  recordOf(strat: EngineStrategy): StrategyOrderRecord {
    return strategyRecord(strat, (id) => this.s.ordersById.get(id));
  }

  get(userId: string, strategyId: string): StrategyOrderRecord {
    const acct = this.s.acct(userId);
    const strat = this.s.strategiesById.get(numericId(strategyId));
    if (!strat || strat.userId !== acct.userId) fail(ErrorCodes.STRATEGY_NOT_FOUND, `strategy order ${strategyId} not found`, 'strategyId');
    return strategyRecord(strat, (id) => this.s.ordersById.get(id));
  }

  /** A condition of a strategy fired: its sub-order now follows the order it placed. */
  conditionTriggered(c: EngineCondition, orderId: number): void {
    const strat = this.s.strategiesById.get(c.strategyId);
    const sub = strat?.subs.find((x) => x.conditionId === c.id);
    if (sub) sub.orderId = orderId;
    this.queue(c.strategyId);
  }

  /** Drives the strategy once the current operation is done. */
  queue(id: number, amended = false): void {
    if (amended) this.amended.add(id);
    if (this.queued.has(id)) return;
    this.queued.add(id);
    this.s.work.push(() => {
      this.queued.delete(id);
      this.drive(this.s.strategiesById.get(id) as EngineStrategy);
    });
  }

  /**
   * A client order id is unique among the user's open orders (30002): two sub-orders may not share
   * one, nor may a sub-order take that of an open order (a condition sub-order: of a waiting
   * condition order), or one a pending sub-order of another strategy order holds. A sub-order that
   * waits holds its id from now on (client-ids.ts `reserveClientId`). (The second of such legs was
   * accepted and ended REJECTED at once, the strategy order WORKING with a leg missing.)
   */
  private checkClientIds(acct: EngineAccount, subs: readonly NormalizedSub[], index: (x: NormalizedSub) => number): void {
    const seen = new Map<string, number>();
    for (const x of subs) {
      const cid = x.input.clientOrderId;
      if (cid === undefined) continue;
      const i = index(x);
      const j = seen.get(cid);
      if (j !== undefined) fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `subOrderList[${i}]: clientOrderId '${cid}' is also subOrderList[${j}]'s`, `subOrderList[${i}].clientOrderId`);
      seen.set(cid, i);
      const isOrder = x.input.type === 'LIMIT' || x.input.type === 'MARKET';
      const live = isOrder ? liveOrderIdOf(acct, cid) : undefined;
      if (live !== undefined) fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `subOrderList[${i}]: clientOrderId '${cid}' is already used by open order ${live}`, `subOrderList[${i}].clientOrderId`);
      if (!isOrder && acct.conditions.some((c) => c.status === 'NEW' && c.clientOrderId === cid)) {
        fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `subOrderList[${i}]: clientOrderId '${cid}' is already used by a waiting condition order`, `subOrderList[${i}].clientOrderId`);
      }
      named(i, () => refuseReservedClientId(acct, cid));
    }
  }

  /**
   * The checks of one sub-order that need neither the account's margin and positions nor the
   * market (checkOrderShape, checkConditionShape: those of the single endpoints, with their
   * messages), without placing it; a waiting one gets the rest when its driver fires.
   */
  private checkSub(acct: EngineAccount, x: StrategySubOrderInput, i: number): CheckedSub {
    return named(i, () => {
      const spec = this.s.sym(x.symbol).spec;
      const positionSide = this.positions.positionSideFor(acct, x.positionSide);
      if (x.type === 'LIMIT' || x.type === 'MARKET') checkOrderShape(spec, orderInputOf(x), positionSide);
      else checkConditionShape(spec, conditionInputOf(x));
      // The detail shows the request's figures until the sub-order is placed (a BBO one's given price too).
      const price = x.price !== undefined ? ticksOf(spec, x.price, 'price') : 0;
      const qty = x.quantity !== undefined ? stepsOf(spec, x.quantity, 'quantity') : 0;
      const stopPrice = x.stopPrice !== undefined ? ticksOf(spec, x.stopPrice, 'stopPrice') : 0;
      const activatePrice = x.activatePrice !== undefined ? ticksOf(spec, x.activatePrice, 'activatePrice') : 0;
      return { price, qty, stopPrice, activatePrice };
    });
  }

  private prepareSub(acct: EngineAccount, x: StrategySubOrderInput, held = 0n): PreparedOrder | PreparedCondition {
    if (x.type === 'LIMIT' || x.type === 'MARKET') return this.intake.prepare(acct, orderInputOf(x), held);
    return this.conditions.prepare(acct, conditionInputOf(x));
  }

  /** Places a sub-order now; a refusal makes the sub-order REJECTED. */
  private placeSub(strat: EngineStrategy, sub: EngineSubOrder, prepared?: PreparedOrder | PreparedCondition): void {
    const acct = this.s.owner(strat.userId);
    // Its client id was held for it while it waited.
    releaseClientId(acct, sub.clientOrderId, strat.id);
    let p = prepared;
    if (!p) {
      try {
        p = this.prepareSub(acct, sub.input);
      } catch (e) {
        if (!(e instanceof VenueError)) throw e;
        sub.status = 'REJECTED';
        sub.reached.add('REJECTED');
        sub.refusal = { code: e.code, message: e.message };
        this.s.emitRefused({ userId: strat.userId, symbol: strat.symbol.name, conditionId: '', strategyId: String(strat.id), strategySubId: sub.subId, status: 'REJECTED', code: e.code, message: e.message });
        return;
      }
    }
    if (sub.kind === 'order') {
      const order = p as PreparedOrder;
      // The order takes liquidity as a participant's own would (an l2 replay's levels around it).
      const o = placedByEngine(this.s, order, () => this.matching.commit(order, { strategyId: strat.id }));
      sub.orderId = o.id;
    } else {
      const c = this.conditions.commit(p as PreparedCondition, strat.id);
      sub.conditionId = c.id;
    }
    this.syncSub(sub);
  }

  /** Brings a sub-order's status up to date with its order or condition. */
  private syncSub(sub: EngineSubOrder): void {
    let status: SubOrderStatus = sub.status;
    if (sub.orderId) {
      const o = this.s.ordersById.get(sub.orderId) as EngineOrder;
      status = o.status;
      if (o.executed > 0) sub.reached.add('PARTIALLY_FILLED');
    } else if (sub.conditionId) {
      const c = this.s.conditionsById.get(sub.conditionId) as EngineCondition;
      status = c.status === 'NEW' || c.status === 'TRIGGERED' ? 'NEW' : c.status;
    }
    sub.status = status;
    if (status !== 'PENDING') sub.reached.add(status);
  }

  /** Runs the driven-on/trigger rules until nothing more moves, then settles the strategy status. */
  private drive(strat: EngineStrategy): void {
    const amended = this.amended.delete(strat.id);
    if (strat.status !== 'WORKING') return;
    const before = strat.subs.map((x) => `${x.status}:${x.orderId}:${x.conditionId}`).join(',');
    let moved = true;
    for (let guard = 0; moved && guard < 10; guard++) {
      moved = false;
      for (const x of strat.subs) this.syncSub(x);
      for (const sub of strat.subs) {
        for (const which of ['first', 'second'] as const) {
          const id = which === 'first' ? sub.firstDrivenId : sub.secondDrivenId;
          if (id === 0 || (which === 'first' ? sub.firstFired : sub.secondFired)) continue;
          const on = (which === 'first' ? sub.firstDrivenOn : sub.secondDrivenOn) as DrivenOn;
          const action = which === 'first' ? sub.firstTrigger : sub.secondTrigger;
          const driver = strat.subs[id - 1];
          if (reachedState(driver, on)) {
            if (which === 'first') sub.firstFired = true;
            else sub.secondFired = true;
            moved = true;
            if (action === 'PLACE_ORDER') {
              if (sub.status === 'PENDING') this.placeSub(strat, sub);
            } else {
              this.cancelSub(sub);
            }
          } else if (action === 'PLACE_ORDER' && sub.status === 'PENDING' && subFinal(driver.status)) {
            // The driver ended without reaching the state: this sub-order can never be placed.
            sub.status = 'CANCELED';
            sub.reached.add('CANCELED');
            moved = true;
          }
        }
      }
    }
    for (const x of strat.subs) this.syncSub(x);
    const acct = this.s.owner(strat.userId);
    for (const x of strat.subs) if (x.status !== 'PENDING') releaseClientId(acct, x.clientOrderId, strat.id);
    if (strat.subs.every((x) => subFinal(x.status))) {
      const first = strat.subs[0];
      const firstOrder = first.orderId ? this.s.ordersById.get(first.orderId) : undefined;
      const unfilled = !firstOrder || firstOrder.executed === 0;
      strat.status = unfilled && (first.status === 'CANCELED' || first.status === 'REJECTED') ? 'CANCELLED' : 'ALL_DONE';
    }
    const after = strat.subs.map((x) => `${x.status}:${x.orderId}:${x.conditionId}`).join(',');
    if (after !== before || strat.status !== 'WORKING' || amended) {
      strat.updateTime = this.s.clock.now();
      this.s.emitStrategy(strat);
    }
  }

  private cancelSub(sub: EngineSubOrder): void {
    if (sub.status === 'PENDING') {
      sub.status = 'CANCELED';
      sub.reached.add('CANCELED');
      return;
    }
    if (sub.orderId) {
      const o = this.s.ordersById.get(sub.orderId) as EngineOrder;
      if (!isFinal(o.status)) this.matching.finish(o, 'CANCELED', 'CANCELED');
    } else if (sub.conditionId) {
      const c = this.s.conditionsById.get(sub.conditionId) as EngineCondition;
      if (c.status === 'NEW') this.conditions.end(c, 'CANCELED');
    }
    this.syncSub(sub);
  }
}

function subOf(x: StrategySubOrderInput, first: Driver | undefined, second: Driver | undefined, c: CheckedSub): EngineSubOrder {
  const isOrder = x.type === 'LIMIT' || x.type === 'MARKET';
  return {
    subId: x.strategySubId,
    kind: isOrder ? 'order' : 'condition',
    type: x.type,
    side: x.side,
    positionSide: x.positionSide ?? 'BOTH',
    price: c.price,
    qty: c.qty,
    stopPrice: c.stopPrice,
    workingType: x.workingType ?? 'CONTRACT_PRICE',
    priceProtect: x.priceProtect ?? false,
    activatePrice: c.activatePrice,
    callbackRate: x.callbackRate ?? '0',
    timeInForce: x.timeInForce ?? 'GTC',
    reduceOnly: x.reduceOnly ?? false,
    makerOnly: x.makerOnly ?? false,
    closePosition: x.closePosition ?? false,
    clientOrderId: x.clientOrderId ?? '',
    firstDrivenId: first?.id ?? 0,
    firstDrivenOn: first?.on ?? '',
    firstTrigger: first?.action ?? '',
    secondDrivenId: second?.id ?? 0,
    secondDrivenOn: second?.on ?? '',
    secondTrigger: second?.action ?? '',
    status: 'PENDING',
    orderId: 0,
    conditionId: 0,
    input: x,
    reached: new Set(),
    firstFired: false,
    secondFired: false,
  };
}

/** The order request of a normal sub-order (LIMIT, MARKET). */
function orderInputOf(x: StrategySubOrderInput): PlaceOrderInput {
  const tif = x.timeInForce === undefined ? undefined : orderTimeInForce(x.timeInForce);
  return stripUndefined({
    symbol: x.symbol, type: x.type as PlaceOrderInput['type'], side: x.side, positionSide: x.positionSide, price: x.price, quantity: x.quantity,
    timeInForce: tif, reduceOnly: x.reduceOnly, makerOnly: x.makerOnly, closePosition: x.closePosition, clientOrderId: x.clientOrderId,
    priceType: x.priceType, placeType: x.placeType,
  });
}

/** The condition request of a condition sub-order. */
function conditionInputOf(x: StrategySubOrderInput): PlaceConditionInput {
  return stripUndefined({
    symbol: x.symbol, type: x.type as PlaceConditionInput['type'], side: x.side, positionSide: x.positionSide, price: x.price, quantity: x.quantity,
    timeInForce: x.timeInForce, reduceOnly: x.reduceOnly, clientOrderId: x.clientOrderId, stopPrice: x.stopPrice,
    workingType: x.workingType, priceProtect: x.priceProtect, activatePrice: x.activatePrice, callbackRate: x.callbackRate,
    closePosition: x.closePosition,
  });
}

/** Runs `fn`, naming sub-order `i` of the request in the message and field of a refusal. */
function named<T>(i: number, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof VenueError) throw new VenueError(e.code, `subOrderList[${i}]: ${e.message}`, `subOrderList[${i}].${e.field ?? ''}`.replace(/\.$/, ''));
    throw e;
  }
}

/** A copy without the keys whose value is undefined (inputs treat absent and undefined alike). */
function stripUndefined<T extends object>(o: T): T {
  const out = {} as T;
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
