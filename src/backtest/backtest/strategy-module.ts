/**
 * Loads the strategy modules a backtest config names. A bare name (`market-maker`) is an example
 * strategy shipped with perpkit (`strategies/<name>`, beside this code in the checkout or under
 * dist/); anything else is a path relative to the config file. Sweep workers load strategies the
 * same way, from the module name in the job, so a job carries names rather than code.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { AnyStrategyDefinition, StrategyDefinition } from '../../bot/strategy/api';
import { checkParams, unknownParamText, type CheckedParams } from '../../bot/strategy/params-check';
import type { StrategySlot } from '../../bot/bot';
import { BacktestConfigError, describeValue, type BacktestConfig } from './config';

const CODE_ROOT = path.resolve(__dirname, '../../..');
const COMPILED = __filename.endsWith('.js');
const REPO_ROOT = COMPILED ? path.resolve(CODE_ROOT, '..') : CODE_ROOT;
const BUILT_IN = /^[a-z0-9][a-z0-9-]*$/;

function resolveModule(spec: string, baseDir: string): string {
  if (BUILT_IN.test(spec)) return path.join(CODE_ROOT, 'strategies', spec);
  const target = path.resolve(baseDir, spec);
  if (!COMPILED || /\.c?js$/.test(target)) return target;
  // Compiled code cannot require TypeScript: a .ts file in the checkout maps to its build output.
  const rel = path.relative(REPO_ROOT, target);
  if (!rel.startsWith('..') && !path.isAbsolute(rel) && !rel.startsWith('dist')) return path.join(REPO_ROOT, 'dist', rel.replace(/\.ts$/, '.js'));
  return target;
}

function isDefinition(v: unknown): v is AnyStrategyDefinition {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return typeof d.name === 'string' && typeof d.symbols === 'function' && typeof d.params === 'function' && typeof d.create === 'function';
}

export function loadStrategyDefinition(spec: string, baseDir: string, file: string, at: string): AnyStrategyDefinition {
  const resolved = resolveModule(spec, baseDir);
  let mod: unknown;
  try {
    // The module is chosen by the config at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(resolved);
  } catch (e) {
    const hint = !existsSync(resolved) && !existsSync(`${resolved}.js`) && COMPILED ? ' (run npm run build to compile it)' : '';
    throw new BacktestConfigError(file, at, `a strategy module that loads${hint}`, `${resolved}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const m = mod as Record<string, unknown>;
  const def = m.default ?? m.strategy;
  if (!isDefinition(def)) throw new BacktestConfigError(file, at, 'a module exporting a strategy definition (default or `strategy` export)', `${resolved} exporting ${describeValue(def)}`);
  return def;
}

/** Slots for the bot, with parameters checked by each definition (a bad one is a config error). */
export function strategySlots(cfg: BacktestConfig): StrategySlot[] {
  return cfg.strategies.map((s, i) => {
    const at = `strategies[${i}]`;
    const definition = loadStrategyDefinition(s.module, cfg.baseDir, cfg.file, `${at}.module`);
    let checked: CheckedParams;
    try {
      checked = checkParams(definition, s.params);
    } catch (e) {
      throw new BacktestConfigError(cfg.file, `${at}.params`, 'parameters the strategy accepts', e instanceof Error ? e.message : String(e));
    }
    if (checked.unknown.length > 0) throw new BacktestConfigError(cfg.file, `${at}.params.${checked.unknown[0]}`, `a parameter the strategy reads (${checked.known.join(', ') || 'none'})`, unknownParamText(checked));
    return { id: s.id, definition, params: s.params };
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
