import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureBuilt, ROOT, runCli } from './exchange-proc';

const T = 1_723_161_255_000;
const ticker = (t: number, u: number): string =>
  `${t}000000 ${JSON.stringify({ stream: 'btcusdt@bookTicker', data: { e: 'bookTicker', u, s: 'BTCUSDT', b: '100.00', B: '1.000', a: '100.10', A: '2.000', T: t + 1270, E: t + 1270 } })}`;
const trade = (t: number, id: number): string =>
  `${t}000000 ${JSON.stringify({ stream: 'btcusdt@trade', data: { e: 'trade', E: t + 1270, T: t + 1270, s: 'BTCUSDT', t: id, p: '100.10', q: '0.010', X: 'MARKET', m: false } })}`;

describe('perpkit import binance-futures (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-import-'));
  const good = join(dir, 'capture.gz');
  writeFileSync(good, gzipSync(`${[ticker(T, 1), trade(T + 5, 9), ticker(T + 1200, 2)].join('\n')}\n`));

  it('imports and prints a summary with counts, skips, grid and mark provenance', () => {
    const out = join(dir, 'rec.jsonl.gz');
    const r = runCli(['import', 'binance-futures', good, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^import: 3 messages in [\d.]+ s -> 3 events \(quote 2, trade 1\) \+ 2 derived marks, 0 gaps\n {2}skipped 0\n {2}BTCUSDT: tick 0\.1, step 0\.01; marks derived\n/);
    // Two prices and three quantities: the grid is inferred from too few values to trust, and the summary says so.
    expect(r.stdout).toMatch(/\n {2}warning: BTCUSDT: tick 0\.1 inferred from 2 distinct prices, step 0\.01 inferred from 3 distinct quantities: too few to trust \(fewer than 10 values may all lie on a coarser grid than the venue's\); pass --tick and --step with the venue's tick and step size\n/);
    expect(existsSync(out)).toBe(true);
  });

  it.each([
    ['no --out', () => ['import', 'binance-futures', good], /--out <file> is required/],
    ['an unknown source', () => ['import', 'kraken', good, '--out', join(dir, 'x.gz')], /unknown source 'kraken'/],
    ['a missing file', () => ['import', 'binance-futures', join(dir, 'nope.gz'), '--out', join(dir, 'x.gz')], /nope\.gz: no such file/],
    ['another format', () => {
      const f = join(dir, 'other.txt');
      writeFileSync(f, 'id,price\n1,2\n');
      return ['import', 'binance-futures', f, '--out', join(dir, 'x.gz')];
    }, /other\.txt:1: not a Binance capture line/],
    ['a symbol not in the file', () => ['import', 'binance-futures', good, '--out', join(dir, 'x.gz'), '--symbol', 'ETHUSDT'], /--symbol ETHUSDT: no message of that symbol/],
    ['an empty range', () => ['import', 'binance-futures', good, '--out', join(dir, 'x.gz'), '--from', '2030-01-01'], /--from\/--to: no message in 2030-01-01T00:00:00.000Z/],
    ['a bad --tick', () => ['import', 'binance-futures', good, '--out', join(dir, 'x.gz'), '--tick', 'abc'], /--tick: expected a positive decimal/],
    // Both were exit 1: the input folder with EISDIR, the --out folder only after the whole import, at the rename.
    ['an input folder', () => ['import', 'binance-futures', dir, '--out', join(dir, 'x.gz')], /^perpkit import: \S+: expected an input file, got a folder\n$/],
    ['an --out folder', () => ['import', 'binance-futures', good, '--out', tmpdir()], /^perpkit import: --out \S+: expected the path of the recording to write, got a folder\n$/],
    ['an --out pipe', () => {
      const fifo = join(dir, 'fifo');
      if (!existsSync(fifo)) execFileSync('mkfifo', [fifo]);
      return ['import', 'binance-futures', good, '--out', fifo];
    }, /^perpkit import: --out \S+fifo: expected the path of the recording to write, got a device, pipe or socket\n$/],
    ['a --tick the prices are not on', () => ['import', 'binance-futures', good, '--out', join(dir, 'x.gz'), '--tick', '0.3'], /^perpkit import: .*capture\.gz:1: --tick 0\.3: price 100\.00 of BTCUSDT is not a multiple of 0\.3 /],
  ])('%s: exit 2 with one line on stderr, no output file', (_what, args, msg) => {
    const r = runCli(args());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'x.gz'))).toBe(false);
  });
});

describe('perpkit import stopped by Ctrl+C', () => {
  beforeAll(() => ensureBuilt(), 120000);

  it('removes its partial files, writes no --out, says so in one line, exit 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-import-stop-'));
    // Big enough to take a second or two: 200,000 quotes.
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) lines.push(ticker(T + i * 10, i + 1));
    const input = join(dir, 'big.txt');
    writeFileSync(input, `${lines.join('\n')}\n`);
    const out = join(dir, 'big.jsonl.gz');
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'perpkit.js'), 'import', 'binance-futures', input, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      // The body file exists from the start of the import: stop it then.
      const end = Date.now() + 20_000;
      while (!readdirSync(dir).some((f) => f.endsWith('.tmp')) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGINT');
      // It was killed by the signal, leaving big.jsonl.gz.body-<pid>.tmp behind.
      expect(await exited).toEqual({ code: 130, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
    expect(stderr).toBe(`perpkit import: stopped by SIGINT; ${out} not written (the partial import was removed)\n`);
    expect(readdirSync(dir)).toEqual(['big.txt']);
  }, 60_000);
});

describe('perpkit data inspect (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-inspect-'));

  it('prints the figures of an imported recording, as text and as JSON', () => {
    const input = join(dir, 'capture.gz');
    writeFileSync(input, gzipSync(`${[ticker(T, 1), trade(T + 5, 9), ticker(T + 1200, 2)].join('\n')}\n`));
    const rec = join(dir, 'rec.jsonl.gz');
    expect(runCli(['import', 'binance-futures', input, '--out', rec]).code).toBe(0);
    const text = runCli(['data', 'inspect', rec]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/5 events: quote 2, mark 2, trade 1/);
    expect(text.stdout).toMatch(/feed latency \(receive - exchange time, ms\) of 3 events: min -1270/);
    const json = runCli(['data', 'inspect', rec, '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { counts: Record<string, number>; symbols: Record<string, { marks: { source: string } }> };
    expect(doc.counts).toEqual({ mark: 2, quote: 2, trade: 1 });
    expect(doc.symbols.BTCUSDT.marks.source).toBe('derived');
  });

  it('a file that is not a recording: exit 2, one line naming file and line', () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, 'hello\n');
    const r = runCli(['data', 'inspect', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl:1: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
