/**
 * The strategy API: what a strategy module exports and what it gets. Strategies import only the
 * public API (src/index.ts) and reach time, state and the venue only through their context.
 */
import type { Clock } from '../../core/clock';
import type { Dec } from '../../core/decimal';
import type { OrderStatus } from '../../core/enums';
import type { Grid } from '../../core/values';
import type { Bar, BarSpec } from '../../indicators/bars';
import type { BotEvent, BotEventOf } from '../bus/events';
import type { StateView } from '../state/cache';
import type { LocalState, TrackedOrderView } from '../execution/order-tracker';
import type { Intent } from './intents';
import { decodeParams, type Params, type ParamsSchema } from './params';

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

/** How a value is put on a grid: 'down' toward zero, 'up' away from zero, 'nearest' (half to even). */
export type Rounding = 'down' | 'up' | 'nearest';

/** Rounding onto one grid (a symbol's tick or step). */
export interface GridRounding {
  readonly grid: Grid;
  /** The value on the grid as the decimal string an intent takes ("60123.5"); may be "0". */
  round(x: Dec | string | number, mode?: Rounding): string;
}

/** A symbol's contract spec with its rounding: `price` (tick, default 'nearest'), `quantity` (step, default 'down'). */
export interface Market extends SymbolInfo {
  readonly price: GridRounding;
  readonly quantity: GridRounding;
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
  /** The strategy's first symbol (of its definition's `symbols(params)`): the one most strategies trade. */
  readonly symbol: string;
  /** Spec and rounding of one of the strategy's symbols (its first by default); throws naming them for any other. */
  market(symbol?: string): Market;
  /** Rounding onto the tick grid of `symbol` (default 'nearest'): `ctx.price.round(x, 'down')`. */
  readonly price: GridRounding;
  /** Rounding onto the step grid of `symbol` (default 'down', never more than asked). */
  readonly quantity: GridRounding;
  /** Signed position quantity on a symbol (the strategy's first by default), 0 when flat. */
  position(symbol?: string): Dec;
  /** Orders this strategy placed that are not final yet. */
  myOrders(symbol?: string): readonly TrackedOrderView[];
  /** Sends intents outside an event handler (e.g. after an async computation). */
  emit(intents: Intent | readonly Intent[]): void;
  /** Delivers a `timer` event named `name` to this strategy every `everyMs`. */
  every(name: string, everyMs: number): void;
  cancelTimer(name: string): void;
  /**
   * Says that the strategy has stopped trading for good and why (a grid whose market left its
   * bounds): it keeps getting its events (to flatten, say), but the operator sees it as halted on
   * /healthz (degraded), the dashboard, metrics and `perpkit run`'s closing line, and the bot logs
   * it once at warn. Only the first reason is kept.
   */
  halt(reason: string): void;
}

/** What a hook returns: intents to send, or nothing. */
export type HookResult = readonly Intent[] | void;


export interface Strategy {
  /** Called once when the bot starts (after any saved state is restored and the venue reconciled). */
  onStart?(): HookResult;
  /**
   * Every bus event: market data, the strategy's own orders and fills, its timers, risk state.
   * Typed hooks below get their events as well; a strategy may have both.
   */
  onEvent?(event: BotEvent): HookResult;
  /** A public trade on one of the strategy's symbols. */
  onTrade?(event: BotEventOf<'trade'>): HookResult;
  /** A mark price (with funding rate and next funding time) on one of its symbols. */
  onMark?(event: BotEventOf<'markPrice'>): HookResult;
  /** A ticker push (best bid/ask, last price) on one of its symbols. */
  onQuote?(event: BotEventOf<'ticker'>): HookResult;
  /** A depth snapshot (top levels of the book) on one of its symbols. */
  onBook?(event: BotEventOf<'depth'>): HookResult;
  /**
   * Which bars `onBar` gets, cut from public trades of the strategy's symbols: by time (`time`:
   * ms, epoch-aligned, closed on time by a timer when the market is quiet), by volume (`volume`:
   * base asset per bar) or by trade count (`trades`).
   */
  bars?: BarSpec;
  /** A closed bar of `symbol` (see `bars`); never a bar still being built. */
  onBar?(bar: Bar, symbol: string): HookResult;
  /** A fill of one of the strategy's orders. */
  onFill?(event: BotEventOf<'fill'>): HookResult;
  /** An update of one of the strategy's orders (new, partly filled, filled, cancelled, ...). */
  onOrder?(event: BotEventOf<'order'>): HookResult;
  /** An update of a venue strategy order (an OTOCO bracket), anyone's: check its sub-orders. */
  onStrategyOrder?(event: BotEventOf<'strategyOrder'>): HookResult;
  /** An intent of the strategy that did not go out: refused by the risk engine (`denial`) or by the venue (`rejection`). */
  onRefused?(event: BotEventOf<'denial'> | BotEventOf<'rejection'>): HookResult;
  /** The risk engine's trading state changed (ACTIVE, REDUCING, HALTED). */
  onRiskState?(event: BotEventOf<'riskState'>): HookResult;
  /** One of the strategy's timers (`ctx.every(name, ms)`) fired. */
  onTimer?(event: BotEventOf<'timer'>): HookResult;
  /** Called when the bot stops; intents returned here (e.g. cancels) are still sent. */
  onStop?(): HookResult;
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
  /** The parameter schema, for strategies that declare one (`defineStrategy({ params: params({...}) })`). */
  paramsSchema?: ParamsSchema;
  create: StrategyFactory<P>;
}

/**
 * A definition whose parameters are a schema (`params({...})` of `param.*` builders): the type
 * of `ctx.params` is inferred from it, and `check` adds rules across parameters (throw
 * `parameter 'x' must be ...`).
 */
export interface SchemaStrategyDefinition<S extends ParamsSchema> extends Omit<StrategyDefinition<Params<S>>, 'params' | 'paramsSchema'> {
  params: S;
  check?(params: Params<S>): void;
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
  readonly paramsSchema?: ParamsSchema;
  create(ctx: never): Strategy;
}

/**
 * Defines a strategy, with type inference: parameters as a schema (preferred: the type, the
 * checks, defaults and the unknown-name check come from one declaration) or as a reader function.
 */
export function defineStrategy<S extends ParamsSchema>(def: SchemaStrategyDefinition<S>): StrategyDefinition<Params<S>>;
export function defineStrategy<P>(def: StrategyDefinition<P>): StrategyDefinition<P>;
export function defineStrategy<P>(def: StrategyDefinition<P> | SchemaStrategyDefinition<ParamsSchema>): StrategyDefinition<P> {
  // A module is loaded without type-checking: a definition missing a member would otherwise fail
  // later, far from here, with a TypeError about `undefined`.
  const v: unknown = def;
  if (typeof v !== 'object' || v === null) throw new Error(`defineStrategy: expected a definition object { name, params, symbols, create }, got ${v === null ? 'null' : typeof v}`);
  const problems = definitionProblems(v as Record<string, unknown>, true);
  if (problems.length > 0) {
    const name = typeof def.name === 'string' && def.name !== '' ? `'${def.name}'` : '';
    throw new Error(`defineStrategy(${name}): expected a definition { name, params, symbols, create }, got one whose ${problems.join('; ')}`);
  }
  if (typeof def.params === 'function') return def as StrategyDefinition<P>;
  const { check, params: schema, ...rest } = def as SchemaStrategyDefinition<ParamsSchema>;
  const read = (raw: Record<string, unknown>): P => {
    const p = decodeParams(schema, raw);
    check?.(p);
    return p as P;
  };
  return { ...(rest as unknown as Omit<StrategyDefinition<P>, 'params'>), params: read, paramsSchema: schema };
}

/**
 * What keeps `v` from being a strategy definition, one phrase per member (empty when nothing):
 * `name` a non-empty string; `symbols` and `create` functions; `params` a function, or with
 * `schemaParams` (before defineStrategy) a `params({...})` schema. Hooks written beside the
 * members instead of in what `create` returns are named.
 */
export function definitionProblems(v: Record<string, unknown>, schemaParams: boolean): string[] {
  const what = (x: unknown): string => (x === undefined ? 'missing' : x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x === 'object' ? 'an object' : `a ${typeof x}`);
  const out: string[] = [];
  if (typeof v.name !== 'string' || v.name === '') out.push(`name is ${v.name === '' ? 'empty' : what(v.name)} (expected a non-empty string)`);
  const schema = typeof v.params === 'object' && v.params !== null && 'properties' in v.params;
  if (typeof v.params !== 'function' && !(schemaParams && schema)) {
    out.push(schema ? 'params is a schema, which only defineStrategy({...}) turns into a definition (export defineStrategy({...}))' : `params is ${what(v.params)} (expected params({...}) of param.* builders; params({}) for none)`);
  }
  if (typeof v.symbols !== 'function') out.push(`symbols is ${what(v.symbols)} (expected a function of the parameters returning symbol names, such as (p) => [p.symbol])`);
  const hooks = Object.keys(v).filter((k) => /^on[A-Z]/.test(k));
  const placed = `${hooks.join(', ')} ${hooks.length === 1 ? 'goes' : 'go'} in the object create(ctx) returns, not beside create`;
  if (typeof v.create !== 'function') {
    out.push(`create is ${what(v.create)} (expected a function of the context returning the strategy's hooks${hooks.length > 0 ? `: ${placed}` : ''})`);
  } else if (hooks.length > 0) {
    // Beside a create() they were never called: a strategy that did nothing, and no word of it.
    out.push(`${hooks.join(', ')} ${hooks.length === 1 ? 'is' : 'are'} beside create, where nothing calls ${hooks.length === 1 ? 'it' : 'them'} (${placed})`);
  }
  return out;
}

/** Whether an order is working on the book: NEW or PARTIALLY_FILLED (not pending, not final). */
export function isWorking(order: { readonly state: LocalState } | { readonly status: OrderStatus }): boolean {
  const s = 'state' in order ? order.state : order.status;
  return s === 'NEW' || s === 'PARTIALLY_FILLED';
}
