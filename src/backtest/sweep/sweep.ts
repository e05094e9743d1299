/**
 * A parameter sweep: the points of the config's `sweep` block as jobs, run on a worker pool, ranked.
 * The replay caches are built once here before any job starts, so workers only read them.
 */
import type { BacktestConfig } from '../backtest/config';
import { openSource } from '../backtest/open-source';
import type { JobResult, SweepJob } from './job';
import { jobSeed, sweepPoints } from './points';
import { runPool } from './pool';
import { rank, type RankedRow } from './table';

export interface SweepOutcome {
  jobs: SweepJob[];
  results: JobResult[];
  ranked: RankedRow[];
  keys: string[];
}

export function sweepJobs(cfg: BacktestConfig): SweepJob[] {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  return sweepPoints(s).map((point, index) => ({ configFile: cfg.file, index, point, seed: jobSeed(s.seed, index) }));
}

export async function runSweep(cfg: BacktestConfig, opts: { workers: number; workerFile?: string; onResult?: (r: JobResult, done: number, total: number) => void; onNotice?: (m: string) => void }): Promise<SweepOutcome> {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const jobs = sweepJobs(cfg);
  if (cfg.data.cache) {
    const { source } = await openSource(cfg.data.files, { cache: true, onNotice: opts.onNotice });
    await source.close();
  }
  const results = await runPool(jobs, { workers: opts.workers, workerFile: opts.workerFile, onResult: opts.onResult });
  return { jobs, results, ranked: rank(results, s.metric, s.order), keys: s.params.map((p) => p.key) };
}
