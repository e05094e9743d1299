/**
 * `perpkit import tardis` and `perpkit data inspect` through the compiled CLI, on the hand-made
 * Tardis fixtures (test/fixtures/tardis): the summary, progress-free success, exit 2 and one line
 * on stderr for bad input.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureBuilt, runCli } from './exchange-proc';

const FIX = resolve(__dirname, '..', 'fixtures', 'tardis');
const fx = (kind: string): string => join(FIX, `binance-futures_${kind}_2024-08-01_BTCUSDT.csv`);

describe('perpkit import tardis (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-tardis-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports the four data types, prints the summary, and data inspect reads the result', () => {
    const l2 = join(dir, 'binance-futures_incremental_book_L2_2024-08-01_BTCUSDT.csv.gz');
    writeFileSync(l2, gzipSync(readFileSync(fx('incremental_book_L2'))));
    const out = join(dir, 'rec.jsonl.gz');
    const r = runCli(['import', 'tardis', l2, fx('trades'), fx('quotes'), fx('derivative_ticker'), '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^import: 33 messages in [\d.]+ s -> 29 events \(mark 6, snapshot 2, quote 8, trade 6, book 7\) \+ 0 derived marks, 0 gaps, 1 funding settlements derived\n {2}skipped 4: /);
    expect(r.stdout).toMatch(/\n {2}BTCUSDT: tick 0\.1, step 0\.001; marks recorded\n/);
    const text = runCli(['data', 'inspect', out]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/30 events: mark 6, snapshot 2, quote 8, trade 6, book 7, funding 1/);
    expect(text.stdout).toMatch(/book vs quote in receive order: 8 of 8 agree \(100\.00 %\)/);
  });

  it.each([
    ['no input files', () => ['import', 'tardis', '--out', join(dir, 'x.gz')], /no input files; expected one or more Tardis CSV files/],
    ['another format', () => {
      const f = join(dir, 'other.txt');
      writeFileSync(f, 'id,price\n1,2\n');
      return ['import', 'tardis', f, '--out', join(dir, 'x.gz')];
    }, /other\.txt:1: not a Tardis CSV header/],
    ['a torn gzip', () => {
      const f = join(dir, 'torn.csv.gz');
      const gz = gzipSync(readFileSync(fx('trades')));
      writeFileSync(f, gz.subarray(0, gz.length - 12));
      return ['import', 'tardis', f, '--out', join(dir, 'x.gz')];
    }, /torn\.csv\.gz: the gzip data ends early/],
    ['a symbol not in the files', () => ['import', 'tardis', fx('trades'), '--out', join(dir, 'x.gz'), '--symbol', 'ETHUSDT'], /--symbol ETHUSDT: no message of that symbol/],
    ['an empty range', () => ['import', 'tardis', fx('trades'), '--out', join(dir, 'x.gz'), '--to', '2020-01-01'], /--from\/--to: no message before --to 2020-01-01T00:00:00.000Z/],
    ['an unknown source', () => ['import', 'kraken', fx('trades'), '--out', join(dir, 'x.gz')], /unknown source 'kraken'; this version imports binance-futures, tardis/],
  ])('%s: exit 2 with one line on stderr, no output file', (_what, args, msg) => {
    const r = runCli(args());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.split('\n')[0]).toMatch(msg);
    expect(existsSync(join(dir, 'x.gz'))).toBe(false);
  });
});
