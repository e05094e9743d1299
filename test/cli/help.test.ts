/** Every `perpkit` command answers --help with its usage and examples, on stdout, exit 0. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROOT, ensureBuilt, runCli, runCliBatch, type CliRun } from './exchange-proc';

const COMMANDS = ['exchange', 'run', 'demo', 'record', 'synth', 'backtest', 'sweep', 'worker', 'report'];
/** Commands whose --help is also checked for its exit codes (init, import, download, data have subcommand-shaped usage). */
const ALL = [...COMMANDS, 'init', 'import', 'download', 'data'];

/** The top-level help's command lines. */
const TOP: Array<[string, string[]]> = [['--help', ['--help']], ['-h', ['-h']], ['help', ['help']], ['(no arguments)', []]];
// Each command's arguments before the bad flag: its subcommand or source, a positional.
const LEAD: Array<[string, string[]]> = [['init', ['x']], ['exchange', []], ['run', ['x.yaml']], ['demo', []], ['record', []], ['synth', []], ['import', ['tardis']], ['download', ['binance-futures']], ['data', ['inspect']], ['backtest', ['x.yaml']], ['sweep', ['x.yaml']], ['worker', []], ['report', ['compare']]];
const BAD: Array<[string[], string]> = [
  [['backtest', 'x.yaml', '--out'], "perpkit backtest: Option '--out <value>' argument missing"],
  [['sweep', 'x.yaml', '--workers'], "perpkit sweep: Option '--workers <value>' argument missing"],
  [['sweep'], 'perpkit sweep: expected one config file, got none'],
  [['backtest', 'a.yaml', 'b.yaml'], 'perpkit backtest: expected one config file, got a.yaml b.yaml'],
  [['worker', '--queue', 'redis://h:1', '--concurrency', '0'], "perpkit worker: --concurrency must be a whole number from 1 to 256, got '0'"],
  // A thread each: 100,000 of them were started (up to the number of jobs) until memory ran out.
  [['worker', '--queue', 'redis://h:1', '--concurrency', '5000'], "perpkit worker: --concurrency must be a whole number from 1 to 256, got '5000'"],
  [['sweep', 'x.yaml', '--workers', '100000'], "perpkit sweep: --workers must be a whole number from 0 to 256, got '100000'"],
  // Options of the other way of running a sweep were ignored without a word.
  [['sweep', 'x.yaml', '--queue', 'redis://h:1', '--workers', '4'], 'perpkit sweep: --workers applies to a sweep on local threads, not with --queue (each perpkit worker sets its own --concurrency)'],
  [['sweep', 'x.yaml', '--grace-ms', '500'], 'perpkit sweep: --grace-ms applies with --queue only (how long Redis may be unreachable)'],
  [['report'], "perpkit report: expected the subcommand 'compare', got nothing"],
  [['init', 'x', '--name'], "perpkit init: Option '--name <value>' argument missing"],
  // It wrote "perpkit": "" (any version) into package.json.
  [['init', path.join(tmpdir(), `perpkit-never-${process.pid}`), '--perpkit', ''], "perpkit init: --perpkit must be a version range or a path, got ''"],
  // These printed their usage on stdout and exited 2.
  [['data'], 'perpkit data: expected a subcommand: inspect or repair'],
  [['import'], 'perpkit import: expected a source: binance-futures, tardis'],
  [['download'], 'perpkit download: expected a source: binance-futures'],
  // An unset shell variable: it wrote report.json (or the sweep's table) into the current folder.
  [['backtest', 'x.yaml', '--out', ''], 'perpkit backtest: --out must not be empty (the folder to write into)'],
  [['sweep', 'x.yaml', '--out', ''], 'perpkit sweep: --out must not be empty (the folder to write into)'],
  // Node's three lines said only on the third how to pass a negative number; the first was shown.
  [['synth', '--out', 'x.jsonl.gz', '--hours', '-1'], "perpkit synth: Option '--hours' has no value, or a value starting with '-': write --hours=<value> for such a value"],
];

/**
 * The command lines of the tables below, which end at once (usage, bad arguments), run by the
 * CLI's main one after another in one process, as bin/perpkit.js runs one (a process each was ~60
 * processes); what a command loads, an unknown command and main.js run directly are checked on
 * processes of their own.
 */
let batch: Map<string, CliRun>;
function ran(args: string[]): CliRun {
  const r = batch.get(JSON.stringify(args));
  if (r === undefined) throw new Error(`${JSON.stringify(args)} is not in the batch`);
  return r;
}

beforeAll(() => {
  ensureBuilt();
  batch = runCliBatch([
    ...TOP.map(([, args]) => args),
    ...ALL.flatMap((cmd) => [[cmd, '--help'], [cmd, '-h']]),
    ...LEAD.map(([cmd, lead]) => [cmd, ...lead, '--bogus']),
    ...BAD.map(([args]) => args),
  ]);
}, 120_000);

describe('perpkit --help', () => {
  it('the compiled main.js run directly is the CLI too (it did nothing and exited 0)', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'nope'], { cwd: ROOT, encoding: 'utf8', timeout: 20000 });
    expect([r.status, r.stderr]).toEqual([2, "perpkit: unknown command 'nope' (perpkit --help lists the commands)\n"]);
  });

  it.each(TOP)('perpkit %s lists every command, with examples', (_arg, args) => {
    const r = ran(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^perpkit <command>/);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^ {2}${c} `, 'm'));
    expect(r.stdout).toMatch(/^Examples?:\n( {2}\S.*\n)+/m);
    expect(r.stdout).toContain('docs/getting-started.md');
  });

  it.each(ALL)('perpkit %s --help prints its usage with an Example section and its exit codes', (cmd) => {
    for (const flag of ['--help', '-h']) {
      const r = ran([cmd, flag]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^perpkit ${cmd}\\b`));
      expect(r.stdout).toMatch(/^Options:/m);
      // An Example(s) heading followed by at least one indented command line.
      expect(r.stdout).toMatch(/^Examples?:\n {2}\S.*\n/m);
      // What each exit code means (exchange, demo, synth, record, data and import did not say).
      expect(r.stdout).toMatch(/^Exit codes: 0 /m);
    }
  });

  // It loaded the whole command first (the bot runtime, the engine, the sweep queue's client):
  // up to a second before `perpkit run --help` answered.
  it("perpkit <command> --help loads none of the command's modules, and says what the command itself says for --help", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-help-'));
    try {
      // Writes the perpkit modules the process loaded to $LOADED when it exits.
      const preload = path.join(dir, 'loaded.cjs');
      writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED, Object.keys(require.cache).filter((f) => f.includes('/dist/src/')).join('\\n')));\n");
      const loaded = path.join(dir, 'loaded.txt');
      // Arguments before --help that make the command parse them itself.
      const lead: Record<string, string[]> = { init: ['x'], run: ['x.yaml'], import: ['binance-futures'], download: ['binance-futures'], data: ['inspect'], backtest: ['x.yaml'], sweep: ['x.yaml'], report: ['compare'] };
      for (const cmd of ALL) {
        const r = runCli([cmd, '--help'], { NODE_OPTIONS: `--require ${preload}`, LOADED: loaded });
        expect(r.code).toBe(0);
        const mods = readFileSync(loaded, 'utf8').split('\n').map((f) => f.replace(/.*\/dist\/src\//, ''));
        expect(mods.filter((f) => !/^cli\/(main|version|usage-texts)\.js$|^core\/log\.js$|^market-data\/(download\/archive-kinds|synth|prng|price-process|writer|format)\.js$|^core\/(values|decimal|random)\.js$/.test(f))).toEqual([]);
        expect(mods).not.toContain(`cli/${cmd}.js`);
        const own = runCli([cmd, ...(lead[cmd] ?? []), '--help']);
        expect(own.code).toBe(0);
        expect(r.stdout).toBe(own.stdout);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unknown command exits 2 and says so in one line (it printed the whole usage after it)', () => {
    const r = runCli(['bogus']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("perpkit: unknown command 'bogus' (perpkit --help lists the commands)\n");
  });
});

describe('perpkit <command> with bad arguments', () => {
  // backtest, sweep, worker and report printed their whole usage after the error (up to 40
  // lines), several commands node's hint about passing '--bogus' as a positional after '--', the
  // others a second line pointing at --help.
  it.each(LEAD)('perpkit %s: an unknown flag is one line naming it and where the options are, exit 2', (cmd, lead) => {
    const r = ran([cmd, ...lead, '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`perpkit ${cmd}: Unknown option '--bogus' (perpkit ${cmd} --help lists the options)\n`);
  });

  it.each(BAD)('%j: one line on stderr, nothing on stdout, exit 2', (args, line) => {
    const r = ran(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${line} (perpkit ${args[0]} --help lists the options)\n`);
  });
});
