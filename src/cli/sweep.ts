/**
 * `perpkit sweep <config.yaml>`: runs the config's backtest over the grid or random points of its
 * `sweep` block on worker threads and writes the ranked table (sweep.json, sweep.csv, sweep.md).
 * The table is the same for any number of workers.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { BacktestConfigError, loadBacktestConfig } from '../backtest/backtest/config';
import type { JobResult } from '../backtest/sweep/job';
import { runSweep, sweepId, sweepJobs } from '../backtest/sweep/sweep';
import { toCsv, toMarkdown } from '../backtest/sweep/table';
import { renderSweepHtml } from '../backtest/report/sweep-html';
import { reportFailure } from './failure';

export const SWEEP_USAGE = `perpkit sweep <config.yaml> [options]

Runs the backtest of the config for every point of its sweep block (grid or seeded random search)
on worker threads and writes sweep.json, sweep.csv, sweep.md and sweep.html, ranked by sweep.metric
(docs/backtesting.md).

Options:
  --workers <n>    worker threads (default: sweep.workers, else the number of CPUs); 0 runs in-process
  --out <dir>      output directory (default: <report.out>-sweep)
  --resume         keep the finished rows of an earlier run of the same sweep (results.jsonl in the
                   output directory) and run only the other points
  --quiet          no per-job lines
  --debug          print the stack of an error (errors are one line without it)
  -h, --help       show this text

Every finished job is appended to <out>/results.jsonl as it finishes, so a sweep that dies keeps
its results. A job whose worker crashes, or that runs past sweep.jobTimeoutMs, is a row with its
error. Exit codes: 0 every job finished; 1 a job failed (its row says why) or the sweep failed;
2 bad input (config, data, a parameter the strategy does not read).

Example:
  perpkit sweep config/backtest-market-maker-sweep.yaml --workers 2 --out /tmp/mm-sweep
`;

const RESULTS = 'results.jsonl';

/** The rows of an earlier run of this sweep; another sweep's file is refused, not mixed in. */
function resumeRows(file: string, id: string): JobResult[] {
  if (!existsSync(file)) return [];
  const out: JobResult[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let row: { sweep?: unknown; result?: JobResult };
      try {
        row = JSON.parse(line) as typeof row;
      } catch {
        throw new BacktestConfigError(file, `line ${i + 1}`, 'a JSON line written by perpkit sweep', line.slice(0, 60));
      }
      if (row.sweep !== id) throw new BacktestConfigError(file, `line ${i + 1}`, `a row of this sweep (${id}; the config or its points changed since, so --resume cannot reuse it: move the file away)`, `sweep ${String(row.sweep)}`);
      if (row.result !== undefined) out.push(row.result);
    });
  return out;
}

export async function runSweepCli(argv: string[]): Promise<number> {
  let values: { workers?: string; out?: string; quiet?: boolean; debug?: boolean; resume?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { workers: { type: 'string' }, out: { type: 'string' }, quiet: { type: 'boolean' }, debug: { type: 'boolean' }, resume: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    process.stderr.write(`perpkit sweep: ${e instanceof Error ? e.message : String(e)}\n\n${SWEEP_USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(SWEEP_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`perpkit sweep: expected one config file, got ${positionals.length}\n\n${SWEEP_USAGE}`);
    return 2;
  }
  if (values.workers !== undefined && !/^\d+$/.test(values.workers)) {
    process.stderr.write(`perpkit sweep: --workers must be a whole number, got '${values.workers}'\n`);
    return 2;
  }
  try {
    const cfg = loadBacktestConfig(positionals[0]);
    if (!cfg.sweep) throw new BacktestConfigError(cfg.file, 'sweep', 'a sweep block (method, params, metric)', 'nothing (the key is missing)');
    const workers = values.workers !== undefined ? Number(values.workers) : (cfg.sweep.workers ?? availableParallelism());
    const out = values.out !== undefined ? path.resolve(values.out) : `${cfg.report.out}-sweep`;
    const quiet = values.quiet === true;
    const t0 = performance.now();
    mkdirSync(out, { recursive: true });
    const resultsFile = path.join(out, RESULTS);
    const id = sweepId(readFileSync(cfg.file, 'utf8'), sweepJobs(cfg));
    const done = values.resume === true ? resumeRows(resultsFile, id) : [];
    // Kept: the successful rows; a failed one is run again.
    writeFileSync(resultsFile, done.filter((r) => r.error === undefined).map((r) => `${JSON.stringify({ sweep: id, result: r })}\n`).join(''));
    if (!quiet && done.length > 0) process.stderr.write(`resuming: ${done.filter((r) => r.error === undefined).length} finished points kept from ${resultsFile}\n`);
    let failedSoFar = 0;
    const o = await runSweep(cfg, {
      workers,
      done,
      onNotice: quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
      onResult: (r, n, total) => {
        appendFileSync(resultsFile, `${JSON.stringify({ sweep: id, result: r })}\n`);
        if (r.error !== undefined) failedSoFar++;
        if (!quiet) process.stderr.write(`job ${r.index} ${r.error === undefined ? 'done' : 'FAILED'} (${n}/${total} finished, ${failedSoFar} failed)${r.error ? `: ${r.error}` : ''}\n`);
      },
    });
    const doc = { format: 'perpkit-sweep', version: 1, method: cfg.sweep.method, seed: cfg.sweep.seed, metric: cfg.sweep.metric, order: cfg.sweep.order, params: cfg.sweep.params, rows: o.ranked };
    writeFileSync(path.join(out, 'sweep.json'), `${JSON.stringify(doc, null, 1)}\n`);
    writeFileSync(path.join(out, 'sweep.csv'), toCsv(o.ranked, o.keys));
    const md = toMarkdown(o.ranked, o.keys);
    writeFileSync(path.join(out, 'sweep.md'), md);
    writeFileSync(path.join(out, 'sweep.html'), renderSweepHtml(doc, cfg));
    process.stdout.write(`${md.split('\n').slice(0, 12).join('\n')}\n`);
    const failed = o.results.filter((r) => r.error !== undefined);
    const noMetric = o.ranked.filter((r) => r.error === null && r.metric === null);
    if (noMetric.length > 0) process.stderr.write(`perpkit sweep: ${noMetric.length} of ${o.jobs.length} points have no ${cfg.sweep.metric} (${Object.values(noMetric[0].summary?.ratioNotes ?? {}).find((n) => n !== null) ?? 'null in the report'}); they rank last: rank short runs by totalPnl or return\n`);
    process.stdout.write(`sweep: ${o.jobs.length} jobs on ${workers} worker(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${o.jobs.length - failed.length} finished, ${failed.length} failed; wrote ${path.join(out, 'sweep.json')}, sweep.csv, sweep.md, sweep.html, ${RESULTS}\n`);
    if (failed.length > 0) {
      process.stderr.write(`perpkit sweep: ${failed.length} of ${o.jobs.length} jobs failed; first: job ${failed[0].index} ${JSON.stringify(failed[0].point)}: ${failed[0].error ?? ''}\n`);
      return 1;
    }
    return 0;
  } catch (e) {
    return reportFailure('sweep', e, values.debug === true);
  }
}
