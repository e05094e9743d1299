/** Schemas of the wire records (src/protocol/records.ts), shared by REST responses and stream events. */
import {
  CONDITION_STATUSES,
  CONDITION_TIME_IN_FORCE,
  CONDITION_TYPES,
  DRIVEN_ON,
  EXECUTION_TYPES,
  MARGIN_MODES,
  ORDER_STATUSES,
  ORDER_TYPES,
  POSITION_SIDES,
  PRICE_TYPES,
  ROLE_TYPES,
  SIDES,
  STRATEGY_STATUSES,
  STRATEGY_TYPES,
  SUB_ORDER_STATUSES,
  TIME_IN_FORCE,
  TRIGGER_ACTIONS,
  WORKING_TYPES,
} from '../../core/enums';
import type {
  AccountChangeRecord,
  ConditionOrderRecord,
  OrderRecord,
  PositionHistoryRecord,
  PositionRecord,
  StrategyOrderRecord,
  StrategySubOrderRecord,
  TradeRecord,
  UserAssetRecord,
} from '../../protocol/records';
import type { BatchResult, ListResult } from '../../protocol/rest/common';
import { arr, bool, dec, decOrEmpty, int, literal, ms, nonEmptyStr, obj, oneOf, opt, str, type Schema } from './schema';

const side = oneOf(SIDES);
const positionSide = oneOf(POSITION_SIDES);
const drivenOnOrEmpty = oneOf([...DRIVEN_ON, ''] as const);
const triggerOrEmpty = oneOf([...TRIGGER_ACTIONS, ''] as const);

export const orderRecord: Schema<OrderRecord> = obj({
  orderId: nonEmptyStr,
  clientOrderId: str,
  symbol: nonEmptyStr,
  side,
  positionSide,
  type: oneOf(ORDER_TYPES),
  timeInForce: oneOf(TIME_IN_FORCE),
  price: dec,
  quantity: dec,
  executedQty: dec,
  avgPrice: dec,
  cumQuote: dec,
  status: oneOf(ORDER_STATUSES),
  reduceOnly: bool,
  makerOnly: bool,
  closePosition: bool,
  priceType: oneOf(PRICE_TYPES),
  placeType: str,
  createdAt: ms,
  updateTime: ms,
  conditionId: opt(str),
  strategyId: opt(str),
});

export const conditionRecord: Schema<ConditionOrderRecord> = obj({
  conditionId: nonEmptyStr,
  clientOrderId: str,
  symbol: nonEmptyStr,
  type: oneOf(CONDITION_TYPES),
  side,
  positionSide,
  quantity: dec,
  price: dec,
  stopPrice: dec,
  workingType: oneOf(WORKING_TYPES),
  priceProtect: bool,
  activatePrice: dec,
  callbackRate: dec,
  timeInForce: oneOf(CONDITION_TIME_IN_FORCE),
  reduceOnly: bool,
  closePosition: bool,
  conditionStatus: oneOf(CONDITION_STATUSES),
  triggeredOrderId: str,
  triggerTime: ms,
  createdAt: ms,
  updateTime: ms,
  strategyId: opt(str),
});

const subOrderRecord: Schema<StrategySubOrderRecord> = obj({
  strategySubId: int,
  symbol: nonEmptyStr,
  type: oneOf([...ORDER_TYPES, ...CONDITION_TYPES] as const),
  side,
  positionSide,
  price: dec,
  quantity: dec,
  stopPrice: dec,
  workingType: oneOf(WORKING_TYPES),
  timeInForce: oneOf(CONDITION_TIME_IN_FORCE),
  reduceOnly: bool,
  makerOnly: bool,
  closePosition: bool,
  priceType: oneOf(PRICE_TYPES),
  placeType: str,
  priceProtect: bool,
  activatePrice: dec,
  callbackRate: dec,
  clientOrderId: str,
  firstDrivenId: int,
  firstDrivenOn: drivenOnOrEmpty,
  firstTrigger: triggerOrEmpty,
  secondDrivenId: int,
  secondDrivenOn: drivenOnOrEmpty,
  secondTrigger: triggerOrEmpty,
  status: oneOf(SUB_ORDER_STATUSES),
  executedQty: dec,
  avgPrice: dec,
  cumQuote: dec,
  createdAt: ms,
  updateTime: ms,
  orderId: opt(str),
  conditionId: opt(str),
});

export const strategyRecord: Schema<StrategyOrderRecord> = obj({
  strategyId: nonEmptyStr,
  strategyType: oneOf(STRATEGY_TYPES),
  strategyStatus: oneOf(STRATEGY_STATUSES),
  bookTime: ms,
  subOrders: arr(subOrderRecord),
  updateTime: ms,
});

export const tradeRecord: Schema<TradeRecord> = obj({
  fillId: nonEmptyStr,
  tradeId: nonEmptyStr,
  orderId: nonEmptyStr,
  symbol: nonEmptyStr,
  side,
  roleType: oneOf(ROLE_TYPES),
  price: dec,
  quantity: dec,
  tradeValue: dec,
  handlingFee: dec,
  realizedPnl: dec,
  positionSide,
  createdAt: ms,
});

export const positionRecord: Schema<PositionRecord> = obj({
  symbol: nonEmptyStr,
  marginMode: oneOf(MARGIN_MODES),
  positionSide,
  leverage: int,
  quantity: dec,
  entryPrice: dec,
  breakEvenPrice: dec,
  liqPrice: dec,
  marginRatio: dec,
  unrealizedPnl: dec,
  roe: dec,
  nextFundingFee: dec,
  fundingFeeAccum: dec,
  tpPrice: decOrEmpty,
  slPrice: decOrEmpty,
  positionMargin: dec,
  markPrice: dec,
});

export const positionHistoryRecord: Schema<PositionHistoryRecord> = obj({
  symbol: nonEmptyStr,
  positionSide,
  leverage: int,
  maxQuantity: dec,
  entryPrice: dec,
  closePrice: dec,
  pnl: dec,
  roe: dec,
  marginMode: oneOf(MARGIN_MODES),
  triggerMode: int,
  fundingFeeAccum: dec,
  openedAt: ms,
  closedAt: ms,
});

export const userAssetRecord: Schema<UserAssetRecord> = obj({
  userId: nonEmptyStr,
  assetType: nonEmptyStr,
  walletBalance: dec,
  frozenMargin: dec,
  usedMargin: dec,
  availableBalance: dec,
  unrealizedPnl: dec,
});

export const accountChangeRecord: Schema<AccountChangeRecord> = obj({
  assetType: str,
  amount: dec,
  walletBalanceBefore: dec,
  walletBalanceAfter: dec,
  frozenBalanceBefore: dec,
  frozenBalanceAfter: dec,
  changeType: str,
  referenceId: str,
  createdAt: ms,
  symbol: str,
});

export function listOf<T>(item: Schema<T>): Schema<ListResult<T>> {
  return obj({ list: arr(item), total: int });
}

export const batchResult: Schema<BatchResult> = obj({
  successCount: int,
  failedCount: int,
  results: arr(
    obj({
      index: int,
      success: bool,
      code: int,
      message: str,
      orderId: str,
      clientOrderId: str,
      status: str,
    }),
  ),
});

export const executionType = oneOf(EXECUTION_TYPES);
export { literal };
