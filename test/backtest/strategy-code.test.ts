/**
 * A strategy's code is part of what identifies a run: report.json's identity holds a sha256 of the
 * module and the local files it imports as loaded, `report compare` names a difference in it, and
 * `sweep --resume` refuses rows computed with other code (it mixed two versions in one table).
 * Real CLI processes: each loads the files as they are when it starts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureBuilt, runCli } from '../cli/exchange-proc';
import { recording, writeConfig } from './fixtures';

/** A MARKET order every `n`-th mark, on the side lib.js says. */
const FLOW = `const { side } = require('./lib');
module.exports.default = {
  name: 'flow', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ n: Number(raw.n ?? 1) }),
  create: (ctx) => {
    let k = 0;
    return {
      onMark() {
        k++;
        if (k % (ctx.params.n * 10) !== 0) return [];
        return [{ kind: 'place', symbol: 'BTCUSDT', side: side(k), type: 'MARKET', quantity: '0.001' }];
      },
    };
  },
};
`;
const LIB = (first: string, second: string): string => `module.exports.side = (k) => (k % 20 === 0 ? '${first}' : '${second}');\n`;

interface Identity {
  identity: { strategies: Array<{ id: string; code?: { sha256: string; files: string[] } }> };
}
const identityOf = (out: string): Identity['identity'] => (JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Identity).identity;

let dir = '';
let cfg = '';
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(6, 11));
  writeFileSync(path.join(dir, 'flow.js'), FLOW);
  writeFileSync(path.join(dir, 'lib.js'), LIB('BUY', 'SELL'));
  cfg = writeConfig(dir, 'flow.yaml', { strategies: [{ id: 'f', module: './flow.js', params: { n: 1 } }], sweep: { method: 'grid', metric: 'totalPnl', params: { 'f.n': [1, 2, 3, 4] } } });
}, 120_000);

test('report.json records the code of the module and of the local file it imports; compare names an edit of that file', () => {
  const a = path.join(dir, 'bt-a');
  expect(runCli(['backtest', cfg, '--out', a, '--quiet']).code).toBe(0);
  const before = identityOf(a).strategies[0].code;
  expect(before?.files).toEqual(['flow.js', 'lib.js']);
  expect(before?.sha256).toMatch(/^[0-9a-f]{16}$/);
  // The same files give the same hash.
  const again = path.join(dir, 'bt-again');
  expect(runCli(['backtest', cfg, '--out', again, '--quiet']).code).toBe(0);
  expect(identityOf(again).strategies[0].code).toEqual(before);

  // The direction reversed in the imported file only: the module itself is unchanged.
  writeFileSync(path.join(dir, 'lib.js'), LIB('SELL', 'BUY'));
  try {
    const b = path.join(dir, 'bt-b');
    expect(runCli(['backtest', cfg, '--out', b, '--quiet']).code).toBe(0);
    const after = identityOf(b).strategies[0].code;
    expect(after?.sha256).not.toBe(before?.sha256);
    const c = runCli(['report', 'compare', a, b, '--out', path.join(dir, 'cmp.html')]);
    expect(c.code).toBe(0);
    expect(c.stdout).not.toMatch(/Nothing differs/);
    expect(c.stdout).toContain(`What differs in what produced them:\n  strategy f code\n    a: sha256 ${before?.sha256 ?? ''} of flow.js, lib.js\n    b: sha256 ${after?.sha256 ?? ''} of flow.js, lib.js\n`);
    // The same code: nothing differs.
    const same = runCli(['report', 'compare', a, again, '--out', path.join(dir, 'cmp-same.html')]);
    expect(same.stdout).toMatch(/Nothing differs in what produced them \(same strategy, strategy code, /);
    // A report of an older perpkit has no code hash: not known to differ, and said so.
    const old = path.join(dir, 'bt-old');
    mkdirSync(old, { recursive: true });
    const doc = JSON.parse(readFileSync(path.join(a, 'report.json'), 'utf8')) as { identity: { strategies: Array<{ code?: unknown }> } };
    delete doc.identity.strategies[0].code;
    writeFileSync(path.join(old, 'report.json'), JSON.stringify(doc));
    const older = runCli(['report', 'compare', old, again, '--out', path.join(dir, 'cmp-old.html')]);
    expect(older.code).toBe(0);
    expect(older.stdout).not.toMatch(/What differs/);
    expect(older.stdout).toContain('Nothing else differs in what produced them (same strategy, parameters, data, models and config hash).\nNot known (one report does not record it: written by an older perpkit): strategy f code\n');
  } finally {
    writeFileSync(path.join(dir, 'lib.js'), LIB('BUY', 'SELL'));
  }
});

test('sweep --resume over rows of other code: exit 2, one line naming the strategy, its module, both hashes and the way out; --overwrite runs afresh', () => {
  const out = path.join(dir, 'sw');
  const first = runCli(['sweep', cfg, '--workers', '1', '--quiet', '--out', out]);
  expect(first.code).toBe(0);
  const rows = readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n');
  const code = (JSON.parse(rows[0]) as { code: Record<string, string> }).code;
  expect(code).toEqual({ f: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown as string });
  expect((JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { code: unknown }).code).toEqual({ f: { module: './flow.js', sha256: code.f, files: ['flow.js', 'lib.js'] } });
  // A sweep stopped after two rows; then the strategy edited.
  writeFileSync(path.join(out, 'results.jsonl'), `${rows.slice(0, 2).join('\n')}\n`);
  writeFileSync(path.join(dir, 'lib.js'), LIB('SELL', 'BUY'));
  try {
    const r = runCli(['sweep', cfg, '--workers', '1', '--quiet', '--out', out, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^perpkit sweep: cannot resume from \\S+results\\.jsonl: its rows were computed with other code: strategy f \\(\\./flow\\.js\\) has code sha256 ${code.f} there, [0-9a-f]{16} now \\(the module or a local file it imports changed\\); --resume does not mix two versions of the code: --overwrite starts afresh and drops them, or give another --out\\n$`,
      ),
    );
    // Nothing was dropped.
    expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n')).toEqual(rows.slice(0, 2));
    const fresh = runCli(['sweep', cfg, '--workers', '1', '--quiet', '--out', out, '--overwrite']);
    expect(fresh.code).toBe(0);
    const now = readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(now).toHaveLength(4);
    const codes = new Set(now.map((l) => (JSON.parse(l) as { code: { f: string } }).code.f));
    expect(codes.size).toBe(1);
    expect(codes.has(code.f)).toBe(false);
  } finally {
    writeFileSync(path.join(dir, 'lib.js'), LIB('BUY', 'SELL'));
  }
});

test('an example strategy shipped with perpkit hashes its own file, not perpkit\'s code it imports', () => {
  const mm = writeConfig(dir, 'mm.yaml', {});
  const out = path.join(dir, 'bt-mm');
  expect(runCli(['backtest', mm, '--out', out, '--quiet']).code).toBe(0);
  expect(identityOf(out).strategies[0].code?.files).toEqual([expect.stringMatching(/^index\.(ts|js)$/) as unknown as string]);
});
