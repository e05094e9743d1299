/**
 * The exchange under test as a separate process: the real CLI (`node bin/perpkit.js exchange`),
 * so the server has an event loop (and, on this 2-core machine, a core) of its own and the load
 * generator in the bench process does not steal its time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface ExchangeProcessOptions {
  adminToken: string;
  /** Written to a temporary YAML file passed with --config. */
  ordersPer10s: number;
  requestsPerMinute: number;
  /** When set, the server runs under `node --cpu-prof` and writes its profile into this folder on exit. */
  cpuProfDir?: string;
  startTimeoutMs?: number;
  /** Start the bare node:http server of bare-server.ts instead of the exchange (the limit it is measured against). */
  bare?: boolean;
}

/** Clock ticks per second of /proc/<pid>/stat utime and stime (USER_HZ, 100 on Linux). */
const CLK_TCK = 100;

/** The repository root: the folder above this file that holds bin/perpkit.js. */
function repoRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'bin', 'perpkit.js')) && existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find bin/perpkit.js above ${__dirname}`);
}

/**
 * CPU seconds the whole machine has spent busy (all cores: user, nice, system, irq, softirq,
 * steal) since boot, from /proc/stat; the difference over a window minus the server's and the
 * client's own CPU is what other processes took from the benchmark.
 */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK;
}

export class ExchangeProcess {
  private stderrTail = '';
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    private readonly tmpDir: string,
  ) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
      else child.once('exit', (code) => resolve(code));
    });
    void this.exited.then((c) => {
      this.exitCode = c;
    });
    child.stderr?.on('data', (d: Buffer) => this.keepStderr(d));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('exchange process has no pid');
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  private keepStderr(d: Buffer): void {
    this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-4000);
  }

  /** The last few KB the server wrote to stderr (its pino log), for error messages. */
  get stderr(): string {
    return this.stderrTail;
  }

  static async start(opts: ExchangeProcessOptions): Promise<ExchangeProcess> {
    const root = repoRoot();
    const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'perpkit-bench-'));
    const configFile = path.join(tmpDir, 'exchange.yaml');
    writeFileSync(configFile, `rateLimits:\n  ordersPer10s: ${opts.ordersPer10s}\n  requestsPerMinute: ${opts.requestsPerMinute}\n`);
    const nodeArgs = opts.cpuProfDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
    const args = opts.bare
      ? [...nodeArgs, path.join(__dirname, 'bare-server.js')]
      : [...nodeArgs, path.join(root, 'bin', 'perpkit.js'), 'exchange', '--port', '0', '--admin-token', opts.adminToken, '--market', 'off', '--config', configFile];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PERPKIT_LOG_LEVEL: process.env.PERPKIT_LOG_LEVEL ?? 'info' } });
    let stderr = '';
    const onErr = (d: Buffer): void => {
      stderr = (stderr + d.toString('utf8')).slice(-4000);
    };
    child.stderr.on('data', onErr);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`exchange did not print its listening line within ${opts.startTimeoutMs ?? 15000} ms; stderr: ${stderr}`)), opts.startTimeoutMs ?? 15000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.once('exit', (code, sig) => {
          clearTimeout(timer);
          reject(new Error(`exchange exited (code ${code}, signal ${sig}) before listening; stderr: ${stderr}`));
        });
        child.once('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
      child.stderr.off('data', onErr);
      const p = new ExchangeProcess(child, url, tmpDir);
      p.stderrTail = stderr;
      return p;
    } catch (e) {
      child.kill('SIGKILL');
      rmSync(tmpDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** CPU seconds (user + system) the server process has used so far, from /proc/<pid>/stat. */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return (utime + stime) / CLK_TCK;
  }

  /** SIGTERM (a clean stop, so a --cpu-prof profile is written), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    try {
      if (this.alive) {
        this.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          this.exited.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), graceMs);
          }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          this.child.kill('SIGKILL');
          await this.exited;
        }
      }
    } finally {
      rmSync(this.tmpDir, { recursive: true, force: true });
    }
  }
}
