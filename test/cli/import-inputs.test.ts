/**
 * `perpkit import` through the compiled CLI, on what it is given to read and to write: an input
 * given twice (the same path, the same bytes under another name or folder, a symlink), CSV
 * archives of the same rows over the same time (a daily and a monthly archive), a CSV row back in
 * time, and an --out that is an input, is already there, or has rotated parts of an earlier
 * recording beside it. Each is refused with exit 2 and one line, and nothing is written.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { ensureBuilt, runCli } from './exchange-proc';

const T = 1_723_161_255_000;
const ticker = (t: number, u: number): string =>
  `${t}000000 ${JSON.stringify({ stream: 'btcusdt@bookTicker', data: { e: 'bookTicker', u, s: 'BTCUSDT', b: '100.00', B: '1.000', a: '100.10', A: '2.000', T: t + 1270, E: t + 1270 } })}`;
const trade = (t: number, id: number): string =>
  `${t}000000 ${JSON.stringify({ stream: 'btcusdt@trade', data: { e: 'trade', E: t + 1270, T: t + 1270, s: 'BTCUSDT', t: id, p: '100.10', q: '0.010', X: 'MARKET', m: false } })}`;
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
/** Event lines of a written recording (the header aside). */
const events = (f: string): Array<Record<string, unknown>> =>
  gunzipSync(readFileSync(f))
    .toString()
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const D = Date.UTC(2024, 7, 1); // 2024-08-01
const tradesCsv = (rows: Array<[number, number]>): string => `id,price,qty,quote_qty,time,is_buyer_maker\n${rows.map(([id, t]) => `${id},64000.1,0.010,640.001,${t},true\n`).join('')}`;
const TARDIS = resolve(__dirname, '..', 'fixtures', 'tardis', 'binance-futures_trades_2024-08-01_BTCUSDT.csv');

describe('perpkit import: inputs given twice, and what --out may be (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-import-inputs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const capture = join(dir, 'capture.gz');
  writeFileSync(capture, gzipSync(`${[ticker(T, 1), trade(T + 5, 9), ticker(T + 1200, 2)].join('\n')}\n`));

  /** Exit 2, the one line, and no file at `out`. */
  const refused = (args: string[], out: string, line: RegExp): void => {
    const r = runCli(args);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(line);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.code).toBe(2);
    expect(existsSync(out)).toBe(false);
  };

  it('the same capture twice (one path, a copy under another name, a symlink in another folder) is refused, not imported twice', () => {
    const out = join(dir, 'twice.jsonl.gz');
    refused(['import', 'binance-futures', capture, capture, '--out', out], out, /^perpkit import: \S+capture\.gz: given twice; each file is imported once\n$/);
    const copy = join(dir, 'capture-copy.gz');
    copyFileSync(capture, copy);
    refused(['import', 'binance-futures', capture, copy, '--out', out], out, new RegExp(`^perpkit import: \\S+capture-copy\\.gz: the same content as \\S+capture\\.gz \\(sha256 ${sha(capture)}\\), given twice; each file is imported once\\n$`));
    mkdirSync(join(dir, 'other'));
    const link = join(dir, 'other', 'capture.gz');
    symlinkSync(capture, link);
    refused(['import', 'binance-futures', capture, link, '--out', out], out, /^perpkit import: \S+other\/capture\.gz: the same file as \S+capture\.gz \(\S+capture\.gz\), given twice; each file is imported once\n$/);
    // Once, it imports: 1 trade, 2 quotes.
    const r = runCli(['import', 'binance-futures', capture, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/-> 3 events \(quote 2, trade 1\)/);
  });

  it('a Tardis file given again from another folder is refused by its content', () => {
    const out = join(dir, 'tardis.jsonl.gz');
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    const again = join(dir, 'elsewhere', 'binance-futures_trades_2024-08-01_BTCUSDT.csv');
    copyFileSync(TARDIS, again);
    refused(['import', 'tardis', TARDIS, again, '--out', out], out, /^perpkit import: \S+elsewhere\/binance-futures_trades_2024-08-01_BTCUSDT\.csv: the same content as \S+fixtures\/tardis\/binance-futures_trades_2024-08-01_BTCUSDT\.csv \(sha256 [0-9a-f]{64}\), given twice; each file is imported once\n$/);
  });

  it('a daily and a monthly trades archive of the same days are refused at the first row they share; consecutive days are not', () => {
    const daily = join(dir, 'BTCUSDT-trades-2024-08-02.csv');
    writeFileSync(daily, tradesCsv([[200, D + 86_400_000 + 1000], [201, D + 86_400_000 + 2000]]));
    const monthly = join(dir, 'BTCUSDT-trades-2024-08.csv');
    writeFileSync(monthly, tradesCsv([[100, D + 1000], [200, D + 86_400_000 + 1000], [201, D + 86_400_000 + 2000], [300, D + 2 * 86_400_000]]));
    const out = join(dir, 'csv.jsonl.gz');
    refused(['import', 'binance-futures', monthly, daily, '--out', out], out, /^perpkit import: \S+BTCUSDT-trades-2024-08-02\.csv:2: \S+BTCUSDT-trades-2024-08-02\.csv and \S+BTCUSDT-trades-2024-08\.csv hold the same rows \(trade BTCUSDT\) over the same time: \S+ starts at 2024-08-02T00:00:01\.000Z, before \S+ ends; every row of that time would be imported twice \(a daily and a monthly archive of the same days\?\); import one of them/);
    const first = join(dir, 'BTCUSDT-trades-2024-08-01.csv');
    writeFileSync(first, tradesCsv([[100, D + 1000], [101, D + 2000]]));
    const r = runCli(['import', 'binance-futures', daily, first, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(events(out).filter((e) => e.k === 'trade').map((e) => e.id)).toEqual(['100', '101', '200', '201']);
  });

  it('a CSV row more than 1 s back in time is refused at its file and line; less is stamped with the time before it and counted', () => {
    const back = join(dir, 'BTCUSDT-trades-2024-08-03.csv');
    writeFileSync(back, tradesCsv([[1, D + 10_000], [2, D + 12_000], [3, D + 5_000]]));
    const out = join(dir, 'back.jsonl.gz');
    refused(['import', 'binance-futures', back, '--out', out], out, /^perpkit import: \S+BTCUSDT-trades-2024-08-03\.csv:4: expected messages in time order \(each file in order; several files are merged by time\), got a message at 2024-08-01T00:00:05\.000Z, 7000 ms before the message before it \(2024-08-01T00:00:12\.000Z\)/);
    writeFileSync(back, tradesCsv([[1, D + 10_000], [2, D + 12_000], [3, D + 11_500]]));
    const r = runCli(['import', 'binance-futures', back, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/note: 1 messages earlier than the message before them \(by up to 500 ms\), kept in their place and stamped with its time/);
    expect(events(out).filter((e) => e.k === 'trade').map((e) => e.t)).toEqual([D + 10_000, D + 12_000, D + 12_000]);
  });

  it('--out that is an input (by its path or through a symlink) is refused, even with --overwrite; the input is left as it was', () => {
    const before = sha(capture);
    refused(['import', 'binance-futures', capture, '--out', capture], join(dir, 'never'), /^perpkit import: --out \S+capture\.gz: it is the input file \S+capture\.gz; the import would replace its own input; choose another --out\n$/);
    const link = join(dir, 'link-to-capture.jsonl.gz');
    symlinkSync(capture, link);
    refused(['import', 'binance-futures', capture, '--out', link, '--overwrite'], join(dir, 'never'), /^perpkit import: --out \S+link-to-capture\.jsonl\.gz: it is the input file \S+capture\.gz \(the same file: \S+capture\.gz\); the import would replace its own input; choose another --out\n$/);
    expect(sha(capture)).toBe(before);
  });

  it('an --out already there is refused unless --overwrite (as perpkit record says it)', () => {
    const out = join(dir, 'there.jsonl.gz');
    writeFileSync(out, 'keep me');
    const r = runCli(['import', 'binance-futures', capture, '--out', out]);
    expect(r.stderr).toMatch(/^perpkit import: --out \S+there\.jsonl\.gz: a file is already there; choose another --out, remove it, or pass --overwrite\n$/);
    expect(r.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
    const o = runCli(['import', 'binance-futures', capture, '--out', out, '--overwrite']);
    expect(o.code).toBe(0);
    expect(events(out)).toHaveLength(5);
  });

  it('an --out beside rotated parts of an earlier recording is refused, as synth and record refuse it', () => {
    const out = join(dir, 'rot.jsonl.gz');
    const part = join(dir, 'rot.1.jsonl.gz');
    writeFileSync(part, 'old part');
    refused(['import', 'binance-futures', capture, '--out', out, '--overwrite'], out, /^perpkit import: --out \S+rot\.jsonl\.gz: \S+rot\.1\.jsonl\.gz: rotated part\(s\) of an earlier recording are there, and a replay of \S+rot\.jsonl\.gz would read them after the new one; remove them or choose another --out\n$/);
    const synth = runCli(['synth', '--out', out, '--hours', '0.01']);
    expect(synth.code).toBe(2);
    expect(synth.stderr).toContain(`--out ${out}: ${part}: rotated part(s) of an earlier recording are there, and a replay of ${out} would read them after the new one; remove them or choose another --out`);
  });
});

describe('perpkit import after a killed import (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-import-killed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the temporary files a kill -9 left (their process gone) are removed and said; a running import\'s are left', () => {
    const capture = join(dir, 'capture.gz');
    writeFileSync(capture, gzipSync(`${[ticker(T, 1), trade(T + 5, 9), ticker(T + 1200, 2)].join('\n')}\n`));
    const out = join(dir, 'rec.jsonl.gz');
    // The id of a process that has exited: no process has it now.
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    const left = [`${out}.body-${gone}.tmp`, `${out}.${gone}.tmp`];
    for (const f of left) writeFileSync(f, 'half an import');
    const running = `${out}.body-${process.pid}.tmp`;
    writeFileSync(running, 'this test is running');
    const r = runCli(['import', 'binance-futures', capture, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  note: removed 2 temporary file(s) of an earlier import to ${out} that was killed (its process is gone): ${[...left].sort().join(', ')}\n`);
    for (const f of left) expect(existsSync(f)).toBe(false);
    expect(existsSync(running)).toBe(true);
  });
});

describe('perpkit data inspect of several imported files (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  const dir = mkdtempSync(join(tmpdir(), 'perpkit-cli-inspect-several-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("sums every file's import skips (each header counts its own), not only the first file's", () => {
    const kline = (t: number): string => `${t}000000 ${JSON.stringify({ stream: 'btcusdt@kline_1m', data: { e: 'kline', E: t + 1270, s: 'BTCUSDT' } })}`;
    const day1 = join(dir, 'day1.gz');
    const day2 = join(dir, 'day2.gz');
    writeFileSync(day1, gzipSync(`${[ticker(T, 1), kline(T + 1), trade(T + 5, 9), ticker(T + 1200, 2)].join('\n')}\n`));
    writeFileSync(day2, gzipSync(`${[ticker(T + 5000, 3), kline(T + 5001), kline(T + 5002), trade(T + 5005, 10), ticker(T + 6200, 4)].join('\n')}\n`));
    const a = join(dir, 'a.jsonl.gz');
    const b = join(dir, 'b.jsonl.gz');
    expect(runCli(['import', 'binance-futures', day1, '--out', a]).code).toBe(0);
    expect(runCli(['import', 'binance-futures', day2, '--out', b]).code).toBe(0);
    const r = runCli(['data', 'inspect', a, b]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("\n  skipped by the import: unsupported event type 'kline' 3\n");
    expect(r.stdout).toMatch(/\n {2}BTCUSDT: .*; marks derived\n/);
    // Given in the other order, the time range still starts at the earliest event (it started at the first one read).
    const back = runCli(['data', 'inspect', b, a]);
    expect(back.code).toBe(0);
    expect(back.stdout).toContain(`\n  time: ${new Date(T).toISOString()} to ${new Date(T + 6200).toISOString()} (6.2 s), `);
  });
});
