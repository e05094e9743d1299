/**
 * What every importer of market data shares (binance-futures.ts, tardis.ts): options and summary
 * types, the checks of the arguments before any reading, sha256 of the sources, reading a file's
 * lines (gzip or not, by magic bytes) with a damaged or torn gzip said in one line, and small
 * value checks. The importer itself (output, specs, marks, counting) is importer.ts.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, readSync, realpathSync, statSync, appendFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, type ZlibOptions } from 'node:zlib';
import { toScaledInt } from '../../core/decimal';
import { makeDirSync } from '../../core/dirs';
import { errMessage } from '../../core/errors';
import { isGzip } from '../text';
import type { SymbolSpec } from '../../protocol/rest/market';
import type { Level, MarkProvenance, RecordingSourceFile } from '../format';
import { damagedGzipProblem, linesBeforeDamage, zlibProblem } from '../text';
import { existingOutProblem, sameFile, staleOutProblem } from '../writer';
import { ImportInputError } from './errors';

export interface ImportOptions {
  files: string[];
  out: string;
  /** Replace a file already at `out` (refused without it). */
  overwrite?: boolean;
  /** Import only this symbol (others are counted as skipped); as the venue spells it. */
  symbol?: string;
  /** Receive-time range, epoch ms: [from, to). */
  from?: number;
  to?: number;
  /** Grid overrides (with several symbols in the data, only together with `symbol`). */
  tick?: string;
  step?: string;
  /** Called about every `progressEvery` input lines and at the end of each file. */
  onProgress?: (p: ImportProgress) => void;
  progressEvery?: number;
  /**
   * Stops the import (Ctrl+C): checked with each progress report, it rejects with the signal's
   * reason, and the partial files go; --out is not written.
   */
  signal?: AbortSignal;
}

export interface ImportProgress {
  file: string;
  /** The line of `file` reached (the progress line shows it: `line` of a file must be its own). */
  line: number;
  /** Lines read so far over every file. */
  lines: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface ImportSummary {
  out: string;
  /** Input messages (lines, or for grouped formats the rows of one message). */
  messages: number;
  /** Events written that came from a message, by output kind. */
  events: Record<string, number>;
  /**
   * Events the importer added: derived marks, gaps, snapshots rebuilt at --from, and funding
   * settlements derived from a ticker's funding time moving forward (Tardis derivative_ticker).
   */
  added: { derivedMarks: number; gaps: number; rebuiltSnapshots: number; derivedFunding?: number };
  /** Messages that became no event, by reason. */
  skipped: Record<string, number>;
  symbols: SymbolSpec[];
  marks: Record<string, MarkProvenance>;
  sources: RecordingSourceFile[];
  firstTime: number;
  lastTime: number;
  /** Set when reading stopped at --to: the file and line where it stopped. */
  stoppedAt?: string;
  /** What else the import changed or could not do, one line each (also in the header's meta). */
  notes?: string[];
  /** What the user should act on: a tick or step inferred from too few values (also in the header's meta.gridWarning). */
  warnings?: string[];
}

/** Prices and quantities are compared on this fixed scale (venues send at most 8 decimals). */
export const SCALE = 8;
export const EIGHT_HOURS = 8 * 3_600_000;

export function gcd(a: number, b: number): number {
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isStr = (v: unknown): v is string => typeof v === 'string';
export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isLevels = (v: unknown): v is Level[] => Array.isArray(v) && v.every((l) => Array.isArray(l) && l.length >= 2 && isStr(l[0]) && isStr(l[1]));

/** Next 8-hourly funding time (00:00, 08:00, 16:00 UTC) after `t`. */
export const nextFunding = (t: number): number => (Math.floor(t / EIGHT_HOURS) + 1) * EIGHT_HOURS;

const DECIMAL = /^\d+(\.\d+)?$/;
const SCI = /^(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/;

/** A non-negative decimal as a plain decimal string ("1e-7" -> "0.0000001"); undefined when it is not one. */
export function plainDecimal(v: string): string | undefined {
  if (DECIMAL.test(v)) return v;
  const m = SCI.exec(v);
  if (m === null) return undefined;
  const digits = `${m[1]}${m[2] ?? ''}`;
  const point = m[1].length + Number(m[3]);
  let s: string;
  if (point <= 0) s = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) s = digits + '0'.repeat(point - digits.length);
  else s = `${digits.slice(0, point)}.${digits.slice(point)}`;
  s = s.replace(/^0+(?=\d)/, '');
  return s.includes('.') ? s.replace(/\.?0+$/, '') || '0' : s;
}

/** A signed decimal (a funding rate) as a plain decimal ("-5e-7" -> "-0.0000005"); undefined when it is not one. */
export function signedDecimal(v: string): string | undefined {
  const neg = v.startsWith('-');
  const plain = plainDecimal(neg ? v.slice(1) : v);
  return plain !== undefined && neg && !/^0(\.0*)?$/.test(plain) ? `-${plain}` : plain;
}

/** A short, printable excerpt of a bad line for an error message. */
export const excerpt = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}...` : s);

export async function sha256Of(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) h.update(chunk);
  return h.digest('hex');
}

/** The header's record of an input file (sha256 computed by streaming it). */
export async function sourceOf(path: string): Promise<RecordingSourceFile> {
  return { file: basename(path), sha256: await sha256Of(path), bytes: statSync(path).size };
}

/** Appends a file to another in 1 MiB pieces (memory flat in the size). */
export function appendBody(to: string, from: string): void {
  const fd = openSync(from, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      appendFileSync(to, buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A text file's lines in batches (one per read chunk, so a caller's loop stays tight), gzip or
 * not by its magic bytes. `bytesRead()` is the compressed bytes read so far (for progress);
 * `close()` releases the file when the batches are not read to the end.
 * A damaged or torn gzip becomes an ImportInputError naming the file and the last line read (and
 * `tornHint`, what the user can do about a torn one, when the caller knows).
 */
export function fileLineBatches(file: string, tornHint?: string): { batches: AsyncGenerator<string[]>; bytesRead: () => number; close: () => void; unterminated: () => boolean } {
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  let stream: Readable = raw;
  if (isGzip(file)) {
    // Inflated text is kept up to 1 MiB ahead, so a parse batch does not wait for the thread pool; in
    // 64 KiB pieces, so each batch of text is a young string that dies young (a larger one is
    // allocated straight into the old generation and costs a full GC to free).
    const gz = createGunzip({ chunkSize: 1 << 16, readableHighWaterMark: 1 << 20 } as ZlibOptions & { readableHighWaterMark: number });
    raw.on('error', (e) => gz.destroy(e));
    stream = raw.pipe(gz);
  }
  async function* batches(): AsyncGenerator<string[]> {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let lines = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const text = rest + decoder.write(chunk);
        const out: string[] = [];
        let start = 0;
        for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
          out.push(text.slice(start, nl));
          start = nl + 1;
        }
        rest = text.slice(start);
        lines += out.length;
        if (out.length > 0) yield out;
      }
    } catch (e) {
      if (e instanceof ImportInputError) throw e;
      const problem = zlibProblem(e);
      if (problem === 'torn') throw new ImportInputError(`${file}: the gzip data ends early (a torn or truncated file) after line ${lines}${tornHint === undefined ? '' : `; ${tornHint}`}`);
      if (problem === 'damaged') {
        const good = Math.max(lines, await linesBeforeDamage(file));
        throw new ImportInputError(`${file}:${good + 1}: ${damagedGzipProblem(good, e)}`);
      }
      throw e;
    } finally {
      stream.destroy();
    }
    rest += decoder.end();
    if (rest.length > 0) {
      tail = true;
      yield [rest];
    }
  }
  /** Set when the last batch is the file's last line without a newline after it. */
  let tail = false;
  // close(): also for a generator never started (its finally would not run).
  return { batches: batches(), bytesRead: () => raw.bytesRead, close: () => stream.destroy(), unterminated: () => tail };
}

/** Checks shared by every importer before anything is read (one line each, naming the option). */
export function checkImportOptions(o: ImportOptions, expected: string): void {
  if (o.files.length === 0) throw new ImportInputError(`no input files; expected one or more ${expected}`);
  // Binance and Tardis spell symbols in upper case (Binance's stream names are lower case).
  if (o.symbol !== undefined) o.symbol = o.symbol.toUpperCase();
  for (const f of o.files) {
    if (!existsSync(f)) throw new ImportInputError(`${f}: no such file`);
    if (statSync(f).isDirectory()) throw new ImportInputError(`${f}: expected an input file, got a folder`);
  }
  // Found now, not at the end of the import when the finished file is renamed onto it.
  // The finished file is renamed onto --out: onto a folder that fails at the end, and a device or
  // a pipe (/dev/null as root) would be replaced by a plain file.
  if (existsSync(o.out) && !statSync(o.out).isFile()) throw new ImportInputError(`--out ${o.out}: expected the path of the recording to write, got ${statSync(o.out).isDirectory() ? 'a folder' : 'a device, pipe or socket'}`);
  // The import's own input is never replaced, not even with --overwrite (also through a symlink).
  const input = o.files.find((f) => sameFile(f, o.out));
  if (input !== undefined) throw new ImportInputError(`--out ${o.out}: it is the input file ${input}${input === o.out ? '' : ` (the same file: ${realpathSync(o.out)})`}; the import would replace its own input; choose another --out`);
  const there = existingOutProblem(o.out, o.overwrite === true);
  if (there !== undefined) throw new ImportInputError(there);
  const stale = staleOutProblem(o.out);
  if (stale !== undefined) throw new ImportInputError(stale);
  if (o.from !== undefined && o.to !== undefined && o.from >= o.to) throw new ImportInputError(`--from/--to: --from ${new Date(o.from).toISOString()} is not before --to ${new Date(o.to).toISOString()}`);
  for (const [name, v] of [['tick', o.tick], ['step', o.step]] as const) {
    if (v !== undefined && !((toScaledInt(v, SCALE) ?? 0) > 0)) throw new ImportInputError(`--${name}: expected a positive decimal with at most ${SCALE} decimals, got '${v}'`);
  }
  // Last, once the rest is known good: the folder of --out is made as synth and backtest make
  // theirs (a new project's `--out data/x.jsonl.gz` has no data/ yet).
  const folder = dirname(resolve(o.out));
  try {
    makeDirSync(folder);
  } catch (e) {
    throw new ImportInputError(`--out ${o.out}: the folder ${folder} cannot be made: ${errMessage(e)}`);
  }
}

/**
 * Refuses an input given twice: the same file (by its real path, so also through a symlink or
 * another spelling), or another file with the same bytes (a copy under another name or folder).
 * Every message would be imported twice (each trade and quote doubled). Only files of equal size
 * are hashed here; the header's `sources` hash them all.
 */
export async function refuseRepeatedInputs(files: string[]): Promise<void> {
  const real = files.map((f) => realpathSync(f));
  for (let i = 0; i < files.length; i++) {
    const j = real.indexOf(real[i]);
    if (j < i) throw new ImportInputError(files[i] === files[j] ? `${files[i]}: given twice; each file is imported once` : `${files[i]}: the same file as ${files[j]} (${real[i]}), given twice; each file is imported once`);
  }
  const bySize = new Map<number, number[]>();
  files.forEach((f, i) => bySize.set(statSync(f).size, [...(bySize.get(statSync(f).size) ?? []), i]));
  for (const group of bySize.values()) {
    if (group.length < 2) continue;
    const shas = await Promise.all(group.map((i) => sha256Of(files[i])));
    for (let k = 0; k < group.length; k++) {
      const first = shas.indexOf(shas[k]);
      if (first < k) throw new ImportInputError(`${files[group[k]]}: the same content as ${files[group[first]]} (sha256 ${shas[k]}), given twice; each file is imported once`);
    }
  }
}
