/** Every `perpkit` command answers --help with its usage and examples, on stdout, exit 0. */
import { ensureBuilt, runCli } from './exchange-proc';

const COMMANDS = ['exchange', 'run', 'demo', 'record', 'synth', 'backtest', 'sweep', 'worker', 'report'];

beforeAll(() => ensureBuilt(), 120_000);

describe('perpkit --help', () => {
  it.each([['--help'], ['-h'], ['help'], ['(no arguments)']])('perpkit %s lists every command, with examples', (arg) => {
    const r = runCli(arg === '(no arguments)' ? [] : [arg]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^perpkit <command>/);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^ {2}${c} `, 'm'));
    expect(r.stdout).toMatch(/^Examples?:\n( {2}\S.*\n)+/m);
    expect(r.stdout).toContain('docs/getting-started.md');
  });

  it.each(COMMANDS)('perpkit %s --help prints its usage with an Example section', (cmd) => {
    for (const flag of ['--help', '-h']) {
      const r = runCli([cmd, flag]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^perpkit ${cmd}\\b`));
      expect(r.stdout).toMatch(/^Options:/m);
      // An Example(s) heading followed by at least one indented command line.
      expect(r.stdout).toMatch(/^Examples?:\n {2}\S.*\n/m);
    }
  });

  it('an unknown command exits 2 and says so, with the usage on stderr', () => {
    const r = runCli(['bogus']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^perpkit: unknown command 'bogus'\n/);
  });
});
