/**
 * What the engine accepts: the wire request shapes of src/protocol (optional fields optional, as
 * a client sends them; validated requests with their defaults filled fit too). Types are checked
 * by the protocol validators; the engine checks everything that needs the symbol, the account or
 * the book (grid, limits, margin, position mode, state).
 */
import type { PositionMode, MarginModeCode } from '../../core/enums';
import type {
  CancelAllParams,
  CancelOrderParams,
  MoveOrderParams,
  PlaceConditionParams,
  PlaceOrderParams,
  PlaceStrategyParams,
  StrategySubOrderParams,
} from '../../protocol/rest/orders';

export type PlaceOrderInput = PlaceOrderParams;
export type PlaceConditionInput = PlaceConditionParams;
export type StrategySubOrderInput = StrategySubOrderParams;
export type PlaceStrategyInput = PlaceStrategyParams;
export type OrderRef = CancelOrderParams;
export type MoveOrderInput = MoveOrderParams;
export type CancelAllInput = CancelAllParams;

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
