/** The public API of perpkit. Example strategies and users import from here only. */
export * from './core';
export type { BotEvent, BotEventOf, BotEventType, Fill } from './bot/bus/events';
export { EventBus } from './bot/bus/event-bus';
export type { StateView } from './bot/state/cache';
export {
  defineStrategy,
  isWorking,
  type AnyStrategyDefinition,
  type GridRounding,
  type HookResult,
  type Market,
  type MarketDataType,
  type Rounding,
  type SchemaStrategyDefinition,
  type Strategy,
  type StrategyContext,
  type StrategyDefinition,
  type StrategyFactory,
  type StrategyLogger,
  type SymbolInfo,
} from './bot/strategy/api';
export { param, params, decodeParams, paramNames, paramsJsonSchema, type Params, type ParamsInput, type ParamsSchema } from './bot/strategy/params';
export type { Bar, BarSpec } from './indicators/bars';
/** Builds the symbol part of a strategy context (for tests that make a context by hand). */
export { symbolAccess } from './bot/strategy/context';
export type { AmendIntent, BracketIntent, CancelAllIntent, CancelIntent, Intent, IntentKind, PlaceIntent, SetLeverageIntent } from './bot/strategy/intents';
export type { TrackedOrderView, LocalState } from './bot/execution/order-tracker';
export { RISK_CODES, TRADING_STATES, type RiskCode, type TradingState, type Decision } from './bot/risk/decision';
export type { RiskLimits } from './bot/risk/limits';
export { Bot, type BotOptions, type StrategySlot } from './bot/bot';
export type { BotStateStore, SavedBotState, KillRecord } from './bot/state/saved-state';
export type { Venue, VenueEvent, StreamStatus } from './bot/venue/venue';
export { SimVenue } from './bot/venue/sim-venue';
export type { OrderRecord, PositionRecord, UserAssetRecord, TradeRecord, ConditionOrderRecord, StrategyOrderRecord } from './protocol/records';
export { LiveVenue, type LiveVenueOptions } from './bot/venue/live-venue';
export { PerpClient, type PerpClientOptions } from './client';
