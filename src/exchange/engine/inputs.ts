/**
 * What the engine accepts. Shapes follow the validated wire requests (src/protocol): types are
 * already checked there; the engine checks everything that needs the symbol, the account or the
 * book (grid, limits, margin, position mode, state).
 */
import type {
  CancelType,
  ConditionTimeInForce,
  ConditionType,
  DrivenOn,
  MarginModeCode,
  OrderType,
  PositionMode,
  PositionSide,
  PriceType,
  Side,
  StrategyType,
  TimeInForce,
  TriggerAction,
  WorkingType,
} from '../../core/enums';

export interface PlaceOrderInput {
  symbol: string;
  type: OrderType;
  side: Side;
  positionSide?: PositionSide;
  price?: string;
  quantity?: string;
  timeInForce?: TimeInForce;
  reduceOnly?: boolean;
  makerOnly?: boolean;
  closePosition?: boolean;
  clientOrderId?: string;
  placeType?: string;
  priceType?: PriceType;
}

export interface PlaceConditionInput {
  symbol: string;
  type: ConditionType;
  side: Side;
  positionSide?: PositionSide;
  price?: string;
  quantity?: string;
  timeInForce?: ConditionTimeInForce;
  reduceOnly?: boolean;
  clientOrderId?: string;
  stopPrice?: string;
  workingType?: WorkingType;
  priceProtect?: boolean;
  activatePrice?: string;
  callbackRate?: string;
  closePosition?: boolean;
}

export interface StrategySubOrderInput {
  strategySubId: number;
  symbol: string;
  type: OrderType | ConditionType;
  side: Side;
  positionSide?: PositionSide;
  price?: string;
  quantity?: string;
  timeInForce?: ConditionTimeInForce;
  reduceOnly?: boolean;
  makerOnly?: boolean;
  closePosition?: boolean;
  clientOrderId?: string;
  stopPrice?: string;
  workingType?: WorkingType;
  priceProtect?: boolean;
  activatePrice?: string;
  callbackRate?: string;
  firstDrivenId?: number;
  firstDrivenOn?: DrivenOn;
  firstTrigger?: TriggerAction;
  secondDrivenId?: number;
  secondDrivenOn?: DrivenOn;
  secondTrigger?: TriggerAction;
}

export interface PlaceStrategyInput {
  strategyType: StrategyType;
  subOrderList: StrategySubOrderInput[];
}

export interface OrderRef {
  symbol: string;
  orderId?: string;
  clientOrderId?: string;
}

export interface MoveOrderInput {
  symbol: string;
  orderId: string;
  price: string;
  quantity: string;
}

export interface CancelAllInput {
  symbol?: string;
  cancelType?: CancelType;
}

export interface CreateAccountInput {
  userId: string;
  balance: string;
  positionMode?: PositionMode;
}

export interface SetLeverageInput {
  symbol: string;
  leverage: number;
}

export interface SetMarginModeInput {
  symbol: string;
  marginMode: MarginModeCode;
}
