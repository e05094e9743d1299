/**
 * Streaming reader of recordings (format v1 and v2, format.ts): one or more files, each
 * gzip-compressed or plain JSON lines, read in the order given without loading a file into
 * memory. Every line is checked for the shape of its kind, so garbage (a torn write, a wrong
 * file) stops the read with an error naming the file and line instead of reaching a replay.
 *
 * One implementation for the local exchange's replay mode and the backtester (src/market-data
 * sits below both).
 */
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { rotatedParts } from './writer';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { damagedGzipProblem, isGzip, linesBeforeDamage, textLines, zlibProblem } from './text';
import {
  RECORDED_KINDS,
  RECORDING_FORMAT,
  RECORDING_VERSION,
  RECORDING_VERSIONS,
  SKIPPED_BEFORE_FROM,
  V2_KINDS,
  isHeader,
  type RecordedEvent,
  type RecordedKind,
  type RecordingHeader,
} from './format';

export interface ReadRecordingOptions {
  /**
   * Accept a last line (and a gzip stream) cut short by a crash of the writer: yield everything
   * before it and stop. Off by default: a torn file is an error unless the caller opts in.
   */
  allowTornTail?: boolean;
  /** With allowTornTail: told of a torn tail that was accepted (file, line, what was wrong there). */
  onTornTail?: (tear: TornTail) => void;
}

/** Where a file's torn tail starts, and what was found there. */
export interface TornTail {
  file: string;
  /** The first line not read (the torn one, or the line after the last whole one). */
  line: number;
  why: string;
}

/** How a user gets the whole part of a torn recording back, said by every refusal of one. */
export function tornHint(file: string): string {
  return `\`perpkit data repair ${file} --out <new file>\` keeps everything before it`;
}

/** A recording file that is not a valid recording: says which file and line, and what was wrong. */
export class RecordingFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
    this.name = 'RecordingFormatError';
  }
}

/**
 * The refusal of gzip data damaged (not torn), `e` being zlib's error, after the file's last good
 * line (text.ts linesBeforeDamage; `read`: lines the caller read, a floor) and damagedGzipProblem.
 */
export async function damagedGzipError(file: string, read: number, e: unknown): Promise<RecordingFormatError> {
  const line = Math.max(read, await linesBeforeDamage(file));
  return new RecordingFormatError(file, line + 1, damagedGzipProblem(line, e));
}

/**
 * The refusal of a bad last line (`problem`, at line `line`): what a writer stopped mid-write
 * leaves, so it names the repair. Every reader of recordings says it so (readRecording, the
 * backtest's JSON-lines source).
 */
export function tornLastLineError(file: string, line: number, problem: string): RecordingFormatError {
  return new RecordingFormatError(file, line, `${problem} (the file's last line: if its writer was stopped mid-write, ${tornHint(file)})`);
}

/** The file's content as a text stream; gzip is recognised by its magic bytes, not the name. */
function openText(path: string): Readable {
  // Sniffed first: it throws at once for a missing file or a folder, before a stream exists whose
  // own 'error' event, with no listener yet, would end the process after the caller caught this.
  const gzip = isGzip(path);
  const raw = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (!gzip) return raw;
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  raw.on('error', (e) => gunzip.destroy(e));
  return raw.pipe(gunzip);
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isSide = (v: unknown): boolean => v === 'BUY' || v === 'SELL';

/**
 * A plain decimal string: digits, then optionally a point and digits ("61800.20", "0.001"); with
 * `signed`, a leading minus too (a funding rate). A loop over the characters, not a regular
 * expression: the replay reads every price and quantity of every line through here.
 */
export function isRecordedDecimal(v: unknown, signed = false): v is string {
  return typeof v === 'string' && isRecordedDecimalIn(v, 0, v.length, signed);
}

/** isRecordedDecimal of the characters `from`..`n` of `v` (the importers check values inside a line without a substring). */
export function isRecordedDecimalIn(v: string, from: number, n: number, signed = false): boolean {
  let i = signed && n > from && v.charCodeAt(from) === 45 ? from + 1 : from;
  const start = i;
  while (i < n && v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) i++;
  if (i === start) return false;
  if (i === n) return true;
  if (v.charCodeAt(i) !== 46) return false;
  const frac = ++i;
  while (i < n && v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) i++;
  return i === n && i > frac;
}

const isLevels = (v: unknown): boolean => Array.isArray(v) && v.every((l) => Array.isArray(l) && l.length === 2 && isStr(l[0]) && isStr(l[1]));

/** The first of `fields` of `o` that is not a plain decimal (`signed`: those that may be negative), as a problem; undefined when all are. */
function decimalsProblem(o: Record<string, unknown>, fields: readonly string[], signed: readonly string[] = []): string | undefined {
  for (const f of fields) {
    const sgn = signed.includes(f);
    if (!isRecordedDecimal(o[f], sgn)) return `${String(o.k)} event: "${f}" must be a plain decimal string such as "${sgn ? '-0.0001' : '61800.2'}"${sgn ? '' : ' (not negative)'}, got ${JSON.stringify(o[f])}`;
  }
  return undefined;
}

/** The first price or quantity of a level list that is not a plain non-negative decimal, as a problem. */
function levelsProblem(o: Record<string, unknown>, side: 'b' | 'a'): string | undefined {
  const levels = o[side] as Array<[string, string]>;
  for (let i = 0; i < levels.length; i++) {
    const [p, q] = levels[i];
    if (!isRecordedDecimal(p) || !isRecordedDecimal(q)) return `${String(o.k)} event: level ${i} of "${side}" must be [price, quantity] as plain non-negative decimal strings, got ${JSON.stringify(levels[i])}`;
  }
  return undefined;
}
const KINDS = new Set<string>(RECORDED_KINDS);
const V2_ONLY = new Set<string>(V2_KINDS);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

const TRADE_DECIMALS = ['p', 'q'];
const QUOTE_DECIMALS = ['bp', 'bq', 'ap', 'aq'];
const MARK_DECIMALS = ['p', 'i', 'r'];
const TICKER_DECIMALS = ['last', 'high', 'low', 'vol', 'qvol'];
const FUNDING_DECIMALS = ['r', 'p'];
const RATE = ['r'];

/**
 * What is wrong with an event line, or undefined when it has the shape of its kind: types and
 * presence, and that prices, quantities and rates are plain decimal strings (a rate may be
 * negative, nothing else). Whether a value fits a symbol's grid is the consumer's to judge (the
 * tape counts what it skips, and the report says so).
 */
export function eventProblem(v: unknown, version: number = RECORDING_VERSION): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'expected a JSON object';
  const o = v as Record<string, unknown>;
  if (!isNum(o.t)) return 'expected a numeric time "t" (epoch ms)';
  if (!isStr(o.k) || !KINDS.has(o.k)) return `unknown event kind ${JSON.stringify(o.k)}; expected one of ${RECORDED_KINDS.join(', ')}`;
  if (version < 2 && V2_ONLY.has(o.k)) return `event kind ${o.k} needs format version 2, the header says version ${version}`;
  if (o.et !== undefined && !isNum(o.et)) return `${o.k} event: expected "et" (exchange time, epoch ms) as a number when present`;
  const want = (ok: boolean, what: string): string | undefined => (ok ? undefined : `${o.k} event: expected ${what}`);
  switch (o.k as RecordedKind) {
    case 'trade':
      return want(isStr(o.s) && isStr(o.id) && isStr(o.p) && isStr(o.q) && isSide(o.side), 's, id, p, q as strings and side BUY or SELL') ?? decimalsProblem(o, TRADE_DECIMALS);
    case 'quote':
      return want(isStr(o.s) && isStr(o.bp) && isStr(o.bq) && isStr(o.ap) && isStr(o.aq) && (o.u === undefined || isId(o.u)), 's, bp, bq, ap, aq as strings and u (if present) as an update id') ?? decimalsProblem(o, QUOTE_DECIMALS);
    case 'book':
      return want(isStr(o.s) && isId(o.U) && isId(o.u) && (o.pu === undefined || isId(o.pu)) && isLevels(o.b) && isLevels(o.a), 's as a string, U, u (and pu if present) as update ids, b, a as [price, quantity] string pairs') ?? levelsProblem(o, 'b') ?? levelsProblem(o, 'a');
    case 'snapshot':
      return want(isStr(o.s) && isId(o.u) && isLevels(o.b) && isLevels(o.a), 's as a string, u as an update id, b, a as [price, quantity] string pairs') ?? levelsProblem(o, 'b') ?? levelsProblem(o, 'a');
    case 'mark':
      return want(isStr(o.s) && isStr(o.p) && isStr(o.i) && isStr(o.r) && isNum(o.n), 's, p, i, r as strings and n as a number') ?? decimalsProblem(o, MARK_DECIMALS, RATE);
    case 'depth':
      return want(isStr(o.s) && isLevels(o.b) && isLevels(o.a), 's as a string and b, a as [price, quantity] string pairs') ?? levelsProblem(o, 'b') ?? levelsProblem(o, 'a');
    case 'ticker':
      return want(isStr(o.s) && isStr(o.last) && isStr(o.high) && isStr(o.low) && isStr(o.vol) && isStr(o.qvol), 's, last, high, low, vol, qvol as strings') ?? decimalsProblem(o, TICKER_DECIMALS);
    case 'funding':
      return want(isStr(o.s) && isStr(o.r) && isStr(o.p), 's, r, p as strings') ?? decimalsProblem(o, FUNDING_DECIMALS, RATE);
    case 'private': {
      const e = o.e as Record<string, unknown> | null | undefined;
      return want(typeof e === 'object' && e !== null && isStr(e.event), 'e as a private event object with an "event" name');
    }
    case 'positions':
      return want(Array.isArray(o.list) && o.list.every((p) => typeof p === 'object' && p !== null), 'list as an array of position records');
    case 'gap':
      return want((o.stream === 'public' || o.stream === 'private') && isNum(o.from) && isStr(o.reason) && (o.s === undefined || isStr(o.s)), 'stream public or private, from as a number, reason (and s if present) as strings');
  }
}

/** The refusal of a header's version this reader does not know. */
export function versionProblem(version: unknown): string {
  return `recording format version ${String(version)} is not supported; this reader reads versions ${RECORDING_VERSIONS.join(' and ')}`;
}

function headerProblem(v: unknown): string | undefined {
  if (!isHeader(v)) return `expected a ${RECORDING_FORMAT} header line first`;
  if (!RECORDING_VERSIONS.includes(v.version)) return versionProblem(v.version);
  if (!isStr(v.source) || !isNum(v.startTime) || !isNum(v.part)) return 'header: expected source as a string, startTime and part as numbers';
  return undefined;
}

/**
 * Reads the files in order: each file's header, then its events. Throws RecordingFormatError at
 * the first line that is not valid (naming file and line).
 */
export async function* readRecording(paths: string[], opts: ReadRecordingOptions = {}): AsyncGenerator<RecordingHeader | RecordedEvent> {
  for (const path of paths) {
    const stream = openText(path);
    let n = 0;
    let version = RECORDING_VERSION;
    let torn: RecordingFormatError | undefined;
    try {
      for await (const text of textLines(stream)) {
        n++;
        if (torn) throw torn; // a bad line followed by more lines is corruption, not a torn tail
        if (text.length === 0) {
          torn = new RecordingFormatError(path, n, 'empty line');
          continue;
        }
        let v: unknown;
        try {
          v = JSON.parse(text);
        } catch {
          torn = new RecordingFormatError(path, n, `not a JSON line: ${text.length > 80 ? `${text.slice(0, 80)}...` : text}${n === 1 ? foreignFileHint(text) : ''}`);
          continue;
        }
        const problem = n === 1 ? headerProblem(v) : eventProblem(v, version);
        if (problem !== undefined) throw new RecordingFormatError(path, n, `${problem}${n === 1 ? foreignFileHint(text) : ''}`);
        if (n === 1) version = (v as RecordingHeader).version;
        yield v as RecordingHeader | RecordedEvent;
      }
    } catch (e) {
      stream.destroy();
      if (e instanceof RecordingFormatError) throw e;
      if (zlibProblem(e) === 'torn') {
        const why = 'the gzip stream ends early (the writer did not close the file)';
        if (opts.allowTornTail === true) {
          opts.onTornTail?.({ file: path, line: n + 1, why });
          return;
        }
        throw new RecordingFormatError(path, n + 1, `${why}; ${tornHint(path)} (in code: the reader's allowTornTail option)`);
      }
      if (zlibProblem(e) === 'damaged') throw await damagedGzipError(path, n, e);
      throw e;
    }
    if (torn) {
      // Only the last line is bad: what a crash in the middle of a write leaves.
      if (opts.allowTornTail === true) {
        opts.onTornTail?.({ file: path, line: torn.line, why: torn.problem });
        return;
      }
      throw tornLastLineError(path, torn.line, torn.problem);
    }
    if (n === 0) throw new RecordingFormatError(path, 1, `empty file; expected a ${RECORDING_FORMAT} header line`);
  }
}

/**
 * What a file whose first line is no recording header may be instead, and the command that makes a
 * recording of it, as the end of a refusal ('' when it looks like nothing known): a raw capture or
 * an archive named in data.files met only "expected a perpkit-recording header".
 */
export function foreignFileHint(firstLine: string): string {
  const import_ = (what: string, command: string): string => `; it looks like ${what}: \`${command} <files> --out <rec.jsonl.gz>\` makes a recording of it`;
  if (/^\d{10,19} \{/.test(firstLine)) return import_('a raw Binance capture (a receive time, then a stream message)', 'perpkit import binance-futures');
  if (/^\{"(stream|e)":/.test(firstLine)) return import_('a Binance stream message', 'perpkit import binance-futures');
  if (/^[a-z_]+(,[a-z_]+){2,}\r?$/i.test(firstLine)) return `${import_('a CSV file (a Binance archive or a Tardis.dev export)', 'perpkit import binance-futures')} (a Tardis.dev export: perpkit import tardis)`;
  return '';
}

/** The header (first line) of one recording file, reading no further. */
export async function readHeader(path: string): Promise<RecordingHeader> {
  const it = readRecording([path]);
  try {
    const first = await it.next();
    if (first.done === true) throw new RecordingFormatError(path, 1, 'empty file');
    return first.value as RecordingHeader;
  } finally {
    await it.return(undefined);
  }
}

/**
 * All files of a recording given its first part: `x.jsonl.gz` (or `.jsonl`) then the rotated
 * parts `x.1.jsonl.gz`, `x.2.jsonl.gz`, ... that exist, in part order (rotatedParts).
 */
export function recordingFilesSync(first: string): string[] {
  return [first, ...rotatedParts(first)];
}

/**
 * The files of recordings given by their first parts, each followed by its rotated parts; a file
 * both given and found as another's part is read once, at its first place.
 */
export function withRotatedParts(files: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    for (const p of recordingFilesSync(f)) {
      const key = resolve(p);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}

/** recordingFilesSync, for callers that await it (the exchange's replay). */
export async function recordingFiles(first: string): Promise<string[]> {
  return Promise.resolve(recordingFilesSync(first));
}

/**
 * Whether the messages the import of `h` read before its --from (SKIPPED_BEFORE_FROM) are in
 * other files of the run: imports of the same inputs (each sha256 of h's `sources` among theirs)
 * whose ranges (their --from to their --to, open where not given) together cover all the time
 * before h's --from. A capture imported in two files (`--to T`, `--from T`) is one such pair.
 */
export function beforeFromHeld(h: RecordingHeader, headers: readonly RecordingHeader[]): boolean {
  const from = h.meta?.from;
  const mine = h.sources ?? [];
  if (typeof from !== 'number' || mine.length === 0) return false;
  const ranges: Array<[number, number]> = [];
  for (const g of headers) {
    if (g === h || !mine.every((m) => (g.sources ?? []).some((x) => x.sha256 === m.sha256))) continue;
    ranges.push([typeof g.meta?.from === 'number' ? g.meta.from : -Infinity, typeof g.meta?.to === 'number' ? g.meta.to : Infinity]);
  }
  // How far the ranges reach from the beginning, each starting where the ones before it reach.
  let reach = -Infinity;
  for (let grown = true; grown && reach < from; ) {
    grown = false;
    for (const [start, end] of ranges) {
      if (start <= reach && end > reach) {
        reach = end;
        grown = true;
      }
    }
  }
  return reach >= from;
}

/**
 * The first header, with the symbols of all files (first spec of a name wins), what every file's
 * import skipped, summed by reason (each file's header counts its own; the messages an import read
 * before its --from only when no other file holds them: beforeFromHeld), and how each symbol's
 * marks were obtained in any file: derived in one file is derived for the run (the first such
 * method), whatever the others say; an L2 book from partial book depth in any file is said too.
 * What a backtest and `perpkit data inspect` of several files (or a rotated recording's parts) see.
 */
export function mergeHeaders(headers: RecordingHeader[]): RecordingHeader {
  const first = headers[0];
  const symbols = [...first.symbols];
  const seen = new Set(symbols.map((s) => s.symbol));
  const skipped: Record<string, number> = {};
  for (const h of headers) {
    const held = beforeFromHeld(h, headers);
    for (const [why, n] of Object.entries(h.skipped ?? {})) if (!(held && why === SKIPPED_BEFORE_FROM)) skipped[why] = (skipped[why] ?? 0) + n;
  }
  const marks: NonNullable<RecordingHeader['marks']> = { ...(first.marks ?? {}) };
  for (const h of headers.slice(1)) {
    for (const s of h.symbols) {
      if (!seen.has(s.symbol)) {
        seen.add(s.symbol);
        symbols.push(s);
      }
    }
    for (const [sym, m] of Object.entries(h.marks ?? {})) if (marks[sym] === undefined || (m.source === 'derived' && marks[sym].source !== 'derived')) marks[sym] = m;
  }
  // An L2 book from partial depth in any file (its symbols and levels a side), said once per distinct text.
  const partial = [...new Set(headers.map((h) => h.meta?.partialDepth).filter((p): p is string => typeof p === 'string'))];
  const meta = partial.length > 0 ? { meta: { ...(first.meta ?? {}), partialDepth: partial.join(', ') } } : {};
  const merged: RecordingHeader = { ...first, symbols, ...(Object.keys(marks).length > 0 ? { marks } : {}), ...meta };
  // The sum, not the first file's own (which may hold messages before its --from that another file holds).
  delete merged.skipped;
  if (Object.keys(skipped).length > 0) merged.skipped = skipped;
  return merged;
}
