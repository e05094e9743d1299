import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureBuilt, runCli, startCli, type Proc } from './exchange-proc';
import { repeatedKeys } from '../helpers/json-keys';

describe('perpkit exchange (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const started: Proc[] = [];
  afterEach(() => {
    for (const p of started.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });

  it('--help prints usage with examples and exits 0', () => {
    const r = runCli(['exchange', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--market <mode>/);
    expect(r.stdout).toMatch(/Examples:/);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'abc'], /--port must be an integer from 0 to 65535, got 'abc'/],
    [['--market', 'sideways'], /--market must be off, synthetic or replay:<file>/],
    [['--market', 'replay:rec.jsonl'], /--market replay:rec\.jsonl: no such recording file/],
    [['--config', '/nonexistent.yaml'], /^perpkit exchange: \/nonexistent\.yaml: expected a readable YAML file, got no such file\n/],
  ])('bad flags %j exit 2 with a clear message', (args, msg) => {
    const r = runCli(['exchange', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stdout).toBe('');
  });

  it('an invalid config file exits 2 naming the path', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-cfg-'));
    const f = path.join(dir, 'x.yaml');
    writeFileSync(f, 'symbols:\n  - symbol: BTCUSDT\n  - symbol: ETHUSDT\n    tickSize: 0.01\n');
    const r = runCli(['exchange', '--config', f]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/x\.yaml:\d+: symbols\[1\]\.tickSize: expected a positive decimal string in quotes/);
  });

  it('a configured fault for a user the exchange does not have exits 2 naming the file, the entry and its users (it started without a word)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-cfg-'));
    const f = path.join(dir, 'faults.yaml');
    writeFileSync(f, 'port: 0\nusers:\n  - { username: alice, password: "pw-alice-1", balance: "1000" }\nfaults:\n  - { fault: http5xx, status: 503, userId: "99999999" }\n');
    const r = runCli(['exchange', '--config', f]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.stderr).toMatch(new RegExp(`\\nperpkit exchange: ${f.replace(/[.]/g, '\\.')}:\\d+: faults\\[0\\]\\.userId: expected the userId of a user of this exchange \\(alice \\d+\\), got "99999999"\n`));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('a misspelt PERPKIT_LOG_LEVEL: one line naming the variable and the levels, exit 2 (it was a pino stack trace, exit 1)', () => {
    for (const args of [['exchange', '--port', '0'], ['record', '--config', 'config/record.yaml', '--out', path.join(tmpdir(), 'never.jsonl.gz')]]) {
      const r = runCli(args, { PERPKIT_LOG_LEVEL: 'verbose' });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`perpkit ${args[0]}: PERPKIT_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (or unset: info), got 'verbose'\n`);
      expect(r.stdout).toBe('');
    }
  });

  it('a replay recording, data directory or marker that cannot be used: one line, no stack, exit 2 (1 for a damaged marker)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-cfg-'));
    try {
      // The config file's recording is checked as the flag's is (it used to end the process on an
      // unhandled stream error, after the message).
      const missing = path.join(dir, 'missing.yaml');
      writeFileSync(missing, `port: 0\nmarket: replay:${path.join(dir, 'nope.jsonl.gz')}\n`);
      const a = runCli(['exchange', '--config', missing]);
      expect(a.code).toBe(2);
      expect(a.stderr).toBe(`perpkit exchange: ${missing}:2: market: expected replay:<a recording file>, got replay:${path.join(dir, 'nope.jsonl.gz')}: no such file\n`);
      const folder = path.join(dir, 'folder.yaml');
      writeFileSync(folder, `market: replay:${dir}\n`);
      const b = runCli(['exchange', '--config', folder, '--port', '0']);
      expect(b.code).toBe(2);
      expect(b.stderr).toMatch(/folder\.yaml:1: market: expected replay:<a recording file>, got replay:.*: a folder, not a file\n/);
      const flag = runCli(['exchange', '--port', '0', '--market', `replay:${dir}`]);
      expect(flag.code).toBe(2);
      expect(flag.stderr).toMatch(/^perpkit exchange: --market replay:.*: a folder, not a recording file \(perpkit exchange --help lists the options\)\n$/);

      // A data directory that is a file: it used to be a stack trace and exit 1.
      const file = path.join(dir, 'a-file');
      writeFileSync(file, 'x');
      const c = runCli(['exchange', '--port', '0', '--data-dir', file]);
      expect(c.code).toBe(2);
      expect(c.stderr).toBe(`perpkit exchange: data directory ${file}: expected a directory this user can write (created if missing), got EEXIST: file already exists, mkdir '${file}'\n`);
      // One that cannot be made: under procfs node's recursive mkdir never returned (it hung).
      const proc = runCli(['exchange', '--port', '0', '--data-dir', '/proc/perpkit-data/sub']);
      expect([proc.code, proc.stderr]).toEqual([2, `perpkit exchange: data directory /proc/perpkit-data/sub: expected a directory this user can write (created if missing), got ENOENT: no such file or directory, mkdir '/proc/perpkit-data'\n`]);
      const damaged = path.join(dir, 'damaged');
      mkdirSync(damaged);
      writeFileSync(path.join(damaged, 'meta.json'), '{junk');
      const d = runCli(['exchange', '--port', '0', '--data-dir', damaged]);
      expect(d.code).toBe(1);
      expect(d.stderr).toMatch(/^perpkit exchange: data directory .*damaged: .*damaged\/meta\.json is not a perpkit data directory marker \(not JSON: [^\n]*\)\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('prints one listening line with --port 0 and exits 0 on %s', async (sig) => {
    const p = await startCli(['--port', '0', '--admin-token', 't']);
    started.push(p);
    expect(p.stdout()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const res = await fetch(`${p.url}/v1/public/market/symbols`);
    expect(res.status).toBe(200);
    const t0 = Date.now();
    p.child.kill(sig);
    const { code } = await p.exited;
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(p.stdout().split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  // Not what is logged (DESIGN.md: no assertions on logs), only what a line must never be: a JSON
  // object with a key twice (pino keeps a parent's `component` beside a child's; some log stores
  // refuse such a line).
  it('no log line of the process repeats a key', async () => {
    const p = await startCli(['--port', '0', '--admin-token', 't'], 15000, 'debug');
    started.push(p);
    expect((await fetch(`${p.url}/v1/public/market/symbols`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    const lines = p.stderr().split('\n').filter((l) => l.startsWith('{'));
    expect(lines.some((l) => l.includes('"exchange-http"'))).toBe(true);
    expect(lines.filter((l) => repeatedKeys(l).length > 0).map((l) => `${repeatedKeys(l).join(', ')} in: ${l.slice(0, 200)}`)).toEqual([]);
  });
});
