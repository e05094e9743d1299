/**
 * Reads recording files (gzip JSON lines, or plain ones, format v1 or v2) as batches of parsed
 * events: one gunzip stream per gzip file, lines cut with indexOf on the decoded text, JSON.parse per line, and the
 * reader's own validation (`eventProblem`) so a bad line fails with its file and line number.
 */
import { isGzip, zlibProblem } from '../../market-data/text';
import { createReadStream, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { damagedGzipError, eventProblem, foreignFileHint, mergeHeaders, RecordingFormatError, tornHint, tornLastLineError, versionProblem } from '../../market-data/reader';

// What a replay of several files sees of their headers: one function for every reader (reader.ts).
export { mergeHeaders };
import { isHeader, RECORDING_FORMAT, RECORDING_VERSIONS, type RecordedEvent, type RecordingHeader } from '../../market-data/format';
import { ArrayBatch, type EventBatch, type EventOrigin, type EventSource } from './source';

/** One file's text chunks as a pull iterator, with the bytes read so far. */
interface FileText {
  /** Gzip data (else read as it is). */
  gzip: boolean;
  chunks: AsyncIterator<Buffer>;
  decoder: StringDecoder;
  bytesRead: () => number;
  destroy: () => void;
}

/** A file's text: gunzipped when it is gzip data (by its magic bytes), as it is otherwise (plain `.jsonl`). */
function openFile(path: string): FileText {
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const decoder = new StringDecoder('utf8');
  const bytesRead = (): number => raw.bytesRead;
  if (!isGzip(path)) return { gzip: false, chunks: raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>, decoder, bytesRead, destroy: () => raw.destroy() };
  const gz = createGunzip({ chunkSize: 1 << 18 });
  raw.pipe(gz);
  raw.on('error', (e) => gz.destroy(e));
  return {
    gzip: true,
    chunks: gz[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
    decoder,
    bytesRead,
    destroy: () => {
      gz.destroy();
      raw.destroy();
    },
  };
}

/**
 * The next chunk of a file's text; a file that is not gzip, or a gzip cut short, becomes a
 * RecordingFormatError naming the file and the last line read (not a zlib stack trace).
 */
async function nextChunk(f: FileText, path: string, line: number): Promise<IteratorResult<Buffer>> {
  try {
    return await f.chunks.next();
  } catch (e) {
    const problem = zlibProblem(e);
    if (problem === 'torn') throw new RecordingFormatError(path, line, `the gzip data ends early (a torn or truncated file) after line ${line}; ${tornHint(path)}`);
    if (problem === 'damaged') throw await damagedGzipError(path, line, e);
    throw e;
  }
}

function parseHeader(path: string, line: string, gzip: boolean): RecordingHeader {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new RecordingFormatError(
      path,
      1,
      `${gzip ? 'the first line is not JSON; expected a perpkit-recording header' : 'not a gzip file, and its first line is not JSON: a recording is gzip JSON lines (.jsonl.gz), or plain JSON lines, with a perpkit-recording header first'}${foreignFileHint(line)}`,
    );
  }
  if (!isHeader(v)) throw new RecordingFormatError(path, 1, `expected a perpkit-recording header line first${foreignFileHint(line)}`);
  if (!RECORDING_VERSIONS.includes(v.version)) throw new RecordingFormatError(path, 1, versionProblem(v.version));
  return v;
}

/** Reads just the header line of a file. */
export async function readFileHeader(path: string): Promise<{ header: RecordingHeader; line: string }> {
  const f = openFile(path);
  try {
    let text = '';
    for (;;) {
      const r = await nextChunk(f, path, 0);
      if (r.done === true) break;
      text += f.decoder.write(r.value);
      if (text.includes('\n')) break;
    }
    text += f.decoder.end();
    if (text.length === 0) throw new RecordingFormatError(path, 1, `empty file; expected a ${RECORDING_FORMAT} header line`);
    const nl = text.indexOf('\n');
    const line = nl < 0 ? text : text.slice(0, nl);
    return { header: parseHeader(path, line, f.gzip), line };
  } finally {
    f.destroy();
  }
}

/** The header of each file, in order (their merge is what a replay of them sees: mergeHeaders). */
export async function fileHeaders(paths: string[]): Promise<RecordingHeader[]> {
  const headers: RecordingHeader[] = [];
  for (const p of paths) headers.push((await readFileHeader(p)).header);
  return headers;
}

export class JsonlSource implements EventSource {
  private fileIndex = -1;
  private file: FileText | undefined;
  private rest = '';
  private lineNo = 0;
  /** The file and first line of the batch returned last (origin()). */
  private batchFile = 0;
  private batchLine = 0;
  private doneBytes = 0;
  private readonly total: number;
  /**
   * A line that is not JSON (or empty), held until the file says whether it is its last: then it
   * is what a writer stopped mid-write leaves (tornLastLineError, as the reader says it); a line
   * after it makes it corruption, refused as it is.
   */
  private bad: RecordingFormatError | undefined;

  private constructor(
    private readonly paths: string[],
    readonly header: RecordingHeader,
    private readonly validate: boolean,
    /** Format version of each file (a v1 file may not hold v2 kinds). */
    private readonly versions: number[],
  ) {
    this.total = paths.reduce((s, p) => s + statSync(p).size, 0);
  }

  static async open(paths: string[], opts: { validate?: boolean } = {}): Promise<JsonlSource> {
    const headers = await fileHeaders(paths);
    return new JsonlSource(paths, mergeHeaders(headers), opts.validate ?? true, headers.map((h) => h.version));
  }

  progress(): { done: number; total: number } {
    return { done: this.doneBytes + (this.file?.bytesRead() ?? 0), total: this.total };
  }

  async next(): Promise<EventBatch | undefined> {
    for (;;) {
      if (!this.file) {
        if (this.fileIndex + 1 >= this.paths.length) return undefined;
        this.fileIndex++;
        this.file = openFile(this.paths[this.fileIndex]);
        this.rest = '';
        this.lineNo = 0;
        this.bad = undefined;
      }
      const r = await nextChunk(this.file, this.paths[this.fileIndex], this.lineNo);
      if (r.done === true) {
        const tail = this.rest + this.file.decoder.end();
        this.doneBytes += this.file.bytesRead();
        this.file = undefined;
        this.rest = '';
        if (tail.length > 0) {
          const out: RecordedEvent[] = [];
          this.parseLine(tail, out);
          if (out.length > 0) return this.batchOf(out);
        }
        const bad = this.bad;
        if (bad !== undefined) throw tornLastLineError(bad.file, bad.line, bad.problem);
        continue;
      }
      const text = this.rest + this.file.decoder.write(r.value);
      const out: RecordedEvent[] = [];
      let start = 0;
      for (;;) {
        const nl = text.indexOf('\n', start);
        if (nl < 0) break;
        this.parseLine(text.slice(start, nl), out);
        start = nl + 1;
      }
      this.rest = text.slice(start);
      if (out.length > 0) return this.batchOf(out);
    }
  }

  /** A batch of the lines just parsed: every line after the header is one event, so they are consecutive. */
  private batchOf(out: RecordedEvent[]): ArrayBatch {
    this.batchFile = this.fileIndex;
    this.batchLine = this.lineNo - out.length + 1;
    return new ArrayBatch(out);
  }

  origin(i: number): EventOrigin {
    return { file: this.paths[this.batchFile], line: this.batchLine + i };
  }

  private parseLine(line: string, out: RecordedEvent[]): void {
    this.lineNo++;
    const path = this.paths[this.fileIndex];
    if (this.lineNo === 1) return; // the header, read at open
    if (this.bad !== undefined) throw this.bad; // a bad line followed by more lines is corruption, not a torn tail
    if (line.length === 0) {
      this.bad = new RecordingFormatError(path, this.lineNo, 'empty line');
      return;
    }
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      this.bad = new RecordingFormatError(path, this.lineNo, `not a JSON line: ${line.length > 80 ? `${line.slice(0, 80)}...` : line}`);
      return;
    }
    if (this.validate) {
      const problem = eventProblem(v, this.versions[this.fileIndex]);
      if (problem !== undefined) throw new RecordingFormatError(path, this.lineNo, problem);
    }
    out.push(v as RecordedEvent);
  }

  async close(): Promise<void> {
    this.file?.destroy();
    this.file = undefined;
  }
}
