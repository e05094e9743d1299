/**
 * sweep-queue: what the BullMQ queue costs against local worker threads. The same 64-job sweep
 * (a market maker over 8 x 8 parameter points on a short synthetic recording, each job a fraction
 * of a second) runs
 *  (a) locally on 2 worker threads as `perpkit sweep` does (`runSweep`: a new pool per sweep, so
 *      its threads start and warm up inside the timing),
 *  (b) locally on a warm pool of 2 threads kept across runs (`JobPool`): the fair baseline, since
 *      queue workers are long-lived processes,
 *  (c) through a real redis-server on a free loopback port with 2 `perpkit worker` processes of
 *      concurrency 1 already started (`runQueuedSweep`: hash, enqueue, poll, collect, remove),
 *  (d) through the queue with 1 worker, for the scaling figure.
 * Runs alternate, after a warm-up of each that also builds the replay cache; each figure is the
 * median of BENCH_SWEEP_RUNS (default 3). Needs `npm run build` (the bench script does it) and
 * redis-server (Debian's package).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { runQueuedSweep } from '../../src/backtest/sweep/coordinator';
import { JobPool } from '../../src/backtest/sweep/pool';
import { runSweep, sweepJobs } from '../../src/backtest/sweep/sweep';
import { synthesize } from '../../src/market-data/synth';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import { startRedis } from '../../test/helpers/redis';
import { median, round, type BenchResult } from '../harness';
import { registerSuite } from './registry';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BIN = path.join(ROOT, 'bin', 'perpkit.js');

function startWorker(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', '--queue', url, '--concurrency', '1', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('waiting for sweep jobs')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`perpkit worker exited (${code}) before it was ready`)));
  });
}

async function run(): Promise<BenchResult[]> {
  const runs = Number(process.env.BENCH_SWEEP_RUNS ?? 3);
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bench-sweep-'));
  const redis = await startRedis();
  const workers: ChildProcess[] = [];
  try {
    await synthesize({ out: path.join(dir, 'rec.jsonl.gz'), market: synthSymbolsOf(), symbols: ['BTCUSDT'], hours: 5 / 60, seed: 5, tradeRate: 3 });
    const file = path.join(dir, 'sweep.yaml');
    const values = (from: number): string[] => Array.from({ length: 8 }, (_, i) => String(from + i));
    writeFileSync(
      file,
      stringify({
        data: { files: ['rec.jsonl.gz'] },
        account: { balance: '10000' },
        strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '2', skewBps: '3', refreshMs: 1000 } }],
        sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': values(2), 'mm.skewBps': values(1) } },
      }),
    );
    const cfg = loadBacktestConfig(file);
    const local = async (): Promise<number> => {
      const t0 = performance.now();
      const o = await runSweep(cfg, { workers: 2 });
      if (o.results.some((r) => r.error !== undefined)) throw new Error('a local job failed');
      return performance.now() - t0;
    };
    const queued = async (): Promise<number> => {
      const t0 = performance.now();
      const o = await runQueuedSweep(cfg, { url: redis.url, graceMs: 5000 });
      if (o.results.some((r) => r.error !== undefined)) throw new Error('a queued job failed');
      return performance.now() - t0;
    };
    const pool = new JobPool(2);
    const warm = async (): Promise<number> => {
      const t0 = performance.now();
      const rs = await Promise.all(sweepJobs(cfg).map((j) => pool.run(j)));
      if (rs.some((r) => r.error !== undefined)) throw new Error('a warm-pool job failed');
      return performance.now() - t0;
    };
    workers.push(await startWorker(redis.url));
    await local();
    await warm();
    await queued();
    const one: number[] = [];
    for (let i = 0; i < runs; i++) one.push(await queued());
    workers.push(await startWorker(redis.url));
    await queued();
    const l: number[] = [];
    const wl: number[] = [];
    const q: number[] = [];
    for (let i = 0; i < runs; i++) {
      l.push(await local());
      wl.push(await warm());
      q.push(await queued());
    }
    await pool.destroy();
    const lm = median(l);
    const wm = median(wl);
    const qm = median(q);
    return [
      { name: '64 jobs, 2 worker threads, perpkit sweep (new pool, median)', value: round(lm, 0), unit: 'ms' },
      { name: '64 jobs, 2 worker threads, warm pool (median)', value: round(wm, 0), unit: 'ms' },
      { name: '64 jobs, queue, 2 worker processes (median)', value: round(qm, 0), unit: 'ms' },
      { name: 'queue overhead vs warm threads (goal <= 10 %)', value: round(((qm - wm) / wm) * 100, 1), unit: '%' },
      { name: 'queue overhead vs perpkit sweep threads', value: round(((qm - lm) / lm) * 100, 1), unit: '%' },
      { name: '64 jobs, queue, 1 worker process (median)', value: round(median(one), 0), unit: 'ms' },
      { name: 'queue speed-up 2 workers vs 1', value: round(median(one) / qm, 2), unit: 'x' },
      { name: 'runs per figure', value: runs, unit: 'runs' },
    ];
  } finally {
    for (const w of workers) {
      w.kill('SIGTERM');
      await new Promise((r) => (w.exitCode !== null ? r(undefined) : w.once('exit', r)));
    }
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

registerSuite({ name: 'sweep-queue', description: 'a 64-job sweep on the BullMQ queue (2 worker processes) against 2 local worker threads', run });
