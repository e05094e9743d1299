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

type Chunk<T> = { [k: number]: T };

/** A table of `fields` values per entry; the typed chunk of each 4,096 values after the first comes from `chunk`. */
class Table<T> {
  private readonly first: T[] = [];
  protected readonly chunks: Array<Chunk<T>> = [];

  constructor(
    private readonly fields: number,
    private readonly chunk: () => Chunk<T>,
  ) {}

  /** Sets field `f` of entry `i`; entries are set in order, each entry's fields in order. */
  set(i: number, f: number, v: T): void {
    const k = i * this.fields + f;
    if (k < SIZE) {
      this.first[k] = v;
      return;
    }
    const c = (k >>> SHIFT) - 1;
    let a = this.chunks[c];
    if (a === undefined) {
      a = this.chunk();
      this.chunks.push(a);
    }
    this.put(c, a, k & MASK, v);
  }

  get(i: number, f: number): T {
    const k = i * this.fields + f;
    return k < SIZE ? this.first[k] : this.chunks[(k >>> SHIFT) - 1][k & MASK];
  }

  protected put(_c: number, a: Chunk<T>, at: number, v: T): void {
    a[at] = v;
  }
}

/** Number fields, exact for integers up to 2^53 (times, ids, ticks, steps, small codes). */
export class NumberTable extends Table<number> {
  constructor(fields: number) {
    super(fields, () => new Float64Array(SIZE));
  }
}

/** Whether a 32-bit signed integer holds `v` exactly (-0 as 0). */
export const fits32 = (v: number): boolean => (v | 0) === v;

/**
 * Integer fields that nearly always fit 32 bits (ids, ticks, steps, codes, the number of a value
 * in a Numbered list): Int32Array chunks after the first, half a NumberTable's memory. A chunk that
 * meets a value 32 bits cannot hold (an id past 2^31 - 1, a fraction) becomes a Float64Array, so
 * every value a NumberTable holds reads back exactly, never wrapped (-0 reads as 0). Not for times
 * in epoch milliseconds: they never fit, and every chunk would be made twice.
 */
export class IntTable extends Table<number> {
  constructor(fields: number) {
    super(fields, () => new Int32Array(SIZE));
  }

  protected override put(c: number, a: Chunk<number>, at: number, v: number): void {
    let chunk = a;
    if (!fits32(v) && chunk instanceof Int32Array) {
      chunk = Float64Array.from(chunk);
      this.chunks[c] = chunk;
    }
    chunk[at] = v;
  }
}

/**
 * Exact integer fields of any size (money units): 64-bit typed chunks after the first; a chunk
 * that meets a value beyond 64 bits becomes a plain array of bigints, so nothing is ever wrapped.
 */
export class BigIntTable extends Table<bigint> {
  constructor(fields: number) {
    super(fields, () => new BigInt64Array(SIZE));
  }

  protected override put(c: number, a: Chunk<bigint>, at: number, v: bigint): void {
    let chunk = a;
    if (chunk instanceof BigInt64Array && (v < INT64_MIN || v > INT64_MAX)) {
      chunk = Array.from(chunk);
      this.chunks[c] = chunk;
    }
    chunk[at] = v;
  }
}

/**
 * Values met, each numbered once (by identity: strings by value, objects by reference), so that a
 * history's entry holds a small number in its columns instead of a reference: the account, symbol
 * or place type of an ended order, the symbol of a fill or a balance change. A reference per entry
 * in a plain array growing with the history was copied whole as it grew, and each copy promoted by
 * the young-generation collector while small enough to be made there.
 */
export class Numbered<T> {
  readonly values: T[] = [];
  private readonly index = new Map<T, number>();

  of(v: T): number {
    let i = this.index.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.index.set(v, i);
    }
    return i;
  }
}

/**
 * An append-only list of numbers (an account's order ids, one per order for the life of the local
 * exchange), in an IntTable's chunks. As a plain array it was copied whole each time it grew, the
 * young generation copied and promoted each new copy while it was small enough to be allocated
 * there, and the collector's marking visited every element: on `npm run bench -- engine`'s
 * place+cancel, about a third of what its young-generation collections promoted.
 */
export class NumberList implements Iterable<number> {
  /** In 32 bits while the values fit (order ids do, for the first 2^31 - 1 orders): IntTable. */
  private readonly t = new IntTable(1);
  private n = 0;

  static of(values: Iterable<number>): NumberList {
    const l = new NumberList();
    for (const v of values) l.push(v);
    return l;
  }

  get length(): number {
    return this.n;
  }

  push(v: number): void {
    this.t.set(this.n++, 0, v);
  }

  at(i: number): number {
    return this.t.get(i, 0);
  }

  *[Symbol.iterator](): IterableIterator<number> {
    for (let i = 0; i < this.n; i++) yield this.t.get(i, 0);
  }

  /** The values for which `keep` is true, in order. */
  filter(keep: (v: number) => boolean): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const v = this.t.get(i, 0);
      if (keep(v)) out.push(v);
    }
    return out;
  }

  toArray(): number[] {
    const out = new Array<number>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.t.get(i, 0);
    return out;
  }
}

/**
 * A history of records kept as entries in tables: records restored from a snapshot first, kept as
 * read (their digits are whatever the snapshot holds), then the entries appended since, whose
 * records `build` makes when read.
 */
export abstract class RecordLog<R extends object> {
  /** Entries appended since the restore. */
  protected n = 0;

  constructor(protected readonly restored: readonly R[]) {}

  get length(): number {
    return this.restored.length + this.n;
  }

  /** The record of entry `i`, oldest first (a copy: nothing a caller does changes the log). */
  at(i: number): R {
    const r = this.restored.length;
    return i < r ? { ...this.restored[i] } : this.build(i - r);
  }

  /** The record of appended entry `k`. */
  protected abstract build(k: number): R;

  toArray(): R[] {
    const out = new Array<R>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.at(i);
    return out;
  }
}
