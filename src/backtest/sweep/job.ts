/**
 * A sweep job: (config file, point, seed) -> result. A pure function of its input and the files
 * it names, with no shared state, so the same job can run on a worker thread here or on any
 * machine that has the config and the data (a distributed queue only has to move SweepJob and
 * JobResult, both plain JSON).
 */
import * as path from 'node:path';
import { loadBacktestConfig, type BacktestConfig } from '../backtest/config';
import { backtest } from '../backtest/backtest';
import type { DefinitionCache } from '../backtest/strategy-module';
import type { Summary } from '../report/metrics';
import { strategyErrorText } from '../report/html';
import { strategyErrorsText } from '../../bot/strategy/errors';
import type { Point } from './points';
import { staleCode, type SweepCode } from './code';

export interface SweepJob {
  /** Absolute path of the backtest config. */
  configFile: string;
  index: number;
  point: Point;
  seed: number;
  /** Run on this time range only (walk-forward windows, halving slices); else the config's. */
  window?: { from: number; to: number };
  /** Return the equity curve too (walk-forward test windows, to stitch them). */
  keepEquity?: boolean;
  /**
   * Each strategy's code as the coordinator loaded it (code.ts): a thread whose loaded code
   * differs fails the job rather than run other code. Absent: not checked.
   */
  code?: SweepCode;
}

export interface JobResult {
  index: number;
  point: Point;
  seed: number;
  summary: Summary | undefined;
  error: string | undefined;
  /** First and last event time the backtest saw. */
  span?: { start: number; end: number };
  /** [time, equity] samples, when the job asked for them. */
  equity?: Array<[number, number]>;
  /**
   * How many times the job was started, when more than once: a queue job run again after the
   * worker that had it stopped (killed, or lost its lock). Its figures are those of the run that
   * finished (a job is a pure function of its input); absent: it ran once.
   */
  attempts?: number;
}

/** A job's `configFile`: absolute, so that a worker started anywhere finds it (`cfg.file` is as the user typed it). */
export function jobConfigFile(cfg: BacktestConfig): string {
  return cfg.file === '' ? '' : path.resolve(cfg.file);
}

/** The config with the point's values in the strategies' params (`<strategyId>.<param>`). */
export function applyPoint(cfg: BacktestConfig, point: Point): BacktestConfig {
  const strategies = cfg.strategies.map((s) => ({ ...s, params: { ...s.params } }));
  for (const [key, value] of Object.entries(point)) {
    const dot = key.indexOf('.');
    const s = strategies.find((x) => x.id === key.slice(0, dot));
    if (!s) throw new Error(`sweep parameter ${key} names no strategy`);
    s.params[key.slice(dot + 1)] = value;
  }
  return { ...cfg, strategies };
}

/**
 * The strategy modules this thread has resolved, by the path a config names (relative to its
 * folder): every job of a sweep names the same ones, and a thread of `perpkit worker` or of a
 * local sweep runs thousands of jobs, each of which resolved its modules anew (for an example
 * strategy, a stat of every example source file). A module that fails to resolve is not kept.
 * Node's module cache already kept a loaded module's code for the thread's life: a changed
 * strategy file reaches a long-lived worker when it is restarted, and until then the worker fails
 * the jobs submitted with the changed code (their `code`), naming the strategy.
 */
const definitions: DefinitionCache = new Map();

/**
 * A job whose strategy threw is a failed job (as `perpkit backtest` exits 3 for it): its figures
 * are those of a failing strategy, so it keeps its summary for reading but is ranked with the
 * failures and makes the sweep's exit code 1.
 */
export async function runJob(job: SweepJob): Promise<JobResult> {
  try {
    const loaded = applyPoint(loadBacktestConfig(job.configFile), job.point);
    const cfg = job.window === undefined ? loaded : { ...loaded, data: { ...loaded.data, from: job.window.from, to: job.window.to } };
    const stale = job.code === undefined ? undefined : staleCode(cfg, job.code, definitions);
    if (stale !== undefined) return { index: job.index, point: job.point, seed: job.seed, summary: undefined, error: stale };
    const { report } = await backtest(cfg, { definitions });
    const s = report.summary;
    const error = s.strategyErrors > 0 ? `${strategyErrorsText(s.strategyErrors)}; first: ${strategyErrorText(s).split('; first: ')[1] ?? ''}` : undefined;
    const r: JobResult = { index: job.index, point: job.point, seed: job.seed, summary: s, error, span: { start: report.data.startTime, end: report.data.endTime } };
    if (job.keepEquity === true) r.equity = report.equity.map((e): [number, number] => [e[0], Number(e[1])]);
    return r;
  } catch (e) {
    return { index: job.index, point: job.point, seed: job.seed, summary: undefined, error: e instanceof Error ? e.message : String(e) };
  }
}

/** `{ attempts }` when the job was started more than once (a queue job run again), else nothing: what a result's record carries. */
export function attemptsOf(r: Pick<JobResult, 'attempts'> | undefined): { attempts?: number } {
  return r?.attempts !== undefined && r.attempts > 1 ? { attempts: r.attempts } : {};
}

/**
 * The result as it reads back from JSON (results.jsonl, the queue): NaN and infinities become
 * null, -0 becomes 0, undefined fields go. Every path applies it, so a table built from results
 * of threads, of the queue or of a resumed file is the same bytes.
 */
export function plainResult(r: JobResult): JobResult {
  const o = JSON.parse(JSON.stringify(r)) as Partial<JobResult>;
  const out: JobResult = { index: r.index, point: r.point, seed: r.seed, summary: o.summary ?? undefined, error: o.error ?? undefined };
  if (o.span !== undefined) out.span = o.span;
  if (o.equity !== undefined) out.equity = o.equity;
  return { ...out, ...attemptsOf(o) };
}
