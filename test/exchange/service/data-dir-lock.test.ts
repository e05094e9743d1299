/**
 * One exchange per data directory (durable-core.ts, core/pid-lock.ts): a second one, in this
 * process or another, refuses to open it; a lock left by a process no longer running is taken
 * over; a graceful stop gives it up. Two exchanges on one directory appended their own seqs to
 * one journal, and the next start refused it as corrupt.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { startExchange } from '../../../src/exchange';
import { DataDirInUseError } from '../../../src/exchange/service/durable-core';

describe('the data directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const lockFile = (): string => path.join(dir, 'exchange.lock');

  it('a second exchange on the directory is refused while the first runs; after its stop the directory is free', async () => {
    const first = await startExchange({ port: 0, dataDir: dir });
    try {
      expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
      await expect(startExchange({ port: 0, dataDir: dir })).rejects.toThrow(DataDirInUseError);
      // The refused one gave up nothing of the first's.
      expect(existsSync(lockFile())).toBe(true);
    } finally {
      await first.stop();
    }
    expect(existsSync(lockFile())).toBe(false);
    const again = await startExchange({ port: 0, dataDir: dir });
    await again.stop();
  });

  it('a lock of a process no longer running is taken over', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    writeFileSync(lockFile(), JSON.stringify({ pid: deadPid, host: hostname(), since: Date.now() - 60_000 }));
    const server = await startExchange({ port: 0, dataDir: dir });
    try {
      expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid });
    } finally {
      await server.stop();
    }
  });

  it('a lock of another host is not taken over (that process cannot be asked)', async () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: 1, host: 'elsewhere.example', since: Date.now() }));
    await expect(startExchange({ port: 0, dataDir: dir })).rejects.toThrow(/in use by another exchange \(pid 1 on elsewhere\.example/);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ host: 'elsewhere.example' });
  });
});
