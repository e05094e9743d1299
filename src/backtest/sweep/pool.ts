/**
 * Runs sweep jobs on worker threads through piscina (a maintained pool: it replaces a worker that
 * dies, and ends a task on an AbortSignal by ending its worker). A job whose worker crashed
 * (`process.exit`, an uncaught error, out of memory) or that ran past `jobTimeoutMs` becomes a
 * result with its error: no job is lost, and the sweep says which failed. Results are stored by
 * job index, so their order (and the ranking built from them) does not depend on how many
 * workers ran or which finished first.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Piscina } from 'piscina';
import { runJob, type JobResult, type SweepJob } from './job';

/** The compiled worker: beside this file when running from dist, else the build output. */
export function defaultWorkerFile(): string {
  const here = path.join(__dirname, 'worker.js');
  if (existsSync(here)) return here;
  return path.resolve(__dirname, '../../../dist/src/backtest/sweep/worker.js');
}

export interface PoolOptions {
  workers: number;
  workerFile?: string;
  /** A job running longer is ended (its worker with it) and recorded as failed; undefined: no limit. */
  jobTimeoutMs?: number;
  onResult?: (r: JobResult, done: number, total: number) => void;
}

const failed = (job: SweepJob, error: string): JobResult => ({ index: job.index, point: job.point, seed: job.seed, summary: undefined, error });

export async function runPool(jobs: SweepJob[], opts: PoolOptions): Promise<JobResult[]> {
  // Indexed by job index (jobs may be a subset of a sweep's, when resuming).
  const results: JobResult[] = [];
  let done = 0;
  const finish = (r: JobResult): void => {
    results[r.index] = r;
    opts.onResult?.(r, ++done, jobs.length);
  };
  if (opts.workers <= 0) {
    // In-process, one after another: for debugging and for environments without threads.
    for (const j of jobs) finish(await runJob(j));
    return results;
  }
  const file = opts.workerFile ?? defaultWorkerFile();
  if (!existsSync(file)) throw new Error(`sweep worker ${file} does not exist (run npm run build)`);
  const n = Math.max(1, Math.min(opts.workers, jobs.length));
  const pool = new Piscina({ filename: file, minThreads: n, maxThreads: n, idleTimeout: 1000 });
  try {
    await Promise.all(
      jobs.map(async (job) => {
        const signal = opts.jobTimeoutMs === undefined ? undefined : AbortSignal.timeout(opts.jobTimeoutMs);
        try {
          finish((await pool.run(job, signal === undefined ? {} : { signal })) as JobResult);
        } catch (e) {
          const why = signal?.aborted === true ? `timed out after ${opts.jobTimeoutMs} ms (sweep.jobTimeoutMs); the job's worker was ended` : `the job's worker failed: ${e instanceof Error ? e.message : String(e)}`;
          finish(failed(job, why));
        }
      }),
    );
  } finally {
    await pool.destroy();
  }
  return results;
}
