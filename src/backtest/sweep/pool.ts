/**
 * Runs sweep jobs on worker threads through piscina (a maintained pool: it replaces a worker that
 * dies, and ends a task on an AbortSignal by ending its worker). A job whose worker crashed
 * (`process.exit`, an uncaught error, out of memory) or that ran past `jobTimeoutMs` becomes a
 * result with its error: no job is lost, and the sweep says which failed. Results are stored by
 * job index, so their order (and the ranking built from them) does not depend on how many
 * workers ran or which finished first.
 *
 * `JobPool` is the one place a job meets a thread: the local sweep (`runPool`) and the queue
 * worker (`perpkit worker`) both run jobs through it, so a job fails with the same words in both.
 */
import { existsSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import * as path from 'node:path';
import { Piscina } from 'piscina';
import { plainResult, runJob, type JobResult, type SweepJob } from './job';
import type { ThreadData, ThreadReply, ThreadTask } from './thread-job';

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
  /**
   * Stops the run (Ctrl+C): no further job starts, the running ones are ended with their threads
   * and give no result, and the run rejects with SweepStopped. The results given to onResult
   * before are the run's.
   */
  signal?: AbortSignal;
}

/** A sweep stopped by its signal (Ctrl+C, SIGTERM) before every job finished. */
export class SweepStopped extends Error {
  constructor(readonly reason: string) {
    super(`stopped by ${reason}`);
    this.name = 'SweepStopped';
  }
}

const stopReason = (signal: AbortSignal): string => (typeof signal.reason === 'string' ? signal.reason : 'a stop request');

/** Resolves when the signal aborts (never without one); the listener goes with `done`. */
export function whenAborted(signal: AbortSignal | undefined): { promise: Promise<void>; done: () => void } {
  if (signal === undefined) return { promise: new Promise<void>(() => undefined), done: () => undefined };
  let listener: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    listener = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', listener, { once: true });
  });
  return { promise, done: () => signal.removeEventListener('abort', listener) };
}

/** Throws SweepStopped when the signal has aborted. */
export function throwIfStopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new SweepStopped(stopReason(signal));
}

export const failedResult = (job: SweepJob, error: string): JobResult => ({ index: job.index, point: job.point, seed: job.seed, summary: undefined, error });

/**
 * Worker threads that run jobs; `threads` 0 runs them in this thread, one after another (no
 * isolation between jobs: for debugging). A thread whose job left real timers or handles behind
 * (thread-job.ts) lists itself in `retired` before replying; the balancer gives it no further job
 * and `run` ends it, so nothing of one job reaches the next.
 */
export class JobPool {
  private readonly pool: Piscina | undefined;
  private readonly retired: Int32Array;

  constructor(threads: number, workerFile?: string) {
    const data: ThreadData = { retired: new SharedArrayBuffer(4 * Math.max(1, threads) * 2) };
    this.retired = new Int32Array(data.retired);
    if (threads <= 0) return;
    const file = workerFile ?? defaultWorkerFile();
    if (!existsSync(file)) throw new Error(`sweep worker ${file} does not exist (run npm run build)`);
    const retired = this.retired;
    const isRetired = (id: number): boolean => {
      for (let i = 0; i < retired.length; i++) if (Atomics.load(retired, i) === id) return true;
      return false;
    };
    this.pool = new Piscina({
      filename: file,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 1000,
      workerData: data,
      // One job a thread (piscina's default), never on a retiring thread.
      loadBalancer: (_task, workers) => workers.find((w) => w.currentUsage === 0 && !w.terminating && !isRetired(w.id)) ?? null,
    });
  }

  /**
   * The job's result; never throws: a crashed or timed-out job is a result with its error.
   * `jobTimeoutMs` counts from the moment the job starts on its thread, which says so through a
   * port: a job waiting for a free thread, or for a new thread to load, is not running yet (timed
   * from the call, the jobs of a sweep larger than its threads timed out in the queue, never run).
   */
  async run(job: SweepJob, jobTimeoutMs?: number): Promise<JobResult> {
    // In-process: for debugging and for environments without threads.
    if (this.pool === undefined) return plainResult(await runJob(job));
    for (;;) {
      let reply: ThreadReply;
      const stop = new AbortController();
      const { port1: started, port2: startedOnThread } = new MessageChannel();
      let timer: NodeJS.Timeout | undefined;
      if (jobTimeoutMs !== undefined) started.once('message', () => (timer = setTimeout(() => stop.abort(), jobTimeoutMs)));
      try {
        const task: ThreadTask = { job, started: startedOnThread };
        reply = (await this.pool.run(task, { signal: stop.signal, transferList: [startedOnThread] })) as ThreadReply;
      } catch (e) {
        const why = stop.signal.aborted ? `timed out after ${jobTimeoutMs} ms (sweep.jobTimeoutMs); the job's worker was ended` : `the job's worker failed: ${e instanceof Error ? e.message : String(e)}`;
        return failedResult(job, why);
      } finally {
        clearTimeout(timer);
        started.close();
      }
      if (reply.kind === 'refused') continue;
      if (reply.retire) await this.end(reply.thread);
      // Structured clone keeps NaN and -0, JSON (results.jsonl, the queue) does not: one form for all.
      return plainResult(reply.result);
    }
  }

  /** Ends a retiring thread (piscina starts its replacement) and frees its slot in `retired`. */
  private async end(thread: number): Promise<void> {
    const w = this.pool?.threads.find((t) => t.threadId === thread);
    if (w !== undefined) await w.terminate();
    for (let i = 0; i < this.retired.length; i++) Atomics.compareExchange(this.retired, i, thread, 0);
  }

  async destroy(): Promise<void> {
    await this.pool?.destroy();
  }
}

export async function runPool(jobs: SweepJob[], opts: PoolOptions): Promise<JobResult[]> {
  // Indexed by job index (jobs may be a subset of a sweep's, when resuming).
  const results: JobResult[] = [];
  let done = 0;
  const { signal } = opts;
  // Once stopped, what the ended jobs return (their threads were ended) is not a result.
  const finish = (r: JobResult): void => {
    if (signal?.aborted === true) return;
    results[r.index] = r;
    opts.onResult?.(r, ++done, jobs.length);
  };
  throwIfStopped(signal);
  if (jobs.length === 0) return results;
  if (opts.workers <= 0) {
    const inline = new JobPool(0);
    for (const j of jobs) {
      finish(await inline.run(j, undefined));
      throwIfStopped(signal);
    }
    return results;
  }
  const threads = Math.max(1, Math.min(opts.workers, jobs.length));
  const pool = new JobPool(threads, opts.workerFile);
  const aborted = whenAborted(signal);
  // A job a thread at a time, in order: the others wait here, not as tasks in the pool's queue
  // (a sweep of 100,000 points held as many tasks, each with its port, from the start).
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length && signal?.aborted !== true) finish(await pool.run(jobs[next++], opts.jobTimeoutMs));
  };
  try {
    await Promise.race([Promise.all(Array.from({ length: threads }, lane)), aborted.promise]);
    throwIfStopped(signal);
  } finally {
    aborted.done();
    await pool.destroy();
  }
  return results;
}
