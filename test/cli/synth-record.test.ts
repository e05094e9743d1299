import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { startTestExchange } from '../helpers/exchange';
import { ROOT, ensureBuilt, runCli } from './exchange-proc';

/** `perpkit record` in a child process that this process's local exchange can answer (runCli blocks it). */
async function recordAsync(cfg: string, out: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'perpkit.js'), 'record', '--config', cfg, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPKIT_LOG_LEVEL: 'silent' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('perpkit synth and perpkit record (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-synth-'));

  it('synth --help and record --help print usage with examples', () => {
    for (const cmd of ['synth', 'record']) {
      const r = runCli([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Examples:/);
    }
  });

  it('synth writes the same bytes for the same seed', () => {
    const a = join(dir, 'a.jsonl.gz');
    const b = join(dir, 'b.jsonl.gz');
    expect(runCli(['synth', '--out', a, '--symbols', 'BTCUSDT', '--hours', '0.2', '--seed', '7']).code).toBe(0);
    const r = runCli(['synth', '--out', b, '--symbols', 'BTCUSDT', '--hours', '0.2', '--seed', '7']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote \d+ events \(\d+ trades\) to /);
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });

  it.each([
    [['synth'], /--out <file> is required/],
    [['synth', '--out', '/tmp/x.gz', '--hours', 'abc'], /--hours must be a number/],
    [['record', '--out', '/tmp/x.gz'], /--config <file> is required/],
    // These were exit 1, with node's EISDIR or a RangeError from deep inside.
    [['synth', '--out', tmpdir(), '--hours', '0.01'], /^perpkit synth: --out \S+: expected the path of the recording to write, got a folder \(perpkit synth --help lists the options\)\n/],
    [['synth', '--out', '/tmp/x.gz', '--hours', '0.01', '--symbols', 'FOO,BTCUSDT'], /^perpkit synth: --symbols: unknown symbol FOO; known: BTCUSDT, ETHUSDT \(perpkit synth --help lists the options\)\n/],
    [['data', 'inspect', tmpdir()], /^perpkit data: \S+: expected a recording file, got a folder \(perpkit data --help lists the options\)\n/],
  ])('bad flags %j exit 2 with a clear message', (args, msg) => {
    const r = runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
  });

  it('synth of a long range shows progress; Ctrl+C removes the partial recording, one line, exit 130', async () => {
    const out = join(dir, 'long', 'long.jsonl.gz');
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'perpkit.js'), 'synth', '--out', out, '--hours', '2000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      const end = Date.now() + 30_000;
      while (!/^synth: \d+% /m.test(stderr) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      // It was silent for minutes, and the signal left a torn gzip file at --out.
      expect(stderr).toMatch(/^synth: \d+% \([\d.]+ of 2000 h\)$/m);
      child.kill('SIGINT');
      expect(await exited).toEqual({ code: 130, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
    expect(stderr.trim().split('\n').slice(-1)[0]).toBe(`perpkit synth: stopped by SIGINT; the partial recording was removed (${out})`);
    expect(readdirSync(join(dir, 'long'))).toEqual([]);
  }, 60_000);

  it('synth and record refuse an --out whose earlier recording left rotated parts (a replay would read them after the new file)', () => {
    const folder = join(dir, 'stale');
    mkdirSync(folder);
    const out = join(folder, 's.jsonl.gz');
    writeFileSync(out, 'old');
    writeFileSync(join(folder, 's.1.jsonl.gz'), 'old part');
    const line = `--out ${out}: ${join(folder, 's.1.jsonl.gz')}: rotated part(s) of an earlier recording are there, and a replay of ${out} would read them after the new one; remove them or choose another --out`;
    // synth wrote the new s.jsonl.gz and left s.1.jsonl.gz: the exchange's replay played both.
    const synth = runCli(['synth', '--out', out, '--hours', '0.01']);
    expect(synth.code).toBe(2);
    expect(synth.stderr).toBe(`perpkit synth: ${line} (perpkit synth --help lists the options)\n`);
    const cfg = join(dir, 'rec-stale.yaml');
    writeFileSync(cfg, 'venue:\n  baseUrl: http://127.0.0.1:1\nsymbols: [BTCUSDT]\n');
    const record = runCli(['record', '--config', cfg, '--out', out]);
    expect(record.code).toBe(2);
    expect(record.stderr).toBe(`perpkit record: ${line} (perpkit record --help lists the options)\n`);
    expect(readFileSync(out, 'utf8')).toBe('old');
  });

  it('record will not replace an earlier recording unless --overwrite is given', () => {
    const out = join(dir, 'earlier.jsonl.gz');
    writeFileSync(out, 'an earlier capture');
    const cfg = join(dir, 'rec-earlier.yaml');
    writeFileSync(cfg, 'venue:\n  baseUrl: http://127.0.0.1:1\nsymbols: [BTCUSDT]\n');
    // Before: the new recording replaced it without a word once the venue answered.
    const r = runCli(['record', '--config', cfg, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`perpkit record: --out ${out}: a file is already there (an earlier recording cannot be captured again); choose another --out, remove it, or pass --overwrite (perpkit record --help lists the options)\n`);
    expect(readFileSync(out, 'utf8')).toBe('an earlier capture');
    // With --overwrite the options pass; this venue does not answer (exit 1), so nothing was written.
    const o = runCli(['record', '--config', cfg, '--out', out, '--overwrite']);
    expect(o.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('an earlier capture');
  });

  // kinds: [] recorded nothing but a header for as long as it ran; a symbol twice was in the
  // header twice; a symbol the venue lacks exited 1, as a venue that does not answer does.
  it.each([
    ['kinds: []', 'symbols: [BTCUSDT]\nkinds: []\n', ':4: kinds: expected a non-empty list of trade, markPrice, depth, ticker (leave it out for all), got []'],
    ['a symbol twice', 'symbols: [BTCUSDT, ETHUSDT, BTCUSDT]\n', ':3: symbols: expected each symbol once, got BTCUSDT twice'],
    ['a kind twice', 'symbols: [BTCUSDT]\nkinds: [trade, trade]\n', ':4: kinds: expected each kind once, got trade twice'],
  ])('record refuses %s in its config: one line, exit 2', (_what, rest, message) => {
    const cfg = join(dir, 'rec-bad-list.yaml');
    writeFileSync(cfg, `venue:\n  baseUrl: http://127.0.0.1:1\n${rest}`);
    const r = runCli(['record', '--config', cfg, '--out', join(dir, 'never.jsonl.gz')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`perpkit record: ${cfg}${message} (perpkit record --help lists the options)\n`);
  });

  it('record of a symbol the venue does not list: exit 2 (the config is wrong), naming what it lists', async () => {
    const ex = await startTestExchange();
    try {
      const cfg = join(dir, 'rec-unknown-symbol.yaml');
      writeFileSync(cfg, `venue:\n  baseUrl: ${ex.url}\nsymbols: [NOPEUSDT]\n`);
      const r = await recordAsync(cfg, join(dir, 'nope.jsonl.gz'));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^perpkit record: cannot start recording from \S+: the venue does not list symbol NOPEUSDT; it has BTCUSDT, ETHUSDT\n$/);
    } finally {
      await ex.stop();
    }
  }, 30_000);

  it('record names a missing credential variable without starting', () => {
    const cfg = join(dir, 'rec.yaml');
    writeFileSync(cfg, 'venue:\n  baseUrl: http://127.0.0.1:1\n  auth:\n    apiKeyEnv: PERPKIT_TEST_UNSET_KEY\n    secretEnv: PERPKIT_TEST_UNSET_SECRET\nsymbols: [BTCUSDT]\n');
    const r = runCli(['record', '--config', cfg, '--out', join(dir, 'r.jsonl.gz')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/environment variable PERPKIT_TEST_UNSET_KEY must be set/);
  });

  it('record --out in a folder that does not exist: one line naming --out and the folder, exit 2, before any recording', async () => {
    // A venue that answers: the file used to be opened only after it did, and failed out of a stream callback with a stack.
    const ex = await startTestExchange();
    try {
      const cfg = join(dir, 'rec-missing-folder.yaml');
      writeFileSync(cfg, `venue:\n  baseUrl: ${ex.url}\nsymbols: [BTCUSDT]\n`);
      const out = join(dir, 'no-such-folder', 'r.jsonl.gz');
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'perpkit.js'), 'record', '--config', cfg, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPKIT_LOG_LEVEL: 'silent' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGINT'), 10_000);
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      clearTimeout(timer);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.split('\n')[0]).toBe(`perpkit record: --out ${out}: expected a file in an existing folder, got no folder ${join(dir, 'no-such-folder')} (perpkit record --help lists the options)`);
    } finally {
      await ex.stop();
    }
  }, 30_000);

  it('record whose file cannot be written (an --out folder; /dev/full mid-recording): one line, no stack', async () => {
    const ex = await startTestExchange({ market: 'synthetic' });
    try {
      const cfg = join(dir, 'rec-full.yaml');
      writeFileSync(cfg, `venue:\n  baseUrl: ${ex.url}\nsymbols: [BTCUSDT]\nkinds: [trade, markPrice]\n`);
      const record = (out: string): Promise<{ code: number | null; stdout: string; stderr: string }> => recordAsync(cfg, out);
      // A folder: refused before the venue is asked (it was EISDIR thrown out of a stream callback).
      const folder = await record(dir);
      expect(folder.code).toBe(2);
      expect(folder.stderr.split('\n')[0]).toBe(`perpkit record: --out ${dir}: expected the path of the recording to write, got a folder (perpkit record --help lists the options)`);
      // A device that is always full: the first flush fails; the recorder stops and says so.
      const full = await record('/dev/full');
      expect(full.code).toBe(1);
      expect(full.stdout).toBe('recording to /dev/full\n');
      expect(full.stderr).toMatch(/^perpkit record: writing \/dev\/full failed: ENOSPC: no space left on device, write; stopped after \d+ events \(what reached the file is kept\)\n$/);
    } finally {
      await ex.stop();
    }
  }, 60_000);
});
