/**
 * Orders resource: /v1/private/order/* (SERVICE_SPEC "Orders", PROTOCOL.md section 3).
 * `*Params` is what a client sends (optional fields optional); `*Request` is what the validator
 * returns (defaults filled, numbers parsed).
 */
import type {
  CancelType,
  ConditionStatus,
  ConditionTimeInForce,
  ConditionType,
  DrivenOn,
  HistorySideFilter,
  HistoryTypeFilter,
  OrderStatus,
  OrderType,
  PositionSide,
  PriceType,
  Side,
  StrategyStatus,
  StrategyType,
  TimeInForce,
  TriggerAction,
  WorkingType,
} from '../../core/enums';
import type { ConditionOrderRecord, OrderRecord, StrategyOrderRecord, TradeRecord } from '../records';
import type { BatchItem, BatchResult, ListResult, PageParams, TimeRangeParams, WithDefaults } from './common';

// ---------------------------------------------------------------- place

export interface PlaceOrderParams {
  symbol: string;
  type: OrderType;
  side: Side;
  positionSide?: PositionSide;
  /** Required for LIMIT with priceType 0; must be absent for MARKET and for BBO price types. */
  price?: string;
  /** May be omitted (and then must be) when closePosition is true. */
  quantity?: string;
  timeInForce?: TimeInForce;
  reduceOnly?: boolean;
  makerOnly?: boolean;
  closePosition?: boolean;
  clientOrderId?: string;
  placeType?: string;
  priceType?: PriceType;
}

export type PlaceOrderRequest = WithDefaults<
  PlaceOrderParams,
  'positionSide' | 'timeInForce' | 'reduceOnly' | 'makerOnly' | 'closePosition' | 'placeType' | 'priceType'
>;

export interface PlaceOrderResult {
  orderId: string;
  clientOrderId: string;
  status: OrderStatus;
  timestamp: number;
}

export interface BatchPlaceParams {
  orders: PlaceOrderParams[];
}

export interface BatchPlaceRequest {
  orders: BatchItem<PlaceOrderRequest>[];
}

export type BatchPlaceResult = BatchResult;

export interface PlaceConditionParams {
  symbol: string;
  type: ConditionType;
  side: Side;
  positionSide?: PositionSide;
  /** Required for STOP_LIMIT and TAKE_PROFIT_LIMIT; must be absent otherwise. */
  price?: string;
  quantity?: string;
  timeInForce?: ConditionTimeInForce;
  reduceOnly?: boolean;
  clientOrderId?: string;
  /** Required for every type but TRAILING_STOP; must be absent for TRAILING_STOP. */
  stopPrice?: string;
  workingType?: WorkingType;
  priceProtect?: boolean;
  /** TRAILING_STOP only: the trail starts once this price trades; absent means at once. */
  activatePrice?: string;
  /** TRAILING_STOP only, required there: percentage ("1" = 1 %). */
  callbackRate?: string;
  closePosition?: boolean;
}

export type PlaceConditionRequest = WithDefaults<
  PlaceConditionParams,
  'positionSide' | 'timeInForce' | 'reduceOnly' | 'workingType' | 'priceProtect' | 'closePosition'
>;

export interface PlaceConditionResult {
  conditionId: string;
  conditionStatus: ConditionStatus;
  timestamp: number;
}

/**
 * One sub-order of a strategy: the fields of a normal or a condition order, chosen by `type`, plus
 * the driving fields. Which combinations make a valid OTO/OCO/OTOCO is the engine's call (30017).
 */
export interface StrategySubOrderParams {
  strategySubId: number;
  symbol: string;
  type: OrderType | ConditionType;
  side: Side;
  positionSide?: PositionSide;
  price?: string;
  quantity?: string;
  /** GTE_GTC only for condition types. */
  timeInForce?: ConditionTimeInForce;
  reduceOnly?: boolean;
  makerOnly?: boolean;
  closePosition?: boolean;
  clientOrderId?: string;
  placeType?: string;
  priceType?: PriceType;
  stopPrice?: string;
  workingType?: WorkingType;
  priceProtect?: boolean;
  activatePrice?: string;
  callbackRate?: string;
  /** 0 means no dependency. */
  firstDrivenId?: number;
  firstDrivenOn?: DrivenOn;
  firstTrigger?: TriggerAction;
  secondDrivenId?: number;
  secondDrivenOn?: DrivenOn;
  secondTrigger?: TriggerAction;
}

export type StrategySubOrderRequest = WithDefaults<
  StrategySubOrderParams,
  | 'positionSide'
  | 'timeInForce'
  | 'reduceOnly'
  | 'makerOnly'
  | 'closePosition'
  | 'placeType'
  | 'priceType'
  | 'workingType'
  | 'priceProtect'
  | 'firstDrivenId'
  | 'secondDrivenId'
>;

export interface PlaceStrategyParams {
  strategyType: StrategyType;
  subOrderList: StrategySubOrderParams[];
}

export interface PlaceStrategyRequest {
  strategyType: StrategyType;
  subOrderList: StrategySubOrderRequest[];
}

export interface PlaceStrategyResult {
  strategyId: string;
  strategyStatus: StrategyStatus;
  timestamp: number;
}

// ---------------------------------------------------------------- queries

/** Numeric `status` filter of order history: 1 NEW .. 6 EXPIRED (see orderStatusFromCode). */
export const ORDER_STATUS_CODES = [1, 2, 3, 4, 5, 6] as const;
export type OrderStatusCode = (typeof ORDER_STATUS_CODES)[number];
/** Numeric `status` filter of condition history: 1 NEW .. 5 REJECTED (see conditionStatusFromCode). */
export const CONDITION_STATUS_CODES = [1, 2, 3, 4, 5] as const;
export type ConditionStatusCode = (typeof CONDITION_STATUS_CODES)[number];

/** At least one of orderId and clientOrderId; when both are given both must match. */
export interface QueryOrderParams {
  symbol: string;
  orderId?: string;
  clientOrderId?: string;
}
export type QueryOrderRequest = QueryOrderParams;
export type QueryOrderResult = OrderRecord;

export interface CurrentOrdersParams {
  symbol?: string;
  /** 1..100, default 100. */
  limit?: number;
  /**
   * Cursor: only orders with a larger id, ascending by id (pass the last orderId of a page to get
   * the next). An int64 (0 to 2^63-1): give it as the orderId string; a number is accepted for
   * ids below 2^53 (larger ones would be rounded).
   */
  lastOrderId?: string | number;
}
export interface CurrentOrdersRequest {
  symbol?: string;
  limit: number;
  /** The int64 cursor as base-10 text. */
  lastOrderId?: string;
}
export type CurrentOrdersResult = ListResult<OrderRecord>;
export const CURRENT_ORDERS_LIMIT_DEFAULT = 100;
export const CURRENT_ORDERS_LIMIT_MAX = 100;

export interface CurrentConditionOrdersParams {
  symbol?: string;
}
export type CurrentConditionOrdersRequest = CurrentConditionOrdersParams;
export type CurrentConditionOrdersResult = ListResult<ConditionOrderRecord>;

export interface OrderHistoryParams extends PageParams, TimeRangeParams {
  symbol?: string;
  orderId?: string;
  clientOrderId?: string;
  /** 1 limit, 2 market. */
  type?: HistoryTypeFilter;
  /** 1 buy, 2 sell. */
  side?: HistorySideFilter;
  status?: OrderStatusCode;
}
export type OrderHistoryRequest = WithDefaults<OrderHistoryParams, 'page' | 'pageSize'>;
export type OrderHistoryResult = ListResult<OrderRecord>;

export interface ConditionHistoryParams extends PageParams, TimeRangeParams {
  symbol?: string;
  side?: HistorySideFilter;
  status?: ConditionStatusCode;
}
export type ConditionHistoryRequest = WithDefaults<ConditionHistoryParams, 'page' | 'pageSize'>;
export type ConditionHistoryResult = ListResult<ConditionOrderRecord>;

export interface TradesParams extends PageParams, TimeRangeParams {
  symbol?: string;
  orderId?: string;
}
export type TradesRequest = WithDefaults<TradesParams, 'page' | 'pageSize'>;
export type TradesResult = ListResult<TradeRecord>;

export interface StrategyOrderParams {
  strategyId: string;
}
export type StrategyOrderRequest = StrategyOrderParams;
export type StrategyOrderResult = StrategyOrderRecord;

// ---------------------------------------------------------------- cancel and amend

export interface CancelOrderParams {
  symbol: string;
  orderId?: string;
  clientOrderId?: string;
}
export type CancelOrderRequest = CancelOrderParams;
export type CancelOrderResult = OrderRecord;

export interface MoveOrderParams {
  symbol: string;
  orderId: string;
  price: string;
  /** The new total quantity, not the remaining one; must exceed executedQty. */
  quantity: string;
}
export type MoveOrderRequest = MoveOrderParams;
export type MoveOrderResult = OrderRecord;

export interface BatchMoveItemParams {
  orderId: string;
  price: string;
  quantity: string;
}
export interface BatchMoveParams {
  symbol: string;
  orders: BatchMoveItemParams[];
}
export interface BatchMoveRequest {
  symbol: string;
  orders: BatchItem<BatchMoveItemParams>[];
}
export type BatchMoveResult = BatchResult;

export interface BatchCancelItemParams {
  symbol: string;
  /** orderId or clientOrderId, as for a single cancel. */
  orderId?: string;
  clientOrderId?: string;
}
export interface BatchCancelParams {
  orders: BatchCancelItemParams[];
}
export interface BatchCancelRequest {
  orders: BatchItem<BatchCancelItemParams>[];
}
export type BatchCancelResult = BatchResult;

export interface CancelAllParams {
  symbol?: string;
  cancelType?: CancelType;
}
export type CancelAllRequest = WithDefaults<CancelAllParams, 'cancelType'>;
/** Accepted; each order's end is reported by ORDER_TRADE_UPDATE. */
export interface CancelAllResult {
  accepted: true;
}

export interface CancelConditionParams {
  symbol: string;
  conditionId: string;
}
export type CancelConditionRequest = CancelConditionParams;
export type CancelConditionResult = ConditionOrderRecord;
