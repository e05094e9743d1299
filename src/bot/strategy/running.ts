/**
 * A strategy as the bot runs it: what the bot keeps of it (hooks, context, timers, errors, pause,
 * halt), and how its slot becomes one at start: parameters checked, its symbols on the venue, its
 * context, its `create()`, its hooks and the market data it takes.
 */
import { Fifo } from '../../core/fifo';
import type { BotEventType } from '../bus/events';
import { MARKET_DATA_TYPES, type Strategy, type StrategyContext, type StrategyDefinition } from './api';
import { strategyContext, type ContextDeps } from './context';
import { createStrategy, type SlotToCreate } from './create';
import { DenialStreak } from '../risk/denial-streak';
import { StrategyVenueConfigError } from './errors';
import { StrategyHooks } from './hooks';
import { checkParams, quantityProblem, unknownParamText } from './params-check';
import type { WallClockWatch } from './wall-clock';

export interface RunningStrategy {
  slot: SlotToCreate;
  strategy: Strategy;
  /** Delivers events to the strategy's hooks. */
  hooks: StrategyHooks;
  ctx: StrategyContext<unknown>;
  timers: Map<string, () => void>;
  /** Market-data event types the strategy handles; undefined: all of them. */
  market: ReadonlySet<BotEventType> | undefined;
  errors: number;
  /** Times of the errors inside the rate window, oldest first. */
  recentErrors: Fifo<number>;
  lastError: string | undefined;
  /** Set when the strategy was stopped for its errors: it gets no more events. */
  stopped: string | undefined;
  /** Set while an operator has paused it (controls.ts says what that means). */
  paused: string | undefined;
  /** Set when the strategy said it stopped trading for good (`ctx.halt`). */
  halted: string | undefined;
  /** Its orders denied by the risk engine since the last that passed (a strategy that trades nothing). */
  denials: DenialStreak;
}

/** The market-data event types, as bus event types. */
export const MARKET_EVENT: ReadonlySet<BotEventType> = new Set<BotEventType>(MARKET_DATA_TYPES);

export interface RunDeps extends Omit<ContextDeps, 'emit' | 'target'> {
  /** Takes intents the strategy emitted (`ctx.emit`) as the bot takes a hook's, and sends them. */
  emit: (r: RunningStrategy, intents: unknown[]) => void;
  /** A backtest's watch on the strategies' reads of the wall clock. */
  wallClock: WallClockWatch | undefined;
}

/**
 * A slot made a running strategy, with the symbols it trades. Throws for a parameter the strategy
 * does not declare, a symbol the venue does not list (`d.symbols`), or a `marketData` entry that is
 * no market data type; StrategyCreateError for what its `create()` throws.
 */
export function runStrategy(slot: SlotToCreate, d: RunDeps): { running: RunningStrategy; symbols: readonly string[] } {
  const def = slot.definition as unknown as StrategyDefinition<unknown>;
  const checked = checkParams(slot.definition, slot.params);
  if (checked.unknown.length > 0) throw new Error(`strategy ${slot.id}: ${unknownParamText(checked)}`);
  const params = checked.params;
  const symbols = def.symbols(params);
  for (const s of symbols) {
    if (!d.symbols.has(s)) {
      const listed = listedSymbols([...d.symbols.keys()]);
      throw new StrategyVenueConfigError(slot.id, `the venue has no symbol ${s} (${listed})`, { symbol: s, listed });
    }
  }
  const q = quantityProblem(slot.definition, params, (sym) => d.symbols.get(sym));
  if (q !== undefined) throw new StrategyVenueConfigError(slot.id, `parameter '${q.param}' must be ${q.expected} (the venue's spec), got ${q.got}`, undefined, q);
  // Made before the record it changes (timers, halt): create() may keep it, not use it.
  const made: { running?: RunningStrategy } = {};
  const ctx = strategyContext(slot.id, params, symbols, { ...d, emit: (list) => d.emit(made.running as RunningStrategy, list), target: () => made.running as RunningStrategy });
  const strategy = createStrategy(slot.id, slot.module, def, ctx);
  const hooks = new StrategyHooks(strategy, new Set(symbols), d.wallClock ? { watch: d.wallClock, strategyId: slot.id } : undefined);
  // Declared market data, or what the typed hooks need (all four kinds for an `onEvent`).
  const wanted = def.marketData ? def.marketData(params) : hooks.marketData();
  const market = wanted ? new Set<BotEventType>(wanted) : undefined;
  for (const t of market ?? []) {
    if (!MARKET_EVENT.has(t)) throw new Error(`strategy ${slot.id}: marketData lists '${String(t)}'; each entry must be one of ${MARKET_DATA_TYPES.join(', ')}`);
  }
  const running: RunningStrategy = { slot, strategy, hooks, ctx, timers: new Map(), market, errors: 0, recentErrors: new Fifo<number>(), lastError: undefined, stopped: undefined, paused: undefined, halted: undefined, denials: new DenialStreak() };
  made.running = running;
  return { running, symbols };
}

/** What a venue lists, for an error about a symbol it does not: the first 20 names, sorted. */
function listedSymbols(names: string[]): string {
  if (names.length === 0) return 'it lists none';
  const sorted = [...names].sort();
  return `it lists ${sorted.slice(0, 20).join(', ')}${sorted.length > 20 ? `, and ${sorted.length - 20} more` : ''}`;
}
