/**
 * TypeBox and yaml from one bundled file each in the build (tools/build-vendor.cjs,
 * src/core/vendor.ts): their ~200 and ~75 modules took ~180 ms of every process and worker thread
 * that reads a config or loads a strategy. The built CLI loads none of the packages' modules; from
 * the sources (this test process) the packages serve, and schemas of either work with the other's
 * values.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import * as pkg from '@sinclair/typebox';
import { Type, Value } from '../../src/core/typebox';
import { parseDocument } from '../../src/core/yaml';
import { ensureBuilt, ROOT } from '../cli/exchange-proc';

beforeAll(() => ensureBuilt(), 120_000);

test("the built backtest command and a sweep's job thread load TypeBox and yaml from the bundles, none of the packages' modules", () => {
  for (const mod of ['cli/backtest.js', 'backtest/sweep/thread-job.js']) {
    const script = `require(${JSON.stringify(path.join(ROOT, 'dist', 'src', mod))}); const files = Object.keys(require.cache); process.stdout.write(JSON.stringify({ pkg: files.filter((f) => f.includes('@sinclair/typebox') || f.includes(path.join('node_modules', 'yaml'))).length, bundles: ['typebox', 'yaml'].filter((b) => files.some((f) => f.endsWith(path.join('dist', 'src', 'vendor', b + '.js')))) }));`;
    const r = spawnSync(process.execPath, ['-e', `const path = require('node:path'); ${script}`], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ pkg: 0, bundles: ['typebox', 'yaml'] });
  }
});

test("from the sources the package serves; a schema made with the package's own builders is checked and decoded alike", () => {
  const ours = Type.Object({ n: Type.Integer({ minimum: 1 }) });
  const theirs = pkg.Type.Object({ n: pkg.Type.Integer({ minimum: 1 }) });
  for (const s of [ours, theirs]) {
    expect(Value.Check(s, { n: 2 })).toBe(true);
    expect(Value.Check(s, { n: 0 })).toBe(false);
  }
  expect(parseDocument('a: 1\n').toJS()).toEqual({ a: 1 });
});
