/**
 * The coordinator of a sweep on a BullMQ queue (`perpkit sweep --queue redis://…`): it adds one
 * job per point, under an id made of the sweep's identity and the point's index, and collects each
 * job's result from Redis exactly once, by index. Because the ids are fixed, a restarted
 * coordinator adds nothing twice and picks up the results workers finished meanwhile; because a
 * result is read from the job BullMQ marked completed (a worker that lost its lock cannot complete
 * it), a job retried after its worker died is counted once; its result carries its `attempts`, and
 * `onRetry` says it ran again. The table is built by the same `rank`
 * from the same plain results as a local sweep, so it is the same bytes for any number of workers.
 */
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { BacktestConfig } from '../backtest/config';
import { plainResult, type JobResult, type SweepJob } from './job';
import { jobFilesOf, type JobFiles } from './files';
import { failedResult, SweepStopped, throwIfStopped, whenAborted } from './pool';
import { connectQueue, queueJobId, QUEUE_NAME, QueueUnavailableError, redactUrl, type QueueJobData } from './queue';
import { preparedSweep, rankResults, type SweepOutcome } from './sweep';

export interface QueueProgress {
  total: number;
  done: number;
  failed: number;
  running: number;
  waiting: number;
  /** Estimated time to the end, from this run's completion rate; undefined before the first. */
  etaMs: number | undefined;
}

export interface QueuedSweepOptions {
  url: string;
  /** How long Redis may be unreachable before the sweep gives up. */
  graceMs: number;
  /**
   * Finished results of an earlier run of the same sweep (results.jsonl): not run again. A failed
   * one is kept as failed, as the queue would give it back, unless `rerunFailed`.
   */
  done?: JobResult[];
  /** --resume: jobs that failed in an earlier run (in `done` or on the queue) are run again (as locally). */
  rerunFailed?: boolean;
  pollMs?: number;
  onResult?: (r: JobResult, done: number, total: number) => void;
  onProgress?: (p: QueueProgress) => void;
  onNotice?: (m: string) => void;
  /**
   * A job was taken back from a worker that stopped holding it (killed, or lost its lock) and runs
   * again: once per job, when the coordinator sees it stalled, or else when it collects its result.
   */
  onRetry?: (r: JobRetry) => void;
  /**
   * Stops collecting (Ctrl+C): rejects with SweepStopped. The jobs stay on the queue and the
   * workers go on with them; the same command collects them later.
   */
  signal?: AbortSignal;
  /**
   * After this long with no job of the sweep running or finishing (no worker serves the queue),
   * onNotice says so, once per such stretch; default 30000.
   */
  idleNoticeMs?: number;
}

export interface QueuedSweepOutcome extends SweepOutcome {
  queueId: string;
}

/** The sweep's identity on the queue: its config's bytes, its points and seeds, its data's bytes, its strategies' code. */
export function queueSweepId(files: JobFiles, jobs: SweepJob[]): string {
  const h = createHash('sha256').update(files.config.sha256);
  for (const d of files.data) h.update(`\0${d.sha256}`);
  h.update(JSON.stringify(jobs.map((j) => [j.index, j.point, j.seed, j.window ?? null, j.keepEquity === true, j.code ?? null])));
  return h.digest('hex').slice(0, 16);
}

/**
 * What Redis holds for one job, read from its hash: `attempts` is BullMQ's count of the job's
 * starts (`ats`), `stalled` of the times it was taken back from a worker that stopped holding it
 * (`stc`).
 */
type Slot = { kind: 'missing' } | { kind: 'pending'; stalled: number } | { kind: 'completed'; result: JobResult; attempts: number; stalled: number } | { kind: 'failed'; reason: string; attempts: number; stalled: number };

/** A job of the sweep run again: the worker that had it stopped (killed, or lost its lock). */
export interface JobRetry {
  index: number;
  /** The queue's job id. */
  id: string;
  /** Times it was taken back from a worker that stopped holding it. */
  stalled: number;
  /** Times it was started, once it finished; undefined while it is still on the queue. */
  attempts?: number;
}

const count = (v: string | null): number => (v === null || !/^\d+$/.test(v) ? 0 : Number(v));

/** Waits `ms`, or less when the signal aborts. */
const sleep = async (ms: number, signal: AbortSignal | undefined): Promise<void> => {
  const aborted = whenAborted(signal);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([new Promise<void>((r) => (timer = setTimeout(r, ms))), aborted.promise]);
  } finally {
    clearTimeout(timer);
    aborted.done();
  }
};
const BATCH = 500;

export async function runQueuedSweep(cfg: BacktestConfig, opts: QueuedSweepOptions & { jobs?: SweepJob[] }): Promise<QueuedSweepOutcome> {
  // The jobs as preparedSweep gave them (not checked again), else prepared here.
  const { sweep: s, jobs } = opts.jobs !== undefined && cfg.sweep !== undefined ? { sweep: cfg.sweep, jobs: opts.jobs } : await preparedSweep(cfg, opts.signal);
  const { results, queueId } = await runQueuedJobs(cfg, jobs, opts);
  return { jobs, results, ranked: rankResults(cfg, results), keys: s.params.map((p) => p.key), queueId };
}

/**
 * Runs `jobs` (a sweep's points, or the windows of a walk-forward) on the queue; the results are
 * indexed by job index. The config gives the files (hashed here) and sweep.jobTimeoutMs.
 */
export async function runQueuedJobs(cfg: BacktestConfig, jobs: SweepJob[], opts: QueuedSweepOptions): Promise<{ results: JobResult[]; queueId: string }> {
  opts.onNotice?.(`hashing the config and ${cfg.data.files.length} data file(s) (sha256, checked by every worker)`);
  const files = await jobFilesOf(cfg);
  const queueId = queueSweepId(files, jobs);
  const jobTimeoutMs = cfg.sweep?.jobTimeoutMs;
  const total = jobs.length;

  // Indexed by job index (a walk-forward's indexes do not start at 0).
  const results: JobResult[] = [];
  const ours = new Set(jobs.map((j) => j.index));
  for (const r of opts.done ?? []) if (ours.has(r.index) && (r.error === undefined || opts.rerunFailed !== true)) results[r.index] = r;
  let collected = results.filter((r) => r !== undefined).length;
  let failed = results.filter((r) => r !== undefined && r.error !== undefined).length;

  const conn = connectQueue(opts.url, opts.graceMs);
  const queue = new Queue<QueueJobData, JobResult>(QUEUE_NAME, { connection: conn.redis });
  queue.on('error', () => undefined); // the connection's errors are reported through conn.gone
  const guard = <T>(p: Promise<T>): Promise<T> =>
    Promise.race([
      p.catch((e: unknown) => {
        // A command failing because the connection gave up: say that, not "Connection is closed."
        if (conn.redis.status === 'end') return conn.gone.then((g) => Promise.reject(g));
        throw e;
      }),
      conn.gone.then((g) => Promise.reject(g)),
    ]);

  const data = (job: SweepJob): QueueJobData => ({ sweep: queueId, job, jobTimeoutMs, files });
  const add = async (list: SweepJob[]): Promise<void> => {
    for (let i = 0; i < list.length; i += BATCH) {
      await guard(queue.addBulk(list.slice(i, i + BATCH).map((job) => ({ name: 'sweep-job', data: data(job), opts: { jobId: queueJobId(queueId, job.index), attempts: 1, removeOnComplete: false, removeOnFail: false } }))));
    }
  };
  const read = async (list: SweepJob[]): Promise<Slot[]> => {
    const out: Slot[] = [];
    for (let i = 0; i < list.length; i += BATCH) {
      const pipe = conn.redis.pipeline();
      for (const job of list.slice(i, i + BATCH)) pipe.hmget(queue.toKey(queueJobId(queueId, job.index)), 'timestamp', 'finishedOn', 'returnvalue', 'failedReason', 'ats', 'stc');
      const replies = (await guard(pipe.exec())) ?? [];
      for (const [err, v] of replies) {
        if (err) throw err;
        const [ts, finishedOn, rv, reason, ats, stc] = v as Array<string | null>;
        if (ts === null) out.push({ kind: 'missing' });
        else if (finishedOn === null) out.push({ kind: 'pending', stalled: count(stc) });
        else if (rv !== null && rv !== 'null') out.push({ kind: 'completed', result: plainResult(JSON.parse(rv) as JobResult), attempts: count(ats), stalled: count(stc) });
        else out.push({ kind: 'failed', reason: reason ?? 'failed without a reason', attempts: count(ats), stalled: count(stc) });
      }
    }
    return out;
  };
  const remove = async (list: SweepJob[]): Promise<void> => {
    for (let i = 0; i < list.length; i += BATCH) await guard(Promise.all(list.slice(i, i + BATCH).map((job) => queue.remove(queueJobId(queueId, job.index)))));
  };

  try {
    throwIfStopped(opts.signal);
    await guard(queue.waitUntilReady());
    let outstanding = jobs.filter((j) => results[j.index] === undefined);
    // A restarted coordinator: what the queue already holds for this sweep.
    const slots = await read(outstanding);
    const again = (x: Slot): boolean => opts.rerunFailed === true && (x.kind === 'failed' || (x.kind === 'completed' && x.result.error !== undefined));
    const rerun = outstanding.filter((_, i) => again(slots[i]));
    await remove(rerun);
    const onQueue = slots.filter((x) => x.kind !== 'missing').length - rerun.length;
    if (onQueue > 0) opts.onNotice?.(`sweep ${queueId} is already on the queue: ${onQueue} of its ${outstanding.length} outstanding jobs found there (finished ones are collected, the rest keep running)`);
    await add(outstanding.filter((_, i) => slots[i].kind === 'missing' || again(slots[i])));

    const t0 = performance.now();
    // Jobs whose run again was said (onRetry), once each.
    const retold = new Set<number>();
    const retry = (job: SweepJob, stalled: number, attempts?: number): void => {
      if (retold.has(job.index)) return;
      retold.add(job.index);
      opts.onRetry?.({ index: job.index, id: queueJobId(queueId, job.index), stalled, ...(attempts !== undefined ? { attempts } : {}) });
    };
    let collectedHere = 0;
    let lastProgress = 0;
    const idleNoticeMs = opts.idleNoticeMs ?? 30_000;
    // Since when no job of the sweep has run or finished, and whether that was said.
    let idleSince = t0;
    let idleCollected = 0;
    let idleTold = false;
    // Every outstanding job's hash is read once a poll: 100 ms for small sweeps, longer for large
    // ones (10,000 outstanding jobs: once a second), so Redis sees at most ~10,000 reads a second.
    const pollMs = (): number => opts.pollMs ?? Math.max(100, Math.ceil(outstanding.length / 10));
    for (;;) {
      const now = await read(outstanding);
      const still: SweepJob[] = [];
      const missing: SweepJob[] = [];
      outstanding.forEach((job, i) => {
        const slot = now[i];
        if (slot.kind === 'pending') {
          still.push(job);
          if (slot.stalled > 0) retry(job, slot.stalled);
        } else if (slot.kind === 'missing') {
          still.push(job);
          missing.push(job);
        } else {
          const ran = slot.kind === 'completed' ? slot.result : failedResult(job, `failed on the queue: ${slot.reason}`);
          if (ran.index !== job.index) throw new Error(`queue job ${queueJobId(queueId, job.index)} holds the result of job ${ran.index}`);
          // Counted once (the result BullMQ marked completed), and said to have run more than once.
          const r: JobResult = slot.attempts > 1 ? { ...ran, attempts: slot.attempts } : ran;
          if (slot.attempts > 1) retry(job, slot.stalled, slot.attempts);
          results[job.index] = r;
          collected++;
          collectedHere++;
          if (r.error !== undefined) failed++;
          opts.onResult?.(r, collected, total);
        }
      });
      if (missing.length > 0) {
        // Gone from Redis (flushed, or a Redis restarted without persistence): added again.
        opts.onNotice?.(`${missing.length} job(s) of sweep ${queueId} vanished from the queue; adding them again`);
        await add(missing);
      }
      outstanding = still;
      const tNow = performance.now();
      if ((opts.onProgress || opts.onNotice) && (outstanding.length === 0 || tNow - lastProgress >= 1000)) {
        lastProgress = tNow;
        const prefix = `${queueId}-`;
        const active = (await guard(conn.redis.lrange(queue.toKey('active'), 0, -1))).filter((id) => id.startsWith(prefix)).length;
        const running = Math.min(active, outstanding.length);
        const etaMs = collectedHere === 0 ? undefined : ((tNow - t0) / collectedHere) * outstanding.length;
        opts.onProgress?.({ total, done: collected, failed, running, waiting: outstanding.length - running, etaMs });
        // Jobs waiting and none running or finishing: most likely no worker serves this queue.
        if (running > 0 || collectedHere !== idleCollected || outstanding.length === 0) {
          idleSince = tNow;
          idleCollected = collectedHere;
          idleTold = false;
        } else if (!idleTold && tNow - idleSince >= idleNoticeMs) {
          idleTold = true;
          opts.onNotice?.(`no job of sweep ${queueId} has run for ${Math.round((tNow - idleSince) / 1000)} s (${outstanding.length} waiting): is a worker serving this queue? Start one with perpkit worker --queue ${redactUrl(opts.url)}`);
        }
      }
      if (outstanding.length === 0) break;
      await sleep(pollMs(), opts.signal);
      throwIfStopped(opts.signal);
    }
    // Every result is in the caller's hands (results.jsonl): the sweep's jobs leave Redis.
    await remove(jobs);
    return { results, queueId };
  } catch (e) {
    if (e instanceof QueueUnavailableError || e instanceof SweepStopped) throw e;
    if (conn.redis.status === 'end') throw await conn.gone;
    throw e;
  } finally {
    await queue.close().catch(() => undefined);
    await conn.close();
  }
}
