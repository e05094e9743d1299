/**
 * A strict reader of Binance stream messages in the exact text form Binance sends them: a
 * combined-stream envelope `{"stream":"...","data":{...}}` or a bare event `{...}`, whose event
 * holds only plain strings (printable ASCII, no escapes), integers of at most 15 digits,
 * `true`/`false`, and `[["price","qty"],...]` level lists, with no whitespace.
 *
 * It exists for speed: the importer turns most lines into output lines from slices of this text
 * instead of `JSON.parse` and `JSON.stringify`. On that subset the text of a value is exactly what
 * `JSON.stringify` writes for what `JSON.parse` reads (a plain string is its own JSON, an integer
 * of 15 digits or fewer without a leading zero prints back as itself), so both ways give the same
 * bytes. Anything else (escapes, floats, null, nested objects, whitespace, `lastUpdateId`, a `data`
 * key in a bare event) makes `scanMessage` return false and the line takes the general path, which
 * also gives every error message.
 */
import type { Level } from '../format';

export const F_NONE = 0;
export const F_STR = 1;
export const F_INT = 2;
export const F_BOOL = 3;
export const F_LEVELS = 4;
export type FieldType = typeof F_NONE | typeof F_STR | typeof F_INT | typeof F_BOOL | typeof F_LEVELS;

/**
 * One key of the event: its type and value; `start`..`end` is the value's text (a string without
 * its quotes, a level list with its brackets). A level list's strings are not made: `spans` holds
 * price start, price end, quantity start, quantity end of each of its `count` levels.
 */
export interface Field {
  type: FieldType;
  start: number;
  end: number;
  num: number;
  bool: boolean;
  count: number;
  spans: number[];
}

/** The keys the importer reads, reused line after line (the last of a repeated key wins, as in JSON.parse). */
export interface ScannedMessage {
  text: string;
  /** The combined-stream envelope's stream name (F_NONE for a bare event). */
  stream: Field;
  e: Field;
  s: Field;
  E: Field;
  T: Field;
  U: Field;
  u: Field;
  pu: Field;
  b: Field;
  a: Field;
  B: Field;
  A: Field;
  t: Field;
  p: Field;
  q: Field;
  m: Field;
  /** A trade's type (MARKET, or INSURANCE_FUND, ADL, NA: not market trades). */
  X: Field;
}

const field = (): Field => ({ type: F_NONE, start: 0, end: 0, num: 0, bool: false, count: 0, spans: [] });

export function scannedMessage(): ScannedMessage {
  return { text: '', stream: field(), e: field(), s: field(), E: field(), T: field(), U: field(), u: field(), pu: field(), b: field(), a: field(), B: field(), A: field(), t: field(), p: field(), q: field(), m: field(), X: field() };
}

/** The string value of a field of type F_STR. */
export const strOf = (m: ScannedMessage, f: Field): string => m.text.slice(f.start, f.end);

/** Is the F_STR field's value exactly `s`? (no substring made) */
export const strIs = (m: ScannedMessage, f: Field, s: string): boolean => f.end - f.start === s.length && m.text.startsWith(s, f.start);

const Q = 34; // "
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const ENVELOPE = '{"stream":"';
const DATA = ',"data":{';

/** End of a plain string whose opening quote is at i - 1 (the index of its closing quote), or -1. */
function plainEnd(text: string, i: number): number {
  for (let n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === Q) return i;
    // Control characters, the backslash and anything outside ASCII: the general path decides.
    if (c < 32 || c === 92 || c > 126) return -1;
  }
  return -1;
}

/**
 * Reads the message starting at `from` (a '{') to the end of `text`; false when the line is not
 * in the form above (nothing about it is known then: the caller uses JSON.parse).
 */
export function scanMessage(text: string, from: number, m: ScannedMessage): boolean {
  m.text = text;
  m.stream.type = m.e.type = m.s.type = m.E.type = m.T.type = m.U.type = m.u.type = m.pu.type = F_NONE;
  m.b.type = m.a.type = m.B.type = m.A.type = m.t.type = m.p.type = m.q.type = m.m.type = m.X.type = F_NONE;
  let i = from;
  let envelope = false;
  if (text.startsWith(ENVELOPE, i)) {
    const end = plainEnd(text, i + ENVELOPE.length);
    if (end < 0 || !text.startsWith(DATA, end + 1)) return false;
    m.stream.type = F_STR;
    m.stream.start = i + ENVELOPE.length;
    m.stream.end = end;
    i = end + 1 + DATA.length;
    envelope = true;
  } else if (text.charCodeAt(i) === LBRACE) {
    i++;
  } else {
    return false;
  }
  // i: just after the event's '{'.
  if (text.charCodeAt(i) === RBRACE) {
    i++;
  } else {
    for (;;) {
      if (text.charCodeAt(i) !== Q) return false;
      const keyEnd = plainEnd(text, i + 1);
      if (keyEnd < 0 || text.charCodeAt(keyEnd + 1) !== COLON) return false;
      const f = fieldOf(m, text, i + 1, keyEnd);
      if (f === null) return false;
      i = value(text, keyEnd + 2, f ?? SINK);
      if (i < 0) return false;
      const c = text.charCodeAt(i);
      i++;
      if (c === RBRACE) break;
      if (c !== COMMA) return false;
    }
  }
  if (envelope) {
    if (text.charCodeAt(i) !== RBRACE) return false;
    i++;
  }
  return i === text.length;
}

/** A value ignored by the importer (its text is still checked). */
const SINK = field();

/** The field for key text[start..end): undefined for a key the importer does not read, null for one that needs the general path. */
function fieldOf(m: ScannedMessage, text: string, start: number, end: number): Field | undefined | null {
  const len = end - start;
  if (len === 1) {
    switch (text.charCodeAt(start)) {
      case 101: return m.e; // e
      case 115: return m.s; // s
      case 69: return m.E; // E
      case 84: return m.T; // T
      case 85: return m.U; // U
      case 117: return m.u; // u
      case 98: return m.b; // b
      case 97: return m.a; // a
      case 66: return m.B; // B
      case 65: return m.A; // A
      case 116: return m.t; // t
      case 112: return m.p; // p
      case 113: return m.q; // q
      case 109: return m.m; // m
      case 88: return m.X; // X
      default: return undefined;
    }
  }
  if (len === 2 && text.startsWith('pu', start)) return m.pu;
  // A snapshot, or an envelope's data in a bare event: the general path.
  if ((len === 4 && text.startsWith('data', start)) || (len === 12 && text.startsWith('lastUpdateId', start))) return null;
  return undefined;
}

/** Reads one value at i into f; the index after it, or -1. */
function value(text: string, i: number, f: Field): number {
  const c = text.charCodeAt(i);
  if (c === Q) {
    const end = plainEnd(text, i + 1);
    if (end < 0) return -1;
    f.type = F_STR;
    f.start = i + 1;
    f.end = end;
    return end + 1;
  }
  if (c >= 48 && c <= 57) {
    // A leading zero only as "0" itself; no fraction or exponent; at most 15 digits (exact and printed back as read).
    let n = c - 48;
    let j = i + 1;
    if (n !== 0) {
      for (let d = text.charCodeAt(j) - 48; d >= 0 && d <= 9; d = text.charCodeAt(j) - 48) {
        n = n * 10 + d;
        j++;
      }
    }
    const next = text.charCodeAt(j);
    if (j - i > 15 || next === 46 || next === 101 || next === 69 || (next >= 48 && next <= 57)) return -1;
    f.type = F_INT;
    f.start = i;
    f.end = j;
    f.num = n;
    return j;
  }
  if (c === 116 && text.startsWith('true', i)) {
    f.type = F_BOOL;
    f.bool = true;
    return i + 4;
  }
  if (c === 102 && text.startsWith('false', i)) {
    f.type = F_BOOL;
    f.bool = false;
    return i + 5;
  }
  if (c === LBRACKET) return levels(text, i, f);
  return -1;
}

/** `[]` or `[["p","q"],...]` (pairs of plain strings) at i. */
function levels(text: string, i: number, f: Field): number {
  const spans = f.spans;
  let n = 0;
  const start = i;
  i++;
  if (text.charCodeAt(i) === RBRACKET) {
    i++;
  } else {
    for (;;) {
      if (text.charCodeAt(i) !== LBRACKET || text.charCodeAt(i + 1) !== Q) return -1;
      const pEnd = plainEnd(text, i + 2);
      if (pEnd < 0 || text.charCodeAt(pEnd + 1) !== COMMA || text.charCodeAt(pEnd + 2) !== Q) return -1;
      const qEnd = plainEnd(text, pEnd + 3);
      if (qEnd < 0 || text.charCodeAt(qEnd + 1) !== RBRACKET) return -1;
      spans[n] = i + 2;
      spans[n + 1] = pEnd;
      spans[n + 2] = pEnd + 3;
      spans[n + 3] = qEnd;
      n += 4;
      const c = text.charCodeAt(qEnd + 2);
      i = qEnd + 3;
      if (c === RBRACKET) break;
      if (c !== COMMA) return -1;
    }
  }
  f.type = F_LEVELS;
  f.start = start;
  f.end = i;
  f.count = n / 4;
  return i;
}

/** A depthUpdate as the importer keeps it until it is applied. */
export interface Diff {
  t: number;
  et: number;
  U: number;
  u: number;
  pu: number;
  /** The levels; undefined until needed when the line was read by scanMessage (see `levelsOf`). */
  b: Level[] | undefined;
  a: Level[] | undefined;
  /** `b` and `a` as their JSON text, when the line was read by scanMessage (the output reuses it). */
  bJson?: string;
  aJson?: string;
}

/** A diff's levels, parsed from its JSON text the first time they are needed. */
export function levelsOf(d: Diff): { b: Level[]; a: Level[] } {
  d.b ??= JSON.parse(d.bJson ?? '[]') as Level[];
  d.a ??= JSON.parse(d.aJson ?? '[]') as Level[];
  return { b: d.b, a: d.a };
}

/** Are text[0..end) all digits? */
export function digitsOnly(text: string, end: number): boolean {
  if (end <= 0) return false;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
