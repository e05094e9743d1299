/**
 * Append-only columns for long histories kept in memory (an account's fills and balance changes
 * on the local exchange grow by an entry per trade for the life of the process). A history of
 * record objects, each with a handful of decimal strings, is hundreds of bytes and several heap
 * objects per entry, and every young-generation collection copies the new ones; these columns keep
 * numbers in typed chunks (no object per entry) and build the record only when it is read.
 *
 * Chunks of 4,096 entries: appending never copies what is there.
 */
const SHIFT = 12;
const SIZE = 1 << SHIFT;
const MASK = SIZE - 1;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Numbers, exact for integers up to 2^53 (times, ids, ticks, steps, small codes). */
export class NumberColumn {
  private readonly chunks: Float64Array[] = [];

  /** Sets entry `i`; `i` is at most one past the last entry set. */
  set(i: number, v: number): void {
    let a = this.chunks[i >>> SHIFT];
    if (a === undefined) {
      a = new Float64Array(SIZE);
      this.chunks.push(a);
    }
    a[i & MASK] = v;
  }

  get(i: number): number {
    return this.chunks[i >>> SHIFT][i & MASK];
  }
}

/**
 * Exact integers of any size (money units): 64-bit typed chunks; a chunk that meets a value
 * beyond 64 bits becomes a plain array of bigints, so nothing is ever wrapped.
 */
export class BigIntColumn {
  private readonly chunks: Array<BigInt64Array | bigint[]> = [];

  set(i: number, v: bigint): void {
    const c = i >>> SHIFT;
    let a = this.chunks[c];
    if (a === undefined) {
      a = new BigInt64Array(SIZE);
      this.chunks.push(a);
    }
    if (a instanceof BigInt64Array && (v < INT64_MIN || v > INT64_MAX)) {
      a = Array.from(a);
      this.chunks[c] = a;
    }
    a[i & MASK] = v;
  }

  get(i: number): bigint {
    return this.chunks[i >>> SHIFT][i & MASK];
  }
}
