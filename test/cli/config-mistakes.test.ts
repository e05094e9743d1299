/**
 * Issue 12 items 7 and 8: everything a config names is checked before any work, and bad data is a
 * one-line error with the key, the file (and line) and, for a time range, where the data is; exit 2,
 * never a stack trace (the stack only with --debug).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { MM, recording, writeConfig } from '../backtest/fixtures';
import { ensureBuilt, ROOT, runCli } from './exchange-proc';

jest.setTimeout(120_000);

/** A strategy of a user's that reads its parameters without checking the names (as most do). */
const CUSTOM = `module.exports.default = {
  name: 'zscore', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ entryZ: Number(raw.entryZ ?? 2), window: Number(raw.window ?? 20) }),
  create: () => ({ onEvent: () => [] }),
};
`;

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(10, 5));
  writeFileSync(path.join(dir, 'zscore.js'), CUSTOM);
});

const oneLine = (s: string): string[] => s.trim().split('\n');
/** The 1-based line of a file that starts with `start`. */
const lineOf = (file: string, start: string): number => readFileSync(file, 'utf8').split('\n').findIndex((l) => l.startsWith(start)) + 1;

test('a misspelt parameter of a strategy that does not check names: backtest, sweep (point) and run --check refuse it', () => {
  const strat = { id: 'z', module: './zscore.js', params: { entryz: 1.5 } };
  const bt = runCli(['backtest', writeConfig(dir, 'p.yaml', { strategies: [strat] }), '--out', path.join(dir, 'o1'), '--quiet']);
  expect(bt.code).toBe(2);
  expect(oneLine(bt.stderr)).toHaveLength(1);
  expect(bt.stderr).toMatch(/p\.yaml:\d+: strategies\[0\]\.params\.entryz: expected a parameter the strategy reads \(entryZ, window\), got unknown parameter 'entryz'/);

  // The sweep's grid names a parameter that does not exist: refused before any job.
  const sw = runCli(['sweep', writeConfig(dir, 's.yaml', { strategies: [{ id: 'z', module: './zscore.js', params: {} }], sweep: { params: { 'z.windw': [10, 20] } } }), '--out', path.join(dir, 'o2'), '--quiet']);
  expect(sw.code).toBe(2);
  expect(oneLine(sw.stderr)).toHaveLength(1);
  expect(sw.stderr).toMatch(/sweep\.params \(point 0: \{"z\.windw":10\}\) -> strategies\[0\]\.params\.windw: expected a parameter the strategy reads \(entryZ, window\)/);
  expect(sw.stdout).not.toMatch(/job \d+ done/);

  const botCfg = path.join(dir, 'bot.yaml');
  writeFileSync(botCfg, stringify({ venue: { baseUrl: 'http://127.0.0.1:9', auth: { username: 'u', passwordEnv: 'P' } }, strategies: [strat] }));
  const run = runCli(['run', botCfg, '--check']);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/strategies\[0\]\.params\.entryz: expected a parameter the strategy reads \(entryZ, window\), got unknown parameter 'entryz'/);
});

test('a misspelt parameter of a strategy with a parameter schema (the built-in grid): backtest, sweep and run (without --check) refuse it, with the line', () => {
  const known = 'levels, lowerBound, quantity, referencePrice, refreshMs, spacingBps, symbol, upperBound';
  const strat = { id: 'g', module: 'grid', params: { levles: 3 } };
  const bt = runCli(['backtest', writeConfig(dir, 'g.yaml', { strategies: [strat] }), '--out', path.join(dir, 'o4'), '--quiet']);
  expect(bt.code).toBe(2);
  expect(oneLine(bt.stderr)).toHaveLength(1);
  // g.yaml: data (3 lines), account (2), strategies: / - id / module / params: / levles -> line 10
  // The names the strategy reads are said once, in what was expected.
  expect(bt.stderr).toContain(`g.yaml:10: strategies[0].params.levles: expected a parameter the strategy reads (${known}), got unknown parameter 'levles'\n`);

  const sw = runCli(['sweep', writeConfig(dir, 'gs.yaml', { strategies: [{ id: 'g', module: 'grid', params: {} }], sweep: { params: { 'g.levles': [2, 3] } } }), '--out', path.join(dir, 'o5'), '--quiet']);
  expect(sw.code).toBe(2);
  expect(sw.stderr).toMatch(/gs\.yaml:\d+: sweep\.params \(point 0: \{"g\.levles":2\}\) -> strategies\[0\]\.params\.levles: expected a parameter the strategy reads/);
  expect(sw.stdout).not.toMatch(/job \d+ done/);

  const botCfg = path.join(dir, 'gbot.yaml');
  writeFileSync(botCfg, stringify({ venue: { baseUrl: 'http://127.0.0.1:9', auth: { username: 'u', passwordEnv: 'P' } }, strategies: [strat] }));
  const run = runCli(['run', botCfg]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`gbot.yaml:10: strategies[0].params.levles: expected a parameter the strategy reads (${known}), got unknown parameter 'levles'\n`);
});

test('a parameter of the wrong type or value: backtest, sweep and run say it alike, at the line and path of the parameter', () => {
  // Line 10 of each file: data (3 lines), account (2), strategies: / - id / module / params: / refreshMs.
  const expected = `strategies[0].params.refreshMs: expected a whole number from 100 to 3600000, got "fast"\n`;
  const strat = { id: 'g', module: 'grid', params: { refreshMs: 'fast' } };
  const bt = runCli(['backtest', writeConfig(dir, 'v.yaml', { strategies: [strat] }), '--out', path.join(dir, 'o6'), '--quiet']);
  expect(bt.code).toBe(2);
  expect(bt.stderr).toBe(`perpkit backtest: ${path.join(dir, 'v.yaml')}:10: ${expected}`);

  // In the sweep's base config (not a swept parameter): the same, not a sweep point's error.
  const sw = runCli(['sweep', writeConfig(dir, 'vs.yaml', { strategies: [strat], sweep: { params: { 'g.levels': [2, 3] } } }), '--out', path.join(dir, 'o7'), '--quiet']);
  expect(sw.code).toBe(2);
  expect(sw.stderr).toBe(`perpkit sweep: ${path.join(dir, 'vs.yaml')}:10: ${expected}`);

  // A swept value the strategy refuses is the point's: the path says which point.
  const swp = runCli(['sweep', writeConfig(dir, 'vp.yaml', { strategies: [{ id: 'g', module: 'grid', params: {} }], sweep: { params: { 'g.levels': [0, 3] } } }), '--out', path.join(dir, 'o8'), '--quiet']);
  expect(swp.code).toBe(2);
  expect(swp.stderr).toMatch(/vp\.yaml:\d+: sweep\.params \(point 0: \{"g\.levels":0\}\) -> strategies\[0\]\.params\.levels: expected a whole number from \d+ to \d+, got 0\n$/);

  const botCfg = path.join(dir, 'vbot.yaml');
  writeFileSync(botCfg, stringify({ venue: { baseUrl: 'http://127.0.0.1:9', auth: { username: 'u', passwordEnv: 'P' } }, strategies: [strat] }));
  const run = runCli(['run', botCfg, '--check']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`vbot.yaml:10: ${expected}`);
});

test('a whole-number parameter quoted in YAML ("7") is taken as a decimal quoted is; quoted text that is not one is refused on one line', () => {
  const botCfg = (name: string, levels: string): string => {
    const file = path.join(dir, name);
    // Written by hand: `levels: "7"` is what a person types (a YAML string).
    writeFileSync(file, `venue:\n  baseUrl: http://127.0.0.1:9\n  auth: { username: u, passwordEnv: P }\nstrategies:\n  - id: g\n    module: grid\n    params:\n      levels: ${levels}\n      quantity: "0.01"\n`);
    return file;
  };
  const ok = runCli(['run', botCfg('quoted-int.yaml', '"7"'), '--check'], { P: 'pw' });
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  const bad = runCli(['run', botCfg('quoted-int-bad.yaml', '"7.5"'), '--check'], { P: 'pw' });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toBe(`perpkit run: config error: ${path.join(dir, 'quoted-int-bad.yaml')}:8: strategies[0].params.levels: expected a whole number from 1 to 50, got "7.5"\n`);
  const far = runCli(['run', botCfg('quoted-int-far.yaml', '"70"'), '--check'], { P: 'pw' });
  expect(far.code).toBe(2);
  expect(far.stderr).toBe(`perpkit run: config error: ${path.join(dir, 'quoted-int-far.yaml')}:8: strategies[0].params.levels: expected a whole number from 1 to 50, got "70"\n`);
});

test('YAML syntax errors and a missing config: one line, the file as typed, file:line:column; backtest, sweep and run alike', () => {
  const file = writeConfig(dir, 'y.yaml', {});
  // y.yaml with its account block written twice, on line 4 column 1.
  writeFileSync(file, readFileSync(file, 'utf8').replace('account:', 'account:\n  balance: "1"\naccount:'));
  const rel = path.relative(ROOT, file);
  for (const cmd of ['backtest', 'sweep']) {
    const r = runCli([cmd, rel, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`perpkit ${cmd}: ${rel}:6:1: expected valid YAML, got the key 'account' a second time in the same mapping\n`);
  }
  const botCfg = path.join(dir, 'ybot.yaml');
  writeFileSync(botCfg, 'venue:\n  baseUrl: http://127.0.0.1:9\n  auth: {username: a\nstrategies: []\n');
  const run = runCli(['run', path.relative(ROOT, botCfg), '--check']);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(new RegExp(`^perpkit run: config error: ${path.relative(ROOT, botCfg).replace(/[.]/g, '\\.')}:4:1: expected valid YAML, got a syntax error \\([^\\n]+\\)\\n$`));

  const nope = path.relative(ROOT, path.join(dir, 'nope.yaml'));
  expect(runCli(['backtest', nope]).stderr).toBe(`perpkit backtest: ${nope}: expected a readable YAML file, got no such file\n`);
  expect(runCli(['sweep', nope]).stderr).toBe(`perpkit sweep: ${nope}: expected a readable YAML file, got no such file\n`);
  const runNope = runCli(['run', nope]);
  expect(runNope.code).toBe(2);
  expect(runNope.stderr).toBe(`perpkit run: config error: ${nope}: expected a readable YAML file, got no such file\n`);
});

test('perpkit run names the config as typed in every error (keys, modules, parameters)', () => {
  const botCfg = path.join(dir, 'mbot.yaml');
  writeFileSync(botCfg, stringify({ venue: { baseUrl: 'http://127.0.0.1:9', auth: { username: 'u', passwordEnv: 'P' } }, strategies: [{ id: 'z', module: './nothere.js' }] }));
  const rel = path.relative(ROOT, botCfg);
  expect(runCli(['run', rel, '--check']).stderr).toMatch(new RegExp(`^perpkit run: config error: ${rel.replace(/[.]/g, '\\.')}:\\d+: strategies\\[0\\]\\.module: `));
});

test('a strategy symbol the recording does not hold is bad input: exit 2 at the symbol parameter', () => {
  // sym.yaml: data (3 lines), account (2), strategies: / - id / module / params: / symbol -> line 10
  const r = runCli(['backtest', writeConfig(dir, 'sym.yaml', { strategies: [{ ...MM, params: { ...MM.params, symbol: 'ETHUSDT' } }] }), '--out', path.join(dir, 'o9'), '--quiet']);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(`perpkit backtest: ${path.join(dir, 'sym.yaml')}:10: strategies[0].params.symbol: expected a symbol the recording holds (BTCUSDT), got ETHUSDT\n`);
});

test("a strategy quantity below the recording's minimum for its symbol is bad input: exit 2 at the parameter, before the replay", () => {
  // qty.yaml: data (3 lines), account (2), strategies: / - id / module / params: / symbol / quantity -> line 11
  const r = runCli(['backtest', writeConfig(dir, 'qty.yaml', { strategies: [{ ...MM, params: { ...MM.params, quantity: '0.0009' } }] }), '--out', path.join(dir, 'o10'), '--quiet']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^perpkit backtest: .*qty\.yaml:11: strategies\[0\]\.params\.quantity: expected a quantity of BTCUSDT from 0\.001 to \d+ in steps of 0\.001 \(0\.0009 rounds down to 0: every order would be refused\) \(the recording's spec\), got 0\.0009\n$/);
  expect(existsSync(path.join(dir, 'o10', 'report.json'))).toBe(false);
});

test('data going back in time: the error names the file and line of the event that goes back, from the JSON lines or the replay cache', () => {
  const lines = gunzipSync(readFileSync(path.join(dir, 'rec.jsonl.gz'))).toString().split('\n');
  // A mark (never skipped by the quiet-trade path) past the middle, a minute back in time.
  const at = lines.findIndex((l, i) => i > lines.length / 2 && l.includes('"k":"mark"'));
  const ev = JSON.parse(lines[at]) as { t: number };
  lines[at] = JSON.stringify({ ...ev, t: ev.t - 60_000 });
  writeFileSync(path.join(dir, 'back.jsonl.gz'), gzipSync(lines.join('\n')));
  for (const cache of [false, true]) {
    const r = runCli(['backtest', writeConfig(dir, `back-${cache}.yaml`, { data: { files: ['back.jsonl.gz'], cache } }), '--out', path.join(dir, 'o10'), '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`data.files: expected events in time order`);
    expect(r.stderr).toContain(`got an event at ${new Date(ev.t - 60_000).toISOString()} (${path.join(dir, 'back.jsonl.gz')}:${at + 1}, event `);
  }
});

test('a misspelt sweep.metric is refused before any job, naming the allowed ones', () => {
  const r = runCli(['sweep', writeConfig(dir, 'm.yaml', { sweep: { metric: 'sharp', params: { 'mm.skewBps': ['1', '3'] } } }), '--out', path.join(dir, 'o3'), '--quiet']);
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(/m\.yaml:\d+: sweep\.metric: expected one of totalPnl, return, sharpe, .*, got string "sharp"/);
});

test('a sweep range that is infinite or a grid too large to build is refused at once, not a hang or an out-of-memory crash', () => {
  const inf = runCli(['sweep', writeConfig(dir, 'inf.yaml', { sweep: { params: { 'mm.skewBps': { min: 0, max: Infinity, step: 1 } } } }), '--out', path.join(dir, 'o-inf'), '--quiet']);
  expect(inf.code).toBe(2);
  expect(oneLine(inf.stderr)).toHaveLength(1);
  expect(inf.stderr).toMatch(/inf\.yaml:\d+: sweep\.params\.mm\.skewBps\.max: expected a finite number, got number Infinity/);

  const big = runCli(['sweep', writeConfig(dir, 'big.yaml', { sweep: { params: { 'mm.minSpreadBps': ['2', '4', '8'], 'mm.skewBps': { min: 0, max: 1_000_000, step: 0.001 } } } }), '--out', path.join(dir, 'o-big'), '--quiet']);
  expect(big.code).toBe(2);
  expect(oneLine(big.stderr)).toHaveLength(1);
  expect(big.stderr).toMatch(/big\.yaml:\d+: sweep\.params: expected a grid of at most 100000 points .*, got 3000000003 points \(mm\.minSpreadBps: 3 values, mm\.skewBps: 1000000001 values\)/);
  expect(existsSync(path.join(dir, 'o-big'))).toBe(false);

  // A random search draws from a fine range by index, without listing its billion values.
  const rnd = runCli(['sweep', writeConfig(dir, 'rnd.yaml', { sweep: { method: 'random', samples: 1, metric: 'totalPnl', params: { 'mm.refreshMs': { min: 1000, max: 3_000_000, step: 0.000001, integer: true } } } }), '--out', path.join(dir, 'o-rnd'), '--quiet', '--workers', '0']);
  expect(rnd.stderr).toBe('');
  expect(rnd.code).toBe(0);
});

test('a sweep whose config is bad leaves the output directory as it was: an earlier results.jsonl is not truncated', () => {
  const out = path.join(dir, 'o-kept');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'results.jsonl'), '{"earlier":"rows"}\n');
  const r = runCli(['sweep', writeConfig(dir, 'kept.yaml', { sweep: { params: { 'mm.skewbps': ['1', '3'] } } }), '--out', out, '--quiet']);
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(/strategies\[0\]\.params\.skewbps: expected a parameter the strategy reads/);
  expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toBe('{"earlier":"rows"}\n');

  const file = runCli(['sweep', writeConfig(dir, 'ok.yaml', { sweep: { params: { 'mm.skewBps': ['1'] } } }), '--out', path.join(dir, 'rec.jsonl.gz'), '--quiet']);
  expect(file.code).toBe(2);
  expect(file.stderr).toBe(`perpkit sweep: --out ${path.join(dir, 'rec.jsonl.gz')}: expected a directory (created if missing), got a file\n`);
});

test('an output directory that cannot be one (a file, or under a file) is refused before the backtest runs, not after', () => {
  const file = path.join(dir, 'zscore.js');
  for (const out of [file, path.join(file, 'sub')]) {
    const bt = runCli(['backtest', writeConfig(dir, 'out.yaml', {}), '--out', out, '--quiet']);
    expect(bt.code).toBe(2);
    expect(bt.stdout).toBe('');
    expect(bt.stderr).toBe(`perpkit backtest: --out ${out}: expected a directory (created if missing), got ${out === file ? 'a file' : `a path under the file ${file}`}\n`);
  }
  const cfgOut = runCli(['backtest', writeConfig(dir, 'out2.yaml', { report: { out: 'zscore.js' } }), '--quiet']);
  expect(cfgOut.code).toBe(2);
  expect(cfgOut.stderr).toMatch(/out2\.yaml:\d+: report\.out: expected a directory \(created if missing\), got .*zscore\.js: a file\n$/);
  const sw = runCli(['sweep', writeConfig(dir, 'out3.yaml', { sweep: { params: { 'mm.skewBps': ['1'] } } }), '--out', path.join(file, 'sub'), '--quiet']);
  expect(sw.code).toBe(2);
  expect(sw.stderr).toBe(`perpkit sweep: --out ${path.join(file, 'sub')}: expected a directory (created if missing), got a path under the file ${file}\n`);
  // A folder that cannot be made: under procfs node's recursive mkdir never returned (the command hung).
  expect(existsSync('/proc/self')).toBe(true);
  for (const cmd of ['backtest', 'sweep']) {
    const proc = runCli([cmd, writeConfig(dir, 'out4.yaml', { sweep: { params: { 'mm.skewBps': ['1'] } } }), '--out', '/proc/perpkit-out/sub', '--quiet']);
    expect([proc.code, proc.stderr]).toEqual([2, `perpkit ${cmd}: --out /proc/perpkit-out/sub: expected a directory (created if missing), got ENOENT: no such file or directory, mkdir '/proc/perpkit-out'\n`]);
  }
});

test('data errors: a missing file, junk and torn gzip, a bad line, a range outside the data; one line, exit 2', () => {
  const missing = runCli(['backtest', writeConfig(dir, 'd1.yaml', { data: { files: ['nope.jsonl.gz'] } }), '--quiet']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/d1\.yaml:\d+: data\.files\[0\]: expected an existing recording file .*nope\.jsonl\.gz: no such file/);
  expect(oneLine(missing.stderr)).toHaveLength(1);
  // A folder: it was node's EISDIR, exit 1, naming neither the key nor the path.
  mkdirSync(path.join(dir, 'a-folder.jsonl.gz'), { recursive: true });
  const folder = runCli(['backtest', writeConfig(dir, 'd0.yaml', { data: { files: ['a-folder.jsonl.gz'] } }), '--quiet']);
  expect(folder.code).toBe(2);
  expect(folder.stderr).toMatch(/^perpkit backtest: \S*d0\.yaml:\d+: data\.files\[0\]: expected an existing recording file \(relative to the config file\), got \S*a-folder\.jsonl\.gz: a folder\n$/);

  writeFileSync(path.join(dir, 'junk.jsonl.gz'), 'this is not gzip');
  const junk = runCli(['backtest', writeConfig(dir, 'd2.yaml', { data: { files: ['junk.jsonl.gz'], cache: false } }), '--quiet']);
  expect(junk.code).toBe(2);
  expect(oneLine(junk.stderr)).toHaveLength(1);
  expect(junk.stderr).toMatch(/data\.files: .*junk\.jsonl\.gz:1: not a gzip file/);

  const whole = readFileSync(path.join(dir, 'rec.jsonl.gz'));
  writeFileSync(path.join(dir, 'torn.jsonl.gz'), whole.subarray(0, Math.floor(whole.length / 2)));
  const torn = runCli(['backtest', writeConfig(dir, 'd3.yaml', { data: { files: ['torn.jsonl.gz'], cache: false } }), '--quiet']);
  expect(torn.code).toBe(2);
  expect(oneLine(torn.stderr)).toHaveLength(1);
  expect(torn.stderr).toMatch(/torn\.jsonl\.gz:\d+: the gzip data ends early \(a torn or truncated file\) after line \d+/);

  const lines = gunzipSync(whole).toString().split('\n');
  lines[5] = '{"k":"mark", this is broken';
  writeFileSync(path.join(dir, 'bad.jsonl.gz'), gzipSync(lines.join('\n')));
  const bad = runCli(['backtest', writeConfig(dir, 'd4.yaml', { data: { files: ['bad.jsonl.gz'], cache: false } }), '--quiet']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/bad\.jsonl\.gz:6: not a JSON line/);

  const range = runCli(['backtest', writeConfig(dir, 'd5.yaml', { data: { files: ['rec.jsonl.gz'], from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' } }), '--quiet']);
  expect(range.code).toBe(2);
  expect(oneLine(range.stderr)).toHaveLength(1);
  expect(range.stderr).toMatch(/d5\.yaml:\d+: data\.from\/data\.to: expected a time range with events in it \(the recording runs from 20\d\d-\d\d-\d\dT[\d:.]+Z to 20\d\d-\d\d-\d\dT[\d:.]+Z\), got 2020-01-01T00:00:00.000Z to 2020-01-02T00:00:00.000Z/);

  // A recording of a header and no events: data.files is at fault, at its line, naming the file;
  // data.from/data.to, not set, were blamed (with a line of its own when set: they have nothing to choose from).
  writeFileSync(path.join(dir, 'header-only.jsonl.gz'), gzipSync(`${lines[0]}\n`));
  const empty = path.join(dir, 'header-only.jsonl.gz');
  const d6 = writeConfig(dir, 'd6.yaml', { data: { files: ['header-only.jsonl.gz'], cache: false } });
  const none = runCli(['backtest', d6, '--quiet']);
  expect([none.code, none.stderr]).toEqual([2, `perpkit backtest: ${d6}:${lineOf(d6, '  files:')}: data.files: expected a recording with events in it, got ${empty}: a header and no events\n`]);
  const d7 = writeConfig(dir, 'd7.yaml', { data: { files: ['header-only.jsonl.gz'], from: '2020-01-01T00:00:00Z', cache: false } });
  const noneInRange = runCli(['backtest', d7, '--quiet']);
  expect([noneInRange.code, noneInRange.stderr]).toEqual([2, `perpkit backtest: ${d7}:${lineOf(d7, '  files:')}: data.files: expected a recording with events in it (data.from/data.to have none to choose from), got ${empty}: a header and no events\n`]);

  // With --debug the stack follows the line.
  const debug = runCli(['backtest', writeConfig(dir, 'd2.yaml', { data: { files: ['junk.jsonl.gz'], cache: false } }), '--quiet', '--debug']);
  expect(debug.code).toBe(2);
  expect(oneLine(debug.stderr).length).toBeGreaterThan(2);
  expect(debug.stderr).toMatch(/\n\s+at /);
});
