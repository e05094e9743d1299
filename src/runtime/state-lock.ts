/**
 * One bot per state file. Two bots started on the same state file (a second `perpkit run` of the
 * same config, a copy with another http.port) both adopted the same open orders, amended and
 * cancelled them, and wrote over each other's state; stopping one cancelled the other's quotes.
 *
 * The lock is a file beside the state file (`<stateFile>.lock`) made with O_EXCL, holding the
 * process id, host and start time of the bot. A lock whose process is no longer running (a bot
 * killed with SIGKILL, a power loss) is taken over, and the daemon says so; a lock of a live
 * process, or of another host (which cannot be asked), refuses the start.
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { isRecord } from '../core/config-errors';
import { makeDir } from '../core/dirs';
import { errMessage } from '../core/errors';
import { isProcessAlive } from '../core/processes';
import { StateFileError } from './state-store';

export interface LockHolder {
  pid: number;
  host: string;
  /** When it took the lock, ms since the epoch. */
  since: number;
}

/** Held: the lock is this process's (maybe taken over from a bot no longer running); not held: it could not be made (the state file's folder cannot be written either). */
export type LockOutcome = { held: true; tookOverFrom?: LockHolder | 'unreadable' } | { held: false; why: string };

/** Lock files this process holds, by absolute path (two daemons in one process are two bots too). */
const heldHere = new Set<string>();

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const doc: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
    if (!isRecord(doc) || !Number.isSafeInteger(doc.pid) || typeof doc.host !== 'string' || typeof doc.since !== 'number') return undefined;
    return { pid: doc.pid as number, host: doc.host, since: doc.since };
  } catch {
    return undefined;
  }
}

/** Whether the holder may still be running: another host cannot be asked, so it may. */
function mayBeRunning(h: LockHolder, file: string): boolean {
  if (h.host !== hostname()) return true;
  if (h.pid === process.pid) return heldHere.has(file);
  return isProcessAlive(h.pid);
}

export class StateFileLock {
  readonly file: string;
  private held = false;

  constructor(readonly stateFile: string) {
    this.file = path.resolve(`${stateFile}.lock`);
  }

  /** Takes the lock; throws StateFileError when another bot holds it. */
  async acquire(now: number): Promise<LockOutcome> {
    const me: LockHolder = { pid: process.pid, host: hostname(), since: now };
    let tookOverFrom: LockHolder | 'unreadable' | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        await makeDir(path.dirname(this.file));
        const fh = await fs.open(this.file, 'wx', 0o600);
        try {
          await fh.writeFile(`${JSON.stringify(me)}\n`, 'utf8');
        } finally {
          await fh.close();
        }
        this.held = true;
        heldHere.add(this.file);
        return tookOverFrom === undefined ? { held: true } : { held: true, tookOverFrom };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) return { held: false, why: errMessage(e) };
      }
      const holder = await readHolder(this.file);
      if (holder !== undefined && mayBeRunning(holder, this.file)) {
        throw new StateFileError(
          this.stateFile,
          `in use by another bot (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.since).toISOString()}): two bots on one state file manage the same orders and overwrite each other's state; stop that bot or give this one a stateFile of its own (if no such bot runs, remove ${this.file})`,
        );
      }
      // Left by a bot no longer running (or unreadable: a crash while it was written).
      tookOverFrom = holder ?? 'unreadable';
      await fs.rm(this.file, { force: true });
    }
  }

  /** Gives the lock up (a no-op when not held, or when it is no longer this process's). */
  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    heldHere.delete(this.file);
    const holder = await readHolder(this.file);
    if (holder !== undefined && holder.pid === process.pid && holder.host === hostname()) await fs.rm(this.file, { force: true });
  }
}
