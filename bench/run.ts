/**
 * `npm run bench -- <suite>`: runs one suite, prints a table and writes
 * bench/results/<suite>.json as {suite, node, cpu, machine, date, results: [{name, value, unit}]}
 * (machine: cores, memory, the load average before and after the suite, and what a page of memory
 * costs the first time it is written).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getSuite, suiteNames } from './suites';
import type { BenchResult } from './harness';

/** The repository's bench/ folder, whether running from bench/ (ts) or dist/bench/ (compiled). */
function benchDir(): string {
  const parent = path.basename(path.dirname(__dirname));
  return parent === 'dist' ? path.resolve(__dirname, '../../bench') : __dirname;
}

/**
 * The machine's load average (1, 5 and 15 minutes) to two places: with the suite's own load it
 * tells a quiet machine from a busy one (on this 2-core machine a suite alone brings it to ~1-2).
 */
function loadAverage(): number[] {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}

/**
 * What this machine charges for memory the process has never used: microseconds per 4 KiB page
 * for the first write to each page of 64 MiB taken fresh, the best of two rounds. A page fault
 * with its zeroing costs ~0.1-0.3 us on bare metal; this VM's host backs guest memory lazily and
 * takes freed memory back, so there it was 10-13 us (2026-11-27 and 2026-11-28), and the engine,
 * which keeps every order's history, pays it for each new page it writes (bench/README.md, "A
 * ninth evening"). Read before the suite, as the load average is.
 */
function firstTouchUsPerPage(): number {
  const bytes = 64 * 2 ** 20;
  const page = 4096;
  let best = Infinity;
  for (let round = 0; round < 2; round++) {
    const t0 = process.hrtime.bigint();
    const b = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i += page) b[i] = 1;
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000 / (bytes / page));
  }
  return Math.round(best * 100) / 100;
}

function printTable(suite: string, results: BenchResult[]): void {
  const nameW = Math.max(4, ...results.map((r) => r.name.length));
  const valW = Math.max(5, ...results.map((r) => r.value.toLocaleString('en-US').length));
  console.log(`suite ${suite}`);
  console.log(`${'name'.padEnd(nameW)}  ${'value'.padStart(valW)}  unit`);
  for (const r of results) {
    console.log(`${r.name.padEnd(nameW)}  ${r.value.toLocaleString('en-US').padStart(valW)}  ${r.unit}`);
  }
}

async function main(): Promise<number> {
  const name = process.argv[2];
  const suite = name === undefined ? undefined : getSuite(name);
  if (suite === undefined) {
    const what = name === undefined ? 'no benchmark suite given' : `unknown benchmark suite '${name}'`;
    console.error(`${what}; expected one of: ${suiteNames().join(', ')}`);
    console.error('usage: npm run bench -- <suite>');
    return 2;
  }
  const loadBefore = loadAverage();
  const firstTouch = firstTouchUsPerPage();
  const results = await suite.run();
  const machine = { cpus: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 27) / 8, loadAverageBefore: loadBefore, loadAverageAfter: loadAverage(), firstTouchUsPerPage: firstTouch };
  printTable(suite.name, results);
  console.log(`machine: ${machine.cpus} cpus, ${machine.memoryGiB} GiB, load average (1, 5, 15 min) ${machine.loadAverageBefore.join(' / ')} before, ${machine.loadAverageAfter.join(' / ')} after; memory first written ${firstTouch} us per 4 KiB page`);
  const report = {
    suite: suite.name,
    node: process.version,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    machine,
    date: new Date().toISOString(),
    results,
  };
  const dir = path.join(benchDir(), 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${suite.name}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
