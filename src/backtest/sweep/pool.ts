/**
 * Runs sweep jobs on worker threads. Each worker pulls the next job when it finishes one; results
 * are stored by job index, so their order (and the ranking built from them) does not depend on
 * how many workers ran or which finished first.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
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
  onResult?: (r: JobResult, done: number, total: number) => void;
}

export async function runPool(jobs: SweepJob[], opts: PoolOptions): Promise<JobResult[]> {
  const results: JobResult[] = new Array<JobResult>(jobs.length);
  let done = 0;
  if (opts.workers <= 0) {
    // In-process, one after another: for debugging and for environments without threads.
    for (const j of jobs) {
      results[j.index] = await runJob(j);
      opts.onResult?.(results[j.index], ++done, jobs.length);
    }
    return results;
  }
  const file = opts.workerFile ?? defaultWorkerFile();
  if (!existsSync(file)) throw new Error(`sweep worker ${file} does not exist (run npm run build)`);
  let next = 0;
  const n = Math.min(opts.workers, jobs.length);
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(file);
        const give = (): void => {
          if (next >= jobs.length) {
            void w.terminate().then(() => resolve());
            return;
          }
          w.postMessage(jobs[next++]);
        };
        w.on('message', (r: JobResult) => {
          results[r.index] = r;
          opts.onResult?.(r, ++done, jobs.length);
          give();
        });
        w.on('error', reject);
        give();
      }),
    ),
  );
  return results;
}
