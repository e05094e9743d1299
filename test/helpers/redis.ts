/**
 * A real redis-server (Debian's package; `.ci/run` installs it when missing) on a free loopback
 * port, with persistence off, for the queue tests. No mocked queue: BullMQ talks to this server.
 * Every test that starts one stops it (`stop()`), and `kill()` SIGKILLs it to test a Redis that
 * goes away mid-sweep.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './ports';

export interface TestRedis {
  port: number;
  url: string;
  child: ChildProcess;
  /** SIGKILL, no shutdown: what a crashed or unplugged Redis looks like to its clients. */
  kill(): Promise<void>;
  /** Stops the server (if still running) and removes its directory. */
  stop(): Promise<void>;
}

const BIN = process.env.PERPKIT_REDIS_SERVER ?? 'redis-server';

function checkInstalled(): void {
  const r = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) throw new Error(`${BIN} is not installed or does not run (${r.error?.message ?? r.stderr}); install Debian's package: apt-get install -y redis-server (.ci/run does this)`);
}

async function startOnce(port: number, dir: string): Promise<TestRedis | undefined> {
  const child = spawn(BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'notice', '--maxmemory-policy', 'noeviction'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!ready) {
    child.kill('SIGKILL');
    await exited;
    if (/Address already in use/.test(out)) return undefined;
    throw new Error(`redis-server did not start on port ${port}: ${out.slice(-500)}`);
  }
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    child,
    kill,
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startRedis(): Promise<TestRedis> {
  checkInstalled();
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-redis-'));
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await startOnce(await freePort(), dir);
    if (r !== undefined) return r;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('redis-server: no free port after 5 attempts');
}
