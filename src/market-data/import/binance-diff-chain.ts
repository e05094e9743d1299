/**
 * Binance USD-M's update-id chain of one symbol's depth diffs, by the venue's documented procedure
 * for a local order book: diffs are buffered until a REST snapshot; then those with `u` < its
 * `lastUpdateId` are dropped, the first applied one must have `U` <= `lastUpdateId` <= `u`, and
 * each later one's `pu` must equal the previous `u`. A break is a gap: the book is unknown and
 * diffs buffer again until the next snapshot.
 *
 * This file says what to do with each diff (`diffStep`) and keeps the chain's state;
 * binance-futures.ts writes what it says (the `book` events, the `gap`s, the counts).
 */
import { L2Book } from '../l2-book';
import type { Level } from '../format';
import type { Diff } from './binance-scan';

/** Diffs kept per symbol while waiting for a snapshot; older ones are counted and dropped. */
export const MAX_PENDING = 200_000;

export const R_BEFORE_SNAPSHOT = 'depthUpdate older than the snapshot (u < lastUpdateId)';
export const R_NO_SNAPSHOT = 'depthUpdate with no snapshot to apply it to';

/** One symbol's chain (part of the importer's symbol state; `book` is the one the importer keeps). */
export interface DiffChain {
  /** The book at the last diff applied; undefined while there is none (before a snapshot, after a gap). */
  book: L2Book | undefined;
  /** The book was set from a snapshot and no diff is applied yet (the first must straddle it). */
  awaitingFirst: boolean;
  /** Diffs waiting for a snapshot, in order. */
  pending: Diff[];
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
    return APPLY;
  }
  if (d.pu !== book.lastUpdateId) return { take: 'gap', reason: `pu ${d.pu} does not follow the previous diff's u ${book.lastUpdateId}` };
  return APPLY;
}

/** After a gap (written while the book before it was still kept): the book is unknown, diff `d` buffered for the next snapshot. */
export function breakChain(c: DiffChain, d: Diff): void {
  c.book = undefined;
  c.pending.push(d);
}

/** A REST snapshot at `lastUpdateId` starts the chain again: the book it sets, and the diffs buffered before it, in order. */
export function chainFromSnapshot(c: DiffChain, b: readonly Level[], a: readonly Level[], lastUpdateId: number): Diff[] {
  const book = new L2Book();
  book.reset(b, a, lastUpdateId);
  c.book = book;
  c.awaitingFirst = true;
  const pending = c.pending;
  c.pending = [];
  return pending;
}
