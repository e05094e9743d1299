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
