/** Wire records (src/protocol/records.ts) made from engine state. */
import { Dec, formatDec } from '../../core/decimal';
import { MONEY_DP } from '../../core/values';
import { formatRatio, formatUnits } from '../../core/money-units';
import type { ConditionOrderRecord, OrderRecord, StrategyOrderRecord, StrategySubOrderRecord } from '../../protocol/records';
import type { EngineCondition, EngineOrder, EngineStrategy, EngineSubOrder } from './model';

export const money = (d: Dec): string => formatDec(d, MONEY_DP);
/** Money rounded up (a margin needed) or down (an available balance): never shown on the wrong side of the limit. */
export const moneyUp = (d: Dec): string => formatDec(d.toDecimalPlaces(MONEY_DP, Dec.ROUND_CEIL));
export const moneyDown = (d: Dec): string => formatDec(d.toDecimalPlaces(MONEY_DP, Dec.ROUND_FLOOR));

/** Prices derived by division (averages, entry, liquidation) are shown to the tick's digits + 4. */
export function derivedPrice(d: Dec, tickScale: number): string {
  return formatDec(d, tickScale + 4);
}

/**
 * Average fill price of an order, cumQuote / executed, to the tick's digits + 4 (half-even), in
 * integers: cumQuote is in money units and executed in steps of unitScaled x 10^-scale.
 */
export function averagePrice(o: EngineOrder): string {
  const step = o.symbol.step;
  return formatRatio(o.cumQuote, BigInt(o.executed) * BigInt(step.unitScaled), step.scale - MONEY_DP, o.symbol.tick.scale + 4);
}

export function orderRecord(o: EngineOrder): OrderRecord {
  const spec = o.symbol;
  const rec: OrderRecord = {
    orderId: String(o.id),
    clientOrderId: o.clientOrderId,
    symbol: spec.name,
    side: o.side,
    positionSide: o.positionSide,
    type: o.type,
    timeInForce: o.timeInForce,
    price: o.price === 0 ? '0' : spec.tick.fromUnits(o.price),
    quantity: spec.step.fromUnits(o.qty),
    executedQty: spec.step.fromUnits(o.executed),
    avgPrice: o.executed === 0 ? '0' : averagePrice(o),
    cumQuote: formatUnits(o.cumQuote),
    status: o.status,
    reduceOnly: o.reduceOnly,
    makerOnly: o.makerOnly,
    closePosition: o.closePosition,
    priceType: o.priceType,
    placeType: o.placeType,
    createdAt: o.createdAt,
    updateTime: o.updateTime,
  };
  if (o.conditionId) rec.conditionId = String(o.conditionId);
  if (o.strategyId) rec.strategyId = String(o.strategyId);
  return rec;
}

export function conditionRecord(c: EngineCondition): ConditionOrderRecord {
  const spec = c.symbol;
  const rec: ConditionOrderRecord = {
    conditionId: String(c.id),
    clientOrderId: c.clientOrderId,
    symbol: spec.name,
    type: c.type,
    side: c.side,
    positionSide: c.positionSide,
    quantity: spec.step.fromUnits(c.qty),
    price: c.price === 0 ? '0' : spec.tick.fromUnits(c.price),
    stopPrice: c.stopPrice === 0 ? '0' : spec.tick.fromUnits(c.stopPrice),
    workingType: c.workingType,
    priceProtect: c.priceProtect,
    activatePrice: c.activatePrice === 0 ? '0' : spec.tick.fromUnits(c.activatePrice),
    callbackRate: c.callbackRate,
    timeInForce: c.timeInForce,
    reduceOnly: c.reduceOnly,
    closePosition: c.closePosition,
    conditionStatus: c.status,
    triggeredOrderId: c.triggeredOrderId ? String(c.triggeredOrderId) : '',
    triggerTime: c.triggerTime,
    createdAt: c.createdAt,
    updateTime: c.updateTime,
  };
  if (c.strategyId) rec.strategyId = String(c.strategyId);
  return rec;
}

function subRecord(s: EngineSubOrder, st: EngineStrategy, order: EngineOrder | undefined): StrategySubOrderRecord {
  const spec = st.symbol;
  const price = order ? order.price : s.price;
  const rec: StrategySubOrderRecord = {
    strategySubId: s.subId,
    symbol: spec.name,
    type: s.type,
    side: s.side,
    positionSide: s.positionSide,
    // Once placed, the order's price and quantity (an amend or a reduce-only cut moves them); before, the request's.
    price: price === 0 ? '0' : spec.tick.fromUnits(price),
    quantity: spec.step.fromUnits(order ? order.qty : s.qty),
    stopPrice: s.stopPrice === 0 ? '0' : spec.tick.fromUnits(s.stopPrice),
    workingType: s.workingType,
    timeInForce: s.timeInForce,
    reduceOnly: s.reduceOnly,
    makerOnly: s.makerOnly,
    closePosition: s.closePosition,
    priceType: order?.priceType ?? s.input.priceType ?? 0,
    placeType: order?.placeType ?? s.input.placeType ?? '',
    priceProtect: s.priceProtect,
    activatePrice: s.activatePrice === 0 ? '0' : spec.tick.fromUnits(s.activatePrice),
    callbackRate: s.callbackRate,
    // The id the placed order got (the engine's own when the request gave none).
    clientOrderId: s.clientOrderId !== '' ? s.clientOrderId : (order?.clientOrderId ?? ''),
    firstDrivenId: s.firstDrivenId,
    firstDrivenOn: s.firstDrivenOn,
    firstTrigger: s.firstTrigger,
    secondDrivenId: s.secondDrivenId,
    secondDrivenOn: s.secondDrivenOn,
    secondTrigger: s.secondTrigger,
    status: s.status,
    executedQty: order ? spec.step.fromUnits(order.executed) : '0',
    avgPrice: order && order.executed > 0 ? averagePrice(order) : '0',
    cumQuote: order ? formatUnits(order.cumQuote) : '0',
    // The placed order's times; before that, the strategy order's.
    createdAt: order?.createdAt ?? st.bookTime,
    updateTime: order?.updateTime ?? st.updateTime,
  };
  if (s.orderId) rec.orderId = String(s.orderId);
  if (s.conditionId) rec.conditionId = String(s.conditionId);
  return rec;
}

export function strategyRecord(st: EngineStrategy, orderOf: (id: number) => EngineOrder | undefined): StrategyOrderRecord {
  return {
    strategyId: String(st.id),
    strategyType: st.type,
    strategyStatus: st.status,
    bookTime: st.bookTime,
    subOrders: st.subs.map((s) => subRecord(s, st, s.orderId ? orderOf(s.orderId) : undefined)),
    updateTime: st.updateTime,
  };
}
