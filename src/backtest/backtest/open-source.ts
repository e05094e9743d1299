/**
 * Chooses what the replay reads: the binary cache of each recording file when caching is on
 * (building it first when it is missing or stale), else the JSON lines. A cache that cannot be
 * written (a read-only data directory) is not an error: the run reads the JSON lines instead and
 * says so.
 */
import { CacheSource } from './cache';
import { BacktestConfigError } from './config';
import { cacheIsValid, cachePathFor } from './cache-format';
import { buildCache } from './cache-writer';
import { RecordingFormatError } from '../../market-data/reader';
import { JsonlSource } from './jsonl-source';
import type { EventSource } from './source';

export interface OpenOptions {
  cache: boolean;
  /** Human-readable notes (cache built, cache unusable). */
  onNotice?: (msg: string) => void;
}

/** The source to replay, what it reads, and the wall time spent building replay caches for it (ms; 0 when none was built). */
export interface OpenedSource {
  source: EventSource;
  kind: 'cache' | 'jsonl';
  cacheBuildMs: number;
}

export async function openSource(files: string[], opts: OpenOptions): Promise<OpenedSource> {
  const jsonl = await JsonlSource.open(files);
  if (!opts.cache) return { source: jsonl, kind: 'jsonl', cacheBuildMs: 0 };
  const caches: string[] = [];
  let cacheBuildMs = 0;
  for (const f of files) {
    const c = cachePathFor(f);
    if (!(await cacheIsValid(f, c))) {
      const t0 = performance.now();
      try {
        opts.onNotice?.(`building replay cache ${c}`);
        const n = await buildCache(f, c);
        opts.onNotice?.(`replay cache ${c}: ${n} events`);
        cacheBuildMs += performance.now() - t0;
      } catch (e) {
        // A line the reader refuses is the recording's fault, not the cache's: say that, not "cannot write".
        if (e instanceof RecordingFormatError) {
          await jsonl.close();
          throw e;
        }
        opts.onNotice?.(`cannot write the replay cache ${c} (${e instanceof Error ? e.message : String(e)}); reading the JSON lines`);
        return { source: jsonl, kind: 'jsonl', cacheBuildMs: 0 };
      }
    }
    caches.push(c);
  }
  await jsonl.close();
  return { source: CacheSource.open(caches, jsonl.header, files), kind: 'cache', cacheBuildMs };
}

/**
 * The first and last event times (ms) of recording files, or undefined when they hold no events:
 * one pass over them, through the replay cache when `cache` is on (built first when missing), for
 * a check that needs the data's time range before any backtest has run.
 */
export async function recordingSpan(files: string[], opts: OpenOptions): Promise<{ first: number; last: number } | undefined> {
  const { source } = await openSource(files, opts);
  let first: number | undefined;
  let last = -Infinity;
  try {
    for (let b = await source.next(); b !== undefined; b = await source.next()) {
      if (b.count === 0) continue;
      first ??= b.time(0);
      for (let i = 0; i < b.count; i++) {
        const t = b.time(i);
        if (t > last) last = t;
      }
    }
  } finally {
    await source.close();
  }
  return first === undefined ? undefined : { first, last };
}

/**
 * The refusal of a data.from..data.to (from inclusive, to exclusive; infinite when not set) that
 * holds no event of the recording `files`, whose events run over `span`: the backtest's, and the
 * sweep's before it hands out a job (each job failed with it, exit 1). A recording that holds no
 * events at all (`span` undefined: headers only) is the fault of data.files, not of a range (which
 * the config may not even set): the error is at data.files and names the files.
 */
export function rangeWithoutEvents(file: string, files: readonly string[], from: number, to: number, span: { first: number; last: number } | undefined): BacktestConfigError {
  if (span === undefined) {
    const range = Number.isFinite(from) || Number.isFinite(to) ? ' (data.from/data.to have none to choose from)' : '';
    return new BacktestConfigError(file, 'data.files', `a recording with events in it${range}`, `${files.join(', ')}: ${files.length === 1 ? 'a header' : 'headers'} and no events`);
  }
  const iso = (t: number): string => (Number.isFinite(t) ? new Date(t).toISOString() : t < 0 ? 'the start' : 'the end');
  return new BacktestConfigError(file, 'data.from/data.to', `a time range with events in it (the recording runs from ${iso(span.first)} to ${iso(span.last)})`, `${iso(from)} to ${iso(to)}`);
}

/**
 * Whether recording files hold any event: their JSON lines read up to the first one (a batch), for
 * a check before any job runs that needs no time range (recordingSpan reads them all).
 */
export async function recordingHasEvents(files: string[]): Promise<boolean> {
  const source = await JsonlSource.open(files);
  try {
    for (let b = await source.next(); b !== undefined; b = await source.next()) if (b.count > 0) return true;
    return false;
  } finally {
    await source.close();
  }
}
