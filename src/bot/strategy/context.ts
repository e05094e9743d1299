/**
 * A strategy's context as the bot builds it: the symbol side (its symbols' specs with rounding
 * onto their grids, and its position, so strategies do not repeat lookups, throws and
 * `tick.fromUnits(tick.unitsOfDec(...))`), and the bot side (its orders, intents it emits, its
 * timers, `halt`).
 */
import type { Clock, Scheduler } from '../../core/clock';
import { Dec, DecOfText } from '../../core/decimal';
import { Grid } from '../../core/values';
import type { SymbolSpec } from '../../protocol/rest/market';
import type { EventBus } from '../bus/event-bus';
import type { OrderTracker } from '../execution/order-tracker';
import type { StateCache, StateView } from '../state/cache';
import type { GridRounding, Market, Rounding, StrategyContext, StrategyLogger, SymbolInfo } from './api';

function rounding(grid: Grid, fallback: Rounding): GridRounding {
  return {
    grid,
    round: (x, mode = fallback) => grid.fromUnits(grid.unitsOfDec(x instanceof Dec ? x : new Dec(x), mode)),
  };
}

type SymbolPart = Pick<StrategyContext, 'symbol' | 'market' | 'price' | 'quantity' | 'position'>;

/** `symbol`, `market()`, `price`, `quantity` and `position()` for a strategy trading `symbols`. */
export function symbolAccess(strategyId: string, symbols: readonly string[], infos: ReadonlyMap<string, SymbolInfo>, state: StateView): SymbolPart {
  const markets = new Map<string, Market>();
  for (const s of symbols) {
    const info = infos.get(s);
    if (info) markets.set(s, { ...info, price: rounding(info.tick, 'nearest'), quantity: rounding(info.step, 'down') });
  }
  const first = symbols[0];
  /** Each symbol's position quantity as a Dec, parsed when it changes (a strategy asks on every event). */
  const positions = new Map<string, DecOfText>();
  const market = (symbol: string | undefined = first): Market => {
    const m = symbol === undefined ? undefined : markets.get(symbol);
    if (m === undefined) {
      throw new Error(symbol === undefined ? `strategy ${strategyId} declares no symbols: name one (ctx.market('BTCUSDT'))` : `strategy ${strategyId}: '${symbol}' is not one of its symbols (${[...markets.keys()].join(', ') || 'none'}); list it in the definition's symbols()`);
    }
    return m;
  };
  const lazy = (which: 'price' | 'quantity'): GridRounding => ({
    get grid() {
      return market()[which].grid;
    },
    round: (x, mode) => market()[which].round(x, mode),
  });
  return {
    symbol: first ?? '',
    market,
    price: lazy('price'),
    quantity: lazy('quantity'),
    position: (symbol = first) => {
      if (symbol === undefined) return new Dec(0);
      let text = positions.get(symbol);
      if (text === undefined) {
        text = new DecOfText();
        positions.set(symbol, text);
      }
      return text.of(state.position(symbol)?.quantity ?? '0');
    },
  };
}

/** A symbol as strategies see it: its spec with the price and quantity grids. */
export function toSymbolInfo(s: SymbolSpec): SymbolInfo {
  return {
    symbol: s.symbol,
    tickSize: s.tickSize,
    stepSize: s.stepSize,
    minQty: s.minQty,
    maxQty: s.maxQty,
    minNotional: s.minNotional,
    maxLeverage: s.maxLeverage,
    tick: new Grid(s.tickSize),
    step: new Grid(s.stepSize),
  };
}

/** What the bot keeps of a running strategy that its context changes: its timers, its halt. */
export interface ContextTarget {
  timers: Map<string, () => void>;
  halted: string | undefined;
}

/** The bot's parts a strategy's context reads, and its ways of taking what the strategy asks. */
export interface ContextDeps {
  clock: Clock;
  scheduler: Scheduler;
  logger: StrategyLogger & { child?(bindings: object): StrategyLogger };
  cache: StateCache;
  symbols: ReadonlyMap<string, SymbolInfo>;
  tracker: OrderTracker;
  bus: EventBus;
  /** Takes intents the strategy emitted (`ctx.emit`) as the bot takes a hook's, and sends them. */
  emit: (intents: unknown[]) => void;
  /** Sends the intents queued (after a timer event). */
  kick: () => void;
  /** The strategy's record in the bot, once it runs (the context is made before it). */
  target: () => ContextTarget;
}

/** The context a running strategy gets: `create(ctx)` keeps it. */
export function strategyContext(id: string, params: unknown, symbols: readonly string[], d: ContextDeps): StrategyContext<unknown> {
  const log = d.logger.child ? d.logger.child({ strategy: id }) : d.logger;
  return {
    id,
    params: params as Readonly<unknown>,
    clock: d.clock,
    log,
    state: d.cache,
    symbols: d.symbols,
    ...symbolAccess(id, symbols, d.symbols, d.cache),
    myOrders: (symbol) => d.tracker.live(id, symbol),
    emit: (intents) => d.emit(Array.isArray(intents) ? intents : [intents]),
    every: (name, everyMs) => {
      const running = d.target();
      running.timers.get(name)?.();
      const tick = (): void => {
        running.timers.set(name, d.scheduler.after(everyMs, tick));
        d.bus.publish({ type: 'timer', time: d.clock.now(), name, strategyId: id });
        d.kick();
      };
      running.timers.set(name, d.scheduler.after(everyMs, tick));
    },
    cancelTimer: (name) => {
      const running = d.target();
      running.timers.get(name)?.();
      running.timers.delete(name);
    },
    halt: (reason) => {
      const running = d.target();
      if (running.halted !== undefined) return;
      running.halted = String(reason);
      log.warn({ reason: running.halted }, 'strategy halted: it has stopped trading for good');
    },
  };
}
