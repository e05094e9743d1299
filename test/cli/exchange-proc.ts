/** Spawns the compiled `perpkit` CLI and waits for its listening line. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, statSync, readdirSync, utimesSync } from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'perpkit.js');

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Modification time in ms, 0 for a missing file. */
function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Compiles when dist is older than src (tsc emits even when someone else's file has a type error).
 * The build's time is that of its build info (dist/.tsbuildinfo, written by every build that
 * changed anything) or of main.js, whichever is newer: an incremental build re-emits only the files
 * an edit affects, so main.js alone stayed older than the edited source after `npm run build` (or
 * this function's own build), and every suite calling this compiled again (~8 s of CPU each).
 */
export function ensureBuilt(): void {
  const out = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
  const built = existsSync(out) ? Math.max(mtimeOf(out), mtimeOf(path.join(ROOT, 'dist', '.tsbuildinfo'))) : 0;
  // The dashboard's page, built by npm run build after tsc.
  const page = path.join(ROOT, 'dist', 'web', 'dashboard', 'index.html');
  let pageBuilt = 0;
  try {
    pageBuilt = statSync(page).mtimeMs;
  } catch {
    pageBuilt = 0;
  }
  if (pageBuilt < Math.max(newestMtime(path.join(ROOT, 'web')), newestMtime(path.join(ROOT, 'src', 'runtime', 'dashboard')))) {
    spawnSync(process.execPath, [path.join(ROOT, 'tools', 'build-web.cjs')], { cwd: ROOT, stdio: 'ignore' });
    statSync(page);
  }
  // TypeBox and yaml as one file each (tools/build-vendor.cjs), made by npm run build after tsc.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { VENDOR_BUNDLES } = require(path.join(ROOT, 'tools', 'build-vendor.cjs')) as { VENDOR_BUNDLES: string[] };
  if (!VENDOR_BUNDLES.every((b) => existsSync(path.join(ROOT, 'dist', 'src', 'vendor', `${b}.js`)))) spawnSync(process.execPath, [path.join(ROOT, 'tools', 'build-vendor.cjs')], { cwd: ROOT, stdio: 'ignore' });
  if (built >= newestMtime(path.join(ROOT, 'src'))) return;
  spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
  statSync(out);
  // Built now, though tsc left main.js (and its build info, when nothing changed) as they were.
  const now = new Date();
  utimesSync(out, now, now);
}

export interface Proc {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs the CLI to its end; `env` is added to this process's environment. */
export function runCli(args: string[], env?: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 20000, env: env === undefined ? undefined : { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function startCli(args: string[], timeoutMs = 15000, logLevel = 'warn'): Promise<Proc> {
  const child = spawn(process.execPath, [BIN, 'exchange', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPKIT_LOG_LEVEL: logLevel } });
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^listening on (http:\/\/\S+)\n/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stdout: () => out, stderr: () => err, exited });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exchange exited (${code}) before listening; stderr: ${err}`));
    });
  });
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What bin/perpkit.js does for one command line (main.ts runCommandLine: the exit code of `main`,
 * or 1 and the stack of what escaped it), for each command line read from stdin (a JSON array), one after
 * another in one process; each one's exit code and its stdout and stderr writes, as JSON on stdout.
 */
const BATCH = `
const { runCommandLine } = require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'cli', 'main.js'))});
const write = { out: process.stdout.write, err: process.stderr.write };
process.exit = (code) => { throw new Error('process.exit(' + code + ') in a batch of command lines: run this one in its own process'); };
(async () => {
  const runs = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  const results = [];
  for (const argv of runs) {
    const r = { code: null, stdout: '', stderr: '' };
    process.stdout.write = (chunk) => { r.stdout += String(chunk); return true; };
    process.stderr.write = (chunk) => { r.stderr += String(chunk); return true; };
    try {
      r.code = await runCommandLine(argv);
    } finally {
      process.stdout.write = write.out;
      process.stderr.write = write.err;
    }
    if (process.exitCode !== undefined && process.exitCode !== 0) throw new Error('process.exitCode set by ' + JSON.stringify(argv) + ': run it in its own process');
    results.push(r);
  }
  process.stdout.write(JSON.stringify(results));
})().catch((err) => { process.stderr.write(String(err && err.stack || err)); process.exitCode = 1; });
`;

/**
 * Runs many command lines of the CLI in one process (bin/perpkit.js's path for each: `main`, its
 * exit code, its output), for command lines that end at once (usage, --help, bad arguments): a
 * process each cost ~0.2-0.9 s of CPU, most of it Node starting and loading the same modules.
 * Returns the results by command line (its JSON).
 */
export function runCliBatch(runs: string[][]): Map<string, CliRun> {
  const r = spawnSync(process.execPath, ['-e', BATCH], { cwd: ROOT, encoding: 'utf8', input: JSON.stringify(runs), timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`the batch of command lines failed (${r.status ?? r.signal}): ${r.stderr}`);
  const results = JSON.parse(r.stdout) as CliRun[];
  return new Map(runs.map((argv, i) => [JSON.stringify(argv), results[i]]));
}
