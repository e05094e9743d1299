/**
 * The strategy API: what a strategy module exports and what it gets. Strategies import only the
 * public API (src/index.ts) and reach time, state and the venue only through their context.
 */
import type { Clock } from '../../core/clock';
import type { Grid } from '../../core/values';
import type { BotEvent } from '../bus/events';
import type { StateView } from '../state/cache';
import type { TrackedOrderView } from '../execution/order-tracker';
import type { Intent } from './intents';

/** The market-data event types of the bus, which a strategy may choose among (`marketData`). */
export type MarketDataType = 'trade' | 'markPrice' | 'depth' | 'ticker';
export const MARKET_DATA_TYPES: readonly MarketDataType[] = ['trade', 'markPrice', 'depth', 'ticker'];

/** Contract spec of a symbol with its grids, ready for rounding prices and sizes. */
export interface SymbolInfo {
  symbol: string;
  tickSize: string;
  stepSize: string;
  minQty: string;
  maxQty: string;
  minNotional: string;
  maxLeverage: number;
  tick: Grid;
  step: Grid;
}

/** The few logger methods a strategy may use (pino underneath, secrets redacted). */
export interface StrategyLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface StrategyContext<P = Record<string, unknown>> {
  /** The strategy's id in this bot; prefixes the clientOrderId of every order it places. */
  readonly id: string;
  readonly params: Readonly<P>;
  readonly clock: Clock;
  readonly log: StrategyLogger;
  /** Venue state as the bot knows it: positions, open orders, balances, prices, books. */
  readonly state: StateView;
  readonly symbols: ReadonlyMap<string, SymbolInfo>;
  /** Orders this strategy placed that are not final yet. */
  myOrders(symbol?: string): readonly TrackedOrderView[];
  /** Sends intents outside an event handler (e.g. after an async computation). */
  emit(intents: Intent | readonly Intent[]): void;
  /** Delivers a `timer` event named `name` to this strategy every `everyMs`. */
  every(name: string, everyMs: number): void;
  cancelTimer(name: string): void;
}

export interface Strategy {
  /** Called once when the bot starts (after any saved state is restored and the venue reconciled). */
  onStart?(): readonly Intent[] | void;
  /** Every bus event: market data, the strategy's own orders and fills, its timers, risk state. */
  onEvent?(event: BotEvent): readonly Intent[] | void;
  /** Called when the bot stops; intents returned here (e.g. cancels) are still sent. */
  onStop?(): readonly Intent[] | void;
  /** State that must survive a restart; plain JSON. */
  saveState?(): unknown;
  restoreState?(state: unknown): void;
}

export type StrategyFactory<P = Record<string, unknown>> = (ctx: StrategyContext<P>) => Strategy;

/** What a strategy module exports (its default export, or `strategy`). */
export interface StrategyDefinition<P = Record<string, unknown>> {
  name: string;
  description?: string;
  /** Symbols whose market data the strategy needs. */
  symbols(params: P): string[];
  /**
   * The market-data events the strategy handles; without it, all four. Other market-data kinds
   * never reach its `onEvent`, and a kind that no strategy and no bus subscriber wants is not
   * published at all (the state cache still follows it: `lastPrice`, marks, books). A backtest
   * of a strategy that ignores public trades runs several times faster for it.
   */
  marketData?(params: P): readonly MarketDataType[];
  /** Checks and completes the parameters from config; throw an Error naming the parameter. */
  params(raw: Record<string, unknown>): P;
  create: StrategyFactory<P>;
}

/**
 * A strategy definition of any parameter type, as the bot holds it: every StrategyDefinition<P>
 * is assignable to this, and the bot passes `create` only the parameters `params` produced.
 */
export interface AnyStrategyDefinition {
  readonly name: string;
  readonly description?: string;
  symbols(params: never): string[];
  marketData?(params: never): readonly MarketDataType[];
  params(raw: Record<string, unknown>): unknown;
  create(ctx: never): Strategy;
}

/** Identity helper that gives strategy authors type inference. */
export function defineStrategy<P>(def: StrategyDefinition<P>): StrategyDefinition<P> {
  return def;
}
