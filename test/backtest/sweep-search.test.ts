/**
 * Issue 17 items 3-4: pluggable objectives with a minimum number of trades, and walk-forward
 * (train on a window, test the best point on the next, stitch the test windows) through the CLI.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { runJob, type JobResult } from '../../src/backtest/sweep/job';
import { SYNTH_EPOCH } from '../../src/market-data/synth';
import { annualized, objectiveOf } from '../../src/backtest/sweep/options';
import { jobSeed } from '../../src/backtest/sweep/points';
import { sweepJobs } from '../../src/backtest/sweep/sweep';
import { annualizedNa, walkForwardWindows, type JobRunner } from '../../src/backtest/sweep/walkforward';
import { runHalving, sliceMinTrades } from '../../src/backtest/sweep/halving';
import { searchOf } from '../../src/backtest/sweep/options';
import type { Summary } from '../../src/backtest/report/metrics';
import { spawnSync } from 'node:child_process';
import { ensureBuilt, ROOT } from '../cli/exchange-proc';
import { recording, writeConfig } from './fixtures';

jest.setTimeout(400_000);

/** The CLI, with room for a loaded machine (the shared runCli stops at 20 s). */
function runCli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 150_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(20, 21));
  // Larger is better: the fewer fills the better (a figure no built-in objective gives).
  writeFileSync(path.join(dir, 'obj.js'), 'exports.fewFills = (s, info) => -s.fills + (info.spanMs > 0 ? 0 : 1e9);\n');
});

const params = { 'mm.minSpreadBps': ['2', '8'], 'mm.skewBps': ['1', '4'] };
/** The first `n` minutes of the recording. */
const firstMinutes = (n: number): { files: string[]; from: string; to: string } => ({ files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + n * 60_000).toISOString() });
/**
 * The first 5 minutes: the objectives test's four sweeps rank the same four points whatever the
 * length of data (on 5 minutes the busiest point closes 46 trades in 245 fills; the walk-forward
 * test takes the first 16 minutes, for three windows).
 */
const fiveMinutes = firstMinutes(5);
interface Row {
  index: number;
  metric: number | null;
  excluded: string | null;
  summary: { fills: number; trades: number; return: number; maxDrawdown: number } | null;
}
const rowsOf = (out: string): Row[] => (JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { rows: Row[] }).rows;

test('objectives: calmar and returnOverDrawdown from the summary, a module function, and minTrades excluding points', () => {
  const cfg = writeConfig(dir, 'rod.yaml', { data: fiveMinutes, sweep: { objective: 'returnOverDrawdown', params } });
  const out = path.join(dir, 'rod');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '2', '--quiet']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/ranked by returnOverDrawdown/);
  const rows = rowsOf(out);
  for (const x of rows) expect(x.metric).toBeCloseTo((x.summary?.return ?? 0) / Math.max(x.summary?.maxDrawdown ?? 0, 1e-4), 9);
  expect(rows.map((x) => x.metric)).toEqual([...rows.map((x) => x.metric)].sort((a, b) => (b ?? 0) - (a ?? 0)));
  // The ranked figure is a column of sweep.csv and sweep.md (it was in sweep.json only), and
  // sweep.html names it (it said "ranked by sharpe", the unused sweep.metric).
  const csv = readFileSync(path.join(out, 'sweep.csv'), 'utf8').trim().split('\n');
  expect(csv[0]).toBe('rank,job,mm.minSpreadBps,mm.skewBps,returnOverDrawdown,totalPnl,return,sharpe,sortino,maxDrawdown,winRate,fees,funding,trades,fills,exposure,error');
  expect(csv.slice(1).map((l) => Number(l.split(',')[4]))).toEqual(rows.map((x) => x.metric));
  const md = readFileSync(path.join(out, 'sweep.md'), 'utf8').split('\n');
  expect(md[0]).toBe('| rank | job | mm.minSpreadBps | mm.skewBps | returnOverDrawdown | totalPnl | return | sharpe | sortino | maxDrawdown | winRate | fees | funding | trades | fills | exposure | error |');
  expect(md.slice(2, 2 + rows.length).map((l) => Number(l.split(' | ')[4]))).toEqual(rows.map((x) => x.metric));
  expect(readFileSync(path.join(out, 'sweep.html'), 'utf8')).toContain('<h1>Sweep: rod.yaml, ranked by returnOverDrawdown</h1>');
  // sweep.json records what ranked the rows, and no sweep.metric beside an objective (it said
  // "metric": "sharpe", the default, which ranked nothing).
  const doc = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as Record<string, unknown>;
  expect(doc).not.toHaveProperty('metric');
  expect(doc).toMatchObject({ objective: 'returnOverDrawdown', order: 'desc' });

  const mod = writeConfig(dir, 'mod.yaml', { data: fiveMinutes, sweep: { objective: { module: './obj.js', export: 'fewFills' }, params } });
  const out2 = path.join(dir, 'mod');
  expect(runCli(['sweep', mod, '--out', out2, '--workers', '2', '--quiet']).code).toBe(0);
  const rows2 = rowsOf(out2);
  expect(readFileSync(path.join(out2, 'sweep.csv'), 'utf8').split('\n')[0]).toMatch(/^rank,job,mm\.minSpreadBps,mm\.skewBps,module:\.\/obj\.js#fewFills,totalPnl,/);
  expect(rows2.map((x) => x.metric)).toEqual(rows2.map((x) => -(x.summary?.fills ?? 0)));
  expect(rows2.map((x) => x.summary?.fills)).toEqual([...rows2.map((x) => x.summary?.fills)].sort((a, b) => (a ?? 0) - (b ?? 0)));

  // minTrades above the closed trades of the busiest point: nothing ranks, the line says why, and
  // a table with no best point is exit 1 (it was 0). minTrades counts closed trades, not fills:
  // the busiest point has more fills than minTrades asks, and it ranked (minTrades compared fills).
  const most = Math.max(...rows.map((x) => x.summary?.trades ?? 0));
  expect(Math.max(...rows.map((x) => x.summary?.fills ?? 0))).toBeGreaterThan(most + 1);
  const min = writeConfig(dir, 'min.yaml', { data: fiveMinutes, sweep: { objective: 'calmar', minTrades: most + 1, params } });
  const out3 = path.join(dir, 'min');
  const r3 = runCli(['sweep', min, '--out', out3, '--workers', '2', '--quiet']);
  expect(r3.code).toBe(1);
  expect(r3.stderr).toMatch(new RegExp(`^perpkit sweep: no point is ranked by calmar: 4 of 4 not ranked \\(first: job 0: \\d+ closed trades \\(\\d+ fills\\), fewer than sweep\\.minTrades \\(${most + 1}\\)\\), so the table has no best point: lower sweep\\.minTrades\n$`));
  expect(r3.stdout).toMatch(new RegExp(`4 not ranked \\(\\d+ closed trades \\(\\d+ fills\\), fewer than sweep\\.minTrades \\(${most + 1}\\)\\)`));
  const rows3 = rowsOf(out3);
  expect(rows3.map((x) => [x.index, x.metric])).toEqual([[0, null], [1, null], [2, null], [3, null]]);
  for (const x of rows3) expect(x.excluded).toBe(`${x.summary?.trades} closed trades (${x.summary?.fills} fills), fewer than sweep.minTrades (${most + 1})`);
  // The tables show the closed trades the rule counts, beside the fills.
  const csv3 = readFileSync(path.join(out3, 'sweep.csv'), 'utf8').trim().split('\n');
  const head3 = csv3[0].split(',');
  expect(csv3.slice(1).map((l) => Number(l.split(',')[head3.indexOf('trades')]))).toEqual(rows3.map((x) => x.summary?.trades));
  // minTrades at the busiest point's closed trades: it ranks, the others (fewer) do not.
  const atMost = writeConfig(dir, 'min-at.yaml', { data: fiveMinutes, sweep: { objective: 'calmar', minTrades: most, params } });
  const out4 = path.join(dir, 'min-at');
  runCli(['sweep', atMost, '--out', out4, '--workers', '2', '--quiet']);
  for (const x of rowsOf(out4)) expect([x.summary?.trades, /closed trades/.test(x.excluded ?? '')]).toEqual([x.summary?.trades, (x.summary?.trades ?? 0) < most]);

  const bad = writeConfig(dir, 'bad.yaml', { sweep: { objective: 'sharp', params } });
  const rb = runCli(['sweep', bad, '--out', path.join(dir, 'bad')]);
  expect(rb.code).toBe(2);
  expect(rb.stderr).toMatch(/bad\.yaml:\d+: sweep\.objective: expected one of sharpe, sortino, calmar, returnOverDrawdown, or \{ module: \.\/file\.js, export: name \}/);
  const badFn = writeConfig(dir, 'badfn.yaml', { sweep: { objective: { module: './obj.js', export: 'nope' }, params } });
  expect(runCli(['sweep', badFn, '--out', path.join(dir, 'bad')]).stderr).toMatch(/sweep\.objective\.export: expected a function exported as 'nope'/);
});

test('sweep.json of a sweep ranked by its metric records the metric and its order', () => {
  // Two minutes of data: what sweep.json records does not depend on the length.
  const cfg = writeConfig(dir, 'bymetric.yaml', { data: firstMinutes(2), sweep: { metric: 'totalPnl', order: 'asc', params: { 'mm.minSpreadBps': ['2'], 'mm.skewBps': ['1'] } } });
  const out = path.join(dir, 'bymetric');
  expect(runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']).code).toBe(0);
  expect(JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8'))).toMatchObject({ metric: 'totalPnl', order: 'asc', objective: 'totalPnl' });
});

test('sweep.order beside sweep.objective is refused at load (it was ignored: an objective ranks larger first)', () => {
  const cfg = writeConfig(dir, 'order.yaml', { sweep: { objective: 'returnOverDrawdown', order: 'asc', params } });
  const out = path.join(dir, 'order-out');
  const r = runCli(['sweep', cfg, '--out', out]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^perpkit sweep: \S*order\.yaml:\d+: sweep\.order: expected no order with sweep\.objective \(an objective ranks larger first; to rank smaller first, return the negated figure from a module objective\), got string "asc"\n$/);
  expect(existsSync(out)).toBe(false);
});

test("calmar is the report's Calmar, and a point whose report has none (too few days) is not ranked, saying why", () => {
  const cfg = loadBacktestConfig(writeConfig(dir, 'calmar.yaml', { sweep: { objective: 'calmar', params } }));
  const o = objectiveOf(cfg);
  const job = (summary: unknown) => ({ index: 0, point: {}, seed: 1, summary: summary as never, error: undefined, span: { start: 0, end: 86_400_000 } });
  expect(o.score(job({ calmar: 1.5, fills: 5, ratioNotes: { calmar: null } }))).toEqual({ value: 1.5 });
  expect(o.score(job({ calmar: null, fills: 5, ratioNotes: { calmar: 'n/a: 1 d of data (1 daily return), needs ≥ 30 days' } }))).toEqual({ excluded: 'objective calmar is n/a (1 d of data (1 daily return), needs ≥ 30 days)' });
  expect(annualized(0.01, 365 * 86_400_000)).toBeCloseTo(0.01, 12);
});

test('walk-forward: windows, the best training point tested on the next window, stitched out-of-sample, ratio', async () => {
  // 16 of the 20 minutes: three windows (the first 15 minutes; a fourth would need 18).
  const cfg = writeConfig(dir, 'wf.yaml', { data: firstMinutes(16), sweep: { objective: 'returnOverDrawdown', walkForward: { train: '6m', test: '3m' }, params } });
  const out = path.join(dir, 'wf');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '2', '--quiet']);
  expect(r.code).toBe(0);
  const wf = JSON.parse(readFileSync(path.join(out, 'walkforward.json'), 'utf8')) as {
    range: { from: number; to: number };
    windows: Array<{ train: { from: number; to: number }; test: { from: number; to: number }; best: { index: number; point: Record<string, string>; score: number }; result: { index: number; return: number } }>;
    inSample: { annualized: number; return: number };
    outOfSample: { return: number; annualized: number; spanMs: number; equity: Array<[number, number]> };
    ratio: number | null;
  };
  const expected = walkForwardWindows({ trainMs: 360_000, testMs: 180_000, stepMs: 180_000 }, wf.range.from, wf.range.to);
  expect(wf.windows.map((w) => [w.train, w.test])).toEqual(expected.map((w) => [w.train, w.test]));
  expect(wf.windows.length).toBeGreaterThanOrEqual(3);
  expect(r.stdout).toMatch(new RegExp(`walk-forward: ${wf.windows.length} windows, ${wf.windows.length} tested; out-of-sample return`));

  // Window 1, recomputed here job by job: its best training point and its test result.
  const loaded = loadBacktestConfig(cfg);
  const points = sweepJobs(loaded);
  const w = wf.windows[1];
  const objective = objectiveOf(loaded);
  const scores = await Promise.all(points.map(async (p) => {
    const index = 4 + 1 * 4 + p.index;
    const res = await runJob({ configFile: loaded.file, index, point: p.point, seed: jobSeed(1, index), window: w.train });
    const sc = objective.score(res);
    return 'value' in sc ? sc.value : -Infinity;
  }));
  const bestHere = scores.indexOf(Math.max(...scores));
  expect(w.best.point).toEqual(points[bestHere].point);
  expect(w.best.score).toBeCloseTo(scores[bestHere], 12);
  const test = await runJob({ configFile: loaded.file, index: w.result.index, point: w.best.point, seed: jobSeed(1, w.result.index), window: w.test });
  expect(w.result.return).toBe(test.summary?.return);

  // Stitched: the product of the test windows' growth; annualized over the test time; the ratio.
  const growth = wf.windows.reduce((g, x) => g * (1 + x.result.return), 1) - 1;
  expect(wf.outOfSample.return).toBeCloseTo(growth, 12);
  expect(wf.outOfSample.spanMs).toBe(wf.windows.length * 180_000);
  expect(wf.outOfSample.equity[0][1]).toBe(1);
  if (wf.inSample.annualized > 0) expect(wf.ratio).toBeCloseTo(wf.outOfSample.annualized / wf.inSample.annualized, 9);
  else expect(wf.ratio).toBeNull();
  expect(readFileSync(path.join(out, 'walkforward.md'), 'utf8')).toMatch(/Out-of-sample \/ in-sample annualized return/);
  // The windows as the config gives them (they were hours: train 0.1 h, test 0.05 h).
  expect(readFileSync(path.join(out, 'walkforward.md'), 'utf8')).toMatch(/; train 6 min, test 3 min, step 3 min; \d+ windows\./);

  const overlap = writeConfig(dir, 'wf-bad.yaml', { sweep: { walkForward: { train: '6m', test: '3m', step: '1m' }, params } });
  const rb = runCli(['sweep', overlap, '--out', path.join(dir, 'wf-bad'), '--workers', '1', '--quiet']);
  expect(rb.code).toBe(2);
  // Refused before any job (it used to come after the whole sweep had run and written its table).
  expect(rb.stderr).toMatch(/^perpkit sweep: \S*wf-bad\.yaml:\d+: sweep\.walkForward\.step: expected at least test \(180000 ms\): overlapping test windows cannot be stitched, got 60000 ms\n$/);
  expect(existsSync(path.join(dir, 'wf-bad'))).toBe(false);
  // With data.from and data.to set, a window longer than the range is known before any job too.
  const from = new Date(SYNTH_EPOCH).toISOString();
  const to = new Date(SYNTH_EPOCH + 600_000).toISOString();
  const short = writeConfig(dir, 'wf-short.yaml', { data: { files: ['rec.jsonl.gz'], from, to }, sweep: { walkForward: { train: '8m', test: '3m' }, params } });
  const rs = runCli(['sweep', short, '--out', path.join(dir, 'wf-short'), '--workers', '1']);
  expect(rs.code).toBe(2);
  expect(rs.stderr).toBe(`perpkit sweep: ${short}:${readFileSync(short, 'utf8').split('\n').findIndex((l) => l.startsWith('  walkForward:')) + 1}: sweep.walkForward: expected train + test within data.from..data.to (${from} to ${to}, 0.17 h), got train 480000 ms + test 180000 ms\n`);
  expect(existsSync(path.join(dir, 'wf-short'))).toBe(false);
  const long = writeConfig(dir, 'wf-long.yaml', { sweep: { walkForward: { train: '2d', test: '1d' }, params } });
  const rl = runCli(['sweep', long, '--out', path.join(dir, 'wf-long'), '--workers', '1', '--quiet']);
  expect(rl.code).toBe(2);
  // Without data.from/data.to the range is the recording's, read before any job: one line, no
  // output folder (it used to be refused only after the whole sweep had run and written its table).
  expect(rl.stderr).toMatch(/^perpkit sweep: \S*wf-long\.yaml:\d+: sweep\.walkForward: expected train \+ test within the data \(\S+Z to \S+Z, 0\.\d\d h\), got train 172800000 ms \+ test 86400000 ms\n$/);
  expect(existsSync(path.join(dir, 'wf-long'))).toBe(false);
});

test('successive halving: seeded points, the top 1/eta kept on eta times more data, the same with 1 and 2 workers', () => {
  // Rounds on 2, 4 and 8 minutes of data: how halving keeps and grows does not depend on the length.
  const from = new Date(SYNTH_EPOCH).toISOString();
  const to = new Date(SYNTH_EPOCH + 8 * 60_000).toISOString();
  const cfg = writeConfig(dir, 'halving.yaml', {
    data: { files: ['rec.jsonl.gz'], from, to },
    sweep: { method: 'random', samples: 8, seed: 42, objective: 'returnOverDrawdown', halving: { eta: 2, rounds: 3 }, params: { 'mm.minSpreadBps': { min: 1, max: 12, step: 1, integer: true }, 'mm.skewBps': { min: 0, max: 6, step: 1, integer: true } } },
  });
  const one = path.join(dir, 'halving-1');
  const two = path.join(dir, 'halving-2');
  const r1 = runCli(['sweep', cfg, '--out', one, '--workers', '1', '--quiet']);
  expect(r1.code).toBe(0);
  expect(runCli(['sweep', cfg, '--out', two, '--workers', '2', '--quiet']).code).toBe(0);
  for (const f of ['halving.json', 'sweep.json', 'sweep.csv']) expect(readFileSync(path.join(two, f), 'utf8')).toBe(readFileSync(path.join(one, f), 'utf8'));
  const h = JSON.parse(readFileSync(path.join(one, 'halving.json'), 'utf8')) as { rounds: Array<{ window: { from: number; to: number }; points: number[]; jobs: number[]; kept: number[] }> };
  expect(h.rounds.map((r) => [r.points.length, (r.window.to - r.window.from) / 60_000])).toEqual([[8, 2], [4, 4], [2, 8]]);
  expect(r1.stdout).toMatch(/halving round 1: 8 points on 0\.03 h of data, 0 failed, kept/);
  // Every job of its rounds is counted (8 + 4 + 2), in the summary line and sweep.json (which said
  // 2 jobs, the last round's rows, beside failures counted over every round).
  expect(r1.stdout).toMatch(/^sweep: 8 points \(14 jobs in 3 rounds\) on 1 worker\(s\) in [\d.]+ s, 14 finished, 0 failed[,;]/m);
  expect((JSON.parse(readFileSync(path.join(one, 'sweep.json'), 'utf8')) as { counts: { jobs: number } }).counts.jobs).toBe(14);

  // Round 1's survivors are the top half of round 1's results by the objective (ties by index).
  const loaded = loadBacktestConfig(cfg);
  const objective = objectiveOf(loaded);
  const rows = readFileSync(path.join(one, 'results.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { result: JobResult }).result);
  const round1 = rows.filter((r) => r.index < 8);
  const top = round1
    .map((r) => ({ i: r.index, s: objective.score(r) }))
    .filter((x): x is { i: number; s: { value: number } } => 'value' in x.s)
    .sort((a, b) => b.s.value - a.s.value || a.i - b.i)
    .slice(0, 4)
    .map((x) => x.i)
    .sort((a, b) => a - b);
  expect(h.rounds[0].kept).toEqual(top);
  expect(h.rounds[1].points).toEqual(top);
  // Round 2 ran the survivors (job indexes 8-11) with the survivors' points.
  const points = sweepJobs(loaded);
  expect(rows.filter((r) => r.index >= 8 && r.index < 12).sort((a, b) => a.index - b.index).map((r) => r.point)).toEqual(top.map((i) => points[i].point));
  // The table ranks the last round's points, on the whole range: each row as the job of that
  // round whose figures it shows (job index, seed), as in results.jsonl.
  const table = rowsOf(one) as Array<Row & { seed: number; point: Record<string, number> }>;
  expect(h.rounds[2].jobs).toEqual([12, 13]);
  expect(table.map((r) => r.index).sort((a, b) => a - b)).toEqual(h.rounds[2].jobs);
  for (const r of table) {
    const job = rows.find((x) => x.index === r.index);
    expect([r.seed, r.point, r.summary?.fills]).toEqual([job?.seed, points[h.rounds[2].points[h.rounds[2].jobs.indexOf(r.index)]].point, job?.summary?.fills]);
  }
  expect(r1.stdout).toMatch(/^\| 1 \| 1[23] \|/m);

  const noRange = writeConfig(dir, 'halving-bad.yaml', { sweep: { halving: { eta: 2 }, params } });
  const rb = runCli(['sweep', noRange, '--out', path.join(dir, 'hb'), '--workers', '1']);
  expect(rb.code).toBe(2);
  expect(rb.stderr).toMatch(/sweep\.halving: expected data\.from and data\.to set/);
});

test('successive halving: sweep.minTrades is asked of each slice in proportion to it, and a table row shows the job index and seed of the run whose figures it holds', async () => {
  expect([sliceMinTrades(12, 1, 3), sliceMinTrades(10, 1, 4), sliceMinTrades(1, 1, 9), sliceMinTrades(0, 1, 9), sliceMinTrades(7, 9, 9)]).toEqual([4, 3, 1, 0, 7]);
  const from = SYNTH_EPOCH;
  const to = SYNTH_EPOCH + 16 * 60_000;
  const cfg = loadBacktestConfig(writeConfig(dir, 'halving-min.yaml', {
    data: { files: ['rec.jsonl.gz'], from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    sweep: { objective: 'returnOverDrawdown', minTrades: 10, halving: { eta: 2, rounds: 2 }, params: { 'mm.minSpreadBps': ['1', '2', '3', '4'] } },
  }));
  const spec = searchOf(cfg).halving;
  if (spec === undefined) throw new Error('no halving');
  // Point 0 trades least (12 closed trades over the whole range, 6 on round 1's half of it) and returns
  // the most per drawdown; the others trade more and return less. With the whole range's
  // minTrades (10) asked of the half, point 0 was dropped in round 1, and never ran on it all.
  const tradesPerMinute = [0.75, 2, 3, 4];
  const ran: Array<{ index: number; point: number; seed: number; minutes: number }> = [];
  const run: JobRunner = (jobs) => {
    const out: JobResult[] = [];
    for (const j of jobs) {
      const p = ['1', '2', '3', '4'].indexOf(String(j.point['mm.minSpreadBps']));
      const minutes = j.window === undefined ? 16 : (j.window.to - j.window.from) / 60_000;
      ran.push({ index: j.index, point: p, seed: j.seed, minutes });
      // Two fills a closed trade: minTrades counts the trades (it counted the fills).
      const summary = { trades: Math.round(tradesPerMinute[p] * minutes), fills: 2 * Math.round(tradesPerMinute[p] * minutes), return: 0.01 / (p + 1), maxDrawdown: 0.01 } as unknown as Summary;
      out[j.index] = { index: j.index, point: j.point, seed: j.seed, summary, error: undefined };
    }
    return Promise.resolve(out);
  };
  const h = await runHalving(cfg, spec, objectiveOf(cfg), sweepJobs(cfg), run);
  expect(h.rounds.map((r) => [r.points, r.jobs, r.kept, r.minTrades])).toEqual([
    [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1], 5],
    [[0, 1], [4, 5], [], 10],
  ]);
  expect(h.ranked.map((r) => [r.rank, r.point['mm.minSpreadBps'], r.metric])).toEqual([
    [1, '1', 1],
    [2, '2', 0.5],
  ]);
  // Each row names the last round's job whose figures it holds (it named round 1's job 0 and 1,
  // with round 2's figures and seeds), as results.jsonl and halving.json's last round do.
  for (const r of h.ranked) {
    const job = ran.find((x) => x.index === r.index);
    expect(job?.minutes).toBe(16);
    expect(r.seed).toBe(job?.seed);
    expect(r.summary?.trades).toBe(Math.round(tradesPerMinute[job?.point ?? -1] * 16));
  }
  expect(h.ranked.map((r) => r.index)).toEqual([4, 5]);
});

// Probe item 10: walk-forward raised minutes of data to a year's power ("-0.004% (annualized
// -99.933%)") where the report's ratios say n/a under 30 days.
test('walk-forward gives no annualized figure under 30 days of data, and says why, in stdout, walkforward.json and walkforward.md', () => {
  // 12 minutes of data, two windows: the notes say why for any length under 30 days.
  const cfg = writeConfig(dir, 'wf-ann.yaml', { data: firstMinutes(12), sweep: { metric: 'totalPnl', walkForward: { train: '6m', test: '3m' }, params: { 'mm.minSpreadBps': ['2'] } } });
  const out = path.join(dir, 'wf-ann');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']);
  expect(r.code).toBe(0);
  const wf = JSON.parse(readFileSync(path.join(out, 'walkforward.json'), 'utf8')) as { inSample: { annualized: number | null; annualizedNote: string }; outOfSample: { annualized: number | null; annualizedNote: string; spanMs: number }; ratio: number | null };
  expect(wf.outOfSample.annualized).toBeNull();
  expect(wf.outOfSample.annualizedNote).toBe(`n/a: ${wf.outOfSample.spanMs / 60_000} min of data, needs ≥ 30 days`);
  expect(wf.inSample.annualized).toBeNull();
  expect(wf.inSample.annualizedNote).toMatch(/^n\/a: .* of data, needs ≥ 30 days$/);
  expect(wf.ratio).toBeNull();
  expect(r.stdout).toMatch(/out-of-sample return -?[\d.]+% \(annualized n\/a: \d+ min of data, needs ≥ 30 days\) against the in-sample optimum's -?[\d.]+% \(annualized n\/a: .* of data, needs ≥ 30 days\); ratio -;/);
  const md = readFileSync(path.join(out, 'walkforward.md'), 'utf8');
  expect(md).toMatch(/\| annualized \| n\/a: .* of data, needs ≥ 30 days \| n\/a: \d+ min of data, needs ≥ 30 days \|/);
  expect(md).toContain('(the annualized returns are n/a: under 30 days of data)');
  expect(annualizedNa(30 * 86_400_000)).toBeNull();
  expect(annualizedNa(30 * 86_400_000 - 1)).toMatch(/^n\/a: /);
});
