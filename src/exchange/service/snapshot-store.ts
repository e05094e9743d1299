/**
 * Snapshots of the whole exchange state (engine and accounts) in the data directory, named after
 * the seq of the last command they include (`snapshot-000000001234.json`). Written atomically:
 * a temp file, fsynced, renamed over, then the directory fsynced; a crash leaves either the old
 * set of snapshots or the new one, never a half file under a snapshot's name.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { EngineSnapshot } from '../engine/snapshot';
import type { AccountsState, ApiKeyRecord, UserRecord } from './accounts-state';
import { syncDir } from './file-journal';
import { makeDir } from '../../core/dirs';

export const SNAPSHOT_FORMAT = 'perpkit-exchange-snapshot';
export const SNAPSHOT_VERSION = 1;
const SNAPSHOT_RE = /^snapshot-(\d{12})\.json$/;

export interface AccountsSnapshot {
  /** In creation order: user ids are handed out by count. */
  users: UserRecord[];
  apiKeys: ApiKeyRecord[];
  favorites: Array<[string, string[]]>;
}

export interface ExchangeSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  /** Seq of the last command included. */
  seq: number;
  /** Engine clock reading after that command. */
  at: number;
  /** Wall time the snapshot was written, for people reading the directory. */
  writtenAt: number;
  engine: EngineSnapshot;
  accounts: AccountsSnapshot;
}

export function exportAccounts(a: AccountsState): AccountsSnapshot {
  return {
    users: [...a.users.values()].map((u) => ({ ...u })),
    apiKeys: [...a.apiKeys.values()].map((k) => ({ ...k, permissions: [...k.permissions] })),
    favorites: [...a.favorites].map(([k, v]) => [k, [...v]]),
  };
}

/** Fills an empty AccountsState; adding users in order reproduces its user-id counter. */
export function importAccounts(a: AccountsState, s: AccountsSnapshot): void {
  if (a.users.size > 0) throw new Error('accounts must be empty before a snapshot is restored into them');
  for (const u of s.users) a.addUser({ ...u });
  for (const k of s.apiKeys) a.addApiKey({ ...k, permissions: [...k.permissions] });
  for (const [k, v] of s.favorites) a.favorites.set(k, [...v]);
}

export function snapshotName(seq: number): string {
  return `snapshot-${String(seq).padStart(12, '0')}.json`;
}

export class SnapshotStore {
  constructor(private readonly dir: string) {}

  /** Snapshot files, newest first. */
  async list(): Promise<Array<{ seq: number; file: string }>> {
    const names = await fsp.readdir(this.dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [] as string[];
      throw e;
    });
    const out: Array<{ seq: number; file: string }> = [];
    for (const n of names) {
      const m = SNAPSHOT_RE.exec(n);
      if (m) out.push({ seq: Number(m[1]), file: path.join(this.dir, n) });
    }
    return out.sort((a, b) => b.seq - a.seq);
  }

  /** Writes a serialized snapshot atomically. `json` is JSON.stringify of an ExchangeSnapshot. */
  async save(seq: number, json: string): Promise<string> {
    await makeDir(this.dir, 0o700);
    const final = path.join(this.dir, snapshotName(seq));
    const tmp = `${final}.tmp`;
    // Owner-only, like the journal: a snapshot holds the same API secrets and password hashes.
    const fh = await fsp.open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(json, 'utf8');
      // Always synced, whatever the journal's fsync setting: a snapshot allows deleting journal
      // segments, so it must be on disk before they go.
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, final);
    await syncDir(this.dir);
    return final;
  }

  /**
   * The newest snapshot that reads back whole, or undefined. An unreadable newest one (it should
   * not happen: they are renamed into place) is reported and the next older one tried.
   */
  async loadLatest(onSkip?: (file: string, why: string) => void): Promise<ExchangeSnapshot | undefined> {
    for (const { file } of await this.list()) {
      try {
        const v: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
        const s = v as Partial<ExchangeSnapshot>;
        if (s.format !== SNAPSHOT_FORMAT) throw new Error(`format is ${String(s.format)}, expected ${SNAPSHOT_FORMAT}`);
        if (s.version !== SNAPSHOT_VERSION) throw new Error(`version ${String(s.version)} is not supported (expected ${SNAPSHOT_VERSION})`);
        if (typeof s.seq !== 'number' || typeof s.at !== 'number' || s.engine === undefined || s.accounts === undefined) throw new Error('seq, at, engine or accounts is missing');
        return v as ExchangeSnapshot;
      } catch (e) {
        onSkip?.(file, e instanceof Error ? e.message : String(e));
      }
    }
    return undefined;
  }

  /** Deletes snapshots older than `keepSeq` and stale temp files. */
  async pruneBefore(keepSeq: number): Promise<void> {
    for (const s of await this.list()) {
      if (s.seq < keepSeq) await fsp.rm(s.file, { force: true });
    }
    const names = await fsp.readdir(this.dir).catch(() => [] as string[]);
    for (const n of names) if (n.endsWith('.json.tmp')) await fsp.rm(path.join(this.dir, n), { force: true });
  }
}
