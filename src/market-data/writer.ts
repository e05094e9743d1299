/**
 * Writes a recording: gzip JSON lines (format v1 or v2), rotating to a new file by size and/or event
 * time. Part 0 is the path given; part n is `<base>.<n>.jsonl.gz` (base = the path without
 * `.jsonl.gz`), each starting with its own header so any part can be read alone.
 *
 * Memory stays bounded: lines are batched into chunks for the gzip stream, and when the disk
 * falls behind by more than `maxBufferedBytes` further events are dropped, counted, and reported
 * by a `gap` line once the writer catches up (a recorder cannot pause a venue's stream). Callers
 * that can wait (synth) await `drained()` whenever `write` returns false and never drop.
 *
 * Nothing here reads the wall clock: rotation by time uses the events' own `t`, so the same
 * events give the same files byte for byte (synth's determinism rests on it).
 */
import { createWriteStream, existsSync, readdirSync, realpathSync, statSync, type WriteStream } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { constants as zc, createGzip, type Gzip } from 'node:zlib';
import { RECORDING_FORMAT, RECORDING_VERSION, type RecordedEvent, type RecordingHeader, type RecordingVersion } from './format';

export interface RecordingWriterOptions {
  /** Path of part 0, e.g. `data/btc.jsonl.gz`. */
  path: string;
  /** Header fields shared by every part; `part` and `startTime` are filled in per part. */
  source: string;
  symbols: RecordingHeader['symbols'];
  meta?: RecordingHeader['meta'];
  /** Format version written in the headers; default the newest (RECORDING_VERSION). */
  version?: RecordingVersion;
  /** startTime of part 0; later parts start at the time of their first event. */
  startTime: number;
  /** Start a new part once this many compressed bytes are on disk (0: never). */
  rotateBytes?: number;
  /** Start a new part when an event is this far (ms, event time) past the part's start (0: never). */
  rotateMs?: number;
  /** gzip level, fixed so output is reproducible; default 6. */
  level?: number;
  /** Refuse (drop) events while more than this many bytes wait for the disk; default 32 MiB. */
  maxBufferedBytes?: number;
}

/** The file of part `n` of a recording whose part 0 is `path`. */
export function partPath(path: string, n: number): string {
  if (n === 0) return path;
  const base = path.replace(/(\.jsonl)?(\.gz)?$/, '');
  return `${base}.${n}.jsonl.gz`;
}

/**
 * The rotated parts of a recording beside its first part `first` that exist on disk
 * (`x.1.jsonl.gz`, `x.2.jsonl.gz`, ...; base = `first` without `.jsonl.gz`), in part order. The one
 * rule of what belongs to a recording: readers read them after `first` (reader.ts recordingFiles, withRotatedParts), writers
 * refuse to start a new recording where an older one's parts would follow it (below). Here, not in
 * reader.ts, so that `perpkit <command> --help` (which loads the writer) loads no reader.
 */
export function rotatedParts(first: string): string[] {
  const base = basename(first).replace(/(\.jsonl)?(\.gz)?$/, '');
  const dir = dirname(first);
  const parts: Array<[number, string]> = [];
  const re = /^(.*)\.(\d+)\.jsonl(\.gz)?$/;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  for (const name of names) {
    const m = re.exec(name);
    if (m && m[1] === base) parts.push([Number(m[2]), join(dir, name)]);
  }
  parts.sort((a, b) => a[0] - b[0]);
  return parts.map((p) => p[1]);
}

/**
 * Rotated parts of a recording at `path` already on disk (`<base>.1.jsonl.gz`, ...), as a reader
 * of `path` finds them (rotatedParts): a new recording written at `path` over an older,
 * longer one would leave them there, and a replay would read them after it.
 */
export function existingParts(path: string): string[] {
  return rotatedParts(path);
}

/** Are `a` and `b` one file: the same path, or (when both exist) the same real path, as through a symlink? */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  return existsSync(a) && existsSync(b) && realpathSync(a) === realpathSync(b);
}

/**
 * The refusal of `--out` for a new recording (record, synth, import): rotated parts of an
 * earlier recording beside it; undefined when there are none.
 */
export function staleOutProblem(out: string): string | undefined {
  const stale = existingParts(out);
  if (stale.length === 0) return undefined;
  return `--out ${out}: ${stale.join(', ')}: rotated part(s) of an earlier recording are there, and a replay of ${out} would read them after the new one; remove them or choose another --out`;
}

/**
 * The refusal of `--out` when a file is already there and `--overwrite` was not given (`why`: what
 * makes the file worth keeping, in parentheses); undefined when it may be written.
 */
export function existingOutProblem(out: string, overwrite: boolean, why?: string): string | undefined {
  if (overwrite || !existsSync(out) || !statSync(out).isFile()) return undefined;
  return `--out ${out}: a file is already there${why === undefined ? '' : ` (${why})`}; choose another --out, remove it, or pass --overwrite`;
}

/** Lines are handed to gzip in chunks of about this size: fewer calls, same bytes. */
const CHUNK_CHARS = 64 * 1024;

interface Part {
  n: number;
  path: string;
  gzip: Gzip;
  file: WriteStream;
  startTime: number;
  /** Compressed bytes handed to the file. */
  bytes: number;
  done: Promise<void>;
}

export class RecordingWriter {
  /** Every file written so far, part order. */
  readonly files: string[] = [];
  /** Events written (not dropped). */
  written = 0;
  /** Events dropped because the disk fell behind. */
  dropped = 0;
  private part: Part | undefined;
  private chunk = '';
  private dropFrom = 0;
  private droppedSinceGap = 0;
  /** Time of the last event dropped: a close while dropping says so with a gap line up to it. */
  private dropTo = 0;
  private closed = false;
  private readonly rotateBytes: number;
  private readonly rotateMs: number;
  private readonly level: number;
  private readonly maxBuffered: number;
  private failure: Error | undefined;
  /** Close of every part's file, awaited by close(). */
  private readonly closing: Array<Promise<void>> = [];

  constructor(private readonly opts: RecordingWriterOptions) {
    this.rotateBytes = opts.rotateBytes ?? 0;
    this.rotateMs = opts.rotateMs ?? 0;
    this.level = opts.level ?? 6;
    this.maxBuffered = opts.maxBufferedBytes ?? 32 * 1024 * 1024;
    this.open(0, opts.startTime);
  }

  private open(n: number, startTime: number): void {
    const path = partPath(this.opts.path, n);
    const gzip = createGzip({ level: this.level });
    const file = createWriteStream(path);
    const part: Part = { n, path, gzip, file, startTime, bytes: 0, done: Promise.resolve() };
    gzip.on('data', (b: Buffer) => {
      part.bytes += b.length;
    });
    const fail = (e: Error): void => {
      this.failure ??= e;
    };
    gzip.on('error', fail);
    file.on('error', fail);
    gzip.pipe(file);
    part.done = once(file, 'close').then(() => undefined, fail);
    this.closing.push(part.done);
    this.part = part;
    this.files.push(path);
    const header: RecordingHeader = {
      type: 'header',
      format: RECORDING_FORMAT,
      version: this.opts.version ?? RECORDING_VERSION,
      source: this.opts.source,
      startTime,
      symbols: this.opts.symbols,
      part: n,
      ...(this.opts.meta !== undefined ? { meta: this.opts.meta } : {}),
    };
    this.chunk = `${JSON.stringify(header)}\n`;
  }

  /** Bytes waiting in memory for gzip and the disk. */
  get buffered(): number {
    const p = this.part;
    return this.chunk.length + (p ? p.gzip.writableLength + p.file.writableLength : 0);
  }

  /**
   * Queues one event. Returns false when the caller should wait for `drained()` before writing
   * more; an event that comes while over `maxBufferedBytes` is dropped (and later reported).
   */
  write(e: RecordedEvent): boolean {
    if (this.closed) throw new Error(`recording writer for ${this.opts.path} is closed`);
    if (this.failure) throw this.failure;
    if (this.buffered > this.maxBuffered) {
      if (this.droppedSinceGap === 0) this.dropFrom = e.t;
      this.dropTo = e.t;
      this.droppedSinceGap++;
      this.dropped++;
      return false;
    }
    if (this.droppedSinceGap > 0) {
      const gap: RecordedEvent = { t: e.t, k: 'gap', stream: 'public', from: this.dropFrom, reason: `writer overflow: ${this.droppedSinceGap} events dropped` };
      this.droppedSinceGap = 0;
      this.append(gap);
    }
    this.append(e);
    return this.buffered <= this.maxBuffered / 2;
  }

  private append(e: RecordedEvent): void {
    const p = this.part as Part;
    if ((this.rotateMs > 0 && e.t - p.startTime >= this.rotateMs) || (this.rotateBytes > 0 && p.bytes >= this.rotateBytes)) {
      this.rotate(e.t);
    }
    this.chunk += `${JSON.stringify(e)}\n`;
    this.written++;
    if (this.chunk.length >= CHUNK_CHARS) this.push();
  }

  private push(): void {
    if (this.chunk.length === 0) return;
    (this.part as Part).gzip.write(this.chunk);
    this.chunk = '';
  }

  private rotate(at: number): void {
    this.push();
    const old = this.part as Part;
    old.gzip.end();
    this.open(old.n + 1, at);
  }

  /** Resolves once the queued bytes are below half the bound again. */
  async drained(): Promise<void> {
    this.push();
    const p = this.part as Part;
    while (this.buffered > this.maxBuffered / 2 && !this.failure) {
      if (p.gzip.writableNeedDrain) await once(p.gzip, 'drain');
      else await new Promise<void>((r) => setImmediate(r));
    }
    if (this.failure) throw this.failure;
  }

  /**
   * Pushes what is queued through gzip with a sync flush, so a reader (or a crash) sees every
   * event written so far. Costs a little compression; the recorder calls it about once a second.
   */
  async flush(): Promise<void> {
    if (this.closed) return;
    this.push();
    const p = this.part as Part;
    await new Promise<void>((resolve) => p.gzip.flush(zc.Z_SYNC_FLUSH, () => resolve()));
    // The flushed bytes still travel through the pipe to the file: wait until it has them.
    while ((p.gzip.readableLength > 0 || p.file.writableLength > 0) && !this.failure) await new Promise<void>((r) => setImmediate(r));
    if (this.failure) throw this.failure;
  }

  /** Writes what is queued, ends the gzip stream and waits until the file is closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Events dropped since the last line: said, as the next event would have said it.
    if (this.droppedSinceGap > 0) {
      this.append({ t: this.dropTo, k: 'gap', stream: 'public', from: this.dropFrom, reason: `writer overflow: ${this.droppedSinceGap} events dropped` });
      this.droppedSinceGap = 0;
    }
    this.push();
    const p = this.part as Part;
    p.gzip.end();
    await Promise.all(this.closing);
    if (this.failure) throw this.failure;
  }
}
