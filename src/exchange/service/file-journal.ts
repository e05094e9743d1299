/**
 * The command log on disk: JSON lines, one entry per line, in segment files named after the seq
 * of their first entry (`journal-000000000001.jsonl`). A new segment starts after each snapshot,
 * so segments wholly covered by a snapshot can be deleted.
 *
 * Group commit: entries appended while a write is in flight, or in the same turn of the event
 * loop, go out together in one write (and, with `fsync`, one fdatasync). `append` resolves only
 * once its batch is written, so an answer sent after it cannot be lost to a process crash (the
 * OS has the bytes), nor with `fsync` to a power loss. Batches are written one after another, so
 * entries resolve in order.
 *
 * Reading back: a torn last line (the process died in the middle of a write) is cut off, since
 * nobody was answered for it; a bad line with good lines after it, or a seq that does not follow
 * on, is corruption and refuses to start rather than silently rebuild a different state.
 */
import { closeSync, createReadStream, fsyncSync, openSync, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { JournalEntry } from './commands';
import type { CommandLog } from './journal';
import { makeDir } from '../../core/dirs';

const SEGMENT_RE = /^journal-(\d{12})\.jsonl$/;

export function segmentName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(12, '0')}.jsonl`;
}

export interface FileJournalOptions {
  dir: string;
  /** fdatasync each batch before resolving its appends. */
  fsync: boolean;
  /** Entries with seq <= this are covered by a snapshot and are skipped on replay. */
  afterSeq?: number;
  /**
   * Extra time to gather a batch before writing, ms. 0 (the default) writes at the end of the
   * current event-loop turn; entries arriving during a write form the next batch anyway.
   */
  groupWindowMs?: number;
}

export class JournalCorruptError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`journal ${file} is corrupt at line ${line}: ${detail}. The exchange will not start from a damaged journal; move the data directory aside (or restore it) and start again`);
    this.name = 'JournalCorruptError';
  }
}

interface Pending {
  line: string;
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

interface Segment {
  firstSeq: number;
  file: string;
}

export class FileJournal implements CommandLog {
  private readonly dir: string;
  private readonly fsync: boolean;
  private readonly afterSeq: number;
  private readonly windowMs: number;
  private handle: FileHandle | undefined;
  private handleFirstSeq = 0;
  /** Seq at which the next segment starts (set by `rotateAfter`), or 0 for none pending. */
  private rotateAt = 0;
  private buffer: Pending[] = [];
  private writing = false;
  private scheduled = false;
  private failed: Error | undefined;
  private closed = false;
  private lastSeq = 0;
  /** Last seq found on disk by replay. */
  private diskLastSeq = 0;
  private idleWaiters: Array<() => void> = [];
  /** Entries read back from disk, and how long that took, for the start-up log. */
  replayed = 0;

  constructor(opts: FileJournalOptions) {
    this.dir = opts.dir;
    this.fsync = opts.fsync;
    this.afterSeq = opts.afterSeq ?? 0;
    this.windowMs = opts.groupWindowMs ?? 0;
  }

  /** Segments on disk, oldest first. */
  async segments(): Promise<Segment[]> {
    const names = await fsp.readdir(this.dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [] as string[];
      throw e;
    });
    const out: Segment[] = [];
    for (const n of names) {
      const m = SEGMENT_RE.exec(n);
      if (m) out.push({ firstSeq: Number(m[1]), file: path.join(this.dir, n) });
    }
    return out.sort((a, b) => a.firstSeq - b.firstSeq);
  }

  /**
   * Streams the entries after `afterSeq`, checking that seqs follow on. Must be iterated to the
   * end before the first `append` (the last segment's torn tail is cut off here).
   */
  async *replay(): AsyncGenerator<JournalEntry> {
    const segs = await this.segments();
    let expect = 0;
    let firstYield = true;
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i];
      const next = segs[i + 1];
      const isLast = next === undefined;
      // A segment that ends before the snapshot's seq has nothing to replay.
      if (!isLast && next.firstSeq <= this.afterSeq + 1) continue;
      // Segments follow on, except where a snapshot covers the gap (the journal of a
      // machine that lost power without fsync can end before the snapshot it had written).
      if (expect !== 0 && seg.firstSeq !== expect && seg.firstSeq > this.afterSeq + 1) {
        throw new JournalCorruptError(seg.file, 1, `expected the segment to start at seq ${expect}: entries ${expect}..${seg.firstSeq - 1} are missing`);
      }
      expect = 0;
      let lineNo = 0;
      let goodBytes = 0;
      let torn: { line: number; detail: string } | undefined;
      const rl = createInterface({ input: createReadStream(seg.file), crlfDelay: Infinity });
      try {
        for await (const line of rl) {
          lineNo++;
          // A bad line followed by more lines is not a torn tail: the file was damaged.
          if (torn) throw new JournalCorruptError(seg.file, torn.line, torn.detail);
          const entry = parseEntry(line);
          if (typeof entry === 'string') {
            torn = { line: lineNo, detail: entry };
            continue;
          }
          const want = expect === 0 ? seg.firstSeq : expect;
          if (entry.seq !== want) throw new JournalCorruptError(seg.file, lineNo, `expected seq ${want}, found seq ${entry.seq}`);
          expect = entry.seq + 1;
          goodBytes += Buffer.byteLength(line) + 1;
          if (entry.seq > this.diskLastSeq) this.diskLastSeq = entry.seq;
          if (entry.seq > this.afterSeq) {
            if (firstYield && entry.seq !== this.afterSeq + 1) {
              throw new JournalCorruptError(seg.file, lineNo, `the snapshot ends at seq ${this.afterSeq} but the journal continues at seq ${entry.seq}`);
            }
            firstYield = false;
            this.replayed++;
            yield entry;
          }
        }
      } finally {
        rl.close();
      }
      if (torn) {
        if (!isLast) throw new JournalCorruptError(seg.file, torn.line, `${torn.detail} (in a segment that is not the last)`);
        // The process died in the middle of this write: nobody was answered for it, drop it.
        await fsp.truncate(seg.file, goodBytes);
      } else if (isLast) {
        const size = (await fsp.stat(seg.file)).size;
        // The last entry is whole but its newline never made it: finish the line.
        if (size === goodBytes - 1) await fsp.appendFile(seg.file, '\n');
      }
    }
    this.lastSeq = Math.max(this.diskLastSeq, this.afterSeq);
  }

  /** Seq of the last entry on disk (after `replay`) or appended. */
  get lastAppendedSeq(): number {
    return this.lastSeq;
  }

  append(entry: JournalEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    if (this.failed) return Promise.reject(this.failed);
    const line = JSON.stringify(entry) + '\n';
    this.lastSeq = entry.seq;
    return new Promise<void>((resolve, reject) => {
      this.buffer.push({ line, seq: entry.seq, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Entries after `seq` go to a new segment. Called when a snapshot of the state at `seq` is
   * taken, so that once it is saved every older segment can go.
   */
  rotateAfter(seq: number): void {
    this.rotateAt = seq + 1;
  }

  /** Deletes segments whose entries are all <= `seq` (covered by a saved snapshot). */
  async pruneThrough(seq: number): Promise<number> {
    const segs = await this.segments();
    let removed = 0;
    for (let i = 0; i + 1 < segs.length; i++) {
      if (segs[i + 1].firstSeq <= seq + 1 && segs[i].firstSeq !== this.handleFirstSeq) {
        await fsp.rm(segs[i].file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Resolves once everything appended so far is written. */
  flush(): Promise<void> {
    if (!this.writing && this.buffer.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    if (this.handle) {
      await this.handle.close();
      this.handle = undefined;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    const go = (): void => {
      this.scheduled = false;
      void this.writeLoop();
    };
    if (this.windowMs > 0) setTimeout(go, this.windowMs);
    else setImmediate(go);
  }

  private async writeLoop(): Promise<void> {
    this.writing = true;
    try {
      while (this.buffer.length > 0) {
        // A batch never spans a rotation point: entries up to it finish the old segment.
        let batch = this.buffer;
        if (this.rotateAt !== 0 && batch[0].seq >= this.rotateAt) {
          await this.openSegment(this.rotateAt);
          this.rotateAt = 0;
        }
        if (this.rotateAt !== 0) {
          const cut = batch.findIndex((p) => p.seq >= this.rotateAt);
          if (cut > 0) {
            this.buffer = batch.slice(cut);
            batch = batch.slice(0, cut);
          } else {
            this.buffer = [];
          }
        } else {
          this.buffer = [];
        }
        try {
          await this.writeBatch(batch);
          for (const p of batch) p.resolve();
        } catch (e) {
          // After a failed write the file's tail is unknown: refuse everything from now on.
          this.failed = e instanceof Error ? e : new Error(String(e));
          for (const p of batch) p.reject(this.failed);
          for (const p of this.buffer) p.reject(this.failed);
          this.buffer = [];
        }
      }
    } finally {
      this.writing = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    // Append to the segment replay ended in, unless a snapshot left it behind (then a gap).
    if (!this.handle) await this.openSegment(batch[0].seq, this.diskLastSeq + 1 === batch[0].seq);
    const fh = this.handle as FileHandle;
    const data = batch.length === 1 ? batch[0].line : batch.map((p) => p.line).join('');
    const buf = Buffer.from(data, 'utf8');
    let off = 0;
    while (off < buf.length) {
      const { bytesWritten } = await fh.write(buf, off, buf.length - off);
      off += bytesWritten;
    }
    if (this.fsync) await fh.datasync();
  }

  /**
   * Opens the segment for entries from `firstSeq`. With `reuseLast`, appends to the newest
   * existing segment instead (the one replay ended in) when there is one.
   */
  private async openSegment(firstSeq: number, reuseLast = false): Promise<void> {
    if (this.handle) {
      await this.handle.close();
      this.handle = undefined;
    }
    await makeDir(this.dir, 0o700);
    let start = firstSeq;
    if (reuseLast) {
      const segs = await this.segments();
      const last = segs[segs.length - 1];
      if (last !== undefined && last.firstSeq <= firstSeq) start = last.firstSeq;
    }
    // Owner-only: segments hold API secrets in clear and password hashes (docs/reliability.md).
    this.handle = await fsp.open(path.join(this.dir, segmentName(start)), 'a', 0o600);
    this.handleFirstSeq = start;
    if (this.fsync) await syncDir(this.dir);
  }
}

/** Makes a new or renamed directory entry survive a power loss. */
/** syncDir for a caller that must not yield (the journal's first append writes the data directory's marker). */
export function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  } finally {
    await fh?.close();
  }
}

/** The entry on a line, or why it is not one. */
function parseEntry(line: string): JournalEntry | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'the line is not valid JSON';
  }
  if (typeof v !== 'object' || v === null) return 'the line is not a JSON object';
  const o = v as Record<string, unknown>;
  if (typeof o.seq !== 'number' || !Number.isSafeInteger(o.seq) || o.seq < 1) return 'the entry has no positive integer seq';
  if (typeof o.at !== 'number' || !Number.isFinite(o.at)) return 'the entry has no numeric at';
  if (typeof o.cmd !== 'object' || o.cmd === null || typeof (o.cmd as Record<string, unknown>).k !== 'string') return 'the entry has no command';
  return v as JournalEntry;
}
