/** Spawns the compiled `perpkit` CLI and waits for its listening line. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
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

/** Compiles when dist is older than src (tsc emits even when someone else's file has a type error). */
export function ensureBuilt(): void {
  const out = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
  let built = 0;
  try {
    built = statSync(out).mtimeMs;
  } catch {
    built = 0;
  }
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
