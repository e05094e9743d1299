/**
 * Loads the strategy modules a backtest config names, through the one loader every command uses
 * (src/bot/strategy-source.ts: a bare name is an example shipped with perpkit, anything else a
 * path relative to the config file; TypeScript loads directly, no build step). Sweep workers load
 * strategies the same way, from the module name in the job, so a job carries names rather than code.
 */
import type { AnyStrategyDefinition, StrategyDefinition } from '../../bot/strategy/api';
import { checkConfigParams } from '../../bot/strategy/params-check';
import { loadStrategySource, StrategySourceError } from '../../bot/strategy-source';
import type { StrategySlot } from '../../bot/bot';
import { BacktestConfigError, type BacktestConfig } from './config';

export function loadStrategyDefinition(spec: string, baseDir: string, file: string, at: string): { file: string; definition: AnyStrategyDefinition } {
  try {
    return loadStrategySource(spec, baseDir);
  } catch (e) {
    if (e instanceof StrategySourceError) throw new BacktestConfigError(file, at, e.expected, e.got);
    throw e;
  }
}

/** Slots for the bot, with parameters checked by each definition (a bad one is a config error). */
export function strategySlots(cfg: BacktestConfig): StrategySlot[] {
  return cfg.strategies.map((s, i) => {
    const at = `strategies[${i}]`;
    const { file: module, definition } = loadStrategyDefinition(s.module, cfg.baseDir, cfg.file, `${at}.module`);
    checkConfigParams(definition, s.params, `${at}.params`, (p) => new BacktestConfigError(cfg.file, p.at, p.expected, p.got));
    return { id: s.id, definition, params: s.params, module };
  });
}

/** Symbols the strategies trade (their market-data subscriptions). */
export function slotSymbols(slots: StrategySlot[]): string[] {
  const out = new Set<string>();
  for (const s of slots) {
    const def = s.definition as unknown as StrategyDefinition<unknown>;
    for (const sym of def.symbols(def.params(s.params))) out.add(sym);
  }
  return [...out].sort();
}

/**
 * The config path that makes a strategy trade `symbol`, for an error about it: the parameter that
 * holds the name (`strategies[0].params.symbol`, `strategies[1].params.symbols[2]`), else the
 * strategy's `params`. Slots are in the config's order.
 */
export function symbolPath(slots: StrategySlot[], symbol: string): string | undefined {
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    const def = s.definition as unknown as StrategyDefinition<unknown>;
    if (!def.symbols(def.params(s.params)).includes(symbol)) continue;
    for (const [k, v] of Object.entries(s.params)) {
      if (v === symbol) return `strategies[${i}].params.${k}`;
      if (Array.isArray(v) && v.includes(symbol)) return `strategies[${i}].params.${k}[${v.indexOf(symbol)}]`;
    }
    return `strategies[${i}].params`;
  }
  return undefined;
}

/**
 * The refusal of a symbol the recording lacks (`known`: the symbols its header lists, in its
 * order): one a strategy trades, at the parameter that names it, or one `account.leverage` sets;
 * undefined when the recording holds every one. The one check of both the backtest (when its
 * replay starts) and the sweep (for every point, before any job runs: each job failed on it, exit 1).
 */
export function unknownSymbol(cfg: BacktestConfig, slots: StrategySlot[], known: readonly string[]): BacktestConfigError | undefined {
  const holds = `a symbol the recording holds (${known.join(', ')})`;
  for (const s of slotSymbols(slots)) if (!known.includes(s)) return new BacktestConfigError(cfg.file, symbolPath(slots, s) ?? 'strategies', holds, s);
  for (const s of Object.keys(cfg.account.leverage)) if (!known.includes(s)) return new BacktestConfigError(cfg.file, `account.leverage.${s}`, holds, s);
  return undefined;
}
