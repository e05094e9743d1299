import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../..');

const forbidden: Array<[string, string, RegExp]> = [
  ['src/core/x.ts', "import { a } from '../protocol/a';", /'core' may import only itself/],
  ['src/client/x.ts', "import { a } from '../exchange/engine/a';", /'client' may import only/],
  ['src/exchange/engine/x.ts', "import { a } from '../../client/a';", /'exchange' may import only/],
  ['src/bot/bus/x.ts', "import { a } from '../../client/rest';", /'bot' may import only/],
  ['src/bot/risk/x.ts', "import { a } from '../../exchange/engine/engine';", /'bot' may import only/],
  ['src/protocol/x.ts', "export { a } from '../runtime/config';", /'protocol' may import only/],
  ['strategies/grid/index.ts', "import { a } from '../../src/core/values';", /public API/],
  ['src/market-data/x.ts', "import { a } from '../exchange/engine/symbols';", /'market-data' may import only core, protocol/],
  ['src/market-data/x.ts', "import { a } from '../backtest/backtest/run';", /'market-data' may import only/],
  ['src/client/x.ts', "import { a } from '../market-data/reader';", /'client' may import only/],
  ['src/bot/bus/x.ts', "import { a } from '../../market-data/format';", /'bot' may import only/],
  ['src/exchange/service/x.ts', "import { a } from '../transport/server';", /the service never imports its transports/],
  ['src/exchange/service/x.ts', "import { a } from '../transport/ws/gateway';", /the service never imports its transports/],
  ['src/exchange/engine/x.ts', "import { a } from '../service/exchange-core';", /exchange\/engine may not import exchange\/service/],
  ['src/exchange/market/x.ts', "import { a } from '../transport/server';", /exchange\/market may not import exchange\/transport/],
  ['src/indicators/x.ts', "import { a } from '../bot/bus/events';", /'indicators' may import only core/],
  ['strategies/grid/index.ts', "import { a } from '../../src/indicators/ema';", /public API/],
];

/** Strategies may not reach the clock or the network except through their context. */
const sandbox: Array<[string, string, string]> = [
  ['strategies/x/index.ts', 'export const t = Date.now();', 'no-restricted-properties'],
  ['strategies/x/index.ts', 'export const t = new Date();', 'no-restricted-syntax'],
  ['strategies/x/index.ts', "import { request } from 'undici';\nexport const r = request;", 'no-restricted-imports'],
  ['strategies/x/index.ts', 'export const f = () => setTimeout(() => undefined, 1);', 'no-restricted-globals'],
];

const allowed: Array<[string, string]> = [
  ['src/protocol/x.ts', "import { a } from '../core/values';"],
  ['src/exchange/transport/x.ts', "import { a } from '../../protocol/wire';"],
  ['src/exchange/transport/x.ts', "import { a } from '../service/exchange-core';"],
  ['src/exchange/market/x.ts', "import { a } from '../service/exchange-core';"],
  ['src/bot/venue/live.ts', "import { a } from '../../client/rest';"],
  ['src/bot/bus/x.ts', "import { a } from '../venue/venue';"],
  ['src/cli/x.ts', "import { a } from '../runtime/wiring';"],
  ['src/market-data/x.ts', "import { a } from '../protocol/rest/market';"],
  ['src/exchange/market/x.ts', "import { a } from '../../market-data/reader';"],
  ['src/backtest/backtest/x.ts', "import { a } from '../../market-data/format';"],
  ['src/runtime/x.ts', "import { a } from '../market-data/writer';"],
  ['src/cli/x.ts', "import { a } from '../market-data/synth';"],
  ['strategies/grid/index.ts', "import { a } from '../../src/index';"],
  ['strategies/grid/index.ts', "import { a } from '../../src/indicators';"],
  ['src/indicators/x.ts', "import { a } from '../core/decimal';"],
  ['src/bot/strategy/x.ts', "import { a } from '../../indicators/bars';"],
];

/**
 * Lints every case with the project's real ESLint configuration, in one child process (ESLint
 * loads its flat config with a dynamic import, which jest's VM does not allow). Returns, per case,
 * the messages of `rule` (or of every rule for '*') as "ruleId: message".
 */
function lintAll(cases: Array<[string, string]>, rule = 'perpkit/layers'): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const [cases, rule] = JSON.parse(process.argv[1]);
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const [file, code] of cases) {
        const [r] = await eslint.lintText(code, { filePath: require('path').join(process.cwd(), file) });
        out.push(r.messages.filter((m) => rule === '*' || m.ruleId === rule).map((m) => m.ruleId + ': ' + m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { process.stderr.write(String(e.stack)); process.exit(1); });
  `;
  const r = spawnSync(process.execPath, ['-e', script, JSON.stringify([cases, rule])], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`eslint run failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[][];
}

describe('import-boundary lint rule (DESIGN.md layers)', () => {
  const body = (code: string): string => `${code}\nexport const used = a;\n`;
  let forbiddenResults: string[][];
  let allowedResults: string[][];

  beforeAll(() => {
    const results = lintAll([...forbidden.map(([f, c]) => [f, body(c)] as [string, string]), ...allowed.map(([f, c]) => [f, body(c)] as [string, string])]);
    forbiddenResults = results.slice(0, forbidden.length);
    allowedResults = results.slice(forbidden.length);
  });

  it.each(forbidden.map((c, i) => [...c, i] as const))('%s: forbidden import %s fails lint', (_file, _code, msg, i) => {
    expect(forbiddenResults[i]).toHaveLength(1);
    expect(forbiddenResults[i][0]).toMatch(msg);
  });

  it.each(allowed.map((c, i) => [...c, i] as const))('%s: allowed import %s passes', (_file, _code, i) => {
    expect(allowedResults[i]).toEqual([]);
  });
});

describe('strategy sandbox lint rules', () => {
  let results: string[][];
  beforeAll(() => {
    results = lintAll(sandbox.map(([f, c]) => [f, c] as [string, string]), '*');
  });

  it.each(sandbox.map((c, i) => [...c, i] as const))('%s: %s is refused by %s', (_file, _code, rule, i) => {
    expect(results[i].some((m) => m.startsWith(`${rule}:`))).toBe(true);
  });
});

/** The engine's bounded contexts import only downwards (tools/eslint-engine-contexts.cjs). */
const engineForbidden: Array<[string, string, RegExp]> = [
  ['src/exchange/engine/orders/x.ts', "import { a } from '../conditions/conditions';", /'orders' .*may not import 'conditions'/],
  ['src/exchange/engine/orders/x.ts', "import { a } from '../strategies/strategy-orders';", /'orders' .*may not import 'strategies'/],
  ['src/exchange/engine/conditions/x.ts', "import { a } from '../strategies/strategy-orders';", /'conditions' .*may not import 'strategies'/],
  ['src/exchange/engine/accounts/x.ts', "import { a } from '../orders/matching';", /'accounts' .*may not import 'orders'/],
  ['src/exchange/engine/liquidation/x.ts', "import { a } from '../engine';", /contexts never import the facade/],
];

const engineAllowed: Array<[string, string]> = [
  ['src/exchange/engine/conditions/x.ts', "import { a } from '../orders/matching';"],
  ['src/exchange/engine/strategies/x.ts', "import { a } from '../conditions/conditions';"],
  ['src/exchange/engine/orders/x.ts', "import { a } from '../state';"],
  ['src/exchange/engine/engine.ts', "import { a } from './liquidation/liquidation';"],
];

describe('engine context lint rule', () => {
  const body = (code: string): string => `${code}\nexport const used = a;\n`;
  let results: string[][];
  beforeAll(() => {
    results = lintAll([...engineForbidden, ...engineAllowed].map(([f, c]) => [f, body(c)] as [string, string]), 'perpkit/engine-contexts');
  });

  it.each(engineForbidden.map((c, i) => [...c, i] as const))('%s: forbidden import %s fails lint', (_file, _code, msg, i) => {
    expect(results[i]).toHaveLength(1);
    expect(results[i][0]).toMatch(msg);
  });

  it.each(engineAllowed.map((c, i) => [...c, i] as const))('%s: allowed import %s passes', (_file, _code, i) => {
    expect(results[engineForbidden.length + i]).toEqual([]);
  });
});
