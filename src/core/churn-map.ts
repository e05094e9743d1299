/**
 * A Map for long-lived maps whose entries come and go (keys other than ids: an account's open
 * orders by the client ids users gave them), made afresh once it has seen as many deletes as
 * twice its entries (and 64). V8 replaces a Map's table as deletes fill it and links the replaced
 * table to its successor; once one of them is in the old generation every later one, and what it
 * holds, survives the young collections until the next full one (core/id-map.ts says more). A new
 * Map's tables are linked from nothing, so that ends there. Copying the entries then costs about
 * one set per delete, spread over the deletes.
 *
 * Iteration is in insertion order, as a Map's (a copy keeps the order).
 */
export class ChurnMap<K, V> implements Iterable<[K, V]> {
  private map: Map<K, V>;
  private deletes = 0;

  constructor(entries?: Iterable<readonly [K, V]>) {
    this.map = new Map(entries);
  }

  get size(): number {
    return this.map.size;
  }

  get(k: K): V | undefined {
    return this.map.get(k);
  }

  has(k: K): boolean {
    return this.map.has(k);
  }

  set(k: K, v: V): this {
    this.map.set(k, v);
    return this;
  }

  delete(k: K): boolean {
    if (!this.map.delete(k)) return false;
    if (++this.deletes > 2 * this.map.size + 64) {
      this.map = new Map(this.map);
      this.deletes = 0;
    }
    return true;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}
