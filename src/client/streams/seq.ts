/**
 * `seq` counts 1, 2, 3 ... per connection (PROTOCOL.md section 5). A number skipped is an event
 * not received (yet): a hole. A hole filled soon after is a reordering, not a loss; a number
 * received twice is a duplicate, not a loss either. Only a hole that stays open means local state
 * may be stale (the stream decides how long to wait: PrivateStreamOptions.gapGraceMs).
 */
export interface SeqGap {
  expected: number;
  received: number;
}

/** What one `seq` is: the next one, ahead of it (holes opened), one filling a hole, or a repeat. */
export type SeqVerdict = { kind: 'next' } | { kind: 'ahead'; gap: SeqGap } | { kind: 'late' } | { kind: 'duplicate' };

/** More holes than this at once are not waited for one by one (a long loss): the set is dropped. */
const MAX_HOLES = 256;

const NEXT: SeqVerdict = Object.freeze({ kind: 'next' });
const LATE: SeqVerdict = Object.freeze({ kind: 'late' });
const DUPLICATE: SeqVerdict = Object.freeze({ kind: 'duplicate' });

export class SeqTracker {
  private last = 0;
  /** Numbers skipped and not received, not yet reported as a gap. */
  private readonly holes = new Set<number>();
  /** Holes already reported (a resync covers them): a late arrival is still not a repeat. */
  private readonly reported = new Set<number>();
  /** Set when a skip was too long to keep its numbers (MAX_HOLES): a loss until reported. */
  private overflow = false;

  /** A new connection starts counting again at 1. */
  reset(): void {
    this.last = 0;
    this.holes.clear();
    this.reported.clear();
    this.overflow = false;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** Whether numbers were skipped that have not arrived since nor been reported. */
  get hasHoles(): boolean {
    return this.overflow || this.holes.size > 0;
  }

  /** The open holes were reported (the caller resynced): they no longer count as open. */
  markReported(): void {
    for (const n of this.holes) this.reported.add(n);
    this.holes.clear();
    this.overflow = false;
    // Bounded: the oldest reported numbers go first (a Set iterates in insertion order).
    for (const n of this.reported) {
      if (this.reported.size <= MAX_HOLES) break;
      this.reported.delete(n);
    }
  }

  check(seq: number): SeqVerdict {
    if (seq === this.last + 1) {
      this.last = seq;
      return NEXT;
    }
    if (seq > this.last) {
      const gap = { expected: this.last + 1, received: seq };
      if (seq - this.last - 1 + this.holes.size > MAX_HOLES) this.overflow = true;
      else for (let n = this.last + 1; n < seq; n++) this.holes.add(n);
      this.last = seq;
      return { kind: 'ahead', gap };
    }
    if (this.holes.delete(seq) || this.reported.delete(seq)) return LATE;
    return DUPLICATE;
  }
}
