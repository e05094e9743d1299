/** PidLock (core/pid-lock.ts) on the real file system: one holder at a time, stale locks taken over. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { LockHeldError, PidLock } from '../../src/core/pid-lock';

describe('PidLock', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-pidlock-'));
    file = path.join(dir, 'x.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a second holder in the same process is refused until the first releases', async () => {
    const a = new PidLock(file);
    expect(await a.acquire(1000)).toEqual({});
    const b = new PidLock(file);
    await expect(b.acquire(2000)).rejects.toThrow(LockHeldError);
    await a.release();
    expect(await b.acquire(3000)).toEqual({});
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ pid: process.pid, host: hostname(), since: 3000 });
    await b.release();
  });

  it('an unreadable lock (a crash while it was written) is taken over and said so', async () => {
    writeFileSync(file, '{"pid":');
    const lock = new PidLock(file);
    expect(await lock.acquire(1000)).toEqual({ tookOverFrom: 'unreadable' });
    await lock.release();
  });

  it("release leaves a lock that is no longer this process's alone", async () => {
    const lock = new PidLock(file);
    await lock.acquire(1000);
    const other = { pid: 1, host: 'elsewhere.example', since: 5 };
    writeFileSync(file, JSON.stringify(other));
    await lock.release();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(other);
  });
});
