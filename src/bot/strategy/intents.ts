/**
 * What strategies ask for. Intents pass the risk engine, then the executor turns them into venue
 * calls (batches and strategy orders). Prices and quantities are decimal strings on the symbol's
 * grid; the risk engine refuses off-grid values before anything is sent.
 */
import type { OrderType, PositionSide, Side, TimeInForce, WorkingType } from '../../core/enums';

export interface PlaceIntent {
  kind: 'place';
  symbol: string;
  side: Side;
  type: OrderType;
  /** Required for LIMIT. */
  price?: string;
  quantity: string;
  timeInForce?: TimeInForce;
  reduceOnly?: boolean;
  makerOnly?: boolean;
  positionSide?: PositionSide;
  /** Free label for the strategy's own bookkeeping (e.g. "bid-3"); kept on the tracked order. */
  tag?: string;
}

export interface CancelIntent {
  kind: 'cancel';
  /** The clientOrderId the executor gave the order (from the order's tracked view). */
  clientOrderId: string;
}

export interface AmendIntent {
  kind: 'amend';
  clientOrderId: string;
  price: string;
  /** New total quantity (PROTOCOL.md: must exceed what is already executed). */
  quantity: string;
}

export interface CancelAllIntent {
  kind: 'cancelAll';
  /** Only this strategy's orders on this symbol; all of this strategy's orders when absent. */
  symbol?: string;
}

/** Entry with take-profit and stop-loss placed on the venue as one OTOCO strategy order. */
export interface BracketIntent {
  kind: 'bracket';
  symbol: string;
  side: Side;
  quantity: string;
  /** LIMIT entry at this price; MARKET entry when absent. */
  entryPrice?: string;
  takeProfitPrice: string;
  stopLossPrice: string;
  /** Price the stop-loss watches; MARK_PRICE by default (harder to spike). */
  workingType?: WorkingType;
  tag?: string;
}

export interface SetLeverageIntent {
  kind: 'setLeverage';
  symbol: string;
  leverage: number;
}

export type Intent = PlaceIntent | CancelIntent | AmendIntent | CancelAllIntent | BracketIntent | SetLeverageIntent;
export type IntentKind = Intent['kind'];
