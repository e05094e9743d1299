/**
 * The published JSON Schemas of the config files (schema/*.json), generated from the schemas the
 * loaders use, for editors: `# yaml-language-server: $schema=<path to schema/bot.json>` at the top
 * of a YAML file gives completion, hover docs and checks as you type. `npm run schemas` writes
 * them; a test fails when they are out of date.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { BACKTEST_CONFIG } from '../backtest/backtest/config-schema';
import { fileSchema } from '../core/config-schema';
import { exchangeConfigSchema } from '../exchange/service/config-file';
import { BOT_CONFIG } from '../runtime/config-schema';
import { RECORD_CONFIG } from './record-config-schema';
import { makeDirSync } from '../core/dirs';

const BASE = 'https://perpkit.dev/schema';

/** File name -> JSON Schema. */
export function configSchemas(): Record<string, Record<string, unknown>> {
  return {
    'bot.json': fileSchema(`${BASE}/bot.json`, 'perpkit bot config', 'The config of perpkit run: venue, strategies, risk limits, alerts, state, HTTP endpoints (docs/running.md).', BOT_CONFIG),
    'exchange.json': {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${BASE}/exchange.json`,
      title: 'perpkit local exchange config',
      description: 'The config of perpkit exchange --config: listening, market, symbols, users, limits; every key optional over the defaults (docs/local-exchange.md).',
      ...exchangeConfigSchema(),
    },
    'record.json': fileSchema(`${BASE}/record.json`, 'perpkit recorder config', 'The config of perpkit record --config: venue, symbols, streams (docs/recording.md).', RECORD_CONFIG),
    'backtest.json': fileSchema(`${BASE}/backtest.json`, 'perpkit backtest config', 'The config of perpkit backtest and perpkit sweep: data, account, fees, latency, risk, strategies, report, sweep (docs/backtesting.md).', BACKTEST_CONFIG),
  };
}

/** The text each file holds. */
export function configSchemaText(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Writes every schema into `dir`; returns the paths written. */
export function writeConfigSchemas(dir: string): string[] {
  makeDirSync(dir);
  return Object.entries(configSchemas()).map(([name, schema]) => {
    const file = path.join(dir, name);
    writeFileSync(file, configSchemaText(schema));
    return file;
  });
}
