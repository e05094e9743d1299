/**
 * Append-only columns for long histories kept in memory (an account's fills and balance changes
 * on the local exchange grow by an entry per trade for the life of the process). A history of
 * record objects, each with a handful of decimal strings, is hundreds of bytes and several heap
 * objects per entry, and every young-generation collection copies the new ones; these tables keep
 * numbers in typed chunks (no object per entry) and build the record only when it is read.
 *
 * A table holds a fixed number of fields per entry, side by side (entry i's field f at i x fields
 * + f), in chunks of 4,096 values: appending never copies what is there. The first chunk is a
 * plain array (numbers in it are unboxed doubles; it grows as it fills): typed arrays, and tables,
 * cost a few hundred bytes each before any value, and most accounts' histories are short.
 */
const SHIFT = 12;
const SIZE = 1 << SHIFT;
const MASK = SIZE - 1;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Number fields, exact for integers up to 2^53 (times, ids, ticks, steps, small codes). */
export class NumberTable {
  private readonly first: number[] = [];
  private readonly chunks: Float64Array[] = [];

  constructor(private readonly fields: number) {}

  /** Sets field `f` of entry `i`; entries are set in order, each entry's fields in order. */
  set(i: number, f: number, v: number): void {
    const k = i * this.fields + f;
    if (k < SIZE) {
      this.first[k] = v;
      return;
    }
    const c = (k >>> SHIFT) - 1;
    let a = this.chunks[c];
    if (a === undefined) {
      a = new Float64Array(SIZE);
      this.chunks.push(a);
    }
    a[k & MASK] = v;
  }

  get(i: number, f: number): number {
    const k = i * this.fields + f;
    return k < SIZE ? this.first[k] : this.chunks[(k >>> SHIFT) - 1][k & MASK];
  }
}

/**
 * Exact integer fields of any size (money units): 64-bit typed chunks after the first; a chunk
 * that meets a value beyond 64 bits becomes a plain array of bigints, so nothing is ever wrapped.
 */
export class BigIntTable {
  private readonly first: bigint[] = [];
  private readonly chunks: Array<BigInt64Array | bigint[]> = [];

  constructor(private readonly fields: number) {}

  set(i: number, f: number, v: bigint): void {
    const k = i * this.fields + f;
    if (k < SIZE) {
      this.first[k] = v;
      return;
    }
    const c = (k >>> SHIFT) - 1;
    let a = this.chunks[c];
    if (a === undefined) {
      a = new BigInt64Array(SIZE);
      this.chunks.push(a);
    }
    if (a instanceof BigInt64Array && (v < INT64_MIN || v > INT64_MAX)) {
      a = Array.from(a);
      this.chunks[c] = a;
    }
    a[k & MASK] = v;
  }

  get(i: number, f: number): bigint {
    const k = i * this.fields + f;
    return k < SIZE ? this.first[k] : this.chunks[(k >>> SHIFT) - 1][k & MASK];
  }
}
