/**
 * Issue 12 item 6: a sweep cannot lose a job. A job whose worker dies (`process.exit(3)` in the
 * strategy) or runs past sweep.jobTimeoutMs is a row with its error, every finished row is in
 * results.jsonl as it finishes, --resume runs only what is not done, and the exit code says a job
 * failed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { MM, recording, STRAY, writeConfig } from '../backtest/fixtures';
import { ensureBuilt, ROOT, runCli } from './exchange-proc';
import { SYNTH_EPOCH } from '../../src/market-data/synth';

jest.setTimeout(180_000);

const MODES = `module.exports.default = {
  name: 'modes', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ mode: String(raw.mode ?? 'ok') }),
  create: (ctx) => ({
    onStart() {
      if (ctx.params.mode === 'exit') process.exit(3);
      if (ctx.params.mode === 'loop') for (;;) {}
      // Never ends either, but blocked rather than spinning: a long job that costs no CPU.
      if (ctx.params.mode === 'hang') for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      if (ctx.params.mode === 'throw') throw new Error('boom in onStart');
      return [];
    },
  }),
};
`;

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(10, 5));
  writeFileSync(path.join(dir, 'modes.js'), MODES);
  writeFileSync(path.join(dir, 'stray.js'), STRAY);
});

interface Row {
  sweep: string;
  result: { index: number; point: Record<string, string>; error?: string; summary?: unknown };
}
const rows = (out: string): Row[] =>
  readFileSync(path.join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);

test('a crashed and a timed-out job become rows with their errors; exit 1; --resume runs only the rest', () => {
  const cfg = writeConfig(dir, 'modes.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', jobTimeoutMs: 3000, params: { 'm.mode': ['ok', 'exit', 'loop'] } } });
  const out = path.join(dir, 'sweep-out');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '2']);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/sweep: 3 jobs on 2 worker\(s\) in [\d.]+ s, 1 finished, 2 failed/);
  expect(r.stderr).toMatch(/perpkit sweep: 2 of 3 jobs failed; first: job 1 \{"m\.mode":"exit"\}: the job's worker failed: .*3/);
  const byIndex = new Map(rows(out).map((x) => [x.result.index, x.result]));
  expect([...byIndex.keys()].sort()).toEqual([0, 1, 2]);
  expect(byIndex.get(0)?.error).toBeUndefined();
  expect(byIndex.get(1)?.error).toMatch(/worker failed/);
  expect(byIndex.get(2)?.error).toMatch(/timed out after 3000 ms \(sweep\.jobTimeoutMs\)/);
  const table = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { counts: unknown; rows: Array<{ index: number; error: string | null }> };
  // The counts of the summary line, in the file too (a reader had to count the rows' errors).
  expect(table.counts).toEqual({ jobs: 3, failed: 2, ranked: 1, notRanked: 2 });
  expect(table.rows.map((x) => [x.index, x.error === null])).toEqual([
    [0, true],
    [1, false],
    [2, false],
  ]);

  // Resume: the finished point is kept, the failed ones run again (and fail again).
  const again = runCli(['sweep', cfg, '--out', out, '--workers', '2', '--resume']);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('resuming: 1 points done, kept');
  expect(again.stderr).not.toMatch(/job 0 /);
  expect(again.stderr).toMatch(/job 1 FAILED/);
  expect(rows(out).map((x) => x.result.index).sort()).toEqual([0, 1, 2]);

  // Another sweep's results are not mixed in.
  const changed = writeConfig(dir, 'modes.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', jobTimeoutMs: 3000, params: { 'm.mode': ['ok', 'exit'] } } });
  const refused = runCli(['sweep', changed, '--out', out, '--resume']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/results\.jsonl: line 1: expected a row of this sweep .*--resume cannot reuse it/);
});

test('sweep.jobTimeoutMs counts from the start of the job on its thread, not while it waits for one', () => {
  // Six jobs of 1 s each on one thread, a 4 s limit: the fifth and sixth timed out in the queue
  // ("timed out after 4000 ms"), never run, when the clock started as the sweep handed them out.
  // The 3 s beyond a job's second are for a loaded machine: a job's own work (~0.1 s idle) took
  // 1.6 s with six busy processes on two cores, and more than 1.5 s in CI beside Chromium.
  writeFileSync(path.join(dir, 'second.js'), "module.exports.default = { name: 'second', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'], params: (raw) => ({ k: String(raw.k ?? '') }), create: () => ({ onStart() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000); return []; } }) };\n");
  const cfg = writeConfig(dir, 'seconds.yaml', { strategies: [{ id: 's', module: './second.js', params: {} }], sweep: { metric: 'totalPnl', jobTimeoutMs: 4000, params: { 's.k': ['a', 'b', 'c', 'd', 'e', 'f'] } } });
  const r = runCli(['sweep', cfg, '--out', path.join(dir, 'seconds-out'), '--workers', '1']);
  expect(r.stderr).not.toMatch(/timed out/);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/sweep: 6 jobs on 1 worker\(s\) in [\d.]+ s, 6 finished, 0 failed/);
  // In-process (--workers 0) nothing can end a job: the limit is said not to apply, even with --quiet.
  const inline = writeConfig(dir, 'inline.yaml', { strategies: [{ id: 's', module: './second.js', params: {} }], sweep: { metric: 'totalPnl', jobTimeoutMs: 500, params: { 's.k': ['a'] } } });
  const r0 = runCli(['sweep', inline, '--out', path.join(dir, 'inline-out'), '--workers', '0', '--quiet']);
  expect(r0.code).toBe(0);
  expect(r0.stderr).toContain('perpkit sweep: sweep.jobTimeoutMs (500 ms) does not apply with --workers 0: the jobs run one after another in this thread, where none can be ended\n');
  // No worker runs them: the summary says where they ran ("on 0 worker(s)" read as nothing ran).
  expect(r0.stdout).toMatch(/^sweep: 1 jobs in the sweep's own process \(--workers 0\) in [\d.]+ s, 1 finished, 0 failed[,;]/m);
});

test('--resume refuses the results of the same config on a recording written anew under the same name', async () => {
  // The sweep's identity was its config and points: the rows of the old data were kept, and a
  // table mixed them with rows of the new one.
  const { dir: d } = await recording(6, 21);
  const cfg = writeConfig(d, 'sw.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'throw'] } } });
  writeFileSync(path.join(d, 'modes.js'), MODES);
  const out = path.join(d, 'out');
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']).code).toBe(1);
  const { file: other } = await recording(6, 22);
  writeFileSync(path.join(d, 'rec.jsonl.gz'), readFileSync(other));
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--resume']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/results\.jsonl: line 1: expected a row of this sweep \([0-9a-f]{16}; the config, its points or its recordings changed since, so --resume cannot reuse it: move the file away\), got sweep [0-9a-f]{16}/);
});

test('a data.from..data.to without events is refused before any job, as the backtest refuses it (every job failed, exit 1)', () => {
  const cfg = writeConfig(dir, 'out-of-range.yaml', { data: { files: ['rec.jsonl.gz'], from: '2024-01-02T00:00:00Z', to: '2024-01-03T00:00:00Z' }, strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'throw'] } } });
  const r = runCli(['sweep', cfg, '--out', path.join(dir, 'oor-out'), '--workers', '1']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^perpkit sweep: \S*out-of-range\.yaml:\d+: data\.from\/data\.to: expected a time range with events in it \(the recording runs from \S+ to \S+\), got 2024-01-02T00:00:00\.000Z to 2024-01-03T00:00:00\.000Z$/m);
  expect(r.stderr).not.toMatch(/job \d/);
});

test('a recording of a header and no events is refused before any job, at data.files and naming the file, as the backtest refuses it (every job failed, exit 1)', () => {
  const empty = path.join(dir, 'header-only.jsonl.gz');
  writeFileSync(empty, gzipSync(`${gunzipSync(readFileSync(path.join(dir, 'rec.jsonl.gz'))).toString().split('\n')[0]}\n`));
  const cfg = writeConfig(dir, 'header-only.yaml', { data: { files: ['header-only.jsonl.gz'], cache: false }, strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'throw'] } } });
  const r = runCli(['sweep', cfg, '--out', path.join(dir, 'header-only-out'), '--workers', '1']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(new RegExp(`^perpkit sweep: \\S*header-only\\.yaml:\\d+: data\\.files: expected a recording with events in it, got ${empty.replace(/[.]/g, '\\.')}: a header and no events$`, 'm'));
  expect(r.stderr).not.toMatch(/job \d/);
});

test('a symbol the recording lacks is refused before any job (exit 2, one line), as the backtest refuses it (every job failed, exit 1)', () => {
  // The config's own symbol: refused at its line.
  const own = writeConfig(dir, 'no-symbol.yaml', { strategies: [{ ...MM, params: { ...MM.params, symbol: 'SOLUSDT' } }], sweep: { metric: 'totalPnl', params: { 'mm.skewBps': ['1', '3'] } } });
  const out = path.join(dir, 'no-symbol-out');
  const r = runCli(['sweep', own, '--out', out, '--workers', '1']);
  expect(r.code).toBe(2);
  // The refusal comes while the points are checked, after the line that says so.
  expect(r.stderr).toMatch(/^sweep: checking the sweep's points before any job runs \(Ctrl\+C stops\)\nperpkit sweep: \S*no-symbol\.yaml:\d+: strategies\[0\]\.params\.symbol: expected a symbol the recording holds \(BTCUSDT\), got SOLUSDT\n$/);
  expect(existsSync(out)).toBe(false);
  // A point that sets it: refused naming the point.
  const swept = writeConfig(dir, 'swept-symbol.yaml', { sweep: { metric: 'totalPnl', params: { 'mm.symbol': ['BTCUSDT', 'ETHUSDT'] } } });
  const r2 = runCli(['sweep', swept, '--out', out, '--workers', '1']);
  expect(r2.code).toBe(2);
  expect(r2.stderr).toMatch(/^sweep: checking the sweep's points before any job runs \(Ctrl\+C stops\)\nperpkit sweep: \S*swept-symbol\.yaml:\d+: sweep\.params \(point 1: \{"mm\.symbol":"ETHUSDT"\}\) -> strategies\[0\]\.params\.symbol: expected a symbol the recording holds \(BTCUSDT\), got ETHUSDT\n$/);
  expect(existsSync(out)).toBe(false);
});

test('a job whose strategy threw is a failed row (ranked last, summary kept) and the sweep exits 1', () => {
  const cfg = writeConfig(dir, 'throws.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['throw', 'ok'] } } });
  const out = path.join(dir, 'sweep-throws');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1']);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/sweep: 2 jobs on 1 worker\(s\) in [\d.]+ s, 1 finished, 1 failed/);
  // The progress lines count as the summary does: "finished" there is a job that did not fail, so
  // they count jobs done (it said "2/2 finished, 1 failed" before a summary of "1 finished, 1 failed").
  expect(r.stderr).toMatch(/^job 0 FAILED \(1\/2 done, 1 failed\): /m);
  expect(r.stderr).toMatch(/^job 1 done \(2\/2 done, 1 failed\)$/m);
  expect(r.stderr).not.toMatch(/\d+\/\d+ finished/);
  expect(r.stderr).toMatch(/perpkit sweep: 1 of 2 jobs failed; first: job 0 \{"m\.mode":"throw"\}: strategies erred 1 time \(threw, or returned what the bot refuses\); first: \[m\] .*boom in onStart/);
  const table = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { rows: Array<{ index: number; metric: number | null; error: string | null; summary: { strategyErrors: number } | null }> };
  expect(table.rows.map((x) => [x.index, x.metric === null, x.error === null])).toEqual([
    [1, false, true],
    [0, true, false],
  ]);
  expect(table.rows[1].summary?.strategyErrors).toBe(1);
  // On stdout (sweep.md's head), the failed row gives its error once, not in every figure column.
  const failedRow = r.stdout.split('\n').find((l) => l.startsWith('| 2 | 0 | throw |'));
  expect(failedRow).toMatch(/^\| 2 \| 0 \| throw \| (FAILED \| ){11}strategies erred 1 time \(threw, or returned what the bot refuses\); first: \[m\] onStart: boom in onStart .* \|$/);
  expect(r.stdout.match(/boom in onStart/g)).toHaveLength(1);
  expect(readFileSync(path.join(out, 'sweep.md'), 'utf8')).toContain(failedRow);
});

test('a job whose strategy leaves a real timer behind fails for it, on its own row; the next jobs on the thread are untouched', () => {
  const cfg = writeConfig(dir, 'stray.yaml', { strategies: [{ id: 's', module: './stray.js', params: {} }], sweep: { metric: 'totalPnl', params: { 's.mode': ['late', 'ok', 'early', 'ok', 'ok'] } } });
  const out = path.join(dir, 'sweep-stray');
  // One thread: every job runs after the one before it on the same thread.
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1']);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/sweep: 5 jobs on 1 worker\(s\) in [\d.]+ s, 3 finished, 2 failed/);
  const byIndex = new Map(rows(out).map((x) => [x.result.index, x.result]));
  expect([...byIndex.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
  expect(byIndex.get(0)?.error).toMatch(/^the job left real timers or handles running after its backtest ended \(Timeout\); a backtest runs on virtual time: use ctx\.every and onTimer, not setTimeout or setInterval; its worker thread was replaced$/);
  // Thrown from its timer while it ran, or left behind when it ended: either way, its own row.
  expect(byIndex.get(2)?.error).toMatch(/^(uncaught error in code the job started \(a timer or callback of its strategy\): timer of the early job|the job left real timers .*\(Timeout\))/);
  for (const i of [1, 3, 4]) expect(byIndex.get(i)?.error).toBeUndefined();
  expect(byIndex.get(1)?.summary).toBeDefined();
});

test('a sweep whose jobs run long says it is alive every 10 s; Ctrl+C: the running jobs end, the finished rows stay, one line says what to run next, exit 130', async () => {
  // Jobs 1 and 2 never end, blocked rather than spinning: the ten seconds cost no CPU (two spinning
  // jobs took ~20 s of CPU). Ending spinning jobs is tested by the timeout and the halving Ctrl+C.
  const cfg = writeConfig(dir, 'stop.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'hang', 'hang'] } } });
  const out = path.join(dir, 'stop-out');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'sweep', cfg, '--out', out, '--workers', '2'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    // Job 0 finishes; jobs 1 and 2 never end (no jobTimeoutMs): only Ctrl+C ends this sweep.
    const end = Date.now() + 60_000;
    while (!/job 0 done/.test(err) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(err).toMatch(/job 0 done \(1\/3 done, 0 failed\)/);
    // A second sweep into the same folder meanwhile: refused (both said they wrote their tables,
    // over one results.jsonl holding the rows of both).
    const second = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--overwrite']);
    expect([second.code, second.stderr.trim().split('\n').filter((l) => l.startsWith('perpkit sweep:'))]).toEqual([
      2,
      [expect.stringMatching(new RegExp(`^perpkit sweep: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another sweep \\(pid ${child.pid} on \\S+, since \\S+\\): wait for it to end, or give another --out`)) as unknown],
    ]);
    // No job finishes for 10 s: a progress line, not silence.
    while (!/^sweep: 1\/3 done/m.test(err) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    expect(err).toMatch(/^sweep: 1\/3 done \(0 failed\), 2 running, 0 waiting, \d+m\d\ds elapsed, ETA \d+m\d\ds$/m);
    child.kill('SIGINT');
    // With the process's stderr, so that an unexpected end (once: SIGABRT) says what it printed.
    expect({ ...(await exited), stderr: err }).toEqual({ code: 130, signal: null, stderr: expect.any(String) });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  const last = err.trim().split('\n').slice(-1)[0];
  expect(last).toBe(`perpkit sweep: stopped by SIGINT: 1 of 3 jobs done (0 failed), their results kept in ${path.join(out, 'results.jsonl')}; no table written; run the same command with --resume to run the other 2`);
  // The ended jobs are not rows (failed or otherwise): --resume runs them.
  expect(rows(out).map((x) => [x.result.index, x.result.error])).toEqual([[0, undefined]]);
});

test('Ctrl+C while a 100,000-point grid is being checked: it stops there, exit 130, one line, nothing written (it went on for the whole check)', async () => {
  const cfg = writeConfig(dir, 'big.yaml', { sweep: { metric: 'totalPnl', params: { 'mm.minSpreadBps': { min: 1, max: 100, step: 1 }, 'mm.skewBps': { min: 1, max: 1000, step: 1 } } } });
  const out = path.join(dir, 'big-out');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'sweep', cfg, '--out', out, '--workers', '1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stoppedAfter = Infinity;
  try {
    // Started, and checking points (the check of 100,000 takes seconds): on a busy machine the
    // process may take more than a second to get there, so its line is awaited, not a time.
    const checking = "sweep: checking the sweep's points before any job runs (Ctrl+C stops)\n";
    for (const t0 = Date.now(); !err.includes(checking) && Date.now() - t0 < 30_000; ) await new Promise((r) => setTimeout(r, 20));
    expect(err).toBe(checking);
    await new Promise((r) => setTimeout(r, 300));
    const t = Date.now();
    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 130, signal: null });
    stoppedAfter = Date.now() - t;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  expect(stoppedAfter).toBeLessThan(3000);
  expect(err).toBe(`${"sweep: checking the sweep's points before any job runs (Ctrl+C stops)\n"}perpkit sweep: SIGINT: stopping (again to quit at once)\nperpkit sweep: stopped by SIGINT while checking the sweep's points, before any job ran; nothing written\n`);
  expect(existsSync(out)).toBe(false);
});

test('--resume after a kill mid-write: the torn last line of results.jsonl is dropped with a notice, its job runs again', () => {
  const cfg = writeConfig(dir, 'torn.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'ok2', 'ok3'] } } });
  const out = path.join(dir, 'torn-out');
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '2', '--quiet']).code).toBe(0);
  const file = path.join(out, 'results.jsonl');
  const lines = readFileSync(file, 'utf8').split('\n');
  const tornIndex = (JSON.parse(lines[2]) as Row).result.index;
  // What a SIGKILL (or a power cut) in the middle of the third append leaves.
  writeFileSync(file, `${lines[0]}\n${lines[1]}\n${lines[2].slice(0, 40)}`);
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '2', '--resume']);
  // It was exit 2, 'expected a JSON line written by perpkit sweep': no way to resume but by hand.
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(`perpkit sweep: ${file}: line 3 is torn (the sweep was stopped while writing it); dropped, its job runs again\n`);
  expect(r.stderr).toContain('resuming: 2 points done, kept');
  expect(r.stderr).toMatch(new RegExp(`job ${tornIndex} done \\(3/3 done, 0 failed\\)`));
  expect(rows(out).map((x) => x.result.index).sort()).toEqual([0, 1, 2]);

  // A bad line that is not the last one is damage, not a torn write: refused as before.
  const whole = readFileSync(file, 'utf8').split('\n');
  writeFileSync(file, `${whole[0]}\nnot json\n${whole[1]}\n`);
  const bad = runCli(['sweep', cfg, '--out', out, '--resume']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/results\.jsonl: line 2: expected a JSON line written by perpkit sweep, got not json/);
});

test('Ctrl+C in a halving sweep: the line counts the jobs of its rounds (not "of" its points) and says it does not resume', async () => {
  const cfg = writeConfig(dir, 'stop-halving.yaml', {
    data: { files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + 600_000).toISOString() },
    strategies: [{ id: 'm', module: './modes.js', params: {} }],
    sweep: { metric: 'totalPnl', halving: { eta: 2, rounds: 2 }, params: { 'm.mode': ['ok', 'loop', 'loop'] } },
  });
  const out = path.join(dir, 'stop-halving-out');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), 'sweep', cfg, '--out', out, '--workers', '2'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const end = Date.now() + 60_000;
    while (!/job 0 done/.test(err) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    // With the process's stderr, so that an unexpected end (once: SIGABRT) says what it printed.
    expect({ ...(await exited), stderr: err }).toEqual({ code: 130, signal: null, stderr: expect.any(String) });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  expect(err.trim().split('\n').slice(-1)[0]).toBe(`perpkit sweep: stopped by SIGINT: 1 jobs of its rounds done (0 failed), their results kept in ${path.join(out, 'results.jsonl')}; no table written; a halving sweep does not resume: run it again`);
});

// A second run into the same folder without --resume rewrote results.jsonl empty: the rows of
// the first run were gone without a word.
test('a sweep into a folder holding an earlier sweep\'s rows is refused without --resume or --overwrite; nothing is dropped', () => {
  const cfg = writeConfig(dir, 'again.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'ok2'] } } });
  const out = path.join(dir, 'again-out');
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']).code).toBe(0);
  const before = readFileSync(path.join(out, 'results.jsonl'), 'utf8');
  expect(before.trim().split('\n')).toHaveLength(2);
  const again = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']);
  expect(again.code).toBe(2);
  expect(again.stderr).toBe(`perpkit sweep: ${out} holds 2 row(s) of an earlier sweep in results.jsonl: --resume continues that sweep (the same config and data), --overwrite starts afresh and drops them, or give another --out\n`);
  expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toBe(before);
  // --resume keeps them (nothing left to run), --overwrite runs both points again.
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet', '--resume']).code).toBe(0);
  expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toBe(before);
  const fresh = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--overwrite']);
  expect(fresh.code).toBe(0);
  expect(fresh.stderr).toMatch(/job \d done \(1\/2 done, 0 failed\)\njob \d done \(2\/2 done, 0 failed\)/);
});

// Probe item 5: the refusal offered --resume, which a halving sweep refuses in turn.
test('a halving sweep into a folder holding its rows is refused with the ways that work (not --resume)', () => {
  const cfg = writeConfig(dir, 'again-halving.yaml', {
    data: { files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + 600_000).toISOString() },
    strategies: [{ id: 'm', module: './modes.js', params: {} }],
    sweep: { metric: 'totalPnl', halving: { eta: 2, rounds: 2 }, params: { 'm.mode': ['ok', 'ok2'] } },
  });
  const out = path.join(dir, 'again-halving-out');
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']).code).toBe(0);
  const rowCount = readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n').length;
  const again = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']);
  expect(again.code).toBe(2);
  expect(again.stderr).toBe(`perpkit sweep: ${out} holds ${rowCount} row(s) of an earlier sweep in results.jsonl: a halving sweep does not resume: --overwrite runs it afresh and drops them, or give another --out\n`);
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet', '--overwrite']).code).toBe(0);
});

// Probe item 7: every point that traded lost to fees, so a point that never traded (PnL 0, 0
// fills) was rank 1 in the table, sweep.md and sweep.html (a green heatmap cell), with no word.
test('a point that never traded ranks after every point that traded, and the table, sweep.md, sweep.html and the summary say so', () => {
  writeFileSync(path.join(dir, 'idle.js'), `module.exports.default = {
  name: 'idle', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ go: String(raw.go), at: Number(raw.at ?? 5) }),
  create: (ctx) => {
    let n = 0;
    return {
      onMark() {
        n++;
        if (ctx.params.go !== 'yes' || (n !== ctx.params.at && n !== ctx.params.at + 1)) return [];
        return [{ kind: 'place', symbol: 'BTCUSDT', side: n === ctx.params.at ? 'BUY' : 'SELL', type: 'MARKET', quantity: ctx.quantity.round('0.01') }];
      },
    };
  },
};
`);
  const cfg = writeConfig(dir, 'idle.yaml', { strategies: [{ id: 'i', module: './idle.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'i.go': ['yes', 'no'], 'i.at': [5, 9] } } });
  const out = path.join(dir, 'idle-out');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']);
  expect(r.code).toBe(0);
  const doc = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { rows: Array<{ rank: number; index: number; metric: number; noTrades: boolean; summary: { fills: number; totalPnl: string } }> };
  // The premise: every point that traded lost (fees), so by PnL alone the idle points came first.
  const traded = doc.rows.filter((x) => x.summary.fills > 0);
  expect(traded).toHaveLength(2);
  for (const x of traded) expect(Number(x.summary.totalPnl)).toBeLessThan(0);
  expect(doc.rows.map((x) => [x.rank, x.summary.fills > 0, x.noTrades])).toEqual([[1, true, false], [2, true, false], [3, false, true], [4, false, true]]);
  expect(r.stdout).toMatch(/, 2 never traded \(0 fills; ranked after every point that traded\); ranked by totalPnl/);
  const md = readFileSync(path.join(out, 'sweep.md'), 'utf8').trim().split('\n');
  expect(md[4]).toMatch(/^\| 3 \| \d \| \d \| no \| .* \| no trades \(0 fills\): ranked after every point that traded \|$/);
  expect(readFileSync(path.join(out, 'sweep.csv'), 'utf8')).toMatch(/no trades \(0 fills\): ranked after every point that traded\n/);
  const html = readFileSync(path.join(out, 'sweep.html'), 'utf8');
  expect(html).toContain('2 of 4 points never traded (0 fills)');
  expect(html).toContain('"idle":true');
  // Run again, the table is the same bytes (determinism; resume rebuilds it from the same rows).
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '2', '--quiet', '--resume']).code).toBe(0);
  expect(JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8'))).toEqual(doc);
});
