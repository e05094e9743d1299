/**
 * Condition orders (stop, take-profit, trailing stop): placing, cancelling, ending and querying
 * them. When they fire is firing.ts; the trigger rules are triggers.ts.
 */
import { numericId } from '../../../core/ids';
import { Dec, formatDec } from '../../../core/decimal';
import type { ConditionStatus, ConditionTimeInForce, Side, TimeInForce } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import type { ConditionOrderRecord } from '../../../protocol/records';
import type { PlaceConditionInput } from '../inputs';
import type { EngineAccount, EngineCondition } from '../model';
import { quantitySteps, ticksOf } from '../orders/prepare';
import type { Positions } from '../positions/positions';
import { conditionRecord } from '../records';
import { conditionFinal, fail, page, type EngineState, type SymbolState } from '../state';
import type { SymbolSpec } from '../symbols';
import { refuseReservedClientId } from '../orders/client-ids';
import type { PositionSide } from '../../../core/enums';

/** Most waiting condition orders a user may have on one symbol (30010). */
export const MAX_OPEN_CONDITIONS_PER_SYMBOL = 100;
/** priceProtect: a trigger this far (fraction) from mark at placement is refused with 30013. */
const PRICE_PROTECT_PLACE = new Dec('0.1');
/** Trailing callback rate bounds, percent. */
const CALLBACK_MIN = new Dec('0.1');
const CALLBACK_MAX = new Dec('10');

/**
 * The timeInForce of the normal order a condition (or a strategy's sub-order) places: the one it
 * was given, GTE_GTC as GTC (GTE_GTC says when the condition ends, not the order). LIMIT and MARKET
 * alike, as a user's order of that type takes it: a MARKET order given none is GTC.
 */
export function orderTimeInForce(tif: ConditionTimeInForce): TimeInForce {
  return tif === 'GTE_GTC' ? 'GTC' : tif;
}

export interface PreparedCondition {
  acct: EngineAccount;
  st: SymbolState;
  input: PlaceConditionInput;
  positionSide: PositionSide;
  qty: number;
  price: number;
  stopPrice: number;
  activatePrice: number;
  callbackRate: string;
  clientOrderId: string;
}

/** What checkConditionShape resolves: prices in ticks (0 where they do not apply), quantity in steps (0 with closePosition). */
export interface ConditionShape {
  qty: number;
  price: number;
  stopPrice: number;
  activatePrice: number;
  callbackRate: string;
}

/**
 * The rules of a condition request that need neither the account nor the market: price,
 * stopPrice, activatePrice and callbackRate by type, quantity or closePosition, the grid. A
 * strategy order checks its waiting sub-orders with these at acceptance; `prepare` runs them for
 * every condition order, then what depends on the mark, the position and the account.
 */
export function checkConditionShape(spec: SymbolSpec, input: PlaceConditionInput): ConditionShape {
  const closePosition = input.closePosition ?? false;
  const isLimit = input.type === 'STOP_LIMIT' || input.type === 'TAKE_PROFIT_LIMIT';
  const trailing = input.type === 'TRAILING_STOP';
  let price = 0;
  if (isLimit) {
    if (input.price === undefined) fail(ErrorCodes.MISSING_PARAMETER, `price is required for ${input.type}`, 'price');
    price = ticksOf(spec, input.price, 'price');
  } else if (input.price !== undefined) {
    fail(ErrorCodes.INVALID_PARAMETER, `price must not be given for ${input.type}: it places a MARKET order`, 'price');
  }
  let stopPrice = 0;
  let activatePrice = 0;
  // A decimal field is a decimal string: "0" where it does not apply, as for the other prices.
  let callbackRate = '0';
  if (trailing) {
    if (input.callbackRate === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'callbackRate is required for TRAILING_STOP', 'callbackRate');
    const rate = new Dec(input.callbackRate);
    if (rate.lt(CALLBACK_MIN) || rate.gt(CALLBACK_MAX)) fail(ErrorCodes.INVALID_PARAMETER, `callbackRate is a percentage from ${CALLBACK_MIN} to ${CALLBACK_MAX}, got ${input.callbackRate}`, 'callbackRate');
    callbackRate = formatDec(rate);
    if (input.activatePrice !== undefined) activatePrice = ticksOf(spec, input.activatePrice, 'activatePrice');
    if (input.stopPrice !== undefined) fail(ErrorCodes.INVALID_PARAMETER, 'stopPrice must not be given for TRAILING_STOP: use activatePrice and callbackRate', 'stopPrice');
  } else {
    if (input.stopPrice === undefined) fail(ErrorCodes.MISSING_PARAMETER, `stopPrice is required for ${input.type}`, 'stopPrice');
    stopPrice = ticksOf(spec, input.stopPrice, 'stopPrice');
    if (input.activatePrice !== undefined || input.callbackRate !== undefined) {
      fail(ErrorCodes.INVALID_PARAMETER, `activatePrice and callbackRate apply only to TRAILING_STOP, not ${input.type}`, input.activatePrice !== undefined ? 'activatePrice' : 'callbackRate');
    }
  }
  const qty = quantitySteps(spec, input.quantity, closePosition, 'the whole position is closed on trigger');
  return { qty, price, stopPrice, activatePrice, callbackRate };
}

export class Conditions {
  constructor(
    private readonly s: EngineState,
    private readonly positions: Positions,
  ) {}

  /** Resolves and checks a condition request; changes nothing. Throws VenueError. */
  prepare(acct: EngineAccount, input: PlaceConditionInput): PreparedCondition {
    const st = this.s.sym(input.symbol);
    const spec = st.spec;
    const positionSide = this.positions.positionSideFor(acct, input.positionSide);
    const shape = checkConditionShape(spec, input);
    if (input.type !== 'TRAILING_STOP' && input.priceProtect) {
      const mark = this.s.markDec(st);
      const dev = spec.tick.decOf(shape.stopPrice).minus(mark).abs().div(mark);
      if (dev.gt(PRICE_PROTECT_PLACE)) {
        fail(ErrorCodes.PRICE_PROTECTION, `priceProtect: stopPrice ${input.stopPrice ?? ''} is ${formatDec(dev.times(100), 2)} % from mark price ${spec.tick.fromUnits(st.market.mark)}, more than ${formatDec(PRICE_PROTECT_PLACE.times(100))} %`, 'stopPrice');
      }
    }
    if (input.timeInForce === 'GTE_GTC' && this.positions.positionQty(acct, spec.name, positionSide) === 0) {
      fail(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE, `GTE_GTC condition order needs an open ${positionSide} position on ${spec.name} to close`, 'timeInForce');
    }
    if (input.clientOrderId !== undefined) {
      if (acct.conditions.some((c) => c.status === 'NEW' && c.clientOrderId === input.clientOrderId)) {
        fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `clientOrderId '${input.clientOrderId}' is already used by a waiting condition order`, 'clientOrderId');
      }
      refuseReservedClientId(acct, input.clientOrderId);
    }
    const waiting = st.conditions.filter((c) => c.userId === acct.userId).length;
    if (waiting >= MAX_OPEN_CONDITIONS_PER_SYMBOL) fail(ErrorCodes.TOO_MANY_OPEN_ORDERS, `at most ${MAX_OPEN_CONDITIONS_PER_SYMBOL} waiting condition orders per symbol`);
    return { acct, st, input, positionSide, ...shape, clientOrderId: input.clientOrderId ?? '' };
  }

  commit(p: PreparedCondition, strategyId: number): EngineCondition {
    const now = this.s.clock.now();
    const id = this.s.nextConditionId++;
    const input = p.input;
    const c: EngineCondition = {
      id,
      userId: p.acct.userId,
      symbol: p.st.spec,
      type: input.type,
      side: input.side,
      positionSide: p.positionSide,
      qty: p.qty,
      price: p.price,
      stopPrice: p.stopPrice,
      workingType: input.workingType ?? 'CONTRACT_PRICE',
      priceProtect: input.priceProtect ?? false,
      activatePrice: p.activatePrice,
      callbackRate: p.callbackRate,
      timeInForce: input.timeInForce ?? 'GTC',
      reduceOnly: input.reduceOnly ?? false,
      closePosition: input.closePosition ?? false,
      status: 'NEW',
      clientOrderId: p.clientOrderId !== '' ? p.clientOrderId : `auto-c${id}`,
      triggeredOrderId: 0,
      triggerTime: 0,
      createdAt: now,
      updateTime: now,
      strategyId,
      trailActive: false,
      trailExtreme: 0,
    };
    this.s.conditionsById.set(id, c);
    p.acct.conditions.push(c);
    p.st.conditions.push(c);
    this.s.emitCondition(c);
    this.s.follow.marketMoved(p.st);
    return c;
  }

  /** Places a condition order; the caller answers with its record once the command's follow-ups ran (engine.ts). */
  place(userId: string, input: PlaceConditionInput): EngineCondition {
    return this.commit(this.prepare(this.s.acct(userId), input), 0);
  }

  cancel(userId: string, symbol: string, conditionId: string): ConditionOrderRecord {
    const acct = this.s.acct(userId);
    const st = this.s.sym(symbol);
    const c = this.s.conditionsById.get(numericId(conditionId));
    if (!c || c.userId !== acct.userId || c.symbol !== st.spec) fail(ErrorCodes.CONDITION_NOT_FOUND, `condition order ${conditionId} not found on ${symbol}`, 'conditionId');
    if (conditionFinal(c.status)) fail(ErrorCodes.ORDER_FINAL, `condition order ${conditionId} is ${c.status} and cannot be cancelled`, 'conditionId');
    this.end(c, 'CANCELED');
    return conditionRecord(c);
  }

  /** Cancels the user's waiting condition orders, optionally of one symbol. */
  cancelAll(acct: EngineAccount, symbol: string | undefined): number {
    let n = 0;
    for (const c of acct.conditions) {
      if (c.status === 'NEW' && (symbol === undefined || c.symbol.name === symbol)) {
        this.end(c, 'CANCELED');
        n++;
      }
    }
    return n;
  }

  end(c: EngineCondition, status: ConditionStatus): void {
    const st = this.s.stateOf(c.symbol);
    const i = st.conditions.indexOf(c);
    if (i >= 0) st.conditions.splice(i, 1);
    c.status = status;
    c.updateTime = this.s.clock.now();
    this.s.emitCondition(c);
    if (c.strategyId) this.s.follow.strategyTouched(c.strategyId);
  }

  /** GTE_GTC condition orders end when the position they would close is gone. */
  positionChanged(acct: EngineAccount, st: SymbolState): void {
    if (st.conditions.length === 0) return;
    for (const c of [...st.conditions]) {
      if (c.userId !== acct.userId || c.timeInForce !== 'GTE_GTC') continue;
      if (this.positions.positionQty(acct, st.spec.name, c.positionSide) === 0) this.end(c, 'CANCELED');
    }
  }

  current(userId: string, symbol: string | undefined): { list: ConditionOrderRecord[]; total: number } {
    const acct = this.s.acct(userId);
    if (symbol !== undefined) this.s.sym(symbol);
    const list = acct.conditions.filter((c) => c.status === 'NEW' && (symbol === undefined || c.symbol.name === symbol)).map(conditionRecord);
    return { list, total: list.length };
  }

  history(userId: string, f: { symbol?: string; side?: Side; status?: ConditionStatus; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: ConditionOrderRecord[]; total: number } {
    const acct = this.s.acct(userId);
    if (f.symbol !== undefined) this.s.sym(f.symbol);
    const rows = acct.conditions.filter((c) =>
      (f.symbol === undefined || c.symbol.name === f.symbol) &&
      (f.side === undefined || c.side === f.side) &&
      (f.status === undefined || c.status === f.status) &&
      (f.startTime === undefined || c.createdAt >= f.startTime) &&
      (f.endTime === undefined || c.createdAt <= f.endTime));
    return page([...rows].reverse(), f.page, f.pageSize, conditionRecord);
  }
}
