/** `seq` counts 1, 2, 3 ... per connection (PROTOCOL.md section 5): anything else is a gap. */
export interface SeqGap {
  expected: number;
  received: number;
}

export class SeqTracker {
  private last = 0;

  /** A new connection starts counting again at 1. */
  reset(): void {
    this.last = 0;
  }

  get lastSeq(): number {
    return this.last;
  }

  /** undefined when `seq` is the next one; the gap otherwise (a repeat or step back is one too). */
  check(seq: number): SeqGap | undefined {
    const expected = this.last + 1;
    if (seq === expected) {
      this.last = seq;
      return undefined;
    }
    if (seq > this.last) this.last = seq;
    return { expected, received: seq };
  }
}
