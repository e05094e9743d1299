/**
 * Delivers bus events to a strategy's hooks: `onEvent` with every event, and the typed hooks
 * (`onMark`, `onTrade`, `onBar`, `onFill`, ...) with theirs. Market-data hooks get only the
 * strategy's own symbols; bars are cut here from its symbols' trades, and time bars are closed on
 * time by a timer of the strategy's (`BAR_TIMER`) that no hook sees.
 */
import { barsOf, type BarBuilder } from '../../indicators/bars';
import type { BotEvent } from '../bus/events';
import type { HookResult, MarketDataType, Strategy } from './api';
import type { Intent } from './intents';
import { HookResultError } from './intent-check';
import type { WallClockWatch } from './wall-clock';

/** The timer name that closes quiet time bars; reserved, never delivered to a hook. */
export const BAR_TIMER = '@bars';

/** Hooks taking events (all but the lifecycle ones). */
const EVENT_HOOKS = ['onEvent', 'onTrade', 'onMark', 'onQuote', 'onBook', 'onBar', 'onFill', 'onOrder', 'onStrategyOrder', 'onRefused', 'onRiskState', 'onTimer'] as const;

/** Every member a strategy (what create() returns) may have. */
const MEMBERS: ReadonlySet<string> = new Set([...EVENT_HOOKS, 'onStart', 'onStop', 'saveState', 'restoreState', 'bars']);
const BAR_RULES: Record<string, { ok: (v: unknown) => boolean; rule: string }> = {
  time: { ok: (v) => Number.isInteger(v) && (v as number) >= 1, rule: 'a whole number of ms, at least 1' },
  volume: { ok: (v) => typeof v === 'number' && Number.isFinite(v) && v > 0, rule: 'a positive number (base quantity per bar)' },
  trades: { ok: (v) => Number.isInteger(v) && (v as number) >= 1, rule: 'a whole number of trades, at least 1' },
};

/**
 * What keeps what create() returned from being a strategy, one phrase each (empty when nothing):
 * a hook name no hook has (a misspelt `onMarkPrice` was never called, and the strategy traded
 * nothing without a word), a hook that is not a function, and `bars` that are not exactly one of
 * `{ time }`, `{ volume }`, `{ trades }` with a valid value, or bars without `onBar` (or the reverse).
 */
export function strategyProblems(s: Record<string, unknown>): string[] {
  const out: string[] = [];
  const hookNames = [...MEMBERS].filter((m) => m.startsWith('on'));
  for (const k of Object.keys(s)) {
    if (/^on[A-Z]/.test(k) && !MEMBERS.has(k)) out.push(`${k} is not a hook (hooks: ${hookNames.join(', ')})`);
    else if (MEMBERS.has(k) && k !== 'bars' && s[k] !== undefined && typeof s[k] !== 'function') out.push(`${k} is ${s[k] === null ? 'null' : `a ${typeof s[k]}`} (expected a function)`);
  }
  const bars = s.bars;
  if (bars !== undefined) {
    const keys = typeof bars === 'object' && bars !== null ? Object.keys(bars) : [];
    const v = keys.length === 1 ? (bars as Record<string, unknown>)[keys[0]] : undefined;
    if (keys.length !== 1 || !(keys[0] in BAR_RULES)) out.push(`bars is ${JSON.stringify(bars) ?? String(bars)} (expected exactly one of { time: ms }, { volume: quantity }, { trades: count })`);
    else if (!BAR_RULES[keys[0]].ok(v)) out.push(`bars.${keys[0]} is ${JSON.stringify(v) ?? String(v)} (expected ${BAR_RULES[keys[0]].rule})`);
    if (typeof s.onBar !== 'function') out.push('it declares bars but has no onBar hook');
  } else if (typeof s.onBar === 'function') out.push('it has an onBar hook but declares no bars (e.g. bars: { time: 60_000 })');
  return out;
}

export class StrategyHooks {
  private readonly bars = new Map<string, BarBuilder>();
  /** The hook being called: where an exception came from. */
  private hook = '';
  /** Intents of the event being handled. */
  private out: Intent[] | undefined;
  /** The hook being called, for the wall-clock watch (made once: it is asked on every event). */
  private readonly hookNow = (): string => this.hook;
  /** Whether the strategy takes any event at all. */
  readonly takesEvents: boolean;

  constructor(
    private readonly s: Strategy,
    private readonly symbols: ReadonlySet<string>,
    /** In a backtest: counts the strategy's reads of the wall clock (wall-clock.ts). */
    private readonly wallClock?: { watch: WallClockWatch; strategyId: string },
  ) {
    // Its shape was checked by createStrategy (strategyProblems).
    if (s.bars !== undefined) for (const sym of symbols) this.bars.set(sym, barsOf(s.bars));
    this.takesEvents = EVENT_HOOKS.some((h) => typeof s[h] === 'function');
  }

  /**
   * The market data the hooks need, when the strategy has no `onEvent` (which takes everything):
   * trades for `onTrade` and bars, marks for `onMark`, tickers for `onQuote`, depth for `onBook`.
   */
  marketData(): MarketDataType[] | undefined {
    const s = this.s;
    if (s.onEvent) return undefined;
    const out: MarketDataType[] = [];
    if (s.onTrade || this.bars.size > 0) out.push('trade');
    if (s.onMark) out.push('markPrice');
    if (s.onBook) out.push('depth');
    if (s.onQuote) out.push('ticker');
    return out;
  }

  /** How often to check for a time bar that is due (at least every second, or every bar if shorter). */
  barTimerMs(): number | undefined {
    const b = this.s.bars;
    return b !== undefined && 'time' in b ? Math.min(b.time, 1000) : undefined;
  }

  /** Where the last exception of `handle` came from: `onMark`, `onBar`, `onEvent(trade)`... */
  get where(): string {
    return this.hook;
  }

  /** The intents of every hook that took the event (no allocation for an event no hook takes). */
  handle(e: BotEvent): readonly Intent[] | undefined {
    // Never re-entered: the bus queues what a hook publishes (ctx.emit -> a denial) until after.
    this.out = undefined;
    const w = this.wallClock;
    if (w === undefined) {
      this.deliver(e);
      return this.out;
    }
    const real = w.watch.enter(w.strategyId, this.hookNow);
    try {
      this.deliver(e);
    } finally {
      w.watch.exit(real);
    }
    return this.out;
  }

  private deliver(e: BotEvent): void {
    const s = this.s;
    if (e.type === 'timer' && e.name === BAR_TIMER) {
      for (const [sym, b] of this.bars) {
        const bar = b.closeUntil(e.time);
        this.hook = 'onBar';
        if (bar && s.onBar) this.take('onBar', s.onBar(bar, sym));
      }
      return;
    }
    if (s.onEvent) {
      this.hook = `onEvent(${e.type})`;
      this.take(this.hook, s.onEvent(e));
    }
    switch (e.type) {
      case 'trade': {
        if (!this.symbols.has(e.symbol)) break;
        if (s.onTrade) {
          this.hook = 'onTrade';
          this.take('onTrade', s.onTrade(e));
        }
        const builder = this.bars.get(e.symbol);
        if (builder && s.onBar) {
          const bar = builder.update(e.trade.time, Number(e.trade.price), Number(e.trade.quantity));
          this.hook = 'onBar';
          if (bar) this.take('onBar', s.onBar(bar, e.symbol));
        }
        break;
      }
      case 'markPrice':
        if (s.onMark && this.symbols.has(e.symbol)) {
          this.hook = 'onMark';
          this.take('onMark', s.onMark(e));
        }
        break;
      case 'ticker':
        if (s.onQuote && this.symbols.has(e.symbol)) {
          this.hook = 'onQuote';
          this.take('onQuote', s.onQuote(e));
        }
        break;
      case 'depth':
        if (s.onBook && this.symbols.has(e.symbol)) {
          this.hook = 'onBook';
          this.take('onBook', s.onBook(e));
        }
        break;
      case 'fill':
        if (s.onFill) {
          this.hook = 'onFill';
          this.take('onFill', s.onFill(e));
        }
        break;
      case 'order':
        if (s.onOrder) {
          this.hook = 'onOrder';
          this.take('onOrder', s.onOrder(e));
        }
        break;
      case 'strategyOrder':
        if (s.onStrategyOrder) {
          this.hook = 'onStrategyOrder';
          this.take('onStrategyOrder', s.onStrategyOrder(e));
        }
        break;
      case 'denial':
      case 'rejection':
        if (s.onRefused) {
          this.hook = 'onRefused';
          this.take('onRefused', s.onRefused(e));
        }
        break;
      case 'riskState':
        if (s.onRiskState) {
          this.hook = 'onRiskState';
          this.take('onRiskState', s.onRiskState(e));
        }
        break;
      case 'timer':
        if (s.onTimer) {
          this.hook = 'onTimer';
          this.take('onTimer', s.onTimer(e));
        }
        break;
      default:
        break;
    }
  }

  /** Collects what a hook returned. The hook name is set before the call, for `where`. */
  private take(hook: string, r: HookResult): void {
    this.hook = hook;
    if (!r) return;
    if (!Array.isArray(r)) throw new HookResultError(hook, r);
    if (r.length === 0) return;
    if (this.out === undefined) this.out = [...r];
    else this.out.push(...r);
  }
}
