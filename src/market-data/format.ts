/**
 * The recording format, versions 1 and 2: gzip-compressed JSON lines. The first line of every file is a
 * header; every other line is one event with its epoch-ms time `t` and kind `k`. Decimal values
 * stay strings, exactly as the venue sent them. Files of one recording rotate by size or time;
 * each file starts with its own header (with `part`), so any file can be read alone.
 *
 * Version 2 adds what real venues' data carries (docs/recording.md): `quote` (best bid/ask with
 * sizes), `book` (one L2 delta message with the venue's update ids), `snapshot` (a full L2 book),
 * the exchange's own time `et` beside the receive time `t` on any event, a symbol on `gap`, and
 * header fields for imported data (source files with sha256, how marks were obtained, what the
 * import skipped). Events are in receive order (`t`); `et` is kept as the venue stamped it. Every
 * v1 line is a valid v2 line, so a v2 reader reads both.
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
/** The newest version; readers accept every version in RECORDING_VERSIONS. */
export const RECORDING_VERSION = 2;
export const RECORDING_VERSIONS: readonly number[] = [1, 2];
export type RecordingVersion = 1 | 2;

/**
 * The header's `skipped` reason of the input messages an import with --from read before it: the
 * range its user chose, not data left out (a backtest and `perpkit data inspect` say them apart,
 * and not at all when another file of the run holds that range: mergeHeaders).
 */
export const SKIPPED_BEFORE_FROM = 'message before --from';

/** One input file of an import, as recorded in the header. */
export interface RecordingSourceFile {
  /** The file name as given to the importer. */
  file: string;
  sha256: string;
  bytes: number;
}

/**
 * How the `mark` events of a symbol were obtained: `recorded` (the venue's mark price stream) or
 * `derived` (the data has none; `method` says how they were made, e.g. the mid price sampled
 * each second). A derived mark is an approximation and the backtest report says so.
 */
export interface MarkProvenance {
  source: 'recorded' | 'derived';
  method: string;
}

export interface RecordingHeader {
  type: 'header';
  format: typeof RECORDING_FORMAT;
  version: RecordingVersion;
  /** Where the data came from: a venue base URL, `synth:<seed>`, or `import:<importer>`. */
  source: string;
  /** Epoch ms at which recording started (of this part). */
  startTime: number;
  /** Specs of every recorded symbol. */
  symbols: SymbolSpec[];
  /** 0 for the first file of a recording, then 1, 2, ... as files rotate. */
  part: number;
  /** Free-form facts: seed and generator settings for synthetic data, recorder version, ... */
  meta?: Record<string, string | number | boolean>;
  /** v2, imports: the input files with their sha256. */
  sources?: RecordingSourceFile[];
  /** v2: how mark prices were obtained, by symbol (absent: recorded from the venue). */
  marks?: Record<string, MarkProvenance>;
  /** v2, imports: input messages not turned into an event, by reason (nothing is dropped silently). */
  skipped?: Record<string, number>;
}

/** [price, quantity] decimal strings, best first. */
export type Level = [string, string];

/**
 * Every event has `t`, the time it was received (epoch ms; replay order), and in v2 may have
 * `et`, the exchange's own time of the event (epoch ms), when the venue stamped one.
 */
export type RecordedEvent =
  /** A public trade; `side` is the taker's; `id` the venue's trade id. */
  | { t: number; et?: number; k: 'trade'; s: string; id: string; p: string; q: string; side: 'BUY' | 'SELL' }
  /** Mark and index price with the funding rate of the next settlement. */
  | { t: number; et?: number; k: 'mark'; s: string; p: string; i: string; r: string; n: number }
  /** v2: best bid `bp` x `bq` and best ask `ap` x `aq`; `u` the venue's book update id when it has one. */
  | { t: number; et?: number; k: 'quote'; s: string; bp: string; bq: string; ap: string; aq: string; u?: number }
  /**
   * v2: one L2 delta message: each level is set to its quantity, or removed when the quantity is
   * zero. `U`..`u` are the venue's first and final update ids of the message, `pu` the final id
   * of the message before it (Binance USD-M), when the venue sends one.
   */
  | { t: number; et?: number; k: 'book'; s: string; U: number; u: number; pu?: number; b: Level[]; a: Level[] }
  /** v2: a full L2 book (replaces the book); `u` is the update id it is at. */
  | { t: number; et?: number; k: 'snapshot'; s: string; u: number; b: Level[]; a: Level[] }
  /** A full top-of-book snapshot. */
  | { t: number; et?: number; k: 'depth'; s: string; b: Level[]; a: Level[] }
  | { t: number; et?: number; k: 'ticker'; s: string; last: string; high: string; low: string; vol: string; qvol: string }
  /** A funding settlement at mark price `p` with rate `r`. */
  | { t: number; et?: number; k: 'funding'; s: string; r: string; p: string }
  /** A private-stream event, verbatim. */
  | { t: number; k: 'private'; e: PrivateEvent }
  /** Positions polled over REST. */
  | { t: number; k: 'positions'; list: PositionRecord[] }
  /**
   * The stream was lost (reconnect, seq gap, a break in a book's update-id chain): data between
   * `from` and `t` may be missing. v2: `s` names the symbol when only one is concerned; after a
   * gap of a symbol's book, its book is unknown until the next `snapshot`.
   */
  | { t: number; k: 'gap'; stream: 'public' | 'private'; from: number; reason: string; s?: string };

export type RecordedKind = RecordedEvent['k'];

/** Every line kind (version 2; version 1 has all but quote, book and snapshot), for validation and docs. */
export const RECORDED_KINDS: readonly RecordedKind[] = ['trade', 'quote', 'book', 'snapshot', 'mark', 'depth', 'ticker', 'funding', 'private', 'positions', 'gap'];
/** The kinds version 2 added. */
export const V2_KINDS: readonly RecordedKind[] = ['quote', 'book', 'snapshot'];

export function isHeader(v: unknown): v is RecordingHeader {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Partial<RecordingHeader>;
  return h.type === 'header' && h.format === RECORDING_FORMAT && typeof h.version === 'number' && Array.isArray(h.symbols);
}
