/** Validators of the orders resource (SERVICE_SPEC "Orders", PROTOCOL.md sections 3 and 8). */
import {
  CANCEL_TYPES,
  CONDITION_TIME_IN_FORCE,
  CONDITION_TYPES,
  DRIVEN_ON,
  HISTORY_SIDE_FILTERS,
  HISTORY_TYPE_FILTERS,
  ORDER_TYPES,
  POSITION_SIDES,
  PRICE_TYPES,
  SIDES,
  STRATEGY_TYPES,
  TIME_IN_FORCE,
  TRIGGER_ACTIONS,
  WORKING_TYPES,
  type ConditionType,
  type OrderType,
} from '../../core/enums';
import type {
  BatchCancelItemParams,
  BatchCancelRequest,
  BatchMoveItemParams,
  BatchMoveRequest,
  BatchPlaceRequest,
  CancelAllRequest,
  CancelConditionRequest,
  CancelOrderRequest,
  ConditionHistoryRequest,
  CurrentConditionOrdersRequest,
  CurrentOrdersRequest,
  MoveOrderRequest,
  OrderHistoryRequest,
  PlaceConditionRequest,
  PlaceOrderRequest,
  PlaceStrategyRequest,
  QueryOrderRequest,
  StrategyOrderRequest,
  StrategySubOrderRequest,
  TradesRequest,
} from '../rest/orders';
import {
  CONDITION_STATUS_CODES,
  CURRENT_ORDERS_LIMIT_DEFAULT,
  CURRENT_ORDERS_LIMIT_MAX,
  ORDER_STATUS_CODES,
} from '../rest/orders';
import { readBatch } from './batch';
import { FieldReader, KeySet, invalid, jsonTypeOf, missing } from './fields';
import { CLIENT_ORDER_ID, ID, PAGING_KEYS, PLACE_TYPE, SYMBOL, TIME_RANGE_KEYS, readPaging, readTimeRange } from './rules';

// ---------------------------------------------------------------- shared conditional rules

/** Quantity and closePosition exclude each other: one of them says how much to trade. */
function checkQuantity(r: FieldReader, quantity: string | undefined, closePosition: boolean): void {
  if (closePosition) {
    if (quantity !== undefined) {
      throw invalid(`${r.path('quantity')} must be omitted when closePosition is true (the whole position is closed), got ${JSON.stringify(quantity)}`, r.path('quantity'));
    }
  } else if (quantity === undefined) {
    throw missing(`${r.path('quantity')} is required unless closePosition is true`, r.path('quantity'));
  }
}

/**
 * LIMIT needs a price unless a BBO priceType (1..4) takes it from the book; a price next to a BBO
 * type or on a MARKET order would be ignored, and ignoring what the user sent hides mistakes.
 */
function checkNormalPrice(r: FieldReader, type: OrderType, price: string | undefined, priceType: number): void {
  const f = r.path('price');
  if (type === 'MARKET') {
    if (price !== undefined) throw invalid(`${f} must be omitted for MARKET orders`, f);
    if (priceType !== 0) throw invalid(`${r.path('priceType')} applies to LIMIT orders only; MARKET orders take priceType 0`, r.path('priceType'));
    return;
  }
  if (priceType !== 0) {
    if (price !== undefined) throw invalid(`${f} must be omitted when priceType is ${priceType} (the price comes from the book)`, f);
    return;
  }
  if (price === undefined) throw missing(`${f} is required for LIMIT orders (or give a priceType from 1 to 4)`, f);
}

function isLimitCondition(type: ConditionType): boolean {
  return type === 'STOP_LIMIT' || type === 'TAKE_PROFIT_LIMIT';
}

/** Which trigger fields a condition type takes; fields of another type are refused, not ignored. */
function checkConditionPrices(
  r: FieldReader,
  type: ConditionType,
  v: { price: string | undefined; stopPrice: string | undefined; activatePrice: string | undefined; callbackRate: string | undefined },
): void {
  if (isLimitCondition(type)) {
    if (v.price === undefined) throw missing(`${r.path('price')} is required for ${type} orders`, r.path('price'));
  } else if (v.price !== undefined) {
    throw invalid(`${r.path('price')} must be omitted for ${type} orders (they trigger a MARKET order)`, r.path('price'));
  }
  if (type === 'TRAILING_STOP') {
    if (v.stopPrice !== undefined) {
      throw invalid(`${r.path('stopPrice')} does not apply to TRAILING_STOP orders (use activatePrice and callbackRate)`, r.path('stopPrice'));
    }
    if (v.callbackRate === undefined) throw missing(`${r.path('callbackRate')} is required for TRAILING_STOP orders`, r.path('callbackRate'));
    return;
  }
  if (v.stopPrice === undefined) throw missing(`${r.path('stopPrice')} is required for ${type} orders`, r.path('stopPrice'));
  for (const k of ['activatePrice', 'callbackRate'] as const) {
    if (v[k] !== undefined) throw invalid(`${r.path(k)} applies to TRAILING_STOP orders only`, r.path(k));
  }
}

// ---------------------------------------------------------------- place

const PLACE_ORDER_KEYS = new KeySet([
  'symbol', 'type', 'side', 'positionSide', 'price', 'quantity', 'timeInForce', 'reduceOnly', 'makerOnly',
  'closePosition', 'clientOrderId', 'placeType', 'priceType',
]);

function readPlaceOrder(r: FieldReader): PlaceOrderRequest {
  const symbol = r.reqString('symbol', SYMBOL);
  const type = r.reqEnum('type', ORDER_TYPES);
  const side = r.reqEnum('side', SIDES);
  const positionSide = r.optEnum('positionSide', POSITION_SIDES) ?? 'BOTH';
  const price = r.optDecimal('price', 'positive');
  const quantity = r.optDecimal('quantity', 'positive');
  const timeInForce = r.optEnum('timeInForce', TIME_IN_FORCE) ?? 'GTC';
  const reduceOnly = r.optBool('reduceOnly', false);
  const makerOnly = r.optBool('makerOnly', false);
  const closePosition = r.optBool('closePosition', false);
  const clientOrderId = r.optString('clientOrderId', CLIENT_ORDER_ID);
  const placeType = r.optString('placeType', PLACE_TYPE) ?? '';
  const priceType = r.optIntEnum('priceType', PRICE_TYPES) ?? 0;
  checkNormalPrice(r, type, price, priceType);
  checkQuantity(r, quantity, closePosition);
  return {
    symbol, type, side, positionSide, price, quantity, timeInForce, reduceOnly, makerOnly, closePosition,
    clientOrderId, placeType, priceType,
  };
}

export function validatePlaceOrder(input: unknown): PlaceOrderRequest {
  return readPlaceOrder(FieldReader.body(input, PLACE_ORDER_KEYS));
}

const BATCH_PLACE_KEYS = new KeySet(['orders']);

export function validateBatchPlace(input: unknown): BatchPlaceRequest {
  const r = FieldReader.body(input, BATCH_PLACE_KEYS);
  return { orders: readBatch(r, 'orders', PLACE_ORDER_KEYS, readPlaceOrder) };
}

const PLACE_CONDITION_KEYS = new KeySet([
  'symbol', 'type', 'side', 'positionSide', 'price', 'quantity', 'timeInForce', 'reduceOnly', 'clientOrderId',
  'stopPrice', 'workingType', 'priceProtect', 'activatePrice', 'callbackRate', 'closePosition',
]);

export function validatePlaceCondition(input: unknown): PlaceConditionRequest {
  const r = FieldReader.body(input, PLACE_CONDITION_KEYS);
  const symbol = r.reqString('symbol', SYMBOL);
  const type = r.reqEnum('type', CONDITION_TYPES);
  const side = r.reqEnum('side', SIDES);
  const positionSide = r.optEnum('positionSide', POSITION_SIDES) ?? 'BOTH';
  const price = r.optDecimal('price', 'positive');
  const quantity = r.optDecimal('quantity', 'positive');
  const timeInForce = r.optEnum('timeInForce', CONDITION_TIME_IN_FORCE) ?? 'GTC';
  const reduceOnly = r.optBool('reduceOnly', false);
  const clientOrderId = r.optString('clientOrderId', CLIENT_ORDER_ID);
  const stopPrice = r.optDecimal('stopPrice', 'positive');
  const workingType = r.optEnum('workingType', WORKING_TYPES) ?? 'CONTRACT_PRICE';
  const priceProtect = r.optBool('priceProtect', false);
  const activatePrice = r.optDecimal('activatePrice', 'positive');
  const callbackRate = r.optDecimal('callbackRate', 'positive');
  const closePosition = r.optBool('closePosition', false);
  checkConditionPrices(r, type, { price, stopPrice, activatePrice, callbackRate });
  checkQuantity(r, quantity, closePosition);
  return {
    symbol, type, side, positionSide, price, quantity, timeInForce, reduceOnly, clientOrderId, stopPrice,
    workingType, priceProtect, activatePrice, callbackRate, closePosition,
  };
}

const SUB_ORDER_TYPES = [...ORDER_TYPES, ...CONDITION_TYPES] as const;
const NORMAL_ONLY_KEYS = ['makerOnly', 'placeType', 'priceType'] as const;
const CONDITION_ONLY_KEYS = ['stopPrice', 'workingType', 'priceProtect', 'activatePrice', 'callbackRate'] as const;

const SUB_ORDER_KEYS = new KeySet([
  'strategySubId', 'symbol', 'type', 'side', 'positionSide', 'price', 'quantity', 'timeInForce', 'reduceOnly',
  'makerOnly', 'closePosition', 'clientOrderId', 'placeType', 'priceType', 'stopPrice', 'workingType',
  'priceProtect', 'activatePrice', 'callbackRate', 'firstDrivenId', 'firstDrivenOn', 'firstTrigger',
  'secondDrivenId', 'secondDrivenOn', 'secondTrigger',
]);

function isNormalType(t: OrderType | ConditionType): t is OrderType {
  return t === 'LIMIT' || t === 'MARKET';
}

function readSubOrder(r: FieldReader): StrategySubOrderRequest {
  const strategySubId = r.reqInt('strategySubId', 1, Number.MAX_SAFE_INTEGER);
  const symbol = r.reqString('symbol', SYMBOL);
  const type = r.reqEnum('type', SUB_ORDER_TYPES);
  const side = r.reqEnum('side', SIDES);
  const normal = isNormalType(type);
  for (const k of normal ? CONDITION_ONLY_KEYS : NORMAL_ONLY_KEYS) {
    if (r.has(k)) {
      throw invalid(`${r.path(k)} does not apply to ${type} sub-orders (${normal ? 'condition' : 'normal'} order types only)`, r.path(k));
    }
  }
  const positionSide = r.optEnum('positionSide', POSITION_SIDES) ?? 'BOTH';
  const price = r.optDecimal('price', 'positive');
  const quantity = r.optDecimal('quantity', 'positive');
  const timeInForce = r.optEnum('timeInForce', normal ? TIME_IN_FORCE : CONDITION_TIME_IN_FORCE) ?? 'GTC';
  const reduceOnly = r.optBool('reduceOnly', false);
  const makerOnly = r.optBool('makerOnly', false);
  const closePosition = r.optBool('closePosition', false);
  const clientOrderId = r.optString('clientOrderId', CLIENT_ORDER_ID);
  const placeType = r.optString('placeType', PLACE_TYPE) ?? '';
  const priceType = r.optIntEnum('priceType', PRICE_TYPES) ?? 0;
  const stopPrice = r.optDecimal('stopPrice', 'positive');
  const workingType = r.optEnum('workingType', WORKING_TYPES) ?? 'CONTRACT_PRICE';
  const priceProtect = r.optBool('priceProtect', false);
  const activatePrice = r.optDecimal('activatePrice', 'positive');
  const callbackRate = r.optDecimal('callbackRate', 'positive');
  const firstDrivenId = r.optInt('firstDrivenId', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const firstDrivenOn = r.optEnum('firstDrivenOn', DRIVEN_ON);
  const firstTrigger = r.optEnum('firstTrigger', TRIGGER_ACTIONS);
  const secondDrivenId = r.optInt('secondDrivenId', 0, Number.MAX_SAFE_INTEGER) ?? 0;
  const secondDrivenOn = r.optEnum('secondDrivenOn', DRIVEN_ON);
  const secondTrigger = r.optEnum('secondTrigger', TRIGGER_ACTIONS);
  if (isNormalType(type)) checkNormalPrice(r, type, price, priceType);
  else checkConditionPrices(r, type, { price, stopPrice, activatePrice, callbackRate });
  checkQuantity(r, quantity, closePosition);
  return {
    strategySubId, symbol, type, side, positionSide, price, quantity, timeInForce, reduceOnly, makerOnly,
    closePosition, clientOrderId, placeType, priceType, stopPrice, workingType, priceProtect, activatePrice,
    callbackRate, firstDrivenId, firstDrivenOn, firstTrigger, secondDrivenId, secondDrivenOn, secondTrigger,
  };
}

const PLACE_STRATEGY_KEYS = new KeySet(['strategyType', 'subOrderList']);

/** A strategy is all or nothing, so unlike a batch the first bad sub-order fails the request. */
export function validatePlaceStrategy(input: unknown): PlaceStrategyRequest {
  const r = FieldReader.body(input, PLACE_STRATEGY_KEYS);
  const strategyType = r.reqEnum('strategyType', STRATEGY_TYPES);
  const list = r.reqArray('subOrderList');
  const subOrderList: StrategySubOrderRequest[] = new Array<StrategySubOrderRequest>(list.length);
  for (let i = 0; i < list.length; i++) {
    const prefix = `subOrderList[${i}]`;
    const v: unknown = list[i];
    const ir = FieldReader.body(v, SUB_ORDER_KEYS, `${prefix}.`, () => invalid(`${prefix} must be a JSON object, got ${jsonTypeOf(v)}`, prefix));
    subOrderList[i] = readSubOrder(ir);
  }
  return { strategyType, subOrderList };
}

// ---------------------------------------------------------------- queries

/** orderId or clientOrderId, at least one; used by single query and single or batch cancel. */
function readOrderRef(r: FieldReader): { orderId: string | undefined; clientOrderId: string | undefined } {
  const orderId = r.optString('orderId', ID);
  const clientOrderId = r.optString('clientOrderId', CLIENT_ORDER_ID);
  if (orderId === undefined && clientOrderId === undefined) {
    throw missing(`${r.path('orderId')} or ${r.path('clientOrderId')} is required`, r.path('orderId'));
  }
  return { orderId, clientOrderId };
}

const QUERY_ORDER_KEYS = new KeySet(['symbol', 'orderId', 'clientOrderId']);

export function validateQueryOrder(input: unknown): QueryOrderRequest {
  const r = FieldReader.query(input, QUERY_ORDER_KEYS);
  const symbol = r.reqString('symbol', SYMBOL);
  const { orderId, clientOrderId } = readOrderRef(r);
  return { symbol, orderId, clientOrderId };
}

const CURRENT_ORDERS_KEYS = new KeySet(['symbol', 'limit', 'lastOrderId']);

export function validateCurrentOrders(input: unknown): CurrentOrdersRequest {
  const r = FieldReader.query(input, CURRENT_ORDERS_KEYS);
  return {
    symbol: r.optString('symbol', SYMBOL),
    limit: r.optInt('limit', 1, CURRENT_ORDERS_LIMIT_MAX) ?? CURRENT_ORDERS_LIMIT_DEFAULT,
    lastOrderId: r.optInt64Id('lastOrderId'),
  };
}

const CURRENT_CONDITION_KEYS = new KeySet(['symbol']);

export function validateCurrentConditionOrders(input: unknown): CurrentConditionOrdersRequest {
  const r = FieldReader.query(input, CURRENT_CONDITION_KEYS);
  return { symbol: r.optString('symbol', SYMBOL) };
}

const ORDER_HISTORY_KEYS = new KeySet(['symbol', 'orderId', 'clientOrderId', 'type', 'side', 'status', ...TIME_RANGE_KEYS, ...PAGING_KEYS]);

export function validateOrderHistory(input: unknown): OrderHistoryRequest {
  const r = FieldReader.query(input, ORDER_HISTORY_KEYS);
  const symbol = r.optString('symbol', SYMBOL);
  const orderId = r.optString('orderId', ID);
  const clientOrderId = r.optString('clientOrderId', CLIENT_ORDER_ID);
  const type = r.optIntEnum('type', HISTORY_TYPE_FILTERS);
  const side = r.optIntEnum('side', HISTORY_SIDE_FILTERS);
  const status = r.optIntEnum('status', ORDER_STATUS_CODES);
  const { startTime, endTime } = readTimeRange(r);
  const { page, pageSize } = readPaging(r);
  return { symbol, orderId, clientOrderId, type, side, status, startTime, endTime, page, pageSize };
}

const CONDITION_HISTORY_KEYS = new KeySet(['symbol', 'side', 'status', ...TIME_RANGE_KEYS, ...PAGING_KEYS]);

export function validateConditionHistory(input: unknown): ConditionHistoryRequest {
  const r = FieldReader.query(input, CONDITION_HISTORY_KEYS);
  const symbol = r.optString('symbol', SYMBOL);
  const side = r.optIntEnum('side', HISTORY_SIDE_FILTERS);
  const status = r.optIntEnum('status', CONDITION_STATUS_CODES);
  const { startTime, endTime } = readTimeRange(r);
  const { page, pageSize } = readPaging(r);
  return { symbol, side, status, startTime, endTime, page, pageSize };
}

const TRADES_KEYS = new KeySet(['symbol', 'orderId', ...TIME_RANGE_KEYS, ...PAGING_KEYS]);

export function validateTrades(input: unknown): TradesRequest {
  const r = FieldReader.query(input, TRADES_KEYS);
  const symbol = r.optString('symbol', SYMBOL);
  const orderId = r.optString('orderId', ID);
  const { startTime, endTime } = readTimeRange(r);
  const { page, pageSize } = readPaging(r);
  return { symbol, orderId, startTime, endTime, page, pageSize };
}

const STRATEGY_ORDER_KEYS = new KeySet(['strategyId']);

export function validateStrategyOrder(input: unknown): StrategyOrderRequest {
  const r = FieldReader.query(input, STRATEGY_ORDER_KEYS);
  return { strategyId: r.reqString('strategyId', ID) };
}

// ---------------------------------------------------------------- cancel and amend

const CANCEL_KEYS = new KeySet(['symbol', 'orderId', 'clientOrderId']);

function readCancel(r: FieldReader): BatchCancelItemParams {
  const symbol = r.reqString('symbol', SYMBOL);
  const { orderId, clientOrderId } = readOrderRef(r);
  return { symbol, orderId, clientOrderId };
}

export function validateCancelOrder(input: unknown): CancelOrderRequest {
  return readCancel(FieldReader.body(input, CANCEL_KEYS));
}

const MOVE_KEYS = new KeySet(['symbol', 'orderId', 'price', 'quantity']);

export function validateMoveOrder(input: unknown): MoveOrderRequest {
  const r = FieldReader.body(input, MOVE_KEYS);
  return {
    symbol: r.reqString('symbol', SYMBOL),
    orderId: r.reqString('orderId', ID),
    price: r.reqDecimal('price', 'positive'),
    quantity: r.reqDecimal('quantity', 'positive'),
  };
}

const BATCH_MOVE_KEYS = new KeySet(['symbol', 'orders']);
const BATCH_MOVE_ITEM_KEYS = new KeySet(['orderId', 'price', 'quantity']);

function readMoveItem(r: FieldReader): BatchMoveItemParams {
  return {
    orderId: r.reqString('orderId', ID),
    price: r.reqDecimal('price', 'positive'),
    quantity: r.reqDecimal('quantity', 'positive'),
  };
}

export function validateBatchMove(input: unknown): BatchMoveRequest {
  const r = FieldReader.body(input, BATCH_MOVE_KEYS);
  const symbol = r.reqString('symbol', SYMBOL);
  return { symbol, orders: readBatch(r, 'orders', BATCH_MOVE_ITEM_KEYS, readMoveItem) };
}

const BATCH_CANCEL_KEYS = new KeySet(['orders']);

export function validateBatchCancel(input: unknown): BatchCancelRequest {
  const r = FieldReader.body(input, BATCH_CANCEL_KEYS);
  return { orders: readBatch(r, 'orders', CANCEL_KEYS, readCancel) };
}

const CANCEL_ALL_KEYS = new KeySet(['symbol', 'cancelType']);

export function validateCancelAll(input: unknown): CancelAllRequest {
  const r = FieldReader.optionalBody(input, CANCEL_ALL_KEYS);
  return {
    symbol: r.optString('symbol', SYMBOL),
    cancelType: r.optIntEnum('cancelType', CANCEL_TYPES) ?? 0,
  };
}

const CANCEL_CONDITION_KEYS = new KeySet(['symbol', 'conditionId']);

export function validateCancelCondition(input: unknown): CancelConditionRequest {
  const r = FieldReader.body(input, CANCEL_CONDITION_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL), conditionId: r.reqString('conditionId', ID) };
}
