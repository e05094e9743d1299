/**
 * One process per resource: a lock file made with O_EXCL, holding the process id, host and start
 * time of its holder. A lock whose process is no longer running (killed with SIGKILL, a power
 * loss) is taken over, and the caller is told so (to log it); a lock of a live process, or of
 * another host (which cannot be asked), throws LockHeldError.
 *
 * The exchange locks its data directory with it (exchange/service/durable-core.ts), the bot its
 * state file (runtime/state-lock.ts), each with its own message.
 */
import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { isRecord } from './config-errors';
import { isProcessAlive } from './processes';

export interface LockHolder {
  pid: number;
  host: string;
  /** When it took the lock, ms since the epoch. */
  since: number;
}

/** The lock belongs to a process that may still be running. */
export class LockHeldError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockHolder,
  ) {
    super(`${file} is held by pid ${holder.pid} on ${holder.host} since ${new Date(holder.since).toISOString()}`);
    this.name = 'LockHeldError';
  }
}

/** Taken: `tookOverFrom` names the holder no longer running whose lock was taken over. */
export interface LockTaken {
  tookOverFrom?: LockHolder | 'unreadable';
}

/** Lock files this process holds, by absolute path (two holders in one process conflict too). */
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

export class PidLock {
  readonly file: string;
  private held = false;

  constructor(file: string) {
    this.file = path.resolve(file);
  }

  /**
   * Takes the lock (its folder must exist). Throws LockHeldError when a process that may be
   * running holds it, and the file system's error when the file cannot be made.
   */
  async acquire(now: number): Promise<LockTaken> {
    const me: LockHolder = { pid: process.pid, host: hostname(), since: now };
    let tookOverFrom: LockHolder | 'unreadable' | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const fh = await fs.open(this.file, 'wx', 0o600);
        try {
          await fh.writeFile(`${JSON.stringify(me)}\n`, 'utf8');
        } finally {
          await fh.close();
        }
        this.held = true;
        heldHere.add(this.file);
        return tookOverFrom === undefined ? {} : { tookOverFrom };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 1) throw e;
      }
      const holder = await readHolder(this.file);
      if (holder !== undefined && mayBeRunning(holder, this.file)) throw new LockHeldError(this.file, holder);
      // Left by a process no longer running (or unreadable: a crash while it was written).
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
