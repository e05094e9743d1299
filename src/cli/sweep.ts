/**
 * `perpkit sweep <config.yaml>`: runs the config's backtest over the grid or random points of its
 * `sweep` block on worker threads and writes the ranked table (sweep.json, sweep.csv, sweep.md).
 * The table is the same for any number of workers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { BacktestConfigError, loadBacktestConfig } from '../backtest/backtest/config';
import { runSweep } from '../backtest/sweep/sweep';
import { toCsv, toMarkdown } from '../backtest/sweep/table';

export const SWEEP_USAGE = `perpkit sweep <config.yaml> [options]

Runs the backtest of the config for every point of its sweep block (grid or seeded random search)
on worker threads and writes sweep.json, sweep.csv and sweep.md, ranked by sweep.metric
(docs/backtesting.md).

Options:
  --workers <n>    worker threads (default: sweep.workers, else the number of CPUs); 0 runs in-process
  --out <dir>      output directory (default: <report.out>-sweep)
  --quiet          no per-job lines
  -h, --help       show this text

Example:
  perpkit sweep config/backtest-market-maker-sweep.yaml --workers 2 --out /tmp/mm-sweep
`;

export async function runSweepCli(argv: string[]): Promise<number> {
  let values: { workers?: string; out?: string; quiet?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { workers: { type: 'string' }, out: { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
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
    const o = await runSweep(cfg, {
      workers,
      onNotice: quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
      onResult: quiet ? undefined : (r, done, total) => process.stderr.write(`job ${r.index} done (${done}/${total})${r.error ? `: ${r.error}` : ''}\n`),
    });
    mkdirSync(out, { recursive: true });
    const doc = { format: 'perpkit-sweep', version: 1, method: cfg.sweep.method, seed: cfg.sweep.seed, metric: cfg.sweep.metric, order: cfg.sweep.order, params: cfg.sweep.params, rows: o.ranked };
    writeFileSync(path.join(out, 'sweep.json'), `${JSON.stringify(doc, null, 1)}\n`);
    writeFileSync(path.join(out, 'sweep.csv'), toCsv(o.ranked, o.keys));
    const md = toMarkdown(o.ranked, o.keys);
    writeFileSync(path.join(out, 'sweep.md'), md);
    process.stdout.write(`${md.split('\n').slice(0, 12).join('\n')}\n`);
    process.stdout.write(`sweep: ${o.jobs.length} jobs on ${workers} worker(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s; wrote ${path.join(out, 'sweep.json')}, sweep.csv, sweep.md\n`);
    return o.results.some((r) => r.error !== undefined) ? 1 : 0;
  } catch (e) {
    if (e instanceof BacktestConfigError) {
      process.stderr.write(`perpkit sweep: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`perpkit sweep: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 1;
  }
}
