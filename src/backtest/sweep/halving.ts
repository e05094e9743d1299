/**
 * Successive halving: every point of the sweep (grid or seeded random) runs on a short slice of
 * the data; the best 1/eta by the objective go on to a slice eta times longer, and so on for
 * `rounds` rounds, the last on the whole range (data.from to data.to). Many points are looked at
 * cheaply, and the full-length runs go to the few that earned them.
 *
 * Deterministic: the points come from the sweep's seed, a round's survivors are the top of a
 * total order (ties by point index), and every job's index (so its seed) follows from the config:
 * round 0 is the sweep's own job indexes, later rounds number on after the earlier ones, survivors
 * in point order. The same config gives the same rounds on threads or on the queue.
 */
import { BacktestConfigError, type BacktestConfig } from '../backtest/config';
import { jobConfigFile, type JobResult, type SweepJob } from './job';
import type { HalvingSpec, Objective } from './options';
import { jobSeed } from './points';
import { rankBy, type RankedRow } from './table';
import type { JobRunner } from './walkforward';

export interface HalvingRound {
  round: number;
  window: { from: number; to: number };
  /** Point indexes run in this round, and those kept for the next. */
  points: number[];
  kept: number[];
  failed: number;
}

export interface HalvingOutcome {
  rounds: HalvingRound[];
  /** The last round's results, re-indexed by point index (the ranked table's rows). */
  final: JobResult[];
  ranked: RankedRow[];
  /** Every job that failed, any round. */
  failed: JobResult[];
}

/** Slice lengths: the last round the whole range, each earlier one eta times shorter. */
export function halvingWindows(spec: HalvingSpec, from: number, to: number): Array<{ from: number; to: number }> {
  return Array.from({ length: spec.rounds }, (_, r) => ({ from, to: from + Math.round((to - from) / Math.pow(spec.eta, spec.rounds - 1 - r)) }));
}

export async function runHalving(cfg: BacktestConfig, spec: HalvingSpec, objective: Objective, points: SweepJob[], run: JobRunner): Promise<HalvingOutcome> {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const { from, to } = cfg.data;
  if (from === undefined || to === undefined) throw new BacktestConfigError(cfg.file, 'sweep.halving', 'data.from and data.to set (the slices are fractions of that range)', `data.from ${from === undefined ? 'missing' : 'set'}, data.to ${to === undefined ? 'missing' : 'set'}`);
  const windows = halvingWindows(spec, from, to);
  const rounds: HalvingRound[] = [];
  const failed: JobResult[] = [];
  let alive = points.map((p) => p.index);
  let offset = 0;
  let last: JobResult[] = [];
  for (let r = 0; r < spec.rounds; r++) {
    const base = offset;
    const jobs: SweepJob[] = alive.map((pi, k) => {
      const index = r === 0 ? pi : base + k;
      return { configFile: jobConfigFile(cfg), index, point: points[pi].point, seed: jobSeed(s.seed, index), window: windows[r] };
    });
    offset += r === 0 ? points.length : alive.length;
    const res = await run(jobs, `halving round ${r + 1}/${spec.rounds}`);
    // By point index from here on: the table and the survivors speak of points.
    const byPoint: JobResult[] = jobs.map((j, k) => ({ ...res[j.index], index: alive[k] }));
    failed.push(...jobs.map((j) => res[j.index]).filter((x) => x.error !== undefined));
    const ranked = rankBy(byPoint, (x) => objective.score(x), objective.order).filter((x) => x.metric !== null);
    const keep = r === spec.rounds - 1 ? [] : ranked.slice(0, Math.max(1, Math.ceil(alive.length / spec.eta))).map((x) => x.index).sort((a, b) => a - b);
    rounds.push({ round: r + 1, window: windows[r], points: alive, kept: keep, failed: byPoint.filter((x) => x.error !== undefined).length });
    last = byPoint;
    if (r < spec.rounds - 1) {
      if (keep.length === 0) break;
      alive = keep;
    }
  }
  const final: JobResult[] = [];
  for (const x of last) final[x.index] = x;
  const rows = last;
  return { rounds, final, ranked: rankBy(rows, (x) => objective.score(x), objective.order), failed };
}
