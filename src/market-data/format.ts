/**
 * The recording format, version 1: gzip-compressed JSON lines. The first line of every file is a
 * header; every other line is one event with its epoch-ms time `t` and kind `k`. Decimal values
 * stay strings, exactly as the venue sent them. Files of one recording rotate by size or time;
 * each file starts with its own header (with `part`), so any file can be read alone.
 *
 * This is the interchange format (record, synth, docs, tests). The backtester may convert a
 * recording once into a compact binary cache for speed; the JSON lines remain the source.
 *
 * It lives in src/market-data, below both the local exchange (which replays recordings with
 * `--market replay:<file>`) and the backtester, so both share one definition.
 */
import type { SymbolSpec } from '../protocol/rest/market';
import type { PositionRecord } from '../protocol/records';
import type { PrivateEvent } from '../protocol/ws';

export const RECORDING_FORMAT = 'perpkit-recording';
export const RECORDING_VERSION = 1;

export interface RecordingHeader {
  type: 'header';
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  /** Where the data came from: a venue base URL, or `synth:<seed>`. */
  source: string;
  /** Epoch ms at which recording started (of this part). */
  startTime: number;
  /** Specs of every recorded symbol. */
  symbols: SymbolSpec[];
  /** 0 for the first file of a recording, then 1, 2, ... as files rotate. */
  part: number;
  /** Free-form facts: seed and generator settings for synthetic data, recorder version, ... */
  meta?: Record<string, string | number | boolean>;
}

/** [price, quantity] decimal strings, best first. */
export type Level = [string, string];

export type RecordedEvent =
  /** A public trade; `side` is the taker's. */
  | { t: number; k: 'trade'; s: string; id: string; p: string; q: string; side: 'BUY' | 'SELL' }
  /** Mark and index price with the funding rate of the next settlement. */
  | { t: number; k: 'mark'; s: string; p: string; i: string; r: string; n: number }
  /** A full top-of-book snapshot. */
  | { t: number; k: 'depth'; s: string; b: Level[]; a: Level[] }
  | { t: number; k: 'ticker'; s: string; last: string; high: string; low: string; vol: string; qvol: string }
  /** A funding settlement at mark price `p` with rate `r`. */
  | { t: number; k: 'funding'; s: string; r: string; p: string }
  /** A private-stream event, verbatim. */
  | { t: number; k: 'private'; e: PrivateEvent }
  /** Positions polled over REST. */
  | { t: number; k: 'positions'; list: PositionRecord[] }
  /** The recorder lost its stream (reconnect, seq gap): data between `from` and `t` may be missing. */
  | { t: number; k: 'gap'; stream: 'public' | 'private'; from: number; reason: string };

export type RecordedKind = RecordedEvent['k'];

/** Every line kind of version 1, for validation and docs. */
export const RECORDED_KINDS: readonly RecordedKind[] = ['trade', 'mark', 'depth', 'ticker', 'funding', 'private', 'positions', 'gap'];

export function isHeader(v: unknown): v is RecordingHeader {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Partial<RecordingHeader>;
  return h.type === 'header' && h.format === RECORDING_FORMAT && typeof h.version === 'number' && Array.isArray(h.symbols);
}
