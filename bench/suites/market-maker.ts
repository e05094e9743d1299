/**
 * market-maker: issue 13's backtest figure, the example market maker (config/backtest-market-maker.yaml)
 * on the 2 h sample (data/sample/btcusdt-2h.jsonl.gz, 57,573 events since its depth lines come every
 * second; 44,581 before) from the replay cache, two ways:
 *  - `one CLI run`: `perpkit backtest` in a fresh process per run, as a user runs it; events/s as
 *    the CLI prints them (the backtest from opening the data to the report, module loading aside);
 *  - `warm`: `backtest()` again and again in one process, BENCH_MM_WARMUP untimed runs (default 3)
 *    then BENCH_MM_RUNS timed ones (default 3): the JIT has compiled the code by then.
 * Each tree runs its own checkout's config and data, so each keeps its own replay cache (the
 * layouts differ between builds); one untimed CLI run per tree builds it first. A base checkout
 * from before the sample was made anew holds the old sample: copy this one's over it for an A/B
 * on the same data.
 *
 * The goal is a ratio to the build before the work, on the same machine in one run: with
 * BENCH_MM_BASE=<another checkout, built> (`git worktree add /tmp/mm-base 28040c9`, then `npm ci &&
 * npm run build` in it) every run alternates between that tree and this one, and the suite
 * reports this / base. BENCH_MM_ROUNDS (default 5) sets the alternations.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { envCount, median, round, type BenchResult } from '../harness';
import { registerSuite } from './registry';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CONFIG = path.join('config', 'backtest-market-maker.yaml');

/** Issue 13: the example market maker's backtest at 10x the build before the work. */
const GOAL_RATIO = 10;

/** A tree the suite runs: its root (with bin/, config/, data/ and a built dist/). */
interface Tree {
  label: string;
  root: string;
  cli: number[];
  warm: number[];
}

function treeOf(label: string, root: string): Tree {
  for (const need of [path.join('bin', 'perpkit.js'), CONFIG, path.join('dist', 'src', 'backtest', 'backtest', 'backtest.js')]) {
    if (!existsSync(path.join(root, need))) throw new Error(`market-maker bench: ${label} tree ${root} has no ${need} (a checkout built with npm run build is needed)`);
  }
  return { label, root, cli: [], warm: [] };
}

/** One `perpkit backtest` process; the events/s of its summary line (what a user sees; older builds print it too). */
function cliRun(t: Tree, out: string): number {
  const stdout = execFileSync(process.execPath, [path.join(t.root, 'bin', 'perpkit.js'), 'backtest', CONFIG, '--out', out, '--quiet'], { cwd: t.root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const m = /^backtest: (\d+) events in [\d.]+ s \((\d+) ev\/s/m.exec(stdout);
  if (!m) throw new Error(`market-maker bench: ${t.label}: no "backtest: N events in ... (N ev/s" line in the CLI's output: ${stdout.slice(0, 300)}`);
  return Number(m[2]);
}

/** `backtest()` warmup + runs times in one child process of the tree's own build; the timed runs' events/s. */
function warmRuns(t: Tree, warmup: number, runs: number): number[] {
  const script = `
const root = ${JSON.stringify(t.root)};
const { backtest } = require(root + '/dist/src/backtest/backtest/backtest.js');
const { loadBacktestConfig } = require(root + '/dist/src/backtest/backtest/config.js');
(async () => {
  const cfg = loadBacktestConfig(root + '/' + ${JSON.stringify(CONFIG)});
  const rates = [];
  for (let i = 0; i < ${warmup + runs}; i++) {
    const t0 = performance.now();
    const o = await backtest(cfg, {});
    const ms = performance.now() - t0;
    if (i >= ${warmup}) rates.push(Math.round((o.result.events.read * 1000) / ms));
  }
  process.stdout.write(JSON.stringify(rates));
})().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
`;
  const stdout = execFileSync(process.execPath, ['-e', script], { cwd: t.root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const rates = JSON.parse(stdout) as unknown;
  if (!Array.isArray(rates) || rates.length !== runs || !rates.every((r) => typeof r === 'number' && r > 0)) throw new Error(`market-maker bench: ${t.label}: warm runs gave ${stdout.slice(0, 200)}`);
  return rates as number[];
}

async function run(): Promise<BenchResult[]> {
  const rounds = envCount('market-maker', 'BENCH_MM_ROUNDS', 5, 1);
  const warmup = envCount('market-maker', 'BENCH_MM_WARMUP', 3, 0);
  const runs = envCount('market-maker', 'BENCH_MM_RUNS', 3, 1);
  const trees = [treeOf('this build', ROOT)];
  const baseRoot = process.env.BENCH_MM_BASE;
  if (baseRoot !== undefined && baseRoot !== '') trees.unshift(treeOf('base', path.resolve(baseRoot)));
  const out = mkdtempSync(path.join(tmpdir(), 'perpkit-bench-mm-'));
  try {
    // Builds each tree's replay cache (and warms the disk cache): not timed.
    for (const t of trees) cliRun(t, path.join(out, `${t.label}-cache`));
    for (let r = 0; r < rounds; r++) {
      for (const t of trees) t.cli.push(cliRun(t, path.join(out, `${t.label}-${r}`)));
      for (const t of trees) t.warm.push(...warmRuns(t, warmup, runs));
      process.stderr.write(`market-maker bench: round ${r + 1} of ${rounds}: ${trees.map((t) => `${t.label} cli ${t.cli[t.cli.length - 1]} warm ${t.warm.slice(-runs).join('/')} ev/s`).join('; ')}\n`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const results: BenchResult[] = [];
  for (const t of trees) {
    const tag = t.label === 'base' ? `base (${t.root})` : 'this build';
    results.push(
      { name: `market maker 2 h, ${tag}: one perpkit backtest per process, median of ${t.cli.length}`, value: median(t.cli), unit: 'events/s' },
      { name: `market maker 2 h, ${tag}: one perpkit backtest per process, best`, value: Math.max(...t.cli), unit: 'events/s' },
      { name: `market maker 2 h, ${tag}: warm in process (after ${warmup} runs), median of ${t.warm.length}`, value: median(t.warm), unit: 'events/s' },
      { name: `market maker 2 h, ${tag}: warm in process, best`, value: Math.max(...t.warm), unit: 'events/s' },
    );
  }
  if (trees.length === 2) {
    const [base, self] = trees;
    const cli = median(self.cli) / median(base.cli);
    const warm = median(self.warm) / median(base.warm);
    results.push(
      { name: `this build / base, one perpkit backtest per process (medians); goal ${GOAL_RATIO}x`, value: round(cli, 3), unit: 'ratio' },
      { name: `this build / base, warm in process (medians); goal ${GOAL_RATIO}x`, value: round(warm, 3), unit: 'ratio' },
    );
  }
  return results;
}

registerSuite({
  name: 'market-maker',
  description: "The example market maker's backtest on the 2 h sample: one CLI run per process and warm runs in one process; with BENCH_MM_BASE, against another build in alternation (issue 13's 10x goal).",
  run,
});
