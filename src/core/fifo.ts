/**
 * A first-in first-out queue with O(1) push and shift. `Array.prototype.shift` moves every
 * remaining element, so a queue that holds thousands of items and is drained one at a time (a
 * sliding window of timestamps, an event queue in a burst) costs O(n) per shift. This one keeps a
 * head index into its backing array and compacts the array only when the consumed prefix is at
 * least half of it, so each item is moved at most once on average.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, or undefined when empty. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** Removes and returns the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined as T; // let the garbage collector have it
    this.head++;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
