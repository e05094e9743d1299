#!/usr/bin/env node
'use strict';
/**
 * `npm run soak -- --seeds 1..10 [--seconds 60] [--load]`: the reliability soak
 * (test/reliability/soak.test.ts) once per seed, each in a process of its own with a hard timeout.
 * Prints one line per seed as it finishes (pass, fail or hung; wall time; the soak's figures) and
 * a summary; exits 1 if any seed failed or hung. --load runs a busy loop per core beside it, to
 * find timing bugs that only an overloaded machine shows. Results: test/reliability/.results/soak-runs.json.
 */
const { spawn } = require('node:child_process');
const { setTimeout, clearTimeout } = require('node:timers');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const RESULTS = path.join(ROOT, 'test', 'reliability', '.results');

/** "1..10", "3,5,8", "7" (and combinations: "1..3,9") to a list of seeds; throws on anything else. */
function parseSeeds(spec) {
  const out = [];
  for (const part of String(spec).split(',')) {
    const range = /^(\d+)\.\.(\d+)$/.exec(part.trim());
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (b < a) throw new Error(`--seeds: range ${part} goes backwards`);
      for (let s = a; s <= b; s++) out.push(s);
    } else if (/^\d+$/.test(part.trim())) out.push(Number(part.trim()));
    else throw new Error(`--seeds: '${part}' is not a seed or a range like 1..10`);
  }
  if (out.length === 0) throw new Error('--seeds: no seed given');
  return out;
}

function parseArgs(argv) {
  const o = { seeds: [1], seconds: 60, load: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seeds') o.seeds = parseSeeds(argv[++i]);
    else if (a === '--seconds') {
      o.seconds = Number(argv[++i]);
      if (!Number.isInteger(o.seconds) || o.seconds < 5) throw new Error(`--seconds: a whole number of at least 5, got ${argv[i]}`);
    } else if (a === '--load') o.load = true;
    else throw new Error(`unknown option ${a}; usage: npm run soak -- --seeds 1..10 [--seconds 60] [--load]`);
  }
  return o;
}

const fmtObj = (o) => (o === undefined ? '-' : Object.entries(o).map(([k, v]) => `${k}:${v}`).join(','));

/** One line per seed. */
function formatLine(r) {
  const f = r.figures ?? {};
  const parts = [
    `seed ${String(r.seed).padStart(3)}`,
    r.outcome.padEnd(4),
    `${(r.wallMs / 1000).toFixed(0)} s`,
    `fills ${f.botFills ?? '-'}`,
    `taker ${f.takerTrades ?? '-'}`,
    `reconciles ${f.reconciles ?? '-'}`,
    `maxWorking ${fmtObj(f.maxWorkingOrders)}`,
    `onVenue ${f.ordersOnVenue ?? '-'}`,
    `converged ${f.convergedAfterFaultsMs ?? '-'} ms`,
    `maxUnknown ${f.maxUnknownAgeMs ?? '-'} ms`,
  ];
  if (r.failure) parts.push(`: ${r.failure}`);
  return parts.join('  ');
}

/** The summary line over all runs. */
function summarize(runs) {
  const n = (o) => runs.filter((r) => r.outcome === o).length;
  const worst = {};
  let conv = 0;
  for (const r of runs) {
    for (const [k, v] of Object.entries(r.figures?.maxWorkingOrders ?? {})) worst[k] = Math.max(worst[k] ?? 0, v);
    conv = Math.max(conv, r.figures?.convergedAfterFaultsMs ?? 0);
  }
  return `soak: ${runs.length} seeds, ${n('pass')} passed, ${n('fail')} failed, ${n('hung')} hung; worst maxWorkingOrders ${fmtObj(worst)}; longest convergence ${conv} ms`;
}

function readFigures(seed, seconds) {
  try {
    const all = JSON.parse(readFileSync(path.join(RESULTS, 'soak.json'), 'utf8'));
    return all[`seed ${seed}, ${seconds} s`];
  } catch {
    return undefined;
  }
}

function runSeed(seed, seconds) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), 'test/reliability/soak.test.ts'], {
      cwd: ROOT,
      env: { ...process.env, SOAK_SEED: String(seed), SOAK_SECONDS: String(seconds) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // The soak's own jest timeout is 2 x seconds + 300 s; past that and a margin, it hangs.
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, (2 * seconds + 360) * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const failure = /●[^\n]*\n+\s*([^\n]+)/.exec(out);
      const outcome = hung ? 'hung' : code === 0 ? 'pass' : 'fail';
      resolve({ seed, outcome, exitCode: code, wallMs: Date.now() - started, figures: outcome === 'pass' ? readFigures(seed, seconds) : undefined, failure: outcome === 'pass' ? undefined : (failure?.[1] ?? `exit ${code}`).slice(0, 300), log: outcome === 'pass' ? undefined : out.slice(-4000) });
    });
  });
}

function startLoad() {
  const n = os.cpus().length;
  const kids = [];
  for (let i = 0; i < n; i++) kids.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  return () => kids.forEach((k) => k.kill('SIGKILL'));
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`soak: ${e.message}\n`);
    return 2;
  }
  mkdirSync(RESULTS, { recursive: true });
  const stopLoad = o.load ? startLoad() : () => undefined;
  process.stdout.write(`soak: seeds ${o.seeds.join(',')}, ${o.seconds} s each${o.load ? `, with ${os.cpus().length} busy loops beside it` : ''}, load average ${os.loadavg()[0].toFixed(2)}\n`);
  const runs = [];
  try {
    for (const seed of o.seeds) {
      const r = await runSeed(seed, o.seconds);
      r.loadAverage = Number(os.loadavg()[0].toFixed(2));
      runs.push(r);
      process.stdout.write(`${formatLine(r)}\n`);
    }
  } finally {
    stopLoad();
  }
  const summary = summarize(runs);
  process.stdout.write(`${summary}\n`);
  const file = path.join(RESULTS, 'soak-runs.json');
  const prev = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
  prev.push({ at: new Date().toISOString(), seconds: o.seconds, load: o.load, cpus: os.cpus().length, summary, runs });
  writeFileSync(file, `${JSON.stringify(prev, null, 1)}\n`);
  return runs.every((r) => r.outcome === 'pass') ? 0 : 1;
}

if (require.main === module) {
  main().then((code) => {
    process.exitCode = code;
  });
}

module.exports = { parseSeeds, parseArgs, formatLine, summarize };
