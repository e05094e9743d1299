import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { fileHeaders } from '../../src/backtest/backtest/jsonl-source';
import { runJob } from '../../src/backtest/sweep/job';
import * as points from '../../src/backtest/sweep/points';
import { sweepPoints } from '../../src/backtest/sweep/points';
import { checkPoints, preparedSweep, runSweep, stoppableSweepJobs, sweepJobs } from '../../src/backtest/sweep/sweep';
import * as strategySource from '../../src/bot/strategy-source';
import { SweepStopped } from '../../src/backtest/sweep/pool';
import { rank, toCsv, toMarkdown } from '../../src/backtest/sweep/table';
import { ensureBuilt } from '../cli/exchange-proc';
import { recording, writeConfig } from './fixtures';

const WORKER = path.resolve(__dirname, '../../dist/src/backtest/sweep/worker.js');

describe('sweep', () => {
  test('grid points are the cartesian product in key order; random points follow the seed', () => {
    const grid = sweepPoints({ method: 'grid', samples: 0, seed: 1, metric: 'sharpe', order: 'desc', workers: undefined, params: [{ key: 'a.x', spec: { values: [1, 2] } }, { key: 'a.y', spec: { min: 0.1, max: 0.3, step: 0.1, integer: false } }] });
    expect(grid).toEqual([{ 'a.x': 1, 'a.y': 0.1 }, { 'a.x': 1, 'a.y': 0.2 }, { 'a.x': 1, 'a.y': 0.3 }, { 'a.x': 2, 'a.y': 0.1 }, { 'a.x': 2, 'a.y': 0.2 }, { 'a.x': 2, 'a.y': 0.3 }]);
    const cfg = { method: 'random' as const, samples: 5, seed: 9, metric: 'sharpe', order: 'desc' as const, workers: undefined, params: [{ key: 'a.z', spec: { min: 1, max: 10, integer: true } }] };
    expect(sweepPoints(cfg)).toEqual(sweepPoints(cfg));
    expect(sweepPoints({ ...cfg, seed: 10 })).not.toEqual(sweepPoints(cfg));
    // Every whole number of 1..3 about as often, the ends too (rounding gave them half the chance).
    const counts = [0, 0, 0, 0];
    for (const p of sweepPoints({ ...cfg, samples: 30_000, params: [{ key: 'a.z', spec: { min: 1, max: 3, integer: true } }] })) counts[p['a.z'] as number]++;
    expect(counts[0]).toBe(0);
    for (const n of counts.slice(1)) expect(Math.abs(n - 10_000)).toBeLessThan(500);
  });

  test("a sweep resolves each strategy module once, not once per point (100,000 points took ~50 s before the first job)", async () => {
    const { dir } = await recording(2, 11);
    const cfg = loadBacktestConfig(writeConfig(dir, 'once.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': { min: 1, max: 20, step: 1 }, 'mm.skewBps': { min: 1, max: 10, step: 1 } } } }));
    const load = jest.spyOn(strategySource, 'loadStrategySource');
    try {
      await checkPoints(cfg, sweepJobs(cfg), (await fileHeaders([path.join(dir, 'rec.jsonl.gz')]))[0].symbols);
      expect(load).toHaveBeenCalledTimes(1);
      load.mockClear();
      // The run is given the jobs preparedSweep checked: the points are not checked a second time.
      const { jobs } = await preparedSweep(cfg);
      expect(jobs).toHaveLength(200);
      expect(load).toHaveBeenCalledTimes(1);
    } finally {
      load.mockRestore();
    }
  });

  test("a job resolves its strategy module once per thread, not once per job (perpkit worker's threads resolved it for each)", async () => {
    const { dir } = await recording(2, 14);
    const cfg = loadBacktestConfig(writeConfig(dir, 'perjob.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': ['2', '4', '6'] } } }));
    const load = jest.spyOn(strategySource, 'loadStrategySource');
    try {
      // runJob is what each thread runs for each job, on a local pool and under perpkit worker alike.
      const results = [];
      for (const job of sweepJobs(cfg)) results.push(await runJob(job));
      expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
      expect(load).toHaveBeenCalledTimes(1);
    } finally {
      load.mockRestore();
    }
  });

  test('checking the points of a large sweep stops on its signal (Ctrl+C did nothing until every point was checked)', async () => {
    const { dir } = await recording(2, 12);
    const cfg = loadBacktestConfig(writeConfig(dir, 'stop.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': { min: 1, max: 100, step: 1 }, 'mm.skewBps': { min: 1, max: 1000, step: 1 } } } }));
    const stop = new AbortController();
    const t0 = performance.now();
    setTimeout(() => stop.abort('SIGINT'), 200);
    await expect(preparedSweep(cfg, stop.signal)).rejects.toThrow(new SweepStopped('SIGINT'));
    // Stopped within a turn of the loop of the abort, not after the 100,000 points (seconds).
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  test('building the points of a large grid stops on its signal too, before any point is checked (it ran to the end, ~0.3 s for 100,000)', async () => {
    const { dir } = await recording(2, 13);
    const cfg = loadBacktestConfig(writeConfig(dir, 'gen.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': { min: 1, max: 100, step: 1 }, 'mm.skewBps': { min: 1, max: 1000, step: 1 } } } }));
    const seeds = jest.spyOn(points, 'jobSeed');
    const load = jest.spyOn(strategySource, 'loadStrategySource');
    try {
      const stop = new AbortController();
      // The first turn of the loop after the call: while the points are being built, when they are built by turns.
      let builtAtAbort = -1;
      setTimeout(() => {
        builtAtAbort = seeds.mock.calls.length;
        stop.abort('SIGINT');
      }, 0);
      await expect(preparedSweep(cfg, stop.signal)).rejects.toThrow(new SweepStopped('SIGINT'));
      // The loop turned before the 100,000 jobs were built (each gets its seed), and no point was checked.
      expect(builtAtAbort).toBeGreaterThan(0);
      expect(builtAtAbort).toBeLessThan(100_000);
      expect(load).not.toHaveBeenCalled();
    } finally {
      seeds.mockRestore();
      load.mockRestore();
    }
    // Built to the end, they are the grid as sweepPoints gives it, in its order.
    const all = await stoppableSweepJobs(cfg);
    expect(all.map((j) => j.point)).toEqual(sweepPoints(cfg.sweep as NonNullable<typeof cfg.sweep>));
    expect(all.map((j) => [j.index, j.seed])).toEqual(sweepJobs(cfg).map((j) => [j.index, j.seed]));
  });

  test('sweep.md: a failed row says FAILED in its figure columns and its error once, in the error column', async () => {
    ensureBuilt();
    const { dir } = await recording(4, 11);
    const cfg = loadBacktestConfig(writeConfig(dir, 'md.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': ['2', '6'] } } }));
    const [ok, other] = (await runSweep(cfg, { workers: 1, workerFile: WORKER })).results;
    // A strategy that threw keeps its summary; a crashed worker leaves none; an error may hold a '|'.
    const threw = { ...other, error: 'strategies erred 1 time (threw, or returned what the bot refuses); first: [mm] onMark: a | b' };
    const crashed = { index: 2, point: { 'mm.minSpreadBps': '9' }, seed: 5, summary: undefined, error: "the job's worker failed: boom" };
    const md = toMarkdown(rank([ok, threw, crashed], 'totalPnl', 'desc'), ['mm.minSpreadBps']).trim().split('\n');
    expect(md[0]).toBe('| rank | job | mm.minSpreadBps | totalPnl | return | sharpe | sortino | maxDrawdown | winRate | fees | funding | trades | fills | exposure | error |');
    expect(md[2]).toMatch(/^\| 1 \| 0 \| 2 \| -?[\d.]+ \| .* \| {2}\|$/);
    expect(md[3]).toBe(`| 2 | 1 | 6 | ${Array(11).fill('FAILED').join(' | ')} | strategies erred 1 time (threw, or returned what the bot refuses); first: [mm] onMark: a \\| b |`);
    expect(md[4]).toBe(`| 3 | 2 | 9 | ${Array(11).fill('FAILED').join(' | ')} | the job's worker failed: boom |`);
  }, 120_000);

  test('the ranked table is the same with 1 and 2 worker threads, and a job rerun alone gives its row', async () => {
    ensureBuilt();
    const { dir } = await recording(4, 11);
    const file = writeConfig(dir, 'sw.yaml', {
      sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': ['2', '6'], 'mm.skewBps': ['1', '3'] } },
    });
    const cfg = loadBacktestConfig(file);
    const one = await runSweep(cfg, { workers: 1, workerFile: WORKER });
    const two = await runSweep(cfg, { workers: 2, workerFile: WORKER });
    expect(one.results.every((r) => r.error === undefined)).toBe(true);
    expect(JSON.stringify(two.ranked)).toBe(JSON.stringify(one.ranked));
    expect(toCsv(two.ranked, two.keys)).toBe(toCsv(one.ranked, one.keys));
    expect(one.ranked.map((r) => r.rank)).toEqual([1, 2, 3, 4]);
    // A job is a pure function of (config, point, seed): here, in-process, it gives the worker's answer.
    const job = sweepJobs(cfg)[2];
    const alone = await runJob(job);
    expect(alone.summary).toEqual(one.results[2].summary);
    expect(readFileSync(file, 'utf8')).toContain('sweep');
  }, 120_000);
});
