/**
 * Several capture files read as one stream in receive-time order: captures of several symbols
 * over the same hours (a file per symbol, as collectors write them) interleave as they were
 * received, and consecutive days follow each other as before. Each file is in receive order; the
 * next line is always the earliest among the files' next lines (ties: the file given first), so
 * memory stays one batch of lines per file.
 *
 * A line's time: its `<receive time>` prefix (ms, us or ns, compared at ns), else the event time
 * `"E":` of a plain JSON line, else (a line the importer will refuse, or without a time) the time of
 * the file's line before it, so it keeps its place in its file.
 */
import { fileLineBatches, type ImportOptions } from './common';
import { ImportInputError } from './errors';

/** A time as 19 digits of ns, so that times compare as strings (no precision lost). */
function keyOf(text: string, previous: string): string {
  const c0 = text.charCodeAt(0);
  if (c0 >= 48 && c0 <= 57) {
    const sp = text.indexOf(' ');
    if (sp === 13 || sp === 16 || sp === 19) return text.slice(0, sp).padEnd(19, '0');
    return previous;
  }
  const e = text.indexOf('"E":');
  if (e >= 0) {
    const digits = /^\d{13}(?!\d)/.exec(text.slice(e + 4, e + 18));
    if (digits !== null) return `${digits[0]}000000`;
  }
  return previous;
}

export class CaptureCursor {
  private readonly source: ReturnType<typeof fileLineBatches>;
  private batch: string[] = [];
  private i = 0;
  /** Line number in the file of the line `take` returns next. */
  line = 0;
  key = '';
  done = false;

  /** `keyed`: keep `key` (the next line's time) for a merge; one file alone needs none. */
  constructor(
    readonly file: string,
    private readonly keyed: boolean,
  ) {
    // A capture's last line cut off is skipped (readCaptures): so is a torn gzip's, decompressed.
    const plain = `${file.replace(/\.gz$/, '')}.txt`;
    this.source = fileLineBatches(file, `to import the lines before the tear, decompress them (\`gzip -dc ${file} > ${plain}\` writes them before it fails) and import ${plain}`);
  }

  get bytesRead(): number {
    return this.source.bytesRead();
  }

  /** Loads the next batch when the current one is used up; `done` at the end of the file. */
  async fill(): Promise<void> {
    while (this.i >= this.batch.length) {
      const next = await this.source.batches.next();
      if (next.done === true) {
        this.done = true;
        return;
      }
      this.batch = next.value;
      this.i = 0;
    }
    if (this.keyed) this.key = keyOf(this.batch[this.i], this.key);
  }

  /** Whether `fill` must run before the next `take`. */
  get empty(): boolean {
    return this.i >= this.batch.length;
  }

  /** Whether the line `take` returned last is the file's last and has no newline after it (a write cut off). */
  get unterminated(): boolean {
    return this.source.unterminated() && this.i >= this.batch.length;
  }

  /** The current line (its number is `line`); then the next one's time, when it is in this batch. */
  take(): string {
    const text = this.batch[this.i++];
    this.line++;
    if (this.keyed && this.i < this.batch.length) this.key = keyOf(this.batch[this.i], this.key);
    return text;
  }

  close(): void {
    this.source.close();
  }
}

/** The cursor whose next line is the earliest (the first given on a tie), or undefined when all are done. */
export function earliest(cursors: readonly CaptureCursor[]): CaptureCursor | undefined {
  let best: CaptureCursor | undefined;
  for (const c of cursors) if (!c.done && (best === undefined || c.key < best.key)) best = c;
  return best;
}

/**
 * Reads capture files, one file as it is or several merged in receive-time order, handing each line
 * to `line` (false: stop, past --to) and letting `flush` write out between batches. Returns where
 * reading stopped (`file:line`), or undefined at the end of the files.
 *
 * A file's last line that has no newline after it and that `line` refuses (an ImportInputError) is
 * a write the collector never finished (it was stopped mid-line): it goes to `cutOff` instead of
 * failing the import, unless it is the file's only line (`cutOff` returns false, as `line` does,
 * when its time is past --to).
 */
export async function readCaptures(
  files: readonly string[],
  total: number,
  o: Pick<ImportOptions, 'onProgress' | 'progressEvery' | 'signal'>,
  line: (text: string, file: string, n: number) => boolean,
  flush: () => Promise<void>,
  cutOff: (file: string, n: number, why: ImportInputError) => boolean,
): Promise<string | undefined> {
  const cursors = files.map((f) => new CaptureCursor(f, files.length > 1));
  const next = (): CaptureCursor | undefined => (cursors.length > 1 ? earliest(cursors) : cursors[0].done ? undefined : cursors[0]);
  const every = o.progressEvery ?? 100_000;
  let lines = 0;
  let file = files[0];
  let fileLine = 0;
  const progress = (): void => {
    o.signal?.throwIfAborted();
    o.onProgress?.({ file, line: fileLine, lines, bytesDone: cursors.reduce((n, c) => n + c.bytesRead, 0), bytesTotal: total });
  };
  try {
    for (const c of cursors) {
      await c.fill();
      if (c.done) throw new ImportInputError(`${c.file}: empty file; expected Binance capture lines`);
    }
    for (let c = next(); c !== undefined; c = next()) {
      file = c.file;
      const text = c.take();
      fileLine = c.line;
      let go: boolean;
      try {
        go = line(text, c.file, c.line);
      } catch (e) {
        if (!(e instanceof ImportInputError && c.unterminated && c.line > 1)) throw e;
        go = cutOff(c.file, c.line, e);
      }
      if (!go) {
        progress();
        return `${c.file}:${c.line}`;
      }
      if (++lines % every === 0) progress();
      if (c.empty) {
        await flush();
        await c.fill();
      }
    }
    progress();
    return undefined;
  } finally {
    for (const c of cursors) c.close();
  }
}
