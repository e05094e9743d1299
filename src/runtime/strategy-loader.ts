/**
 * Loads the strategy modules a bot config names (through the one loader every command uses,
 * src/bot/strategy-source.ts: TypeScript loads directly, no build step), and checks their
 * parameters before the bot connects anywhere (a bad parameter is a config error, exit 2, not a
 * runtime failure).
 */
import { checkConfigParams } from '../bot/strategy/params-check';
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

/** Every strategy of the config loaded, its parameters checked. Throws BotConfigError. */
export function loadStrategySlots(config: BotConfig): StrategySlot[] {
  const dir = path.dirname(path.resolve(config.file));
  return config.strategies.map((s, i) => {
    const at = `strategies[${i}]`;
    const { file: module, definition } = loadStrategyDefinition(s.module, dir, config.file, `${at}.module`);
    checkConfigParams(definition, s.params, `${at}.params`, (p) => new BotConfigError(config.file, p.at, p.expected, p.got));
    return { id: s.id, definition, params: s.params, module };
  });
}
