/**
 * Binance USD-M's update-id chain of one symbol's depth diffs, by the venue's documented procedure
 * for a local order book: diffs are buffered until a REST snapshot; then those with `u` < its
 * `lastUpdateId` are dropped, the first applied one must have `U` <= `lastUpdateId` <= `u`, and
 * each later one's `pu` must equal the previous `u`. A break is a gap: the book is unknown and
 * diffs buffer again until the next snapshot.
 *
 * One exception to the `pu` rule: an exact repeat of the diff just taken (the same `U`, `u`, `pu`,
 * event time `E` and levels; only its receive time may differ) is dropped and counted, not a break.
 * Capture tools that reconnect write the last message again. A diff with those ids but other
 * content is no repeat: the strict rule holds for it.
 *
 * This file says what to do with each diff (`diffStep`) and keeps the chain's state;
 * binance-book.ts writes what it says (the `book` events, the `gap`s, the counts).
 */
import { L2Book } from '../l2-book';
import type { Level } from '../format';
import { levelsOf, type Diff } from './binance-scan';

/** Diffs kept per symbol while waiting for a snapshot; older ones are counted and dropped. */
export const MAX_PENDING = 200_000;

export const R_BEFORE_SNAPSHOT = 'depthUpdate older than the snapshot (u < lastUpdateId)';
export const R_NO_SNAPSHOT = 'depthUpdate with no snapshot to apply it to';
export const R_REPEATED = 'depthUpdate repeated (the same U, u, pu, E and levels as the diff just taken, as a reconnecting capture writes it)';

/** One symbol's chain (part of the importer's symbol state; `book` is the one the importer keeps). */
export interface DiffChain {
  /** The book at the last diff applied; undefined while there is none (before a snapshot, after a gap). */
  book: L2Book | undefined;
  /** The book was set from a snapshot and no diff is applied yet (the first must straddle it). */
  awaitingFirst: boolean;
  /** Diffs waiting for a snapshot, in order. */
  pending: Diff[];
  /** The last diff applied since the last snapshot (a repeat of it is dropped). */
  taken: Diff | undefined;
}

/**
 * What to do with a diff: `apply` it (write it and apply it to the book), `wait` (buffered for the
 * next snapshot), `skip` it (counted under `reason`; `R_NO_SNAPSHOT`: the buffer was full, its
 * oldest diff was dropped and this one buffered), or `gap`: the chain broke (`reason` says how);
 * the caller writes the gap and then calls `breakChain`.
 */
export type DiffStep = { take: 'apply' | 'wait' } | { take: 'skip' | 'gap'; reason: string };

const APPLY: DiffStep = { take: 'apply' };
const WAIT: DiffStep = { take: 'wait' };
const BEFORE_SNAPSHOT: DiffStep = { take: 'skip', reason: R_BEFORE_SNAPSHOT };
const PENDING_FULL: DiffStep = { take: 'skip', reason: R_NO_SNAPSHOT };
const REPEATED: DiffStep = { take: 'skip', reason: R_REPEATED };

/** The chain's next step for diff `d` (the chain's state moves with it, but for a gap: `breakChain`). */
export function diffStep(c: DiffChain, d: Diff): DiffStep {
  const book = c.book;
  if (book === undefined) {
    c.pending.push(d);
    if (c.pending.length <= MAX_PENDING) return WAIT;
    c.pending.shift();
    return PENDING_FULL;
  }
  if (c.awaitingFirst) {
    const L = book.lastUpdateId;
    if (d.u < L) return BEFORE_SNAPSHOT;
    if (!(d.U <= L && L <= d.u)) return { take: 'gap', reason: `snapshot lastUpdateId ${L} is not inside the first following diff's U..u ${d.U}..${d.u}` };
    c.awaitingFirst = false;
    c.taken = d;
    return APPLY;
  }
  if (d.pu !== book.lastUpdateId) {
    if (c.taken !== undefined && sameDiff(c.taken, d)) return REPEATED;
    return { take: 'gap', reason: `pu ${d.pu} does not follow the previous diff's u ${book.lastUpdateId}` };
  }
  c.taken = d;
  return APPLY;
}

/** The same message: ids, event time and levels (as text when both were scanned, else level by level). */
function sameDiff(x: Diff, y: Diff): boolean {
  if (x.U !== y.U || x.u !== y.u || x.pu !== y.pu || x.et !== y.et) return false;
  if (x.bJson !== undefined && x.bJson === y.bJson && x.aJson === y.aJson) return true;
  const a = levelsOf(x);
  const b = levelsOf(y);
  return sameLevels(a.b, b.b) && sameLevels(a.a, b.a);
}

function sameLevels(x: readonly Level[], y: readonly Level[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i][0] !== y[i][0] || x[i][1] !== y[i][1]) return false;
  return true;
}

/** After a gap (written while the book before it was still kept): the book is unknown, diff `d` buffered for the next snapshot. */
export function breakChain(c: DiffChain, d: Diff): void {
  c.book = undefined;
  c.taken = undefined;
  c.pending.push(d);
}

/** A REST snapshot at `lastUpdateId` starts the chain again: the book it sets, and the diffs buffered before it, in order. */
export function chainFromSnapshot(c: DiffChain, b: readonly Level[], a: readonly Level[], lastUpdateId: number): Diff[] {
  const book = new L2Book();
  book.reset(b, a, lastUpdateId);
  c.book = book;
  c.awaitingFirst = true;
  c.taken = undefined;
  const pending = c.pending;
  c.pending = [];
  return pending;
}
