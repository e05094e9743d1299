/**
 * Loads the strategy modules a backtest config names, through the one loader every command uses
 * (src/bot/strategy-source.ts: a bare name is an example shipped with perpkit, anything else a
 * path relative to the config file; TypeScript loads directly, no build step). Sweep workers load
 * strategies the same way, from the module name in the job, so a job carries names rather than code.
 */
import type { AnyStrategyDefinition, StrategyDefinition } from '../../bot/strategy/api';
import { checkConfigParams, quantityProblem } from '../../bot/strategy/params-check';
import type { SymbolSpec } from '../../protocol/rest/market';
import { loadStrategySource, StrategySourceError } from '../../bot/strategy-source';
import type { StrategySlot } from '../../bot/bot';
import { symbolPath } from '../../bot/strategy/symbol-path';
import { BacktestConfigError, type BacktestConfig } from './config';
import { strategyCodeOf, type StrategyCode } from './strategy-code';

/** A strategy module loaded: its file, its definition, and its code as loaded (strategy-code.ts). */
export interface LoadedStrategy {
  file: string;
  definition: AnyStrategyDefinition;
  code: StrategyCode;
}

export function loadStrategyDefinition(spec: string, baseDir: string, file: string, at: string): LoadedStrategy {
  try {
    const loaded = loadStrategySource(spec, baseDir);
    return { ...loaded, code: strategyCodeOf(loaded.file) };
  } catch (e) {
    if (e instanceof StrategySourceError) throw new BacktestConfigError(file, at, e.expected, e.got);
    throw e;
  }
}

/**
 * Strategy modules loaded, by the path a config's `module` names (relative to its folder): a sweep
 * resolves each once, not once per point (resolving an example checks its build against every
 * source file of the examples: 100,000 points took most of a minute before the first job).
 */
export type DefinitionCache = Map<string, LoadedStrategy>;

/** Slots for the bot, with parameters checked by each definition (a bad one is a config error). */
export function strategySlots(cfg: BacktestConfig, cache?: DefinitionCache): StrategySlot[] {
  return checkedSlots(cfg, cache).slots;
}

/** The slots, and what each definition's `params()` made of its parameters (in slot order). */
export function checkedSlots(cfg: BacktestConfig, cache?: DefinitionCache): { slots: StrategySlot[]; decoded: unknown[] } {
  const decoded: unknown[] = [];
  const slots = cfg.strategies.map((s, i) => {
    const at = `strategies[${i}]`;
    const { file: module, definition } = loadedStrategy(cfg, i, cache);
    decoded.push(checkConfigParams(definition, s.params, `${at}.params`, (p) => new BacktestConfigError(cfg.file, p.at, p.expected, p.got)).params);
    return { id: s.id, definition, params: s.params, module };
  });
  return { slots, decoded };
}

/** The module of `cfg.strategies[i]`, loaded once per cache (a config error when it does not load). */
function loadedStrategy(cfg: BacktestConfig, i: number, cache: DefinitionCache | undefined): LoadedStrategy {
  const s = cfg.strategies[i];
  const key = `${cfg.baseDir}\0${s.module}`;
  let loaded = cache?.get(key);
  if (loaded === undefined) {
    loaded = loadStrategyDefinition(s.module, cfg.baseDir, cfg.file, `strategies[${i}].module`);
    cache?.set(key, loaded);
  }
  return loaded;
}

/**
 * Each strategy's code as this process loaded it, by strategy id, in config order: part of a
 * run's identity (report.json `identity.strategies[].code`, a sweep's rows and jobs).
 */
export function strategyCodes(cfg: BacktestConfig, cache?: DefinitionCache): Array<{ id: string; module: string; code: StrategyCode }> {
  return cfg.strategies.map((s, i) => ({ id: s.id, module: s.module, code: loadedStrategy(cfg, i, cache).code }));
}

/** Symbols the strategies trade (their market-data subscriptions); `decoded`: their params() already made (checkedSlots). */
export function slotSymbols(slots: StrategySlot[], decoded?: readonly unknown[]): string[] {
  const out = new Set<string>();
  for (const [i, s] of slots.entries()) {
    const def = s.definition as unknown as StrategyDefinition<unknown>;
    for (const sym of def.symbols(decoded === undefined ? def.params(s.params) : decoded[i])) out.add(sym);
  }
  return [...out].sort();
}

/**
 * The refusal of a config the recording's symbols cannot run (`specs`: the symbols its header
 * lists, in its order): a symbol a strategy trades, or one `account.leverage` sets, that the
 * recording lacks; or a strategy's `param.quantity` that no order of its symbol could carry
 * (quantityProblem). At the parameter or key that says it; undefined when all fit. The one check of
 * both the backtest (when its replay starts) and the sweep (for every point, before any job runs:
 * each job failed on it, exit 1).
 */
export function refusedByData(cfg: BacktestConfig, slots: StrategySlot[], specs: readonly SymbolSpec[], decoded?: readonly unknown[]): BacktestConfigError | undefined {
  const known = specs.map((s) => s.symbol);
  const holds = `a symbol the recording holds (${known.join(', ')})`;
  for (const s of slotSymbols(slots, decoded)) if (!known.includes(s)) return new BacktestConfigError(cfg.file, symbolPath(slots, s) ?? 'strategies', holds, s);
  for (const s of Object.keys(cfg.account.leverage)) if (!known.includes(s)) return new BacktestConfigError(cfg.file, `account.leverage.${s}`, holds, s);
  const bySymbol = new Map(specs.map((s) => [s.symbol, s]));
  for (const [i, s] of slots.entries()) {
    const def = s.definition as unknown as StrategyDefinition<unknown>;
    const p = quantityProblem(s.definition, decoded === undefined ? def.params(s.params) : decoded[i], (sym) => bySymbol.get(sym));
    if (p !== undefined) return new BacktestConfigError(cfg.file, `strategies[${i}].params.${p.param}`, `${p.expected} (the recording's spec)`, p.got);
  }
  return undefined;
}
