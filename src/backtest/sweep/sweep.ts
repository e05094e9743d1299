/**
 * A parameter sweep: the points of the config's `sweep` block as jobs, run on a worker pool, ranked.
 * The replay caches are built once here before any job starts, so workers only read them.
 */
import { createHash } from 'node:crypto';
import { BacktestConfigError, checkDataFiles, type BacktestConfig } from '../backtest/config';
import { checkedSlots, refusedByData, type DefinitionCache } from '../backtest/strategy-module';
import { fileHeaders, mergeHeaders } from '../backtest/jsonl-source';
import { openSource } from '../backtest/open-source';
import { applyPoint, jobConfigFile, type JobResult, type SweepJob } from './job';
import { eachPoint, jobSeed, sweepPoints, type Point } from './points';
import { runPool, throwIfStopped } from './pool';
import { objectiveOf } from './options';
import { rankBy, type RankedRow } from './table';
import { sweepCode, type SweepCode } from './code';
import { canonicalText, repeatNotes } from './repeats';
import type { SymbolSpec } from '../../protocol/rest/market';

/** How long checkPoints runs between turns of the event loop (where a stop signal is seen). */
const YIELD_EVERY_MS = 50;

export interface SweepOutcome {
  jobs: SweepJob[];
  results: JobResult[];
  ranked: RankedRow[];
  keys: string[];
}

export function sweepJobs(cfg: BacktestConfig): SweepJob[] {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const configFile = jobConfigFile(cfg);
  return sweepPoints(s).map((point, index) => ({ configFile, index, point, seed: jobSeed(s.seed, index) }));
}

/**
 * A turn of the event loop every YIELD_EVERY_MS of work, and SweepStopped once `signal` is
 * aborted: long loops of a sweep's preparation call it once per item, so Ctrl+C (whose handler
 * runs between turns) stops them meanwhile.
 */
function yielder(signal: AbortSignal | undefined): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < YIELD_EVERY_MS) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      throwIfStopped(signal);
      since = performance.now();
    });
  };
}

/**
 * sweepJobs, stopped by `signal` (SweepStopped): a grid of 100,000 points takes a few tenths of a
 * second to build, and Ctrl+C did nothing meanwhile.
 */
export async function stoppableSweepJobs(cfg: BacktestConfig, signal?: AbortSignal): Promise<SweepJob[]> {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const configFile = jobConfigFile(cfg);
  const turn = yielder(signal);
  const jobs: SweepJob[] = [];
  for (const point of eachPoint(s)) {
    const index = jobs.length;
    jobs.push({ configFile, index, point, seed: jobSeed(s.seed, index) });
    const t = turn();
    if (t !== undefined) await t;
  }
  return jobs;
}

/**
 * Every point's parameters through the strategies' own checks, and the symbols each point trades
 * against those the recording holds (`symbols`, its header's specs), before any job runs: a
 * misspelt or wrongly typed parameter, a symbol the data lacks, or a quantity no order of its
 * symbol could carry, is found now, not after every job failed on it. Returns each job's point as
 * the strategies read it (their decoded params in canonical text, repeats.ts), by job index.
 */
export async function checkPoints(cfg: BacktestConfig, jobs: SweepJob[], symbols?: readonly SymbolSpec[], signal?: AbortSignal, definitions: DefinitionCache = new Map()): Promise<Array<string | undefined>> {
  const turn = yielder(signal);
  // Each job's point as the strategies read it (repeats.ts): by job index.
  const read: Array<string | undefined> = [];
  for (const job of jobs) {
    // A large grid takes seconds here: Ctrl+C (its handler runs between turns) stops it meanwhile.
    const t = turn();
    if (t !== undefined) await t;
    try {
      const pointCfg = applyPoint(cfg, job.point);
      const { slots, decoded } = checkedSlots(pointCfg, definitions);
      const refused = symbols === undefined ? undefined : refusedByData(pointCfg, slots, symbols, decoded);
      if (refused !== undefined) throw refused;
      read[job.index] = canonicalText(decoded);
    } catch (e) {
      if (!(e instanceof BacktestConfigError)) throw e;
      // A parameter the config itself holds (not one the point sets) is reported at its own line.
      if (!setByPoint(cfg, job.point, e.at)) throw e;
      throw new BacktestConfigError(cfg.file, `sweep.params (point ${job.index}: ${JSON.stringify(job.point)}) -> ${e.at}`, e.expected, e.got);
    }
  }
  return read;
}

/** Whether the path of a config error (`strategies[0].params.skewBps`) names a parameter the point sets (`mm.skewBps`). */
function setByPoint(cfg: BacktestConfig, point: Point, at: string): boolean {
  const m = /^strategies\[(\d+)\]\.params\.(.+)$/.exec(at);
  const id = m === null ? undefined : cfg.strategies[Number(m[1])]?.id;
  return id !== undefined && m !== null && Object.prototype.hasOwnProperty.call(point, `${id}.${m[2]}`);
}

export interface SweepRunOptions {
  workers: number;
  /** The sweep's jobs as preparedSweep gave them: not checked again (else prepared here). */
  jobs?: SweepJob[];
  workerFile?: string;
  /** Results of an earlier run of the same sweep (--resume): their points are not run again. */
  done?: JobResult[];
  onResult?: (r: JobResult, done: number, total: number) => void;
  onNotice?: (m: string) => void;
  /** Stops the sweep (runPool's `signal`). */
  signal?: AbortSignal;
}

/**
 * The sweep's jobs, once its block, data files, points and objective are checked (a bad one
 * throws before anything runs): the start of a sweep on threads or on the queue alike. `signal`
 * stops it (SweepStopped) while it checks the points. Each job gets the strategies' code as
 * loaded here; `definitions` keeps the modules loaded (for the caller's sweepCode). `notes`: the
 * points that repeat an earlier one (repeats.ts), for the summary to say.
 */
export async function preparedSweep(cfg: BacktestConfig, signal?: AbortSignal, definitions: DefinitionCache = new Map()): Promise<{ sweep: NonNullable<BacktestConfig['sweep']>; jobs: SweepJob[]; notes: string[] }> {
  const sweep = cfg.sweep;
  if (!sweep) throw new Error(`${cfg.file}: the config has no sweep block`);
  const jobs = await stoppableSweepJobs(cfg, signal);
  checkDataFiles(cfg);
  const header = mergeHeaders(await fileHeaders(cfg.data.files));
  const read = await checkPoints(cfg, jobs, header.symbols, signal, definitions);
  objectiveOf(cfg);
  const code = sweepCode(cfg, definitions);
  for (const j of jobs) j.code = code;
  return { sweep, jobs, notes: repeatNotes(sweep, jobs, read) };
}

export async function runSweep(cfg: BacktestConfig, opts: SweepRunOptions): Promise<SweepOutcome> {
  const { sweep: s, jobs } = opts.jobs !== undefined && cfg.sweep !== undefined ? { sweep: cfg.sweep, jobs: opts.jobs } : await preparedSweep(cfg, opts.signal);
  const results: JobResult[] = new Array<JobResult>(jobs.length);
  for (const r of opts.done ?? []) if (r.index < jobs.length && r.error === undefined) results[r.index] = r;
  const todo = jobs.filter((j) => results[j.index] === undefined);
  if (todo.length > 0 && cfg.data.cache) {
    const { source } = await openSource(cfg.data.files, { cache: true, onNotice: opts.onNotice });
    await source.close();
  }
  const base = jobs.length - todo.length;
  const ran = await runPool(todo, {
    workers: opts.workers,
    workerFile: opts.workerFile,
    jobTimeoutMs: s.jobTimeoutMs,
    signal: opts.signal,
    onResult: opts.onResult ? (r, n) => opts.onResult?.(r, base + n, jobs.length) : undefined,
  });
  // runPool stores by index: its array is sparse over the jobs it was not given.
  for (const r of ran) if (r !== undefined) results[r.index] = r;
  return { jobs, results, ranked: rankResults(cfg, results), keys: s.params.map((p) => p.key) };
}

/** The ranked table of a sweep's results, by sweep.objective (else sweep.metric) and sweep.minTrades. */
export function rankResults(cfg: BacktestConfig, results: JobResult[]): RankedRow[] {
  const o = objectiveOf(cfg);
  return rankBy(results, (r) => o.score(r), o.order);
}

/**
 * Identity of a sweep for --resume: its config file's bytes, its points, the sha256 of each of
 * its recordings (without them, a recording written anew under the same name resumed with the
 * rows of the old data, and mixed them with the new in one table) and its strategies' code (an
 * edited strategy mixed rows of the old code and the new).
 */
export function sweepId(configText: string, jobs: SweepJob[], dataSha256: readonly string[], code: SweepCode): string {
  const h = createHash('sha256').update(configText).update(JSON.stringify(jobs.map((j) => [j.index, j.point, j.seed])));
  for (const d of dataSha256) h.update(`\0${d}`);
  for (const id of Object.keys(code).sort()) h.update(`\0${id}:${code[id]}`);
  return h.digest('hex').slice(0, 16);
}
