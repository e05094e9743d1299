/**
 * Successive halving: every point of the sweep (grid or seeded random) runs on a short slice of
 * the data; the best 1/eta by the objective go on to a slice eta times longer, and so on for
 * `rounds` rounds, the last on the whole range (data.from to data.to). Many points are looked at
 * cheaply, and the full-length runs go to the few that earned them. sweep.minTrades is asked of
 * each slice in proportion to its share of the range (sliceMinTrades), of the last round in full.
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
  /** The job index each of `points` ran as in this round (its seed, its line in results.jsonl). */
  jobs: number[];
  kept: number[];
  /** The closed trades a point needed to be ranked in this round: sweep.minTrades scaled to the slice (sliceMinTrades). */
  minTrades: number;
  failed: number;
}

export interface HalvingOutcome {
  rounds: HalvingRound[];
  /**
   * The last round's results, as they ran: each with the job index (and seed) of the run whose
   * figures it holds (the ranked table's rows; halving.json's last round maps them to points).
   */
  final: JobResult[];
  ranked: RankedRow[];
  /** Every job that failed, any round. */
  failed: JobResult[];
}

/** Slice lengths: the last round the whole range, each earlier one eta times shorter. */
export function halvingWindows(spec: HalvingSpec, from: number, to: number): Array<{ from: number; to: number }> {
  return Array.from({ length: spec.rounds }, (_, r) => ({ from, to: from + Math.round((to - from) / Math.pow(spec.eta, spec.rounds - 1 - r)) }));
}

/**
 * sweep.minTrades for a run on a slice of the range: in proportion to the slice's share, rounded
 * up, at least 1 when minTrades is at least 1 (the whole range's count asked of a third of it
 * dropped points that trade enough over the whole range). The whole range asks minTrades itself.
 */
export function sliceMinTrades(minTrades: number, sliceMs: number, rangeMs: number): number {
  if (minTrades <= 0) return 0;
  if (sliceMs >= rangeMs) return minTrades;
  return Math.max(1, Math.ceil((minTrades * sliceMs) / rangeMs));
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
  let lastMinTrades = objective.minTrades;
  for (let r = 0; r < spec.rounds; r++) {
    const base = offset;
    const jobs: SweepJob[] = alive.map((pi, k) => {
      const index = r === 0 ? pi : base + k;
      return { configFile: jobConfigFile(cfg), index, point: points[pi].point, seed: jobSeed(s.seed, index), window: windows[r], ...(points[pi].code !== undefined ? { code: points[pi].code } : {}) };
    });
    offset += r === 0 ? points.length : alive.length;
    const res = await run(jobs, `halving round ${r + 1}/${spec.rounds}`);
    const ran = jobs.map((j) => res[j.index]);
    failed.push(...ran.filter((x) => x.error !== undefined));
    const minTrades = sliceMinTrades(objective.minTrades, windows[r].to - windows[r].from, to - from);
    // Survivors by point index (a round's jobs are numbered in point order: the same ties).
    const byPoint: JobResult[] = ran.map((x, k) => ({ ...x, index: alive[k] }));
    const ranked = rankBy(byPoint, (x) => objective.score(x, minTrades), objective.order).filter((x) => x.metric !== null);
    const keep = r === spec.rounds - 1 ? [] : ranked.slice(0, Math.max(1, Math.ceil(alive.length / spec.eta))).map((x) => x.index).sort((a, b) => a - b);
    rounds.push({ round: r + 1, window: windows[r], points: alive, jobs: jobs.map((j) => j.index), kept: keep, minTrades, failed: ran.filter((x) => x.error !== undefined).length });
    last = ran;
    lastMinTrades = minTrades;
    if (r < spec.rounds - 1) {
      if (keep.length === 0) break;
      alive = keep;
    }
  }
  // The table's rows are the runs whose figures they show: job index and seed of that run (the
  // first round's job index with the last round's figures named another run).
  return { rounds, final: last, ranked: rankBy(last, (x) => objective.score(x, lastMinTrades), objective.order), failed };
}
