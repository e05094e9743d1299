/**
 * TypeBox from one bundled file in the build (tools/build-vendor.cjs, src/core/typebox.ts): the
 * package's ~200 modules took ~120 ms of every process and worker thread that reads a config or
 * loads a strategy. The built CLI loads none of the package's modules; from the sources (this
 * test process) the package itself serves, and schemas of either work with the other's values.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import * as pkg from '@sinclair/typebox';
import { Type, Value } from '../../src/core/typebox';
import { ensureBuilt, ROOT } from '../cli/exchange-proc';

beforeAll(() => ensureBuilt(), 120_000);

test("the built backtest command and a sweep's job thread load TypeBox from the bundle, none of the package's modules", () => {
  for (const mod of ['cli/backtest.js', 'backtest/sweep/thread-job.js']) {
    const script = `require(${JSON.stringify(path.join(ROOT, 'dist', 'src', mod))}); const files = Object.keys(require.cache); process.stdout.write(JSON.stringify({ pkg: files.filter((f) => f.includes('@sinclair/typebox')).length, bundle: files.some((f) => f.endsWith(path.join('dist', 'src', 'vendor', 'typebox.js'))) }));`;
    const r = spawnSync(process.execPath, ['-e', `const path = require('node:path'); ${script}`], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ pkg: 0, bundle: true });
  }
});

test("from the sources the package serves; a schema made with the package's own builders is checked and decoded alike", () => {
  const ours = Type.Object({ n: Type.Integer({ minimum: 1 }) });
  const theirs = pkg.Type.Object({ n: pkg.Type.Integer({ minimum: 1 }) });
  for (const s of [ours, theirs]) {
    expect(Value.Check(s, { n: 2 })).toBe(true);
    expect(Value.Check(s, { n: 0 })).toBe(false);
  }
});
