/**
 * The search options of a sweep block, validated here (the backtest config keeps them raw):
 *
 *   objective:   sharpe | sortino | calmar | returnOverDrawdown | { module: ./file.ts or .js, export: name }
 *                what ranks the points (larger is better); without it, `metric` and `order` do
 *   minTrades:   a point with fewer fills is not ranked (its row says why)
 *   walkForward: { train, test, step }: durations ('7d', '12h', '30m', '90s' or milliseconds)
 *   halving:     { eta, rounds }: successive halving instead of one pass over every point
 *
 * Errors are config errors naming the file and the key, like the rest of the config.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { moduleLoadError, requireModule } from '../../bot/strategy-source';
import { BacktestConfigError, describeValue, type BacktestConfig } from '../backtest/config';
import { isRecord } from '../../core/config-errors';
import type { Summary } from '../report/metrics';
import type { JobResult } from './job';
import { metricOf, naReason } from './table';

const YEAR_MS = 365 * 86_400_000;
/** Drawdowns below this (0.01 %) count as this, so a flat run does not divide by zero. */
export const MIN_DRAWDOWN = 1e-4;

/** A point's score; null when the report has no such figure (a ratio of a short run): not ranked. */
export type ObjectiveFn = (summary: Summary, info: { spanMs: number }) => number | null;

export interface Objective {
  /** As shown in tables: `sharpe`, `calmar`, `module:./obj.js#score`, `metric:totalPnl`. */
  name: string;
  order: 'asc' | 'desc';
  minTrades: number;
  /**
   * The figure a result ranks by, or why it is not ranked. `minTrades`: the fills asked of a run
   * on part of the range (a successive-halving slice: sliceMinTrades) instead of sweep.minTrades.
   */
  score(r: JobResult, minTrades?: number): { value: number } | { excluded: string };
}

export interface WalkForwardSpec {
  trainMs: number;
  testMs: number;
  stepMs: number;
}

export interface HalvingSpec {
  /** Keep 1/eta of the points each round, on eta times more data. */
  eta: number;
  rounds: number;
}

export interface SweepSearch {
  objective: Objective;
  walkForward: WalkForwardSpec | undefined;
  halving: HalvingSpec | undefined;
}

const BUILT_IN = ['sharpe', 'sortino', 'calmar', 'returnOverDrawdown'] as const;

/** Return scaled to a year: compounding `ret` over `spanMs`. */
export const annualized = (ret: number, spanMs: number): number => (spanMs > 0 ? Math.pow(1 + ret, YEAR_MS / spanMs) - 1 : Number.NaN);

const builtIns: Record<(typeof BUILT_IN)[number], ObjectiveFn> = {
  sharpe: (s) => s.sharpe,
  sortino: (s) => s.sortino,
  // The report's own figure (daily returns, n/a below its minimum of days): one Calmar, one place.
  calmar: (s) => s.calmar,
  returnOverDrawdown: (s) => s.return / Math.max(s.maxDrawdown, MIN_DRAWDOWN),
};

function fail(cfg: BacktestConfig, at: string, expected: string, got: unknown): never {
  throw new BacktestConfigError(cfg.file, at, expected, describeValue(got));
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

function duration(cfg: BacktestConfig, v: unknown, at: string, dflt?: number): number {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1000) return v;
  const m = typeof v === 'string' ? DURATION.exec(v) : null;
  if (m) {
    const ms = Math.round(Number(m[1]) * UNIT_MS[m[2]]);
    if (ms >= 1000) return ms;
  }
  fail(cfg, at, "a duration of at least 1 s: milliseconds or a string such as '7d', '12h', '30m', '90s'", v);
}

function loadObjectiveModule(cfg: BacktestConfig, spec: Record<string, unknown>): { fn: ObjectiveFn; name: string } {
  const at = 'sweep.objective';
  for (const k of Object.keys(spec)) if (k !== 'module' && k !== 'export') throw new BacktestConfigError(cfg.file, `${at}.${k}`, 'one of the keys module, export', `unknown key '${k}'`);
  if (typeof spec.module !== 'string' || spec.module === '') fail(cfg, `${at}.module`, 'a path to a module file (.ts or .js), relative to the config file', spec.module);
  const exp = spec.export === undefined ? 'default' : spec.export;
  if (typeof exp !== 'string' || exp === '') fail(cfg, `${at}.export`, 'the name of the exported function', spec.export);
  const file = path.resolve(cfg.baseDir, spec.module);
  if (!existsSync(file)) throw new BacktestConfigError(cfg.file, `${at}.module`, 'a module file (.ts or .js) that exists', `${file}: no such file`);
  let mod: unknown;
  try {
    // The loader of strategy modules: TypeScript and ES modules load as they are, with no build.
    mod = requireModule(file);
  } catch (e) {
    throw new BacktestConfigError(cfg.file, `${at}.module`, 'a module that loads', `${file}: ${moduleLoadError(e, file)}`);
  }
  const fn = (typeof mod === 'object' || typeof mod === 'function') && mod !== null ? (mod as Record<string, unknown>)[exp] : undefined;
  if (typeof fn !== 'function') throw new BacktestConfigError(cfg.file, `${at}.export`, `a function exported as '${exp}' by ${file} (called with the summary and {spanMs}, returning a number, larger is better)`, describeValue(fn));
  return { fn: fn as ObjectiveFn, name: `module:${spec.module}#${exp}` };
}

export function objectiveOf(cfg: BacktestConfig): Objective {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const raw = s.search ?? {};
  const minTrades = raw.minTrades === undefined ? 0 : typeof raw.minTrades === 'number' && Number.isInteger(raw.minTrades) && raw.minTrades >= 0 ? raw.minTrades : fail(cfg, 'sweep.minTrades', 'a whole number of closed trades >= 0', raw.minTrades);
  let fn: ObjectiveFn | undefined;
  let name: string;
  let order: 'asc' | 'desc' = 'desc';
  if (raw.objective === undefined) {
    name = s.metric;
    order = s.order;
  } else if (typeof raw.objective === 'string') {
    if (!(BUILT_IN as readonly string[]).includes(raw.objective)) fail(cfg, 'sweep.objective', `one of ${BUILT_IN.join(', ')}, or { module: ./file.js, export: name }`, raw.objective);
    name = raw.objective;
    fn = builtIns[raw.objective as (typeof BUILT_IN)[number]];
  } else if (isRecord(raw.objective)) {
    ({ fn, name } = loadObjectiveModule(cfg, raw.objective));
  } else {
    fail(cfg, 'sweep.objective', `one of ${BUILT_IN.join(', ')}, or { module: ./file.js, export: name }`, raw.objective);
  }
  const metric = s.metric;
  return {
    name,
    order,
    minTrades,
    score(r, need = minTrades) {
      if (r.error !== undefined || r.summary === undefined) return { excluded: r.error ?? 'no summary' };
      // Closed trades (round trips, the report's `trades`), not fills: a trade is two fills or more.
      if (r.summary.trades < need) return { excluded: need === minTrades ? `${r.summary.trades} closed trades (${r.summary.fills} fills), fewer than sweep.minTrades (${minTrades})` : `${r.summary.trades} closed trades (${r.summary.fills} fills), fewer than ${need} (sweep.minTrades ${minTrades} in proportion to this slice of the range)` };
      let v: number | null;
      try {
        v = fn === undefined ? metricOf(r.summary, metric) : fn(r.summary, { spanMs: r.span === undefined ? 0 : r.span.end - r.span.start });
      } catch (e) {
        return { excluded: `objective ${name} threw: ${e instanceof Error ? e.message : String(e)}` };
      }
      if (v === null) return { excluded: `objective ${name} is n/a${naReason(r.summary, fn === undefined ? metric : name)}` };
      if (typeof v !== 'number' || !Number.isFinite(v)) return { excluded: `objective ${name} is ${String(v)}, not a finite number` };
      return { value: v };
    },
  };
}

export function searchOf(cfg: BacktestConfig): SweepSearch {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const raw = s.search ?? {};
  let walkForward: WalkForwardSpec | undefined;
  if (raw.walkForward !== undefined) {
    const w = raw.walkForward;
    if (!isRecord(w)) fail(cfg, 'sweep.walkForward', 'a mapping with train, test and step durations', w);
    for (const k of Object.keys(w)) if (!['train', 'test', 'step'].includes(k)) throw new BacktestConfigError(cfg.file, `sweep.walkForward.${k}`, 'one of the keys train, test, step', `unknown key '${k}'`);
    const trainMs = duration(cfg, w.train, 'sweep.walkForward.train');
    const testMs = duration(cfg, w.test, 'sweep.walkForward.test');
    walkForward = { trainMs, testMs, stepMs: duration(cfg, w.step, 'sweep.walkForward.step', testMs) };
    // Checked here, before any job runs (the windows against the data: walkForwardRange).
    if (walkForward.stepMs < testMs) throw new BacktestConfigError(cfg.file, 'sweep.walkForward.step', `at least test (${testMs} ms): overlapping test windows cannot be stitched`, `${walkForward.stepMs} ms`);
    const { from, to } = cfg.data;
    if (from !== undefined && to !== undefined && trainMs + testMs > to - from) {
      throw new BacktestConfigError(cfg.file, 'sweep.walkForward', `train + test within data.from..data.to (${new Date(from).toISOString()} to ${new Date(to).toISOString()}, ${((to - from) / 3_600_000).toFixed(2)} h)`, `train ${trainMs} ms + test ${testMs} ms`);
    }
  }
  let halving: HalvingSpec | undefined;
  if (raw.halving !== undefined) {
    const h = raw.halving;
    if (!isRecord(h)) fail(cfg, 'sweep.halving', 'a mapping { eta, rounds }', h);
    for (const k of Object.keys(h)) if (!['eta', 'rounds'].includes(k)) throw new BacktestConfigError(cfg.file, `sweep.halving.${k}`, 'one of the keys eta, rounds', `unknown key '${k}'`);
    const eta = h.eta === undefined ? 3 : typeof h.eta === 'number' && Number.isInteger(h.eta) && h.eta >= 2 && h.eta <= 16 ? h.eta : fail(cfg, 'sweep.halving.eta', 'an integer from 2 to 16', h.eta);
    const rounds = h.rounds === undefined ? 3 : typeof h.rounds === 'number' && Number.isInteger(h.rounds) && h.rounds >= 2 && h.rounds <= 8 ? h.rounds : fail(cfg, 'sweep.halving.rounds', 'an integer from 2 to 8', h.rounds);
    halving = { eta, rounds };
  }
  if (walkForward !== undefined && halving !== undefined) fail(cfg, 'sweep.halving', 'no halving together with walkForward (choose one)', raw.halving);
  return { objective: objectiveOf(cfg), walkForward, halving };
}
