/**
 * An ExchangeCore whose state survives restarts: the journal (file-journal.ts) takes every
 * command before its caller is answered, and snapshots (snapshot-store.ts) bound the replay at
 * start. Layout of the data directory:
 *
 *   exchange.lock                   pid, host and start time of the exchange using it
 *   meta.json                       genesis time (the engine clock reading at creation)
 *   journal-<first seq>.jsonl       command log segments
 *   snapshot-<last seq>.json        full state after that command
 *
 * Start: load the newest snapshot, then `core.recover()` replays only the entries after it.
 * Every `snapshotEvery` commands the state is captured at once (between two commands, so it is
 * consistent), the journal starts a new segment, and once the snapshot is on disk the older
 * snapshots and segments are deleted. `core.close()` flushes the journal and takes a final one.
 *
 * One exchange per data directory: the lock is taken before anything in it is read or written
 * (two exchanges appended their own seqs to one journal, and the next start refused it as
 * corrupt), and given up by `core.close()`.
 */
import { promises as fsp, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../../core/clock';
import type { JournalEntry } from './commands';
import type { ExchangeConfig } from './config';
import { ExchangeCore } from './exchange-core';
import { FileJournal, syncDirSync } from './file-journal';
import type { CommandLog } from './journal';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotStore, exportAccounts, importAccounts, type ExchangeSnapshot } from './snapshot-store';
import { makeDir } from '../../core/dirs';
import { LockHeldError, PidLock } from '../../core/pid-lock';

/** The lock file in a data directory. */
export const DATA_DIR_LOCK = 'exchange.lock';

/** Another exchange (that may be running) holds the data directory's lock. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    held: LockHeldError,
  ) {
    const h = held.holder;
    super(
      `in use by another exchange (pid ${h.pid} on ${h.host}, since ${new Date(h.since).toISOString()}): two exchanges on one data directory write over each other's journal; stop that exchange or give this one a --data-dir of its own (if no such exchange runs, remove ${held.file})`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** The subset of a pino logger used here. */
export interface DurabilityLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silent: DurabilityLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Takes the data directory's lock (over one left by an exchange no longer running, with a warning). */
async function lockDataDir(dir: string, now: number, logger: DurabilityLogger): Promise<PidLock> {
  const lock = new PidLock(path.join(dir, DATA_DIR_LOCK));
  let taken;
  try {
    taken = await lock.acquire(now);
  } catch (e) {
    if (e instanceof LockHeldError) throw new DataDirInUseError(dir, e);
    throw e;
  }
  if (taken.tookOverFrom !== undefined) {
    const from = taken.tookOverFrom === 'unreadable' ? { holder: 'unreadable' } : { pid: taken.tookOverFrom.pid, host: taken.tookOverFrom.host, since: new Date(taken.tookOverFrom.since).toISOString() };
    logger.warn({ dir, lock: lock.file, ...from }, 'took over the lock of the data directory from an exchange no longer running');
  }
  return lock;
}

interface Meta {
  format: 'perpkit-data-dir';
  version: 1;
  genesis: number;
}

/** The data directory's marker, or undefined when there is none yet (a new directory). */
async function readMeta(dir: string): Promise<Meta | undefined> {
  const file = path.join(dir, 'meta.json');
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let v: Partial<Meta>;
  try {
    v = JSON.parse(text) as Partial<Meta>;
  } catch (e) {
    throw new Error(`${file} is not a perpkit data directory marker (not JSON: ${e instanceof Error ? e.message : String(e)})`);
  }
  if (v === null || typeof v !== 'object' || v.format !== 'perpkit-data-dir' || v.version !== 1 || typeof v.genesis !== 'number') {
    throw new Error(`${file} is not a perpkit data directory marker (expected format perpkit-data-dir, version 1, numeric genesis)`);
  }
  return v as Meta;
}

/** Writes a new directory's marker (atomically, and the directory synced): before its first journal entry. */
function writeMetaSync(dir: string, meta: Meta): void {
  const file = path.join(dir, 'meta.json');
  writeFileSync(`${file}.tmp`, JSON.stringify(meta) + '\n');
  renameSync(`${file}.tmp`, file);
  syncDirSync(dir);
}

export interface DurabilityStats {
  snapshotSeq: number;
  snapshotLoadMs: number;
  snapshotsWritten: number;
  lastSnapshotMs: number;
}

/**
 * The CommandLog the core writes to: the file journal, plus the snapshot trigger. `append` is
 * called synchronously right after the command was applied (exchange-core.ts), so capturing the
 * state there captures exactly the state after that entry.
 */
class DurableLog implements CommandLog {
  core: ExchangeCore | undefined;
  private lastSnapshotSeq: number;
  private snapshotting: Promise<void> = Promise.resolve();
  private inFlight = false;

  constructor(
    readonly journal: FileJournal,
    private readonly store: SnapshotStore,
    private readonly every: number,
    private readonly wallClock: Clock,
    private readonly logger: DurabilityLogger,
    readonly stats: DurabilityStats,
    private readonly lock: PidLock,
    /** A new directory's marker, written before the first journal entry (a start that journals nothing writes nothing). */
    private metaToWrite: { dir: string; meta: Meta } | undefined,
  ) {
    this.lastSnapshotSeq = stats.snapshotSeq;
  }

  replay(): AsyncIterable<JournalEntry> {
    return this.journal.replay();
  }

  append(entry: JournalEntry): Promise<void> {
    if (this.metaToWrite !== undefined) {
      writeMetaSync(this.metaToWrite.dir, this.metaToWrite.meta);
      this.metaToWrite = undefined;
    }
    const written = this.journal.append(entry);
    if (this.every > 0 && !this.inFlight && entry.seq - this.lastSnapshotSeq >= this.every) {
      this.snapshotAt(entry.seq, written);
    }
    return written;
  }

  /** Resolves when the snapshots already started are written (or failed). */
  settled(): Promise<void> {
    return this.snapshotting;
  }

  /** Takes a snapshot of the state now (between commands); resolves when it is on disk. */
  snapshotNow(): Promise<void> {
    const core = this.core;
    if (!core || core.appliedCount <= this.lastSnapshotSeq) return this.snapshotting;
    this.snapshotAt(core.appliedCount, this.journal.flush());
    return this.snapshotting;
  }

  private snapshotAt(seq: number, journaled: Promise<void>): void {
    const core = this.core;
    if (!core) return;
    const t0 = performance.now();
    const snap: ExchangeSnapshot = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      seq,
      at: core.lastStamp,
      writtenAt: this.wallClock.now(),
      engine: core.engine.exportState(),
      accounts: exportAccounts(core.accounts),
    };
    // Serialized now, while the state is the state after `seq`; written later.
    const json = JSON.stringify(snap);
    const captureMs = performance.now() - t0;
    this.journal.rotateAfter(seq);
    this.lastSnapshotSeq = seq;
    this.inFlight = true;
    this.snapshotting = this.snapshotting
      .then(async () => {
        // The snapshot must never be ahead of the journal it lets us prune.
        await journaled;
        const file = await this.store.save(seq, json);
        await this.store.pruneBefore(seq);
        await this.journal.pruneThrough(seq);
        this.stats.snapshotsWritten++;
        this.stats.lastSnapshotMs = performance.now() - t0;
        this.logger.info({ seq, file, bytes: json.length, captureMs: Math.round(captureMs), totalMs: Math.round(this.stats.lastSnapshotMs) }, 'snapshot written');
      })
      .catch((e: unknown) => {
        // A failed snapshot costs replay time, not data: the journal still has everything.
        this.logger.error({ seq, err: e instanceof Error ? e.message : String(e) }, 'snapshot failed; the journal keeps all entries');
      })
      .finally(() => {
        this.inFlight = false;
      });
  }

  /**
   * Flushes the journal, takes a final snapshot (not with `final: false`: a start that did not
   * complete writes nothing more), closes the journal and gives up the data directory's lock.
   */
  async close(opts: { final?: boolean } = {}): Promise<void> {
    try {
      await this.journal.flush();
      if (opts.final !== false) await this.snapshotNow();
      await this.snapshotting;
      await this.journal.close();
    } finally {
      await this.lock.release();
    }
  }
}

export interface DurableCore {
  core: ExchangeCore;
  stats: DurabilityStats;
  /** Snapshot now (e.g. after a long replay); resolves when written. */
  snapshot(): Promise<void>;
  /** Resolves once snapshots already under way are written. */
  snapshotSettled(): Promise<void>;
}

/**
 * Opens the data directory, restores the newest snapshot into a new core and returns it. Call
 * `core.recover()` next to replay the journal tail (it streams only entries after the snapshot).
 * Without `config.dataDir` the core keeps everything in memory.
 */
export async function openDurableCore(config: ExchangeConfig, wallClock: Clock, logger: DurabilityLogger = silent): Promise<DurableCore> {
  const stats: DurabilityStats = { snapshotSeq: 0, snapshotLoadMs: 0, snapshotsWritten: 0, lastSnapshotMs: 0 };
  if (config.dataDir === undefined) {
    const core = new ExchangeCore({ config, wallClock });
    return { core, stats, snapshot: () => Promise.resolve(), snapshotSettled: () => Promise.resolve() };
  }
  const dir = path.resolve(config.dataDir);
  // Created owner-only: what goes in it includes API secrets (docs/reliability.md "Threat model").
  await makeDir(dir, 0o700);
  const lock = await lockDataDir(dir, wallClock.now(), logger);
  let core: ExchangeCore;
  let log: DurableLog;
  try {
    const found = await readMeta(dir);
    const meta: Meta = found ?? { format: 'perpkit-data-dir', version: 1, genesis: wallClock.now() };
    const store = new SnapshotStore(dir);
    const t0 = performance.now();
    const snap = await store.loadLatest((file, why) => logger.warn({ file, why }, 'skipping unreadable snapshot'));
    const journal = new FileJournal({ dir, fsync: config.fsync, afterSeq: snap?.seq ?? 0 });
    if (snap) stats.snapshotSeq = snap.seq;
    log = new DurableLog(journal, store, config.snapshotEvery, wallClock, logger, stats, lock, found === undefined ? { dir, meta } : undefined);
    core = new ExchangeCore({ config, wallClock, log, startTime: meta.genesis });
    log.core = core;
    if (snap) {
      core.engine.importState(snap.engine);
      importAccounts(core.accounts, snap.accounts);
      core.restoredTo(snap.seq, snap.at);
      stats.snapshotLoadMs = performance.now() - t0;
      logger.info({ seq: snap.seq, ms: Math.round(stats.snapshotLoadMs) }, 'snapshot loaded');
    }
  } catch (e) {
    await lock.release();
    throw e;
  }
  return { core, stats, snapshot: () => log.snapshotNow(), snapshotSettled: () => log.settled() };
}
