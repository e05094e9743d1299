/**
 * Issue 17: sweeps on a BullMQ queue, against a real redis-server (test/helpers/redis.ts) and real
 * `perpkit sweep --queue` / `perpkit worker` processes. The table must be the bytes of the local
 * run whatever the number of workers; a SIGKILLed worker's job runs again elsewhere and is counted
 * once; a restarted coordinator resumes; a worker refuses different data bytes; Redis unreachable
 * or gone is one clear error with the finished results kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { ensureBuilt, ROOT } from '../cli/exchange-proc';
import { freePort } from '../helpers/ports';
import { startRedis, type TestRedis } from '../helpers/redis';
import { SYNTH_EPOCH } from '../../src/market-data/synth';
import { MM, recording, STRAY, writeConfig } from './fixtures';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { runQueuedJobs } from '../../src/backtest/sweep/coordinator';
import { SweepStopped } from '../../src/backtest/sweep/pool';
import { sweepJobs } from '../../src/backtest/sweep/sweep';

jest.setTimeout(180_000);

const BIN = path.join(ROOT, 'bin', 'perpkit.js');

/** Sleeps `ms` in onStart (blocking its thread, as a CPU-bound job would), then does nothing. */
const SLOW = `module.exports.default = {
  name: 'slow', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ ms: Number(raw.ms ?? 0) }),
  create: (ctx) => ({
    onStart() {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ctx.params.ms);
      return [];
    },
  }),
};
`;

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

const procs: Proc[] = [];
function cli(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const p: Proc = { child, out: () => out, err: () => err, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  procs.push(p);
  return p;
}
const worker = (url: string, ...extra: string[]): Proc => cli(['worker', '--queue', url, '--concurrency', '1', '--lock-ms', '1000', '--grace-ms', '2000', ...extra]);
async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * How many jobs a worker holds in Redis right now (BullMQ's active list). The coordinator's own
 * progress line is no clock for this: off a terminal it is written every 30 s, so its first line
 * may come before any worker took a job and the next after the sweep ended.
 */
async function activeJobs(url: string): Promise<number> {
  const r = new Redis(url);
  try {
    return await r.llen('bull:perpkit-sweep:active');
  } finally {
    r.disconnect();
  }
}

/** The job indexes a worker finished (once each: a job whose lock lapsed may run twice). */
const ranOn = (w: Proc): number[] => [...new Set([...w.err().matchAll(/job [0-9a-f]{16}-(\d+) done/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);

let redis: TestRedis;
let dir: string;
let cfg: string;
let local: { csv: string; json: string; md: string };
const table = (out: string): { csv: string; json: string; md: string } => ({ csv: readFileSync(path.join(out, 'sweep.csv'), 'utf8'), json: readFileSync(path.join(out, 'sweep.json'), 'utf8'), md: readFileSync(path.join(out, 'sweep.md'), 'utf8') });
const rowIndexes = (out: string): number[] =>
  readFileSync(path.join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { result: { index: number } }).result.index)
    .sort((a, b) => a - b);

beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(6, 11));
  writeFileSync(path.join(dir, 'slow.js'), SLOW);
  // Four real market-maker points; every job also sleeps 700 ms, so a worker can be killed mid-job.
  // On the first 3 minutes of the recording: what the tests compare (the queue's table against
  // the local one, rows, counts) does not depend on the length (the halving test takes all 6).
  cfg = writeConfig(dir, 'sw.yaml', {
    data: { files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + 3 * 60_000).toISOString() },
    strategies: [MM, { id: 'slow', module: './slow.js', params: { ms: 700 } }],
    sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': ['2', '6'], 'mm.skewBps': ['1', '3'] } },
  });
  const l = cli(['sweep', cfg, '--workers', '2', '--quiet', '--out', path.join(dir, 'local')]);
  expect(await l.exited).toBe(0);
  local = table(path.join(dir, 'local'));
  redis = await startRedis();
});

afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
});

afterAll(async () => {
  await redis?.stop();
});

test('the queue table is byte-identical to the local one with 1 and with 2 workers; jobs leave Redis at the end', async () => {
  for (const n of [1, 2]) {
    const ws = Array.from({ length: n }, () => worker(redis.url));
    const out = path.join(dir, `q${n}`);
    const c = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
    expect(await c.exited).toBe(0);
    expect(c.out()).toMatch(new RegExp(`sweep: 4 jobs on the queue at redis://127\\.0\\.0\\.1:${redis.port} in [\\d.]+ s, 4 finished, 0 failed`));
    expect(c.err()).toMatch(/queue: 4\/4 done, 0 running, 0 waiting, 0 failed, ETA 0m00s/);
    expect(table(out)).toEqual(local);
    expect(rowIndexes(out)).toEqual([0, 1, 2, 3]);
    for (const w of ws) w.child.kill('SIGTERM');
    expect(await Promise.all(ws.map((w) => w.exited))).toEqual(ws.map(() => 0));
    if (n === 2) expect(ws.map((w) => /job \S+ done/.test(w.err()))).toEqual([true, true]);
  }
  const r = new Redis(redis.url);
  try {
    const keys = await r.keys('bull:perpkit-sweep:*');
    expect(keys.filter((k) => /:[0-9a-f]{16}-\d+(:|$)/.test(k))).toEqual([]);
    // And nothing of it waits.
    expect(await r.llen('bull:perpkit-sweep:wait')).toBe(0);
  } finally {
    r.disconnect();
  }
});

test('successive halving on the queue: the same rounds and table as on local threads', async () => {
  const hcfg = writeConfig(dir, 'halving.yaml', {
    data: { files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + 6 * 60_000).toISOString() },
    sweep: { method: 'random', samples: 4, seed: 3, objective: 'returnOverDrawdown', halving: { eta: 2, rounds: 2 }, params: { 'mm.minSpreadBps': { min: 1, max: 9, step: 1, integer: true } } },
  });
  const l = cli(['sweep', hcfg, '--workers', '2', '--quiet', '--out', path.join(dir, 'h-local')]);
  const ws = [worker(redis.url), worker(redis.url)];
  const q = cli(['sweep', hcfg, '--queue', redis.url, '--quiet', '--out', path.join(dir, 'h-queue')]);
  expect(await l.exited).toBe(0);
  expect(await q.exited).toBe(0);
  for (const f of ['halving.json', 'sweep.json', 'sweep.csv', 'sweep.md']) expect(readFileSync(path.join(dir, 'h-queue', f), 'utf8')).toBe(readFileSync(path.join(dir, 'h-local', f), 'utf8'));
  expect(q.out()).toMatch(/halving round 2: 2 points on 0\.10 h of data, 0 failed/);
  expect(ws.some((w) => /job \S+ done/.test(w.err()))).toBe(true);
});

test('failed jobs on the queue (a worker thread that exits, a strategy that throws) are rows with the local run\'s errors, exit 1; --resume reruns only them', async () => {
  const modes = `module.exports.default = {
  name: 'modes', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ mode: String(raw.mode ?? 'ok') }),
  create: (ctx) => ({
    onStart() {
      if (ctx.params.mode === 'exit') process.exit(3);
      if (ctx.params.mode === 'throw') throw new Error('boom in onStart');
      return [];
    },
  }),
};
`;
  writeFileSync(path.join(dir, 'modes.js'), modes);
  const mcfg = writeConfig(dir, 'modes.yaml', { strategies: [{ id: 'm', module: './modes.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'm.mode': ['ok', 'exit', 'throw'] } } });
  const l = cli(['sweep', mcfg, '--workers', '2', '--quiet', '--out', path.join(dir, 'm-local')]);
  expect(await l.exited).toBe(1);
  const w = worker(redis.url);
  const out = path.join(dir, 'm-queue');
  const q = cli(['sweep', mcfg, '--queue', redis.url, '--out', out]);
  expect(await q.exited).toBe(1);
  expect(q.out()).toMatch(/sweep: 3 jobs on the queue at redis:\S+ in [\d.]+ s, 1 finished, 2 failed/);
  expect(q.err()).toMatch(/perpkit sweep: 2 of 3 jobs failed; first: job 1 \{"m\.mode":"exit"\}: the job's worker failed: .*3/);
  expect(table(out)).toEqual(table(path.join(dir, 'm-local')));
  // The worker survived its thread's process.exit and goes on taking jobs.
  expect(w.child.exitCode).toBeNull();
  // The same command picks up where it was: every job has its row, failed ones stay failed.
  const same = cli(['sweep', mcfg, '--queue', redis.url, '--out', out]);
  expect(await same.exited).toBe(1);
  expect(same.err()).toContain('resuming: 3 points done, kept');
  expect(same.err()).toContain('(2 of them failed; --resume runs those again)');
  expect(same.err()).not.toMatch(/job \d+ (done|FAILED)/);
  expect(table(out)).toEqual(table(path.join(dir, 'm-local')));
  const again = cli(['sweep', mcfg, '--queue', redis.url, '--out', out, '--resume']);
  expect(await again.exited).toBe(1);
  expect(again.err()).toContain('resuming: 1 points done, kept');
  expect(again.err()).not.toMatch(/job 0 /);
  expect(again.err()).toMatch(/job 1 FAILED/);
  expect(again.err()).toMatch(/job 2 FAILED/);
  expect(table(out)).toEqual(table(path.join(dir, 'm-local')));
});

test('a job that leaves a real timer behind fails on its own row; the long-lived worker gives the next jobs, of this sweep and of another, a clean thread', async () => {
  writeFileSync(path.join(dir, 'stray.js'), STRAY);
  const strays = (name: string, modes: string[]): string => writeConfig(dir, name, { strategies: [{ id: 's', module: './stray.js', params: {} }], sweep: { metric: 'totalPnl', params: { 's.mode': modes } } });
  const w = worker(redis.url);
  const a = cli(['sweep', strays('stray-a.yaml', ['ok', 'early', 'ok', 'late']), '--queue', redis.url, '--quiet', '--out', path.join(dir, 'stray-a')]);
  expect(await a.exited).toBe(1);
  expect(a.out()).toMatch(/sweep: 4 jobs on the queue at redis:\S+ in [\d.]+ s, 2 finished, 2 failed/);
  const ra = JSON.parse(readFileSync(path.join(dir, 'stray-a', 'sweep.json'), 'utf8')) as { rows: Array<{ index: number; error: string | null }> };
  const err = new Map(ra.rows.map((x) => [x.index, x.error]));
  expect(err.get(0)).toBeNull();
  expect(err.get(1)).toMatch(/^(uncaught error in code the job started \(a timer or callback of its strategy\): timer of the early job|the job left real timers .*\(Timeout\))/);
  expect(err.get(2)).toBeNull();
  expect(err.get(3)).toMatch(/^the job left real timers or handles running after its backtest ended \(Timeout\); .*its worker thread was replaced$/);
  // The same worker process, the next sweep: its jobs run where no timer of job 3 is alive.
  const b = cli(['sweep', strays('stray-b.yaml', ['ok', 'ok']), '--queue', redis.url, '--out', path.join(dir, 'stray-b')]);
  expect(await b.exited).toBe(0);
  expect(b.out()).toMatch(/sweep: 2 jobs on the queue at redis:\S+ in [\d.]+ s, 2 finished, 0 failed/);
  expect(w.child.exitCode).toBeNull();
  expect(w.err()).not.toMatch(/stray timer of the late job/);
});

test('a long-lived worker whose loaded strategy code is not the code a sweep was submitted with fails its jobs, naming the strategy, instead of running stale code', async () => {
  const code = (n: number): string => `module.exports.default = {
  name: 'edited', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ v: Number(raw.v ?? 0) }),
  create: () => ({ onMark: () => [] }),
};
// version ${n}
`;
  writeFileSync(path.join(dir, 'edited.js'), code(1));
  const cfgE = writeConfig(dir, 'edited.yaml', { strategies: [{ id: 'e', module: './edited.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'e.v': [1, 2] } } });
  const w = worker(redis.url);
  const a = cli(['sweep', cfgE, '--queue', redis.url, '--quiet', '--out', path.join(dir, 'edited-a')]);
  expect(await a.exited).toBe(0);
  // The worker has loaded version 1; the file now holds version 2, and the sweep is submitted with it.
  writeFileSync(path.join(dir, 'edited.js'), code(2));
  const b = cli(['sweep', cfgE, '--queue', redis.url, '--quiet', '--out', path.join(dir, 'edited-b')]);
  expect(await b.exited).toBe(1);
  expect(b.err()).toMatch(/perpkit sweep: 2 of 2 jobs failed; first: job 0 \{"e\.v":1\}: strategy e \(\.\/edited\.js\): the code this worker loaded \(sha256 [0-9a-f]{16}, .*\) is not the code the sweep was submitted with \(sha256 [0-9a-f]{16}\): refusing to run other code; restart the worker \(perpkit worker\)/);
  // Restarted, the worker loads the files as they are and runs the jobs (--resume reruns the failed ones).
  w.child.kill('SIGINT');
  await w.exited;
  worker(redis.url);
  const c = cli(['sweep', cfgE, '--queue', redis.url, '--quiet', '--out', path.join(dir, 'edited-b'), '--resume']);
  expect(await c.exited).toBe(0);
});

test('a worker SIGKILLed mid-job: its job runs again on another worker, counted once, same table', async () => {
  const out = path.join(dir, 'killed');
  const a = worker(redis.url);
  const c = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
  // Worker A is inside a job (the queue shows it running) and has finished none yet.
  await until('a running job', async () => (await activeJobs(redis.url)) === 1);
  expect(a.err()).not.toMatch(/job \S+ done/);
  a.child.kill('SIGKILL');
  await a.exited;
  const b = worker(redis.url);
  expect(await c.exited).toBe(0);
  expect(table(out)).toEqual(local);
  expect(rowIndexes(out)).toEqual([0, 1, 2, 3]);
  // B ran all four, including the one A was killed in.
  expect((b.err().match(/job \S+ done/g) ?? []).length).toBe(4);
  // That job ran twice: the summary says so (it read as if every job ran once), and its row in
  // results.jsonl carries its attempts (the others none: they ran once).
  const again = /, 1 job\(s\) ran again after a worker stopped \(job (\d): 2 attempts; each counted once\); ranked by/.exec(c.out());
  expect(again).not.toBeNull();
  const attempts = readFileSync(path.join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { result: { index: number; attempts?: number } }).result)
    .sort((x, y) => x.index - y.index)
    .map((r) => r.attempts);
  expect(attempts).toEqual([0, 1, 2, 3].map((i) => (i === Number(again?.[1]) ? 2 : undefined)));
});

test('a worker SIGKILLed in a walk-forward test job: walkforward.json keeps that job\'s attempts, as results.jsonl does for a point', async () => {
  // Two points, two windows of 1 min training and 1 min test: 2 + 4 training + 2 test jobs.
  const wfCfg = writeConfig(dir, 'sw-wf.yaml', {
    data: { files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + 3 * 60_000).toISOString() },
    strategies: [MM, { id: 'slow', module: './slow.js', params: { ms: 700 } }],
    sweep: { method: 'grid', metric: 'totalPnl', walkForward: { train: '1m', test: '1m' }, params: { 'mm.minSpreadBps': ['2', '6'] } },
  });
  const out = path.join(dir, 'wf-killed');
  const a = worker(redis.url);
  const c = cli(['sweep', wfCfg, '--queue', redis.url, '--out', out]);
  // Every training job done; worker A is inside a test job.
  await until('the training done', () => /walk-forward training: job \d+ done \(4\/4\)/.test(c.err()));
  await until('a running test job', async () => (await activeJobs(redis.url)) === 1);
  expect(c.err()).not.toMatch(/walk-forward test: job \d+ done/);
  a.child.kill('SIGKILL');
  await a.exited;
  worker(redis.url);
  expect(await c.exited).toBe(0);
  const again = /, 1 job\(s\) ran again after a worker stopped \(job (\d+): 2 attempts; each counted once\); ranked by/.exec(c.out());
  expect(again).not.toBeNull();
  const index = Number(again?.[1]);
  const wf = JSON.parse(readFileSync(path.join(out, 'walkforward.json'), 'utf8')) as {
    windows: Array<{ best: { index: number; attempts?: number } | null; result: { index: number; attempts?: number } | null }>;
    ranAgain: Array<{ index: number; point: Record<string, unknown>; part: string; window: number; attempts: number }>;
  };
  expect(wf.windows).toHaveLength(2);
  // The test job's record carries its attempts (the other window's none: it ran once); so do the
  // jobs that ran again, listed with their part and window.
  const w = wf.windows.findIndex((x) => x.result?.index === index);
  expect(w).toBeGreaterThanOrEqual(0);
  expect(wf.windows.map((x) => x.result?.attempts)).toEqual([0, 1].map((i) => (i === w ? 2 : undefined)));
  expect(wf.windows.map((x) => x.best?.attempts)).toEqual([undefined, undefined]);
  expect(wf.ranAgain).toEqual([{ index, point: { 'mm.minSpreadBps': expect.any(String) as unknown }, part: 'outOfSample', window: w, attempts: 2 }]);
});

test('a coordinator killed mid-sweep and started again resumes the same sweep', async () => {
  const out = path.join(dir, 'restart');
  const w = worker(redis.url);
  const first = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
  await until('a first result', () => /job \d+ done/.test(first.err()));
  first.child.kill('SIGKILL');
  await first.exited;
  const kept = rowIndexes(out).length;
  const second = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
  expect(await second.exited).toBe(0);
  // Its own results.jsonl first, then the queue for the rest.
  expect(second.err()).toContain(`resuming: ${kept} points done, kept`);
  expect(second.err()).toMatch(new RegExp(`is already on the queue: ${4 - kept} of its ${4 - kept} outstanding jobs found there`));
  expect(table(out)).toEqual(local);
  expect(rowIndexes(out)).toEqual([0, 1, 2, 3]);
  // The worker ran each job once: the restart added nothing twice.
  expect((w.err().match(/job \S+ done/g) ?? []).length).toBe(4);
});

test('a coordinator stopped by Ctrl+C: one line, exit 130, its results kept; the jobs stay on the queue and the same command collects them', async () => {
  const out = path.join(dir, 'ctrl-c');
  const w = worker(redis.url);
  const first = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
  await until('a first result', () => /job \d+ done/.test(first.err()));
  first.child.kill('SIGINT');
  expect(await first.exited).toBe(130);
  const kept = rowIndexes(out).length;
  expect(kept).toBeGreaterThanOrEqual(1);
  const last = first.err().trim().split('\n').slice(-1)[0];
  expect(last).toMatch(new RegExp(`^perpkit sweep: stopped by SIGINT: ${kept} of 4 jobs done \\(0 failed\\), their results kept in .*results\\.jsonl; no table written; the queued jobs stay on the queue and its workers go on with them: run the same command again to collect them`));
  const second = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
  expect(await second.exited).toBe(0);
  expect(second.err()).toContain(`resuming: ${kept} points done, kept`);
  expect(table(out)).toEqual(local);
  expect(rowIndexes(out)).toEqual([0, 1, 2, 3]);
  expect((w.err().match(/job \S+ done/g) ?? []).length).toBe(4);
});

test('no worker serving the queue: the coordinator says so once the jobs have waited idleNoticeMs; a stop signal ends the wait', async () => {
  const own = await startRedis();
  try {
    const c = loadBacktestConfig(cfg);
    const notices: string[] = [];
    const stop = new AbortController();
    const run = runQueuedJobs(c, sweepJobs(c), {
      url: own.url,
      graceMs: 2000,
      pollMs: 100,
      idleNoticeMs: 1500,
      signal: stop.signal,
      onNotice: (m) => {
        notices.push(m);
        if (m.startsWith('no job of sweep')) stop.abort('SIGINT');
      },
    });
    // It used to wait in silence for as long as no worker came.
    await expect(run).rejects.toBeInstanceOf(SweepStopped);
    expect(notices.filter((m) => m.startsWith('no job'))).toEqual([expect.stringMatching(new RegExp(`^no job of sweep [0-9a-f]{16} has run for [12] s \\(4 waiting\\): is a worker serving this queue\\? Start one with perpkit worker --queue ${own.url}$`))]);
  } finally {
    await own.stop();
  }
});

test('a worker stopped while a job runs: the first SIGINT waits for it and says how to quit at once; the second quits, exit 130', async () => {
  const own = await startRedis();
  try {
    const long = writeConfig(dir, 'long.yaml', { strategies: [MM, { id: 'slow', module: './slow.js', params: { ms: 60_000 } }], sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.skewBps': ['1'] } } });
    const w = worker(own.url);
    cli(['sweep', long, '--queue', own.url, '--out', path.join(dir, 'long-out')]);
    await until('the job running', async () => (await activeJobs(own.url)) === 1);
    w.child.kill('SIGINT');
    await until('the stop line', () => /stopping/.test(w.err()));
    expect(w.err()).toContain('stopping: waiting for the running jobs (1; Ctrl+C again to quit at once, and they run again on another worker)\n');
    // A job of a minute (or one without sweep.jobTimeoutMs that never ends): the second signal.
    w.child.kill('SIGINT');
    expect(await w.exited).toBe(130);
    expect(w.err()).toMatch(/perpkit worker: stopped at once by SIGINT; 1 job\(s\) cut short run again on another worker once their lock lapses \(--lock-ms\); 0 job\(s\) run, 0 failed, 0 refused\n$/);
  } finally {
    await own.stop();
  }
});

test('a worker refuses data whose bytes differ from the digest in the job; the sweep fails with the reason', async () => {
  const { dir: d2 } = await recording(6, 12);
  const rec = path.join(d2, 'rec.jsonl.gz');
  const cfg2 = writeConfig(d2, 'sw.yaml', { strategies: [MM], sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.skewBps': ['1', '3'] } } });
  const out = path.join(d2, 'out');
  const c = cli(['sweep', cfg2, '--queue', redis.url, '--out', out]);
  await until('the jobs on the queue', () => /0\/2 done, 0 running, 2 waiting/.test(c.err()));
  // Now the file changes under the sweep (another version of the recording on this machine).
  const { file: other } = await recording(6, 13);
  writeFileSync(rec, readFileSync(other));
  const w = worker(redis.url);
  expect(await c.exited).toBe(1);
  expect(c.err()).toMatch(/perpkit sweep: 2 of 2 jobs failed; first: job 0 .*failed on the queue: worker \S+: data file .*rec\.jsonl\.gz on this worker has sha256 [0-9a-f]{64} .*refusing to run on different bytes/);
  expect(w.err()).toMatch(/REFUSED: data file/);
  expect(rowIndexes(out)).toEqual([0, 1]);
});

test('Redis unreachable: one line, exit 1, nothing half done', async () => {
  const port = await freePort();
  const c = cli(['sweep', cfg, '--queue', `redis://127.0.0.1:${port}`, '--grace-ms', '500', '--out', path.join(dir, 'nowhere')]);
  expect(await c.exited).toBe(1);
  const lines = c.err().trim().split('\n').filter((l) => l.startsWith('perpkit sweep:'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`Redis at redis://127\\.0\\.0\\.1:${port} is unreachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\); gave up after 0\\.5 s of retries; 0 job\\(s\\) done \\(0 failed\\), their results kept in .*results\\.jsonl`));
  const w = worker(`redis://127.0.0.1:${port}`);
  expect(await w.exited).toBe(1);
  expect(w.err()).toMatch(/perpkit worker: Redis at .* is unreachable/);
});

// redis://host:port/99 on a server of 16 databases: ioredis said so on its error event and went on
// in database 0, where the sweep's jobs met the workers of another queue.
test('a --queue URL naming a database the server does not have: one line saying so, exit 1, for the sweep and the worker', async () => {
  const url = `${redis.url}/99`;
  const c = cli(['sweep', cfg, '--queue', url, '--grace-ms', '500', '--out', path.join(dir, 'no-db')]);
  expect(await c.exited).toBe(1);
  const lines = c.err().trim().split('\n').filter((l) => l.startsWith('perpkit sweep:'));
  expect(lines).toEqual([expect.stringMatching(/^perpkit sweep: Redis at redis:\/\/127\.0\.0\.1:\d+\/99 has no database 99 \(ERR DB index is out of range\): give one it has/) as unknown]);
  const w = worker(url);
  expect(await w.exited).toBe(1);
  expect(w.err()).toMatch(/perpkit worker: Redis at .*\/99 has no database 99/);
});

test('Redis gone mid-sweep: coordinator and worker stop with a clear error; the finished results are kept', async () => {
  const own = await startRedis();
  try {
    const out = path.join(dir, 'gone');
    const w = worker(own.url);
    const c = cli(['sweep', cfg, '--queue', own.url, '--grace-ms', '1000', '--out', out]);
    await until('a first result', () => /job \d+ done/.test(c.err()));
    await own.kill();
    expect(await c.exited).toBe(1);
    const kept = rowIndexes(out);
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(c.err()).toMatch(new RegExp(`perpkit sweep: Redis at ${own.url} is unreachable .*; ${kept.length} job\\(s\\) done \\(0 failed\\), their results kept in .*results\\.jsonl; run the same command again to resume \\(they are not run again\\)`));
    expect(await w.exited).toBe(1);
    expect(w.err()).toMatch(/perpkit worker: Redis at .* is unreachable/);

    // As it says: a fresh Redis (the old one held the queue in memory), the same command.
    const fresh = await startRedis();
    try {
      const w2 = worker(fresh.url);
      const again = cli(['sweep', cfg, '--queue', fresh.url, '--grace-ms', '1000', '--out', out]);
      expect(await again.exited).toBe(0);
      expect(again.err()).toContain(`resuming: ${kept.length} points done, kept`);
      // Only the jobs not in results.jsonl ran; every job has one row; the local run's table.
      expect(ranOn(w2)).toEqual([0, 1, 2, 3].filter((i) => !kept.includes(i)));
      expect(rowIndexes(out)).toEqual([0, 1, 2, 3]);
      expect(table(out)).toEqual(local);
    } finally {
      await fresh.stop();
    }
  } finally {
    await own.stop();
  }
});

test('a worker with no job running stops at once on SIGINT, also when Redis is gone (it used to wait for Redis forever)', async () => {
  const own = await startRedis();
  try {
    // A long grace: the worker must not be saved by giving up on Redis by itself.
    const w = worker(own.url, '--grace-ms', '60000');
    await until('the worker waiting', () => w.out().includes('waiting for sweep jobs'));
    await own.kill();
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    w.child.kill('SIGINT');
    expect(await w.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(w.out()).toContain('worker stopped: 0 job(s) run, 0 failed, 0 refused');
  } finally {
    await own.stop();
  }
});

test('without --resume, a results.jsonl of another sweep is not taken: said, and the sweep runs afresh', async () => {
  const out = path.join(dir, 'other-rows');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'results.jsonl'), `${JSON.stringify({ sweep: '0000000000000000', result: { index: 0, point: {}, seed: 1 } })}\n`);
  const w = worker(redis.url);
  const c = cli(['sweep', cfg, '--queue', redis.url, '--out', out]);
  expect(await c.exited).toBe(0);
  expect(c.err()).toMatch(/perpkit sweep: not resuming from .*results\.jsonl: it holds rows of another sweep \(0000000000000000; this one is [0-9a-f]{16}\); starting this sweep afresh/);
  expect(table(out)).toEqual(local);
  expect(rowIndexes(out)).toEqual([0, 1, 2, 3]);
  expect(ranOn(w)).toEqual([0, 1, 2, 3]);
});
