/**
 * What a sweep's summary says of the jobs it ran. A walk-forward's summary line counted the
 * points' runs on all the data only (its training and test runs, and their failures, were left
 * out); a point that repeats another (a list value given twice, values the strategy reads alike)
 * ran again without a word.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { recording, writeConfig } from '../backtest/fixtures';
import { ensureBuilt, ROOT } from './exchange-proc';
import { SYNTH_EPOCH } from '../../src/market-data/synth';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { sweepJobs } from '../../src/backtest/sweep/sweep';
import { repeatNotes } from '../../src/backtest/sweep/repeats';

jest.setTimeout(300_000);

/** Trades nothing; throws at its start when that is at or after `failFrom` (epoch ms): a late window fails. */
const LATE = `module.exports.default = {
  name: 'late', symbols: () => ['BTCUSDT'], marketData: () => ['markPrice'],
  params: (raw) => ({ k: Number(raw.k ?? 0), failFrom: Number(raw.failFrom ?? Infinity) }),
  create: (ctx) => ({
    onStart() {
      if (ctx.clock.now() >= ctx.params.failFrom) throw new Error('late start');
      return [];
    },
  }),
};
`;

function runCli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'perpkit.js'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 200_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const MIN = 60_000;
let dir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(13, 31));
  writeFileSync(path.join(dir, 'late.js'), LATE);
});

const data = (minutes: number): Record<string, unknown> => ({ files: ['rec.jsonl.gz'], from: new Date(SYNTH_EPOCH).toISOString(), to: new Date(SYNTH_EPOCH + minutes * MIN).toISOString() });

test("walk-forward: the summary line, its failure line and sweep.json count every job it ran (training and test runs too), by part, and the failures among them", () => {
  // 12 minutes, train 6, test 3: windows at 0 and 3 min, tests at 6 and 9 min. The strategy fails
  // when it starts at 7.5 min or later: the second test run only.
  const cfg = writeConfig(dir, 'wf.yaml', {
    data: data(12),
    strategies: [{ id: 'l', module: './late.js', params: { failFrom: SYNTH_EPOCH + 7.5 * MIN } }],
    sweep: { metric: 'totalPnl', walkForward: { train: '6m', test: '3m' }, params: { 'l.k': [1, 2] } },
  });
  const out = path.join(dir, 'wf');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']);
  expect(r.code).toBe(1);
  // 2 points on all the data, 2 windows x 2 points in training, 2 tests: 8 jobs (it said 2, 0 failed).
  expect(r.stdout).toMatch(/^sweep: 8 jobs \(2 points on all the data, 2 windows x 2 points in-sample, 2 out-of-sample\) on 1 worker\(s\) in [\d.]+ s, 7 finished, 1 failed \(0 on all the data, 0 in-sample, 1 out-of-sample\), 2 never traded \(0 fills; [^)]*\); ranked by totalPnl; wrote /m);
  // The summary comes last, after the walk-forward's own line.
  expect(r.stdout.trim().split('\n').slice(-2)[0]).toMatch(/^walk-forward: 2 windows, 1 tested; .*; 1 of its 6 job\(s\) failed; wrote walkforward\.json, walkforward\.md$/);
  expect(r.stderr).toMatch(/^perpkit sweep: 1 of 8 jobs failed \(0 on all the data, 0 in-sample, 1 out-of-sample\); first: job 7 \{"l\.k":1\}: .*late start/m);
  const doc = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { counts: Record<string, unknown> };
  expect(doc.counts).toEqual({ jobs: 8, failed: 1, ranked: 2, notRanked: 0, walkForward: { allData: 2, windows: 2, inSample: 4, outOfSample: 2, failedAllData: 0, failedInSample: 0, failedOutOfSample: 1 } });
  const wf = JSON.parse(readFileSync(path.join(out, 'walkforward.json'), 'utf8')) as { jobs: unknown; failed: Array<{ index: number }> };
  expect(wf.jobs).toEqual({ windows: 2, points: 2, inSample: 4, outOfSample: 2, failedInSample: 0, failedOutOfSample: 1 });
  expect(wf.failed.map((f) => f.index)).toEqual([7]);
});

test('a point that repeats another runs again, and the summary says so once in a note: a list value given twice, values the strategy reads alike', () => {
  const cfg = writeConfig(dir, 'twice.yaml', { data: data(2), strategies: [{ id: 'l', module: './late.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'l.k': [5, 5, '10', 10] } } });
  const out = path.join(dir, 'twice');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '1', '--quiet']);
  expect(r.code).toBe(0);
  // Not refused, not deduplicated: every listed value is a job.
  expect(r.stdout).toMatch(/^sweep: 4 jobs on 1 worker\(s\) in [\d.]+ s, 4 finished, 0 failed/m);
  const notes = [
    'note: param l.k lists 5 twice: the same point runs 2 times',
    `note: 1 job(s) run a point the strategies read as an earlier job's (their params() take the values alike): job 3 {"l.k":10} as job 2 {"l.k":"10"}: the same point runs again`,
  ];
  // The last lines of the summary, each once.
  expect(r.stdout.trim().split('\n').slice(-2)).toEqual(notes);
  for (const n of notes) expect(r.stdout.split(n).length).toBe(2);
  expect((JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { notes: string[] }).notes).toEqual(notes);
  expect(readFileSync(path.join(out, 'sweep.html'), 'utf8')).toContain('<li>param l.k lists 5 twice: the same point runs 2 times</li>');

  // Nothing repeated: no note, and sweep.json has no notes.
  const once = writeConfig(dir, 'once.yaml', { data: data(2), strategies: [{ id: 'l', module: './late.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'l.k': [5, 10] } } });
  const r2 = runCli(['sweep', once, '--out', path.join(dir, 'once'), '--workers', '1', '--quiet']);
  expect(r2.code).toBe(0);
  expect(r2.stdout).not.toMatch(/^note:/m);
  expect(JSON.parse(readFileSync(path.join(dir, 'once', 'sweep.json'), 'utf8'))).not.toHaveProperty('notes');
});

test('repeat notes: a grid point repeated across other parameters, a random search drawing a point again', () => {
  const grid = loadBacktestConfig(writeConfig(dir, 'grid2.yaml', { sweep: { params: { 'mm.minSpreadBps': ['2', '4', '2'], 'mm.skewBps': ['1', '3'] } } }));
  const gs = grid.sweep;
  if (gs === undefined) throw new Error('no sweep');
  expect(repeatNotes(gs, sweepJobs(grid), [])).toEqual(["note: param mm.minSpreadBps lists '2' twice: each point with it runs 2 times"]);
  const random = loadBacktestConfig(writeConfig(dir, 'random.yaml', { sweep: { method: 'random', samples: 6, params: { 'mm.skewBps': ['1', '3'] } } }));
  const rs = random.sweep;
  if (rs === undefined) throw new Error('no sweep');
  expect(repeatNotes(rs, sweepJobs(random), [])).toEqual(['note: 4 of the 6 random samples draw a point drawn before (2 distinct points): each runs again, with the same figures']);
});

test('the table it prints: the top ten rows, how many more sweep.md holds, and why sharpe and sortino are n/a (not "null")', () => {
  // 12 points of a strategy that trades nothing, on 3 minutes of data: no daily return to rate.
  const cfg = writeConfig(dir, 'twelve.yaml', { data: data(3), strategies: [{ id: 'l', module: './late.js', params: {} }], sweep: { metric: 'totalPnl', params: { 'l.k': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] } } });
  const out = path.join(dir, 'twelve');
  const r = runCli(['sweep', cfg, '--out', out, '--workers', '2', '--quiet']);
  expect(r.stderr).toBe('');
  const rows = r.stdout.split('\n').filter((l) => /^\| \d+ \|/.test(l));
  expect(rows).toHaveLength(10);
  for (const row of rows) expect(row.split(' | ').slice(5, 7)).toEqual(['n/a', 'n/a']);
  expect(r.stdout).not.toMatch(/\bnull\b/);
  expect(r.stdout).toContain('\n... 2 more row(s) in sweep.md\n');
  expect(r.stdout).toMatch(/\nn\/a: sharpe, sortino in 12 of 12 row\(s\): 3 min of data \(1 daily return\), needs ≥ 30 days\n/);
  // sweep.md: every row, the same note after the table.
  const md = readFileSync(path.join(out, 'sweep.md'), 'utf8');
  expect(md.split('\n').filter((l) => /^\| \d+ \|/.test(l))).toHaveLength(12);
  expect(md).toMatch(/\|\n\nn\/a: sharpe, sortino in 12 of 12 row\(s\): 3 min of data/);
});
