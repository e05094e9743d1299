/**
 * A queue worker (`perpkit worker --queue redis://…`): takes sweep jobs from the BullMQ queue and
 * runs each on a worker thread of a `JobPool`, `concurrency` at a time. Before a sweep's first job
 * it checks the config and data files against the digests in the job (refusing different bytes)
 * and builds the replay caches once, in this thread. BullMQ renews the job's lock while the
 * thread works; a worker that dies (SIGKILL, power) stops renewing it, and another worker's
 * stalled-job check puts the job back on the queue.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { openSource } from '../backtest/open-source';
import { filesMismatch, type JobFiles } from './files';
import type { JobResult } from './job';
import { JobPool } from './pool';
import { connectQueue, QUEUE_NAME, type QueueConnection, type QueueJobData, type QueueUnavailableError } from './queue';

export interface QueueWorkerOptions {
  url: string;
  concurrency: number;
  /** How long Redis may be unreachable before the worker gives up. */
  graceMs: number;
  /**
   * The job lock's lifetime (renewed at half of it while a job runs) and the period of the
   * stalled-job check: a killed worker's job is back on the queue within about twice this.
   */
  lockMs: number;
  workerFile?: string;
  onJob?: (e: { id: string; sweep: string; index: number; ms: number; result: JobResult }) => void;
  onRefused?: (e: { id: string; reason: string }) => void;
  /**
   * This worker starts a job that was started before: the worker that had it stopped holding it
   * (killed, or lost its lock) and the stalled-job check put it back. `attempt`: this start's
   * number; `stalled`: times it was taken back so far.
   */
  onRetry?: (e: { id: string; sweep: string; index: number; attempt: number; stalled: number }) => void;
  onNotice?: (m: string) => void;
}

export interface QueueWorkerHandle {
  /** Resolves when the worker stopped because Redis stayed unreachable. */
  gone: Promise<QueueUnavailableError>;
  /** Waits for the running jobs, then stops. */
  close(): Promise<void>;
  /** Jobs this worker is running now. */
  running(): number;
}

export async function startQueueWorker(opts: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const conn: QueueConnection = connectQueue(opts.url, opts.graceMs);
  // Connected before BullMQ makes connections of its own: on a database the URL names and the
  // server lacks, those went on in database 0 and kept the process alive after its message.
  await conn.ready;
  const pool = new JobPool(opts.concurrency, opts.workerFile);
  // Per set of files (config and data digests): checked and cached once.
  const prepared = new Map<string, Promise<string | undefined>>();
  const prepare = (files: JobFiles): Promise<string | undefined> => {
    const key = [files.config.sha256, ...files.data.map((d) => d.sha256)].join(':');
    let p = prepared.get(key);
    if (p === undefined) {
      p = (async () => {
        const bad = await filesMismatch(files);
        if (bad !== undefined) return bad;
        const { source } = await openSource(files.data.map((d) => d.path), { cache: true, onNotice: opts.onNotice });
        await source.close();
        return undefined;
      })();
      // A failed check is not remembered: the files may be fixed while the worker runs.
      p.then((bad) => bad !== undefined && prepared.delete(key), () => prepared.delete(key));
      prepared.set(key, p);
    }
    return p;
  };

  /** Jobs this worker is running now. */
  let running = 0;
  const worker = new Worker<QueueJobData, JobResult>(
    QUEUE_NAME,
    async (job: Job<QueueJobData, JobResult>) => {
      running++;
      try {
        const t0 = performance.now();
        const { job: sweepJob, files, jobTimeoutMs } = job.data;
        if (job.attemptsStarted > 1) opts.onRetry?.({ id: job.id ?? '', sweep: job.data.sweep, index: sweepJob.index, attempt: job.attemptsStarted, stalled: job.stalledCounter });
        const bad = await prepare(files);
        if (bad !== undefined) {
          opts.onRefused?.({ id: job.id ?? '', reason: bad });
          throw new UnrecoverableError(`worker ${hostname()}: ${bad}`);
        }
        const result = await pool.run(sweepJob, jobTimeoutMs);
        opts.onJob?.({ id: job.id ?? '', sweep: job.data.sweep, index: sweepJob.index, ms: performance.now() - t0, result });
        return result;
      } finally {
        running--;
      }
    },
    { connection: conn.redis, concurrency: opts.concurrency, lockDuration: opts.lockMs, stalledInterval: opts.lockMs, maxStalledCount: 2, autorun: false },
  );
  worker.on('error', () => undefined); // connection errors end in conn.gone
  await Promise.race([worker.waitUntilReady(), conn.gone.then((g) => Promise.reject(g))]);
  void worker.run().catch(() => undefined);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    // Running jobs are waited for; with none, or once Redis is gone, there is nothing to wait for
    // (a graceful close waits on Redis, and with Redis down it never ended: a worker stopped with
    // Ctrl-C then hung).
    const graceful = running === 0 ? worker.close(true) : Promise.race([worker.close(), conn.gone.then(() => worker.close(true))]);
    await graceful.catch(() => undefined);
    await pool.destroy();
    await conn.close();
  };
  const gone = conn.gone.then(async (g) => {
    if (!closed) {
      closed = true;
      await worker.close(true).catch(() => undefined);
      await pool.destroy();
    }
    return g;
  });
  return { gone, close, running: () => running };
}
