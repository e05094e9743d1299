/**
 * Loads the strategy modules a bot config names (through the one loader every command uses,
 * src/bot/strategy-source.ts: TypeScript loads directly, no build step), and checks their
 * parameters before the bot connects anywhere (a bad parameter is a config error, exit 2, not a
 * runtime failure).
 */
import { checkParams, unknownParamText, type CheckedParams } from '../bot/strategy/params-check';
import * as path from 'node:path';
import type { StrategySlot } from '../bot/bot';
import type { AnyStrategyDefinition } from '../bot/strategy/api';
import { loadStrategySource, resolveStrategySource, StrategySourceError } from '../bot/strategy-source';
import { BotConfigError, type BotConfig } from './config';

/** The file to load for a config's `module` value. */
export function resolveStrategyModule(spec: string, configDir: string): string {
  return resolveStrategySource(spec, configDir);
}

/** Loads one definition: the module's default export, or its `strategy` export. */
export function loadStrategyDefinition(spec: string, configDir: string, file: string, at: string): { file: string; definition: AnyStrategyDefinition } {
  try {
    return loadStrategySource(spec, configDir);
  } catch (e) {
    if (e instanceof StrategySourceError) throw new BotConfigError(file, at, e.expected, e.got);
    throw e;
  }
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
    const { file: module, definition } = loadStrategyDefinition(s.module, dir, config.file, `${at}.module`);
    let checked: CheckedParams;
    try {
      checked = checkParams(definition, s.params);
    } catch (e) {
      throw paramsError(e, config.file, `${at}.params`);
    }
    if (checked.unknown.length > 0) throw new BotConfigError(config.file, `${at}.params.${checked.unknown[0]}`, `a parameter the strategy reads (${checked.known.join(', ') || 'none'})`, unknownParamText(checked));
    return { id: s.id, definition, params: s.params, module };
  });
}
