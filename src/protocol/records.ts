/**
 * Wire records shared by responses and WebSocket events (PROTOCOL.md section 3 and 4).
 * Decimal fields are plain-notation strings; times are epoch milliseconds.
 */
import type {
  ConditionStatus,
  ConditionTimeInForce,
  ConditionType,
  DrivenOn,
  MarginMode,
  OrderStatus,
  OrderType,
  PositionSide,
  PriceType,
  RoleType,
  Side,
  StrategyStatus,
  StrategyType,
  SubOrderStatus,
  TimeInForce,
  TriggerAction,
  WorkingType,
} from '../core/enums';

export interface OrderRecord {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: Side;
  positionSide: PositionSide;
  type: OrderType;
  timeInForce: TimeInForce;
  /** Limit price; "0" for a market order. */
  price: string;
  quantity: string;
  executedQty: string;
  /** Average fill price; "0" before the first fill. */
  avgPrice: string;
  cumQuote: string;
  status: OrderStatus;
  reduceOnly: boolean;
  makerOnly: boolean;
  closePosition: boolean;
  priceType: PriceType;
  placeType: string;
  createdAt: number;
  updateTime: number;
  conditionId?: string;
  strategyId?: string;
}

export interface ConditionOrderRecord {
  conditionId: string;
  clientOrderId: string;
  symbol: string;
  type: ConditionType;
  side: Side;
  positionSide: PositionSide;
  quantity: string;
  /** Limit price of the order placed on trigger; "0" for market types. */
  price: string;
  stopPrice: string;
  workingType: WorkingType;
  priceProtect: boolean;
  activatePrice: string;
  callbackRate: string;
  timeInForce: ConditionTimeInForce;
  reduceOnly: boolean;
  closePosition: boolean;
  conditionStatus: ConditionStatus;
  /** Id of the normal order placed on trigger; "" before. */
  triggeredOrderId: string;
  /** 0 before trigger. */
  triggerTime: number;
  createdAt: number;
  updateTime: number;
  strategyId?: string;
}

export interface StrategySubOrderRecord {
  strategySubId: number;
  symbol: string;
  /** Normal type (LIMIT/MARKET) or a condition type. */
  type: OrderType | ConditionType;
  side: Side;
  positionSide: PositionSide;
  price: string;
  quantity: string;
  stopPrice: string;
  workingType: WorkingType;
  timeInForce: ConditionTimeInForce;
  reduceOnly: boolean;
  makerOnly: boolean;
  closePosition: boolean;
  priceType: PriceType;
  placeType: string;
  /** Condition-type sub-orders' trigger fields (as in a condition record); false / "0" otherwise. */
  priceProtect: boolean;
  activatePrice: string;
  callbackRate: string;
  /** The placed order's; the engine's own (`auto-<id>`) when the request gave none; "" before it is placed. */
  clientOrderId: string;
  firstDrivenId: number;
  firstDrivenOn: DrivenOn | '';
  firstTrigger: TriggerAction | '';
  secondDrivenId: number;
  secondDrivenOn: DrivenOn | '';
  secondTrigger: TriggerAction | '';
  status: SubOrderStatus;
  executedQty: string;
  avgPrice: string;
  cumQuote: string;
  /** The placed order's times; the strategy order's (bookTime, updateTime) before it is placed. */
  createdAt: number;
  updateTime: number;
  orderId?: string;
  conditionId?: string;
}

export interface StrategyOrderRecord {
  strategyId: string;
  strategyType: StrategyType;
  strategyStatus: StrategyStatus;
  bookTime: number;
  subOrders: StrategySubOrderRecord[];
  updateTime: number;
}

export interface TradeRecord {
  fillId: string;
  tradeId: string;
  orderId: string;
  symbol: string;
  side: Side;
  roleType: RoleType;
  price: string;
  quantity: string;
  tradeValue: string;
  handlingFee: string;
  realizedPnl: string;
  positionSide: PositionSide;
  createdAt: number;
}

export interface PositionRecord {
  symbol: string;
  marginMode: MarginMode;
  positionSide: PositionSide;
  leverage: number;
  /** Signed in one-way mode (negative short); positive on both sides in hedge mode. */
  quantity: string;
  entryPrice: string;
  breakEvenPrice: string;
  liqPrice: string;
  marginRatio: string;
  unrealizedPnl: string;
  roe: string;
  nextFundingFee: string;
  fundingFeeAccum: string;
  tpPrice: string;
  slPrice: string;
  /** Extension: margin held by the position (isolated margin, or initial margin in cross). */
  positionMargin: string;
  markPrice: string;
}

export interface PositionHistoryRecord {
  symbol: string;
  positionSide: PositionSide;
  leverage: number;
  maxQuantity: string;
  entryPrice: string;
  closePrice: string;
  pnl: string;
  roe: string;
  marginMode: MarginMode;
  /** 1 closed by the user's orders, 2 liquidated, 3 auto-closed (ADL). */
  triggerMode: number;
  fundingFeeAccum: string;
  openedAt: number;
  closedAt: number;
}

export interface PositionSettingsRecord {
  symbol: string;
  marginMode: 1 | 2;
  leverage: number;
}

export interface UserAssetRecord {
  userId: string;
  assetType: string;
  walletBalance: string;
  frozenMargin: string;
  usedMargin: string;
  /** Extension: wallet + unrealized PnL - used and frozen margin, what new orders can use. */
  availableBalance: string;
  unrealizedPnl: string;
}

export interface AccountChangeRecord {
  assetType: string;
  amount: string;
  walletBalanceBefore: string;
  walletBalanceAfter: string;
  frozenBalanceBefore: string;
  frozenBalanceAfter: string;
  changeType: string;
  referenceId: string;
  createdAt: number;
  /** Extension: symbol the change relates to, "" for none. */
  symbol: string;
}
