/**
 * One bot per state file. Two bots started on the same state file (a second `perpkit run` of the
 * same config, a copy with another http.port) both adopted the same open orders, amended and
 * cancelled them, and wrote over each other's state; stopping one cancelled the other's quotes.
 *
 * The lock is a file beside the state file (`<stateFile>.lock`), a PidLock (core/pid-lock.ts):
 * a lock whose process is no longer running (a bot killed with SIGKILL, a power loss) is taken
 * over, and the daemon says so; a lock of a live process, or of another host (which cannot be
 * asked), refuses the start.
 */
import * as path from 'node:path';
import { makeDir } from '../core/dirs';
import { errMessage } from '../core/errors';
import { LockHeldError, PidLock, type LockHolder } from '../core/pid-lock';
import { StateFileError } from './state-store';

/** Held: the lock is this process's (maybe taken over from a bot no longer running); not held: it could not be made (the state file's folder cannot be written either). */
export type LockOutcome = { held: true; tookOverFrom?: LockHolder | 'unreadable' } | { held: false; why: string };

export class StateFileLock {
  private readonly lock: PidLock;

  constructor(readonly stateFile: string) {
    this.lock = new PidLock(`${stateFile}.lock`);
  }

  get file(): string {
    return this.lock.file;
  }

  /** Takes the lock; throws StateFileError when another bot holds it. */
  async acquire(now: number): Promise<LockOutcome> {
    try {
      await makeDir(path.dirname(this.file));
      const got = await this.lock.acquire(now);
      return got.tookOverFrom === undefined ? { held: true } : { held: true, tookOverFrom: got.tookOverFrom };
    } catch (e) {
      if (!(e instanceof LockHeldError)) return { held: false, why: errMessage(e) };
      const h = e.holder;
      throw new StateFileError(
        this.stateFile,
        `in use by another bot (pid ${h.pid} on ${h.host}, since ${new Date(h.since).toISOString()}): two bots on one state file manage the same orders and overwrite each other's state; stop that bot or give this one a stateFile of its own (if no such bot runs, remove ${this.file})`,
      );
    }
  }

  /** Gives the lock up (a no-op when not held, or when it is no longer this process's). */
  release(): Promise<void> {
    return this.lock.release();
  }
}
