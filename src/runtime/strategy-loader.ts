/**
 * Finds and loads the strategy modules a config names, and checks their parameters before the
 * bot connects anywhere (a bad parameter is a config error, exit 2, not a runtime failure).
 *
 * Where modules come from:
 * - a bare name (`market-maker`) is an example strategy shipped with perpkit: `strategies/<name>`
 *   next to this package's code (`dist/strategies/<name>/index.js` when running the CLI);
 * - anything else is a path, resolved against the config file's directory. The CLI runs compiled
 *   JavaScript from dist/, which cannot load TypeScript, so a `.ts` file (or a folder) inside the
 *   perpkit checkout is mapped to its compiled counterpart under dist/ (`npm run build` makes it);
 *   a strategy outside the checkout must be a `.js`/`.cjs` module.
 */
import { checkParams, unknownParamText, type CheckedParams } from '../bot/strategy/params-check';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { StrategySlot } from '../bot/bot';
import type { AnyStrategyDefinition } from '../bot/strategy/api';
import { BotConfigError, describeValue, type BotConfig } from './config';

/** The code root: the repo when running from sources (tests), dist/ when running compiled. */
const CODE_ROOT = path.resolve(__dirname, '../..');
const COMPILED = __filename.endsWith('.js');
/** The checkout holding dist/ (only meaningful when compiled). */
const REPO_ROOT = COMPILED ? path.resolve(CODE_ROOT, '..') : CODE_ROOT;
const BUILT_IN = /^[a-z0-9][a-z0-9-]*$/;

const inside = (dir: string, p: string): boolean => {
  const rel = path.relative(dir, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

/** The file or folder to require for a config's `module` value. */
export function resolveStrategyModule(spec: string, configDir: string): string {
  if (BUILT_IN.test(spec)) return path.join(CODE_ROOT, 'strategies', spec);
  const target = path.resolve(configDir, spec);
  if (!COMPILED) return target;
  if (/\.(c?js)$/.test(target)) return target;
  const distDir = path.join(REPO_ROOT, 'dist');
  if (inside(REPO_ROOT, target) && !inside(distDir, target)) {
    const rel = path.relative(REPO_ROOT, target).replace(/\.ts$/, '.js');
    return path.join(distDir, rel);
  }
  return target;
}

function isDefinition(v: unknown): v is AnyStrategyDefinition {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return typeof d.name === 'string' && typeof d.symbols === 'function' && typeof d.params === 'function' && typeof d.create === 'function';
}

/** Loads one definition: the module's default export, or its `strategy` export. */
export function loadStrategyDefinition(spec: string, configDir: string, file: string, at: string): AnyStrategyDefinition {
  const resolved = resolveStrategyModule(spec, configDir);
  if (COMPILED && resolved.endsWith('.ts')) {
    throw new BotConfigError(file, at, 'a compiled .js strategy module (the CLI cannot load TypeScript outside the perpkit checkout)', resolved);
  }
  let mod: unknown;
  try {
    // A dynamic require: strategy modules are chosen by the config at run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(resolved);
  } catch (e) {
    const missing = !existsSync(resolved) && !existsSync(`${resolved}.js`);
    const hint = missing && COMPILED && inside(path.join(REPO_ROOT, 'dist'), resolved) ? ' (run npm run build to compile it)' : '';
    throw new BotConfigError(file, at, `a strategy module that loads${hint}`, `${resolved}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const m = mod as Record<string, unknown>;
  const def = m.default ?? m.strategy;
  if (!isDefinition(def)) {
    throw new BotConfigError(file, at, 'a module exporting a strategy definition (default or `strategy` export with name, symbols, params, create)', `${resolved} exporting ${describeValue(def)}`);
  }
  return def;
}

/** An Error thrown by a definition's `params()`, as a config error at the parameter's path. */
function paramsError(e: unknown, file: string, at: string): BotConfigError {
  const msg = e instanceof Error ? e.message : String(e);
  const unknownKey = /unknown parameter '([^']+)'(?:; known parameters: (.*))?/.exec(msg);
  if (unknownKey) return new BotConfigError(file, `${at}.${unknownKey[1]}`, unknownKey[2] ? `one of the known parameters ${unknownKey[2]}` : 'a parameter the strategy knows', `unknown parameter '${unknownKey[1]}'`);
  const named = /parameter '([^']+)' must be (.*?)(?:, got (.*))?$/.exec(msg);
  if (named) return new BotConfigError(file, `${at}.${named[1]}`, named[2], named[3] ?? 'something else');
  return new BotConfigError(file, at, 'parameters the strategy accepts', msg);
}

/** Every strategy of the config loaded, its parameters checked. Throws BotConfigError. */
export function loadStrategySlots(config: BotConfig): StrategySlot[] {
  const dir = path.dirname(config.file);
  return config.strategies.map((s, i) => {
    const at = `strategies[${i}]`;
    const definition = loadStrategyDefinition(s.module, dir, config.file, `${at}.module`);
    let checked: CheckedParams;
    try {
      checked = checkParams(definition, s.params);
    } catch (e) {
      throw paramsError(e, config.file, `${at}.params`);
    }
    if (checked.unknown.length > 0) throw new BotConfigError(config.file, `${at}.params.${checked.unknown[0]}`, `a parameter the strategy reads (${checked.known.join(', ') || 'none'})`, unknownParamText(checked));
    return { id: s.id, definition, params: s.params };
  });
}
