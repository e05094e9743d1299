/**
 * The one typed stream the bot runs on: a discriminated union on `type`. Venue events are turned
 * into these after the state cache has absorbed them (write the cache, then publish).
 */
import type { ExecutionType } from '../../core/enums';
import type { OrderRecord, PositionRecord, StrategyOrderRecord, UserAssetRecord, ConditionOrderRecord } from '../../protocol/records';
import type { MarkPriceData, PriceLevel, PublicTrade } from '../../protocol/rest/market';
import type { TickerPushData } from '../../protocol/ws';
import type { RiskCode, TradingState } from '../risk/decision';
import type { Intent } from '../strategy/intents';
import type { LegRefusal, StreamStatus, VenueRefusal } from '../venue/venue';

export interface Fill {
  symbol: string;
  orderId: string;
  clientOrderId: string;
  side: OrderRecord['side'];
  positionSide: OrderRecord['positionSide'];
  price: string;
  quantity: string;
  fee: string;
  realizedPnl: string;
  role: 'maker' | 'taker';
  tradeId: string;
}

export type BotEvent =
  /** An order update of the private stream (or of reconciliation); `strategyId` when ours. */
  | { type: 'order'; time: number; order: OrderRecord; executionType: ExecutionType; strategyId: string | undefined }
  /** A strategy threw (in `where`: onStart, onEvent(<type>), onStop...); never delivered to strategies. */
  | { type: 'strategyError'; time: number; strategyId: string; where: string; message: string; stack: string }
  /**
   * An unexpected exception in the bot's own pipeline (a bus handler threw, the venue's event
   * stream failed): a bug, not a strategy's error nor a failed venue call. Counted
   * (`stats.pipelineErrors`), shown by health and the backtest summary; never delivered to strategies.
   */
  | { type: 'botError'; time: number; context: string; message: string; stack: string }
  /**
   * An error the bot reported and counted (`stats.errors`): a failed venue call (a poll, a batch,
   * a query), a reconciliation that could not finish. Logged (folded per 10 s), shown on the
   * dashboard; never delivered to strategies (they hear of their refused orders apart).
   */
  | { type: 'errorReported'; time: number; context: string; message: string }
  /** A strategy that kept throwing was stopped: no more events, its orders cancelled. */
  | { type: 'strategyStopped'; time: number; strategyId: string; reason: string }
  | { type: 'fill'; time: number; fill: Fill; strategyId: string | undefined }
  /** `refusal`: why the order it placed when it fired was refused, when the venue says (venue.ts). */
  | { type: 'condition'; time: number; condition: ConditionOrderRecord; refusal?: VenueRefusal }
  /** `refusals`: why legs it placed now were refused, when the venue says (venue.ts). */
  | { type: 'strategyOrder'; time: number; strategyOrder: StrategyOrderRecord; refusals?: LegRefusal[] }
  | { type: 'position'; time: number; position: PositionRecord; source: 'stream' | 'poll' }
  | { type: 'account'; time: number; asset: UserAssetRecord }
  | { type: 'trade'; time: number; symbol: string; trade: PublicTrade }
  | { type: 'markPrice'; time: number; symbol: string; mark: MarkPriceData }
  | { type: 'depth'; time: number; symbol: string; bids: PriceLevel[]; asks: PriceLevel[] }
  | { type: 'ticker'; time: number; symbol: string; ticker: TickerPushData }
  | { type: 'timer'; time: number; name: string; strategyId: string | undefined }
  /** A polled position differs from the one the stream built. Reconciliation follows. */
  | { type: 'positionMismatch'; time: number; symbol: string; positionSide: string; local: string; venue: string }
  | { type: 'denial'; time: number; strategyId: string; intent: Intent; code: RiskCode; reason: string }
  /** The venue refused an order the risk engine let through. */
  | { type: 'rejection'; time: number; strategyId: string; intent: Intent; code: number; message: string }
  | { type: 'stream'; time: number; stream: 'private' | 'public'; status: StreamStatus; detail: string }
  | { type: 'riskState'; time: number; state: TradingState; reason: string }
  /**
   * `revived`: orders of ours the venue listed as working though the bot had seen them end (a
   * venue restored from an older state), which the reconciliation cancelled (`cancelled` of them;
   * absent when there were none).
   */
  | { type: 'reconciled'; time: number; reason: string; adopted: number; corrected: number; revived?: string[]; cancelled?: number }
  /** The tracker saw a transition its table forbids; it was not applied (reconciliation follows). */
  | { type: 'illegalTransition'; time: number; clientOrderId: string; from: string; input: string };

export type BotEventType = BotEvent['type'];
export type BotEventOf<T extends BotEventType> = Extract<BotEvent, { type: T }>;
