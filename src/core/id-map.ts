/**
 * A map from positive safe-integer ids to values, iterated in insertion order as a Map is, for
 * long-lived maps whose entries come and go all the time (an account's open orders).
 *
 * Why not `Map`: V8 keeps a Map's entries in a table that it replaces as entries are deleted and
 * added (a rehash) or on `clear()`, and the replaced table keeps its entries and a link to its
 * successor (for iterators still walking it). Once a long-lived Map's table has been moved to the
 * old generation (every full collection does that), each replaced table is garbage there that
 * still points at its successor: every later table, and every value it held, survives the
 * young-generation collections until the next full one, and is copied and promoted on the way.
 * Measured (Node 20; Node 24 alike): 2.8 M set+delete pairs on a promoted Map holding 200 entries
 * took 1.5 s instead of 0.12 s, promoting 206 MB. The engine's place+cancel workload (1.5 M
 * operations, `npm run bench -- engine`'s driver), with the accounts' open orders in Maps: 153
 * bytes promoted an operation and 1.19 s of young collections; in IdMaps (and the touched accounts
 * of state.ts out of a Map too): 52 bytes and 0.45 s, 1.24x the operations a second.
 *
 * Here: values in an array in insertion order (a deleted one leaves a hole, cleared at once so it
 * holds nothing), the ids beside them, and each id's position in an IdIndex (typed arrays, nothing
 * for the collector to trace). Holes are squeezed out in place when an append finds at least half
 * the array holes, so nothing is ever copied into a new array that the old one would point to,
 * and the array stays within twice the most entries held.
 *
 * Deleting during iteration is safe (as with Map); adding during iteration is not.
 */
import { IdIndex } from './id-index';

export class IdMap<V> implements Iterable<[number, V]> {
  private readonly items: Array<V | undefined> = [];
  /** The id at each position, 0 for a hole. */
  private readonly ids: number[] = [];
  private readonly index = new IdIndex(8);
  /** Positions in use (entries and holes). */
  private end = 0;
  private holes = 0;

  static of<V>(entries: Iterable<readonly [number, V]>): IdMap<V> {
    const m = new IdMap<V>();
    for (const [id, v] of entries) m.set(id, v);
    return m;
  }

  get size(): number {
    return this.index.size;
  }

  get(id: number): V | undefined {
    const i = this.index.get(id);
    return i < 0 ? undefined : this.items[i];
  }

  has(id: number): boolean {
    return this.index.get(id) >= 0;
  }

  /** Sets the value of `id`: in place when present, else appended (last in iteration order). */
  set(id: number, v: V): this {
    if (!Number.isSafeInteger(id) || id <= 0) throw new RangeError(`IdMap: an id must be a positive safe integer, got ${id}`);
    const at = this.index.get(id);
    if (at >= 0) {
      this.items[at] = v;
      return this;
    }
    if (this.holes > 0 && this.holes * 2 >= this.end) this.squeeze();
    const i = this.end++;
    if (i === this.items.length) {
      this.items.push(v);
      this.ids.push(id);
    } else {
      this.items[i] = v;
      this.ids[i] = id;
    }
    this.index.insert(id, i);
    return this;
  }

  delete(id: number): boolean {
    const i = this.index.delete(id);
    if (i < 0) return false;
    this.items[i] = undefined;
    this.ids[i] = 0;
    if (i === this.end - 1) {
      // The last entry (an order that ends in the command that placed it): no hole left behind.
      this.end--;
      while (this.end > 0 && this.ids[this.end - 1] === 0) {
        this.end--;
        this.holes--;
      }
    } else {
      this.holes++;
    }
    return true;
  }

  clear(): void {
    for (let i = 0; i < this.end; i++) {
      if (this.ids[i] !== 0) this.index.delete(this.ids[i]);
      this.items[i] = undefined;
      this.ids[i] = 0;
    }
    this.end = 0;
    this.holes = 0;
  }

  *values(): IterableIterator<V> {
    for (let i = 0; i < this.end; i++) if (this.ids[i] !== 0) yield this.items[i] as V;
  }

  *keys(): IterableIterator<number> {
    for (let i = 0; i < this.end; i++) if (this.ids[i] !== 0) yield this.ids[i];
  }

  *entries(): IterableIterator<[number, V]> {
    for (let i = 0; i < this.end; i++) if (this.ids[i] !== 0) yield [this.ids[i], this.items[i] as V];
  }

  [Symbol.iterator](): IterableIterator<[number, V]> {
    return this.entries();
  }

  /** Moves the entries over the holes, in order, in the same arrays. */
  private squeeze(): void {
    let w = 0;
    for (let r = 0; r < this.end; r++) {
      const id = this.ids[r];
      if (id === 0) continue;
      if (w !== r) {
        this.items[w] = this.items[r];
        this.ids[w] = id;
        this.index.update(id, w);
      }
      w++;
    }
    for (let k = w; k < this.end; k++) {
      this.items[k] = undefined;
      this.ids[k] = 0;
    }
    this.end = w;
    this.holes = 0;
  }
}
