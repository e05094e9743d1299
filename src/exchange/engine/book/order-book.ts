import { IdIndex } from '../../../core/id-index';

/**
 * Integer limit order book for one symbol with price-time priority. Prices are ticks, quantities
 * are steps, ids are positive safe integers assigned by the engine. The book keeps queues only:
 * accounting, fees and events belong to the engine that drives matching through `peekBest` and
 * `fillHead`.
 *
 * Layout (chosen for the hot path, see bench/suites/engine.ts):
 * - Orders and price levels live in struct-of-arrays pools (typed arrays indexed by slot) with
 *   free lists, so add/remove/fill allocate nothing once the pools have grown to the book's size,
 *   and the garbage collector never sees individual orders.
 * - Each level holds an intrusive doubly linked FIFO of order slots, so removing from the middle
 *   of a queue and reducing in place are O(1) and keep time priority.
 * - Each side keeps its levels in an array sorted by a key that increases toward the best price
 *   (price for bids, -price for asks), so the best level is the last element: the levels that
 *   come and go most (near the touch) are inserted and deleted at the end of the array, where the
 *   shift is shortest, and emptying the best level during a sweep is a plain decrement.
 * - An open-addressing id index (IdIndex) maps an order id to its slot.
 * Nothing iterates in hash order, so every observable result depends only on the operations.
 */
export const BID = 0;
export const ASK = 1;
export type BookSide = 0 | 1;

const NONE = -1;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isPositiveSafeInteger(n: number): boolean {
  return n > 0 && n <= MAX_SAFE && Math.floor(n) === n;
}

function sideName(side: number): string {
  return side === BID ? 'bid' : 'ask';
}

/** Changes of all books so far (OrderBook.version). */
let changes = 0;

export class OrderBook {
  // Order pool. A free slot's oNext links the free list.
  private oId: Float64Array;
  private oQty: Float64Array;
  private oPrev: Int32Array;
  private oNext: Int32Array;
  private oLevel: Int32Array;
  private oFree = NONE;
  private oHigh = 0;

  // Level pool. A free slot's lHead links the free list.
  private lPrice: Float64Array;
  private lTotal: Float64Array;
  private lHead: Int32Array;
  private lTail: Int32Array;
  private lSide: Uint8Array;
  private lFree = NONE;
  private lHigh = 0;

  // Per side: sorted keys (best last) and the level slot at each position.
  private readonly keys: Float64Array[];
  private readonly levels: Int32Array[];
  private readonly lens: Int32Array;

  private readonly index: IdIndex;
  private count = 0;
  /**
   * Changes with every change of the resting orders (added, removed, reduced, filled), to a number
   * no book had before (one counter for all books): lets a reader cache what it read.
   */
  version = ++changes;

  /** `capacityHint` presizes the pools; they double when it is exceeded. */
  constructor(capacityHint = 1024) {
    const cap = Math.max(4, Math.floor(capacityHint));
    this.oId = new Float64Array(cap);
    this.oQty = new Float64Array(cap);
    this.oPrev = new Int32Array(cap);
    this.oNext = new Int32Array(cap);
    this.oLevel = new Int32Array(cap);
    const lcap = Math.max(4, Math.min(cap, 256));
    this.lPrice = new Float64Array(lcap);
    this.lTotal = new Float64Array(lcap);
    this.lHead = new Int32Array(lcap);
    this.lTail = new Int32Array(lcap);
    this.lSide = new Uint8Array(lcap);
    this.keys = [new Float64Array(lcap), new Float64Array(lcap)];
    this.levels = [new Int32Array(lcap), new Int32Array(lcap)];
    this.lens = new Int32Array(2);
    this.index = new IdIndex(cap);
  }

  get size(): number {
    return this.count;
  }

  levelCount(side: BookSide): number {
    return this.lens[side];
  }

  add(id: number, side: BookSide, price: number, qty: number): void {
    if (!isPositiveSafeInteger(id)) throw new RangeError(`order id must be a positive safe integer, got ${id}`);
    if (side !== BID && side !== ASK) throw new RangeError(`side must be BID (0) or ASK (1), got ${String(side)}`);
    if (!isPositiveSafeInteger(price)) throw new RangeError(`price must be a positive safe integer of ticks, got ${price}`);
    if (!isPositiveSafeInteger(qty)) throw new RangeError(`quantity must be a positive safe integer of steps, got ${qty}`);
    const slot = this.allocOrder();
    if (!this.index.insert(id, slot)) {
      this.freeOrder(slot);
      throw new Error(`order id ${id} is already resting in the book`);
    }
    const lvl = this.levelFor(side, price);
    if (this.lTotal[lvl] + qty > MAX_SAFE) {
      this.index.delete(id);
      this.freeOrder(slot);
      if (this.lHead[lvl] === NONE) this.dropLevel(lvl);
      throw new RangeError(`level ${price} total would exceed the safe-integer range`);
    }
    const tail = this.lTail[lvl];
    this.oId[slot] = id;
    this.oQty[slot] = qty;
    this.oLevel[slot] = lvl;
    this.oNext[slot] = NONE;
    this.oPrev[slot] = tail;
    if (tail === NONE) this.lHead[lvl] = slot;
    else this.oNext[tail] = slot;
    this.lTail[lvl] = slot;
    this.lTotal[lvl] += qty;
    this.count++;
    this.version = ++changes;
  }

  remove(id: number): boolean {
    const slot = this.index.delete(id);
    if (slot === NONE) return false;
    this.unlink(slot);
    this.version = ++changes;
    return true;
  }

  has(id: number): boolean {
    return this.index.get(id) !== NONE;
  }

  remainingOf(id: number): number {
    const slot = this.index.get(id);
    return slot === NONE ? 0 : this.oQty[slot];
  }

  sideOf(id: number): BookSide | -1 {
    const slot = this.index.get(id);
    return slot === NONE ? -1 : (this.lSide[this.oLevel[slot]] as BookSide);
  }

  priceOf(id: number): number {
    const slot = this.index.get(id);
    return slot === NONE ? 0 : this.lPrice[this.oLevel[slot]];
  }

  reduce(id: number, newQty: number): void {
    const slot = this.index.get(id);
    if (slot === NONE) throw new Error(`cannot reduce order ${id}: it is not resting in the book`);
    const cur = this.oQty[slot];
    if (!(newQty > 0 && newQty < cur && Math.floor(newQty) === newQty)) {
      throw new RangeError(`cannot reduce order ${id} to ${newQty}: expected an integer above 0 and below ${cur}`);
    }
    this.lTotal[this.oLevel[slot]] -= cur - newQty;
    this.oQty[slot] = newQty;
    this.version = ++changes;
  }

  bestPrice(side: BookSide): number {
    const len = this.lens[side];
    return len === 0 ? 0 : this.lPrice[this.levels[side][len - 1]];
  }

  levelPrice(side: BookSide, n: number): number {
    const len = this.lens[side];
    if (!(n >= 1 && n <= len)) return 0;
    return this.lPrice[this.levels[side][len - Math.floor(n)]];
  }

  peekBest(side: BookSide): number {
    const len = this.lens[side];
    return len === 0 ? NONE : this.oId[this.lHead[this.levels[side][len - 1]]];
  }

  fillHead(side: BookSide, qty: number): void {
    const len = this.lens[side];
    if (len === 0) throw new Error(`cannot fill the head of the ${sideName(side)} side: it is empty`);
    const lvl = this.levels[side][len - 1];
    const slot = this.lHead[lvl];
    const rem = this.oQty[slot];
    if (!(qty > 0 && qty <= rem && Math.floor(qty) === qty)) {
      throw new RangeError(`cannot fill ${qty} off order ${this.oId[slot]}: expected an integer above 0 and at most ${rem}`);
    }
    if (qty === rem) {
      this.index.delete(this.oId[slot]);
      this.unlink(slot);
    } else {
      this.oQty[slot] = rem - qty;
      this.lTotal[lvl] -= qty;
    }
    this.version = ++changes;
  }

  availableUpTo(side: BookSide, limitPrice: number, atLeast: number): number {
    const levels = this.levels[side];
    const lPrice = this.lPrice;
    const lTotal = this.lTotal;
    let total = 0;
    for (let i = this.lens[side] - 1; i >= 0; i--) {
      const lvl = levels[i];
      if (limitPrice !== 0) {
        const p = lPrice[lvl];
        if (side === ASK ? p > limitPrice : p < limitPrice) break;
      }
      total += lTotal[lvl];
      if (total >= atLeast) break;
    }
    return total;
  }

  depth(side: BookSide, levels: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const slots = this.levels[side];
    const len = this.lens[side];
    for (let i = len - 1; i >= 0 && out.length < levels; i--) {
      out.push([this.lPrice[slots[i]], this.lTotal[slots[i]]]);
    }
    return out;
  }

  /** Ids of the orders resting at exactly `price` on `side`, in time priority ([] when no such level). */
  idsAt(side: BookSide, price: number): number[] {
    const key = side === BID ? price : -price;
    const len = this.lens[side];
    const pos = lowerBound(this.keys[side], len, key);
    if (pos >= len || this.keys[side][pos] !== key) return [];
    const out: number[] = [];
    for (let s = this.lHead[this.levels[side][pos]]; s !== NONE; s = this.oNext[s]) out.push(this.oId[s]);
    return out;
  }

  /**
   * Ids of the orders on `side` priced at `limitPrice` or better (bids at or above it, asks at or
   * below it), best level first and in time priority within a level.
   */
  idsThrough(side: BookSide, limitPrice: number): number[] {
    const out: number[] = [];
    const slots = this.levels[side];
    for (let i = this.lens[side] - 1; i >= 0; i--) {
      const p = this.lPrice[slots[i]];
      if (side === BID ? p < limitPrice : p > limitPrice) break;
      for (let s = this.lHead[slots[i]]; s !== NONE; s = this.oNext[s]) out.push(this.oId[s]);
    }
    return out;
  }

  ids(side: BookSide): number[] {
    const out: number[] = [];
    const slots = this.levels[side];
    for (let i = this.lens[side] - 1; i >= 0; i--) {
      for (let s = this.lHead[slots[i]]; s !== NONE; s = this.oNext[s]) out.push(this.oId[s]);
    }
    return out;
  }

  assertInvariants(): void {
    let seen = 0;
    for (const side of [BID, ASK] as const) {
      const keys = this.keys[side];
      const slots = this.levels[side];
      const len = this.lens[side];
      for (let i = 0; i < len; i++) {
        const lvl = slots[i];
        const price = this.lPrice[lvl];
        const where = `${sideName(side)} level ${price} (position ${i})`;
        if (this.lSide[lvl] !== side) throw new Error(`${where} records side ${this.lSide[lvl]}`);
        if (!isPositiveSafeInteger(price)) throw new Error(`${where} has a price that is not a positive safe integer`);
        if (keys[i] !== (side === BID ? price : -price)) throw new Error(`${where} has sort key ${keys[i]}`);
        if (i > 0 && !(keys[i - 1] < keys[i])) throw new Error(`${where} is not strictly better than the level below it`);
        if (this.lHead[lvl] === NONE) throw new Error(`${where} is empty but still listed`);
        let sum = 0;
        let prev = NONE;
        for (let s = this.lHead[lvl]; s !== NONE; s = this.oNext[s]) {
          const id = this.oId[s];
          if (this.oPrev[s] !== prev) throw new Error(`${where}: order ${id} has a broken back link`);
          if (this.oLevel[s] !== lvl) throw new Error(`${where}: order ${id} points at another level`);
          if (!isPositiveSafeInteger(this.oQty[s])) throw new Error(`${where}: order ${id} has quantity ${this.oQty[s]}`);
          if (this.index.get(id) !== s) throw new Error(`${where}: order ${id} is not indexed at its slot`);
          sum += this.oQty[s];
          prev = s;
          if (++seen > this.count) throw new Error(`more orders linked than the ${this.count} counted (cycle?)`);
        }
        if (this.lTail[lvl] !== prev) throw new Error(`${where} has a stale tail`);
        if (sum !== this.lTotal[lvl]) throw new Error(`${where} total ${this.lTotal[lvl]} but its orders sum to ${sum}`);
      }
    }
    if (seen !== this.count) throw new Error(`${seen} orders linked but ${this.count} counted`);
    if (this.index.size !== this.count) throw new Error(`index holds ${this.index.size} ids but ${this.count} orders counted`);
  }

  /** Detaches a slot (already removed from the index) from its level, dropping an emptied level. */
  private unlink(slot: number): void {
    const lvl = this.oLevel[slot];
    const prev = this.oPrev[slot];
    const next = this.oNext[slot];
    if (prev === NONE) this.lHead[lvl] = next;
    else this.oNext[prev] = next;
    if (next === NONE) this.lTail[lvl] = prev;
    else this.oPrev[next] = prev;
    this.lTotal[lvl] -= this.oQty[slot];
    this.freeOrder(slot);
    this.count--;
    if (this.lHead[lvl] === NONE) this.dropLevel(lvl);
  }

  /** Slot of the level at `price` on `side`, creating an empty one in sorted position if needed. */
  private levelFor(side: BookSide, price: number): number {
    const key = side === BID ? price : -price;
    const keys = this.keys[side];
    const len = this.lens[side];
    const pos = lowerBound(keys, len, key);
    if (pos < len && keys[pos] === key) return this.levels[side][pos];
    if (len === keys.length) this.growSide(side);
    const k = this.keys[side];
    const slots = this.levels[side];
    k.copyWithin(pos + 1, pos, len);
    slots.copyWithin(pos + 1, pos, len);
    const lvl = this.allocLevel();
    k[pos] = key;
    slots[pos] = lvl;
    this.lens[side] = len + 1;
    this.lPrice[lvl] = price;
    this.lTotal[lvl] = 0;
    this.lHead[lvl] = NONE;
    this.lTail[lvl] = NONE;
    this.lSide[lvl] = side;
    return lvl;
  }

  private dropLevel(lvl: number): void {
    const side = this.lSide[lvl];
    const len = this.lens[side];
    const slots = this.levels[side];
    // Sweeps empty the best level, which is last: no search and no shift.
    if (slots[len - 1] !== lvl) {
      const price = this.lPrice[lvl];
      const keys = this.keys[side];
      const pos = lowerBound(keys, len, side === BID ? price : -price);
      keys.copyWithin(pos, pos + 1, len);
      slots.copyWithin(pos, pos + 1, len);
    }
    this.lens[side] = len - 1;
    this.lHead[lvl] = this.lFree;
    this.lFree = lvl;
  }

  private allocOrder(): number {
    const free = this.oFree;
    if (free !== NONE) {
      this.oFree = this.oNext[free];
      return free;
    }
    if (this.oHigh === this.oId.length) this.growOrders();
    return this.oHigh++;
  }

  private freeOrder(slot: number): void {
    this.oNext[slot] = this.oFree;
    this.oFree = slot;
  }

  private allocLevel(): number {
    const free = this.lFree;
    if (free !== NONE) {
      this.lFree = this.lHead[free];
      return free;
    }
    if (this.lHigh === this.lPrice.length) this.growLevels();
    return this.lHigh++;
  }

  private growOrders(): void {
    const cap = this.oId.length * 2;
    this.oId = growF64(this.oId, cap);
    this.oQty = growF64(this.oQty, cap);
    this.oPrev = growI32(this.oPrev, cap);
    this.oNext = growI32(this.oNext, cap);
    this.oLevel = growI32(this.oLevel, cap);
  }

  private growLevels(): void {
    const cap = this.lPrice.length * 2;
    this.lPrice = growF64(this.lPrice, cap);
    this.lTotal = growF64(this.lTotal, cap);
    this.lHead = growI32(this.lHead, cap);
    this.lTail = growI32(this.lTail, cap);
    const side = new Uint8Array(cap);
    side.set(this.lSide);
    this.lSide = side;
  }

  private growSide(side: BookSide): void {
    const cap = this.keys[side].length * 2;
    this.keys[side] = growF64(this.keys[side], cap);
    this.levels[side] = growI32(this.levels[side], cap);
  }
}

/** First position in keys[0..len) whose key is >= `key`. */
function lowerBound(keys: Float64Array, len: number, key: number): number {
  // Most traffic lands at or next to the touch, which is the end of the array: check it first.
  if (len === 0 || keys[len - 1] < key) return len;
  let lo = 0;
  let hi = len - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function growF64(a: Float64Array, cap: number): Float64Array {
  const b = new Float64Array(cap);
  b.set(a);
  return b;
}

function growI32(a: Int32Array, cap: number): Int32Array {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}
