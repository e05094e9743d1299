/**
 * Walk-forward: the data is cut into windows (train, then test right after it, moved by step);
 * every point of the sweep runs on each training window, the best by the sweep's objective runs
 * on the test window that follows, and the test windows' equity curves are stitched into one
 * out-of-sample curve. Beside it: the in-sample optimum (the best point over all the data, the
 * figure a plain sweep reports), and the ratio of the two annualized returns (walk-forward
 * efficiency: near 1, the optimum held out of sample; near 0 or below, it was fitted to noise).
 *
 * The jobs are ordinary sweep jobs with a time window, so they run on threads or on the queue
 * alike (`JobRunner`), and their indexes follow the sweep's (points first, then training runs
 * window by window, then test runs), so every job's seed is fixed by the config.
 */
import { BacktestConfigError, type BacktestConfig } from '../backtest/config';
import { recordingSpan } from '../backtest/open-source';
import { attemptsOf, jobConfigFile, type JobResult, type SweepJob } from './job';
import { annualized, type Objective, type WalkForwardSpec } from './options';
import type { Point } from './points';
import { jobSeed } from './points';
import { rankBy } from './table';
import { durationText, MIN_RATIO_DAYS } from '../report/ratios';

/** Runs jobs; the results are indexed by job index. */
export type JobRunner = (jobs: SweepJob[], phase: string) => Promise<JobResult[]>;

export interface WalkForwardWindow {
  train: { from: number; to: number };
  test: { from: number; to: number };
  /**
   * The training window's best point, or null when no point ranked (all failed or excluded).
   * `index` is its training job's; `attempts`, as on a sweep's row (JobResult), when that job was
   * started more than once (a queue job run again after its worker stopped).
   */
  best: { index: number; point: Point; score: number; attempts?: number } | null;
  /** Points ranked in training (not failed, not excluded). */
  ranked: number;
  /** The best point on the test window; `attempts` when its job was started more than once. */
  result: { index: number; return: number | null; score: number | null; fills: number | null; error: string | null; excluded: string | null; attempts?: number } | null;
}

export interface WalkForwardOutcome {
  objective: string;
  spec: WalkForwardSpec;
  range: { from: number; to: number };
  windows: WalkForwardWindow[];
  /** `annualized`: null under MIN_RATIO_DAYS of data, `annualizedNote` says why (annualizedNa). */
  inSample: { index: number; point: Point; score: number; return: number; annualized: number | null; annualizedNote?: string | null; spanMs: number } | null;
  outOfSample: { return: number; annualized: number | null; annualizedNote?: string | null; spanMs: number; windows: number; equity: Array<[number, number]> };
  /** Out-of-sample annualized return over the in-sample optimum's; null when that is not positive or either is n/a. */
  ratio: number | null;
  /** Training and test jobs that failed. */
  failed: JobResult[];
  /**
   * Training and test jobs started more than once (a queue job run again after the worker that had
   * it stopped), in index order: each one's record, as a sweep's row in results.jsonl carries
   * `attempts`; the training runs of points that were not a window's best have no other.
   */
  ranAgain: WalkForwardRanAgain[];
  /**
   * The jobs it ran beside the sweep's points on all the data: training runs (in-sample: every
   * point on every window) and test runs (out-of-sample: a window's best point, where it has one),
   * and how many of each failed. The sweep's summary, sweep.json and walkforward.json count them.
   */
  jobs: WalkForwardJobs;
}

export interface WalkForwardRanAgain {
  index: number;
  point: Point;
  part: 'inSample' | 'outOfSample';
  /** The window's position in `windows`. */
  window: number;
  attempts: number;
}

export interface WalkForwardJobs {
  windows: number;
  points: number;
  inSample: number;
  outOfSample: number;
  failedInSample: number;
  failedOutOfSample: number;
}

export function walkForwardWindows(spec: WalkForwardSpec, from: number, to: number): Array<Pick<WalkForwardWindow, 'train' | 'test'>> {
  const out: Array<Pick<WalkForwardWindow, 'train' | 'test'>> = [];
  for (let t = from; t + spec.trainMs + spec.testMs <= to; t += spec.stepMs) {
    out.push({ train: { from: t, to: t + spec.trainMs }, test: { from: t + spec.trainMs, to: t + spec.trainMs + spec.testMs } });
  }
  return out;
}

const iso = (t: number): string => new Date(t).toISOString();

/** The windows of the data from..to; refuses (exit 2) when not even one train + test fits. */
function windowsWithin(cfg: BacktestConfig, spec: WalkForwardSpec, from: number, to: number): Array<Pick<WalkForwardWindow, 'train' | 'test'>> {
  const cuts = walkForwardWindows(spec, from, to);
  if (cuts.length === 0) throw new BacktestConfigError(cfg.file, 'sweep.walkForward', `train + test within the data (${iso(from)} to ${iso(to)}, ${((to - from) / 3_600_000).toFixed(2)} h)`, `train ${spec.trainMs} ms + test ${spec.testMs} ms`);
  return cuts;
}

/**
 * The data range the windows cut, refused (exit 2) before any job runs when not even one train +
 * test fits: data.from..data.to, or where either is not set, the recording's own first or last
 * event, read here in one pass over it (the replay cache, built now if missing, as the sweep's
 * first job would). A window longer than the data used to be refused only once the whole sweep
 * had run.
 */
export async function walkForwardRange(cfg: BacktestConfig, spec: WalkForwardSpec, onNotice?: (msg: string) => void): Promise<{ from: number; to: number }> {
  let { from, to } = cfg.data;
  if (from === undefined || to === undefined) {
    const span = await recordingSpan(cfg.data.files, { cache: cfg.data.cache, onNotice });
    if (span === undefined) throw new BacktestConfigError(cfg.file, 'data.files', 'a recording with events in it (walk-forward cuts its time range into windows)', 'no events');
    from ??= span.first;
    to ??= span.last;
  }
  windowsWithin(cfg, spec, from, to);
  return { from, to };
}

/** `range`: from walkForwardRange, before the sweep (the step and the window lengths were checked then and by options.ts). */
export async function runWalkForward(cfg: BacktestConfig, spec: WalkForwardSpec, range: { from: number; to: number }, objective: Objective, points: SweepJob[], full: JobResult[], run: JobRunner): Promise<WalkForwardOutcome> {
  const s = cfg.sweep;
  if (!s) throw new Error(`${cfg.file}: the config has no sweep block`);
  const { from, to } = range;
  const cuts = windowsWithin(cfg, spec, from, to);
  const P = points.length;
  // The code the sweep's points were prepared with (preparedSweep): every window runs that code.
  const code = points[0]?.code;
  const job = (index: number, point: Point, window: { from: number; to: number }, keepEquity: boolean): SweepJob => ({ configFile: jobConfigFile(cfg), index, point, seed: jobSeed(s.seed, index), window, ...(keepEquity ? { keepEquity } : {}), ...(code !== undefined ? { code } : {}) });

  const trainJobs = cuts.flatMap((c, w) => points.map((p) => job(P + w * P + p.index, p.point, c.train, false)));
  const trained = await run(trainJobs, 'walk-forward training');
  const windows: WalkForwardWindow[] = cuts.map((c, w) => {
    const mine = points.map((p) => trained[P + w * P + p.index]);
    const ranked = rankBy(mine, (r) => objective.score(r), objective.order);
    const top = ranked[0];
    return { ...c, best: top?.metric === null || top === undefined ? null : { index: top.index, point: top.point, score: top.metric, ...attemptsOf(trained[top.index]) }, ranked: ranked.filter((r) => r.metric !== null).length, result: null };
  });
  const testJobs = windows.flatMap((w, i) => (w.best === null ? [] : [job(P + cuts.length * P + i, w.best.point, w.test, true)]));
  const tested = await run(testJobs, 'walk-forward test');

  const failedOf = (list: SweepJob[], res: JobResult[]): JobResult[] => list.map((j) => res[j.index]).filter((r) => r !== undefined && r.error !== undefined);
  const failedTrain = failedOf(trainJobs, trained);
  const failedTest = failedOf(testJobs, tested);
  const failed = [...failedTrain, ...failedTest];
  const jobs: WalkForwardJobs = { windows: cuts.length, points: P, inSample: trainJobs.length, outOfSample: testJobs.length, failedInSample: failedTrain.length, failedOutOfSample: failedTest.length };
  const again = (list: SweepJob[], res: JobResult[], part: WalkForwardRanAgain['part'], windowOf: (j: SweepJob) => number): WalkForwardRanAgain[] =>
    list.flatMap((j) => {
      const a = attemptsOf(res[j.index]).attempts;
      return a === undefined ? [] : [{ index: j.index, point: j.point, part, window: windowOf(j), attempts: a }];
    });
  const ranAgain = [...again(trainJobs, trained, 'inSample', (j) => Math.floor((j.index - P) / P)), ...again(testJobs, tested, 'outOfSample', (j) => j.index - P - cuts.length * P)];
  let carry = 1;
  let spanMs = 0;
  let used = 0;
  const equity: Array<[number, number]> = [];
  windows.forEach((w, i) => {
    const r = tested[P + cuts.length * P + i];
    if (r === undefined) return;
    const sc = objective.score(r);
    w.result = { index: r.index, return: r.summary?.return ?? null, score: 'value' in sc ? sc.value : null, fills: r.summary?.fills ?? null, error: r.error ?? null, excluded: 'excluded' in sc && r.error === undefined ? sc.excluded : null, ...attemptsOf(r) };
    if (r.error !== undefined || r.summary === undefined) return;
    // Each window starts from the account's balance: its curve, scaled to where the last one ended.
    const e0 = Number(r.summary.initialBalance);
    equity.push([w.test.from, carry]);
    for (const [t, v] of r.equity ?? []) equity.push([t, carry * (v / e0)]);
    carry *= 1 + r.summary.return;
    spanMs += w.test.to - w.test.from;
    used++;
  });
  const oosReturn = carry - 1;
  const oosNote = annualizedNa(spanMs);
  const oosAnn = oosNote === null ? annualized(oosReturn, spanMs) : null;

  const best = rankBy(full.filter((r) => r !== undefined), (r) => objective.score(r), objective.order)[0];
  const bestResult = best === undefined ? undefined : full[best.index];
  const isSpan = bestResult?.span === undefined ? 0 : bestResult.span.end - bestResult.span.start;
  const isNote = annualizedNa(isSpan);
  const inSample = best === undefined || best.metric === null || bestResult?.summary === undefined ? null : { index: best.index, point: best.point, score: best.metric, return: bestResult.summary.return, annualized: isNote === null ? annualized(bestResult.summary.return, isSpan) : null, annualizedNote: isNote, spanMs: isSpan };
  const inAnn = inSample?.annualized ?? null;
  const ratio = inAnn !== null && inAnn > 0 && used > 0 && oosAnn !== null && Number.isFinite(oosAnn) ? oosAnn / inAnn : null;
  return { objective: objective.name, spec, range: { from, to }, windows, inSample, outOfSample: { return: oosReturn, annualized: oosAnn, annualizedNote: oosNote, spanMs, windows: used, equity }, ratio, failed, ranAgain, jobs };
}


/**
 * Why a return over `spanMs` has no annualized figure, or null when it has one: the rule of the
 * report's ratios (MIN_RATIO_DAYS of data). Minutes of data raised to a year's power read
 * `-0.004% (annualized -99.933%)`.
 */
export function annualizedNa(spanMs: number): string | null {
  return spanMs < MIN_RATIO_DAYS * 86_400_000 ? `n/a: ${durationText(spanMs)} of data, needs ≥ ${MIN_RATIO_DAYS} days` : null;
}

/** An annualized figure as the outputs show it: the percentage, or why there is none. */
export function annualizedText(v: number | null | undefined, spanMs: number | undefined): string {
  if (v !== null && v !== undefined) return pct(v);
  return spanMs === undefined ? '-' : (annualizedNa(spanMs) ?? '-');
}

const pct = (v: number | null): string => (v === null || !Number.isFinite(v) ? '-' : `${(v * 100).toFixed(3)}%`);
const num = (v: number | null): string => (v === null || !Number.isFinite(v) ? '-' : String(Number(v.toPrecision(6))));

export function walkForwardMarkdown(o: WalkForwardOutcome, keys: string[]): string {
  const lines = [
    `# Walk-forward (${o.objective})`,
    '',
    `Data ${iso(o.range.from)} to ${iso(o.range.to)}; train ${span(o.spec.trainMs)}, test ${span(o.spec.testMs)}, step ${span(o.spec.stepMs)}; ${o.windows.length} windows.`,
    '',
    `| figure | in-sample optimum | out-of-sample (stitched) |`,
    `|---|---|---|`,
    `| return | ${pct(o.inSample?.return ?? null)} | ${pct(o.outOfSample.return)} |`,
    `| annualized | ${annualizedText(o.inSample?.annualized, o.inSample?.spanMs)} | ${annualizedText(o.outOfSample.annualized, o.outOfSample.spanMs)} |`,
    `| point | ${o.inSample === null ? '-' : keys.map((k) => `${k}=${String(o.inSample?.point[k])}`).join(', ')} | per window, below |`,
    '',
    `Out-of-sample / in-sample annualized return: **${num(o.ratio)}**${o.ratio === null ? (o.outOfSample.annualized === null || (o.inSample !== null && o.inSample.annualized === null) ? ` (the annualized returns are n/a: under ${MIN_RATIO_DAYS} days of data)` : ' (no positive in-sample optimum, or no test window ran)') : ''}.`,
    '',
    `| window | train | test | best point | train ${o.objective} | test return | test ${o.objective} | test fills |`,
    `|---|---|---|---|---|---|---|---|`,
  ];
  o.windows.forEach((w, i) => {
    const r = w.result;
    const testCell = r === null ? (w.best === null ? 'not run: no point ranked in training' : 'not run') : r.error !== null ? `FAILED: ${r.error}` : pct(r.return);
    // A test window the objective does not score (sweep.minTrades) said why, as walkforward.json
    // does: its return still counts in the stitched curve (the point traded there, however little).
    const testScore = r !== null && r.excluded !== null ? `not scored: ${r.excluded} (its return counts in the stitched curve)` : num(r?.score ?? null);
    lines.push(`| ${i} | ${iso(w.train.from)} to ${iso(w.train.to)} | ${iso(w.test.from)} to ${iso(w.test.to)} | ${w.best === null ? '-' : keys.map((k) => `${k}=${String(w.best?.point[k])}`).join(', ')} | ${num(w.best?.score ?? null)} | ${testCell.replace(/\|/g, '\\|')} | ${testScore.replace(/\|/g, '\\|')} | ${r?.fills ?? '-'} |`);
  });
  return `${lines.join('\n')}\n`;
}

/** A window's length as the config can give it, exactly (`20 min`, `7 d`, `90 s`): in hours, 20 min was 0.3333333333333333 h. */
function span(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}
