/** What the engine emits. The server maps these onto the private and public WebSocket streams. */
import type { ChangeType, ExecutionType, Side } from '../../core/enums';
import type { FillFields } from '../../protocol/ws';
import type {
  ConditionOrderRecord,
  OrderRecord,
  PositionRecord,
  StrategyOrderRecord,
  UserAssetRecord,
} from '../../protocol/records';

export type EngineEvent =
  | { kind: 'order'; userId: string; time: number; executionType: ExecutionType; order: OrderRecord; fill?: FillFields }
  | { kind: 'condition'; userId: string; time: number; record: ConditionOrderRecord }
  | { kind: 'strategy'; userId: string; time: number; record: StrategyOrderRecord }
  | { kind: 'account'; userId: string; time: number; reason: ChangeType | 'ORDER' | 'MARGIN_MODE' | 'LEVERAGE'; asset: UserAssetRecord; positions: PositionRecord[] }
  | { kind: 'trade'; symbol: string; time: number; tradeId: string; price: string; quantity: string; side: Side }
  | { kind: 'markPrice'; symbol: string; time: number; markPrice: string; indexPrice: string; fundingRate: string; nextFundingTime: number }
  | { kind: 'funding'; symbol: string; time: number; fundingRate: string; markPrice: string }
  /**
   * An order the engine placed itself was refused: a fired condition's (the condition ends REJECTED,
   * or EXPIRED with nothing to close) or a strategy sub-order's when its driver fired (REJECTED).
   * Not a wire event: the records say only the status; the local exchange logs this.
   */
  | { kind: 'refused'; userId: string; symbol: string; time: number; conditionId: string; strategyId: string; strategySubId: number; status: 'REJECTED' | 'EXPIRED'; code: number; message: string }
  | { kind: 'liquidation'; userId: string; symbol: string; time: number; positionSide: string; quantity: string; markPrice: string };
