import fc from 'fast-check';
import { ASK, BID, OrderBook } from '../../../../src/exchange/engine/book/order-book';
import type { BookSide } from '../../../../src/exchange/engine/book/order-book';

type Add = [id: number, side: BookSide, price: number, qty: number];

function bookWith(orders: Add[], capacityHint?: number): OrderBook {
  const book = new OrderBook(capacityHint);
  for (const [id, side, price, qty] of orders) book.add(id, side, price, qty);
  book.assertInvariants();
  return book;
}

describe('OrderBook price-time priority', () => {
  test.each<[string, Add[], BookSide, number[]]>([
    ['bids: higher price first', [[1, BID, 99, 1], [2, BID, 101, 1], [3, BID, 100, 1]], BID, [2, 3, 1]],
    ['asks: lower price first', [[1, ASK, 105, 1], [2, ASK, 103, 1], [3, ASK, 104, 1]], ASK, [2, 3, 1]],
    ['same price: arrival order', [[5, BID, 100, 1], [3, BID, 100, 1], [9, BID, 100, 1]], BID, [5, 3, 9]],
    [
      'mixed levels and times',
      [[1, ASK, 10, 1], [2, ASK, 11, 1], [3, ASK, 10, 1], [4, ASK, 9, 1], [5, ASK, 11, 1]],
      ASK,
      [4, 1, 3, 2, 5],
    ],
    ['other side untouched', [[1, ASK, 10, 1], [2, BID, 9, 1]], BID, [2]],
  ])('%s', (_name, orders, side, expected) => {
    const book = bookWith(orders);
    expect(book.ids(side)).toEqual(expected);
    expect(book.peekBest(side)).toBe(expected[0]);
  });
});

describe('OrderBook levels', () => {
  const orders: Add[] = [
    [1, BID, 100, 2], [2, BID, 100, 3], [3, BID, 98, 5], [4, BID, 99, 1],
    [5, ASK, 101, 4], [6, ASK, 103, 2], [7, ASK, 101, 1],
  ];

  test.each<[BookSide, number, number]>([
    [BID, 1, 100], [BID, 2, 99], [BID, 3, 98], [BID, 4, 0], [BID, 0, 0],
    [ASK, 1, 101], [ASK, 2, 103], [ASK, 3, 0],
  ])('levelPrice(%i, %i) = %i', (side, n, price) => {
    expect(bookWith(orders).levelPrice(side, n)).toBe(price);
  });

  test.each<[BookSide, number, Array<[number, number]>]>([
    [BID, 10, [[100, 5], [99, 1], [98, 5]]],
    [BID, 2, [[100, 5], [99, 1]]],
    [ASK, 10, [[101, 5], [103, 2]]],
    [ASK, 0, []],
  ])('depth(%i, %i) aggregates per level, best first', (side, levels, expected) => {
    expect(bookWith(orders).depth(side, levels)).toEqual(expected);
  });

  test('counts, best prices, lookups', () => {
    const book = bookWith(orders);
    expect(book.size).toBe(7);
    expect(book.levelCount(BID)).toBe(3);
    expect(book.levelCount(ASK)).toBe(2);
    expect(book.bestPrice(BID)).toBe(100);
    expect(book.bestPrice(ASK)).toBe(101);
    expect([book.has(3), book.remainingOf(3), book.sideOf(3), book.priceOf(3)]).toEqual([true, 5, BID, 98]);
    expect([book.has(42), book.remainingOf(42), book.sideOf(42), book.priceOf(42)]).toEqual([false, 0, -1, 0]);
  });

  test('empty book', () => {
    const book = new OrderBook();
    expect([book.bestPrice(BID), book.bestPrice(ASK), book.peekBest(BID), book.peekBest(ASK)]).toEqual([0, 0, -1, -1]);
    expect([book.size, book.levelCount(BID), book.levelPrice(ASK, 1)]).toEqual([0, 0, 0]);
    expect(book.availableUpTo(ASK, 0, 10)).toBe(0);
    expect(book.depth(BID, 5)).toEqual([]);
    expect(() => book.fillHead(BID, 1)).toThrow(/empty/);
    book.assertInvariants();
  });
});

describe('OrderBook remove', () => {
  const level: Add[] = [[1, BID, 100, 1], [2, BID, 100, 2], [3, BID, 100, 3], [4, BID, 99, 4]];

  test.each<[string, number, number[], Array<[number, number]>]>([
    ['head', 1, [2, 3, 4], [[100, 5], [99, 4]]],
    ['middle', 2, [1, 3, 4], [[100, 4], [99, 4]]],
    ['tail', 3, [1, 2, 4], [[100, 3], [99, 4]]],
    ['only order of a level drops the level', 4, [1, 2, 3], [[100, 6]]],
  ])('remove %s', (_name, id, ids, depth) => {
    const book = bookWith(level);
    expect(book.remove(id)).toBe(true);
    expect(book.remove(id)).toBe(false);
    expect(book.ids(BID)).toEqual(ids);
    expect(book.depth(BID, 10)).toEqual(depth);
    expect(book.size).toBe(3);
    book.assertInvariants();
  });

  test('an id can be reused once removed', () => {
    const book = bookWith(level);
    book.remove(2);
    book.add(2, ASK, 105, 7);
    expect([book.sideOf(2), book.priceOf(2), book.remainingOf(2)]).toEqual([ASK, 105, 7]);
    book.assertInvariants();
  });

  test('removing every level empties the side', () => {
    const book = bookWith(level);
    for (const [id] of level) book.remove(id);
    expect([book.size, book.levelCount(BID), book.bestPrice(BID), book.peekBest(BID)]).toEqual([0, 0, 0, -1]);
    book.assertInvariants();
  });
});

describe('OrderBook reduce', () => {
  test('keeps queue position and updates the level total', () => {
    const book = bookWith([[1, ASK, 50, 10], [2, ASK, 50, 10], [3, ASK, 50, 10]]);
    book.reduce(1, 4);
    book.reduce(2, 1);
    expect(book.ids(ASK)).toEqual([1, 2, 3]);
    expect(book.depth(ASK, 1)).toEqual([[50, 15]]);
    expect(book.remainingOf(1)).toBe(4);
    book.assertInvariants();
  });

  test.each<[string, number, number]>([
    ['to zero', 1, 0],
    ['to the same quantity', 1, 10],
    ['upward', 1, 11],
    ['to a fraction', 1, 2.5],
    ['an absent order', 9, 1],
  ])('refuses to reduce %s', (_name, id, qty) => {
    const book = bookWith([[1, ASK, 50, 10]]);
    expect(() => book.reduce(id, qty)).toThrow();
    expect(book.remainingOf(1)).toBe(10);
    book.assertInvariants();
  });
});

describe('OrderBook fillHead', () => {
  test('partial fill leaves the head in place', () => {
    const book = bookWith([[1, ASK, 10, 5], [2, ASK, 10, 5], [3, ASK, 11, 1]]);
    book.fillHead(ASK, 3);
    expect(book.peekBest(ASK)).toBe(1);
    expect(book.remainingOf(1)).toBe(2);
    expect(book.depth(ASK, 2)).toEqual([[10, 7], [11, 1]]);
    book.assertInvariants();
  });

  test('full fill removes the head, then the emptied level', () => {
    const book = bookWith([[1, BID, 10, 5], [2, BID, 10, 2], [3, BID, 9, 1]]);
    book.fillHead(BID, 5);
    expect([book.has(1), book.peekBest(BID), book.size]).toEqual([false, 2, 2]);
    book.fillHead(BID, 2);
    expect([book.bestPrice(BID), book.peekBest(BID), book.levelCount(BID)]).toEqual([9, 3, 1]);
    book.assertInvariants();
  });

  test.each<[string, number]>([['zero', 0], ['more than remaining', 6], ['a fraction', 1.5], ['negative', -1]])(
    'refuses to fill %s',
    (_name, qty) => {
      const book = bookWith([[1, BID, 10, 5]]);
      expect(() => book.fillHead(BID, qty)).toThrow();
      expect(book.remainingOf(1)).toBe(5);
    },
  );
});

describe('OrderBook availableUpTo', () => {
  const orders: Add[] = [
    [1, ASK, 101, 2], [2, ASK, 101, 3], [3, ASK, 102, 4], [4, ASK, 104, 10],
    [5, BID, 100, 1], [6, BID, 99, 6], [7, BID, 97, 2],
  ];
  test.each<[string, BookSide, number, number, number]>([
    ['asks, no limit, need everything', ASK, 0, 1000, 19],
    ['asks, no limit, stops once enough', ASK, 0, 4, 5],
    ['asks, limit at the best level', ASK, 101, 1000, 5],
    ['asks, limit between levels', ASK, 103, 1000, 9],
    ['asks, limit below the best', ASK, 100, 1000, 0],
    ['bids, no limit', BID, 0, 1000, 9],
    ['bids, limit 99', BID, 99, 1000, 7],
    ['bids, limit above the best', BID, 101, 1000, 0],
    ['bids, stops once enough', BID, 97, 2, 7],
  ])('%s', (_name, side, limit, atLeast, expected) => {
    expect(bookWith(orders).availableUpTo(side, limit, atLeast)).toBe(expected);
  });
});

describe('OrderBook add validation', () => {
  test.each<[string, Add]>([
    ['duplicate id', [1, ASK, 10, 1]],
    ['zero id', [0, ASK, 10, 1]],
    ['fractional price', [2, ASK, 10.5, 1]],
    ['zero price', [2, ASK, 0, 1]],
    ['negative quantity', [2, ASK, 10, -1]],
    ['unsafe quantity', [2, ASK, 10, 2 ** 53]],
    ['NaN price', [2, ASK, NaN, 1]],
    ['bad side', [2, 2 as BookSide, 10, 1]],
  ])('refuses %s and leaves the book unchanged', (_name, [id, side, price, qty]) => {
    const book = bookWith([[1, BID, 9, 1]]);
    expect(() => book.add(id, side, price, qty)).toThrow();
    expect([book.size, book.ids(BID), book.levelCount(ASK)]).toEqual([1, [1], 0]);
    book.assertInvariants();
  });

  test('large ids and pool growth', () => {
    const book = new OrderBook(4);
    const ids: number[] = [];
    for (let i = 0; i < 500; i++) {
      const id = Number.MAX_SAFE_INTEGER - i * 7919;
      ids.push(id);
      book.add(id, i % 2 === 0 ? BID : ASK, i % 2 === 0 ? 1000 - (i % 97) : 1001 + (i % 89), 1 + (i % 5));
    }
    book.assertInvariants();
    for (let i = 0; i < ids.length; i += 2) expect(book.remove(ids[i])).toBe(true);
    book.assertInvariants();
    expect(book.size).toBe(250);
  });
});

/**
 * Reference model: a plain list of orders with arrival sequence numbers; every query sorts it.
 * Slow and obviously right, which is the point.
 */
interface RefOrder {
  id: number;
  side: BookSide;
  price: number;
  qty: number;
  seq: number;
}

class RefBook {
  orders: RefOrder[] = [];
  private seq = 0;

  find(id: number): RefOrder | undefined {
    return this.orders.find((o) => o.id === id);
  }
  queue(side: BookSide): RefOrder[] {
    return this.orders
      .filter((o) => o.side === side)
      .sort((a, b) => (a.price !== b.price ? (side === BID ? b.price - a.price : a.price - b.price) : a.seq - b.seq));
  }
  levels(side: BookSide): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (const o of this.queue(side)) {
      const last = out[out.length - 1];
      if (last !== undefined && last[0] === o.price) last[1] += o.qty;
      else out.push([o.price, o.qty]);
    }
    return out;
  }
  add(id: number, side: BookSide, price: number, qty: number): boolean {
    if (this.find(id)) return false;
    this.orders.push({ id, side, price, qty, seq: this.seq++ });
    return true;
  }
  remove(id: number): boolean {
    const n = this.orders.length;
    this.orders = this.orders.filter((o) => o.id !== id);
    return this.orders.length !== n;
  }
  available(side: BookSide, limit: number, atLeast: number): number {
    let total = 0;
    for (const [price, qty] of this.levels(side)) {
      if (limit !== 0 && (side === ASK ? price > limit : price < limit)) break;
      total += qty;
      if (total >= atLeast) break;
    }
    return total;
  }
}

const ID_POOL = 24;

type Op =
  | { kind: 'add'; id: number; side: BookSide; price: number; qty: number }
  | { kind: 'remove'; id: number }
  | { kind: 'reduce'; id: number; frac: number }
  | { kind: 'fill'; side: BookSide; frac: number; overfill: boolean };

const sideArb = fc.constantFrom<BookSide>(BID, ASK);
const idArb = fc.integer({ min: 1, max: ID_POOL });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), id: idArb, side: sideArb, price: fc.integer({ min: 1, max: 12 }), qty: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: idArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reduce' as const), id: idArb, frac: fc.double({ min: 0, max: 1.2, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fill' as const), side: sideArb, frac: fc.double({ min: 0, max: 1, noNaN: true }), overfill: fc.boolean() }) },
);

function apply(book: OrderBook, ref: RefBook, op: Op): void {
  switch (op.kind) {
    case 'add': {
      if (ref.add(op.id, op.side, op.price, op.qty)) book.add(op.id, op.side, op.price, op.qty);
      else expect(() => book.add(op.id, op.side, op.price, op.qty)).toThrow(/already resting/);
      return;
    }
    case 'remove':
      expect(book.remove(op.id)).toBe(ref.remove(op.id));
      return;
    case 'reduce': {
      const o = ref.find(op.id);
      const newQty = Math.floor(op.frac * ((o?.qty ?? 3) + 1));
      if (o !== undefined && newQty > 0 && newQty < o.qty) {
        book.reduce(op.id, newQty);
        o.qty = newQty;
      } else {
        expect(() => book.reduce(op.id, newQty)).toThrow();
      }
      return;
    }
    case 'fill': {
      const head = ref.queue(op.side)[0];
      if (head === undefined) {
        expect(() => book.fillHead(op.side, 1)).toThrow();
        return;
      }
      if (op.overfill) {
        expect(() => book.fillHead(op.side, head.qty + 1)).toThrow();
        return;
      }
      const qty = Math.min(head.qty, 1 + Math.floor(op.frac * head.qty));
      book.fillHead(op.side, qty);
      head.qty -= qty;
      if (head.qty === 0) ref.remove(head.id);
      return;
    }
  }
}

/**
 * Everything observable of the book, and what the reference model says it should be, in the same
 * shape: compared as JSON texts at every step, with jest's diff only when they differ (forty
 * `expect`s per step took most of the suite's time).
 */
function bookView(book: OrderBook): unknown {
  const sides = ([BID, ASK] as const).map((side) => {
    const levels = book.depth(side, 100);
    return {
      ids: book.ids(side),
      peekBest: book.peekBest(side),
      levelCount: book.levelCount(side),
      bestPrice: book.bestPrice(side),
      levelPrices: Array.from({ length: book.levelCount(side) + 1 }, (_, k) => book.levelPrice(side, k + 1)),
      depth: levels,
      depth2: book.depth(side, 2),
      available: [0, 4, 9].flatMap((limit) => [1, 6, 1000].map((atLeast) => book.availableUpTo(side, limit, atLeast))),
    };
  });
  const orders = Array.from({ length: ID_POOL }, (_, k) => [book.has(k + 1), book.remainingOf(k + 1), book.sideOf(k + 1), book.priceOf(k + 1)]);
  return { size: book.size, sides, orders };
}

function refView(ref: RefBook): unknown {
  const sides = ([BID, ASK] as const).map((side) => {
    const queue = ref.queue(side);
    const levels = ref.levels(side);
    return {
      ids: queue.map((o) => o.id),
      peekBest: queue[0]?.id ?? -1,
      levelCount: levels.length,
      bestPrice: levels[0]?.[0] ?? 0,
      levelPrices: Array.from({ length: levels.length + 1 }, (_, k) => levels[k]?.[0] ?? 0),
      depth: levels,
      depth2: levels.slice(0, 2),
      available: [0, 4, 9].flatMap((limit) => [1, 6, 1000].map((atLeast) => ref.available(side, limit, atLeast))),
    };
  });
  const orders = Array.from({ length: ID_POOL }, (_, k) => {
    const o = ref.find(k + 1);
    return o === undefined ? [false, 0, -1, 0] : [true, o.qty, o.side, o.price];
  });
  return { size: ref.orders.length, sides, orders };
}

function expectSameState(book: OrderBook, ref: RefBook): void {
  book.assertInvariants();
  const got = bookView(book);
  const want = refView(ref);
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
}

describe('OrderBook against a reference model', () => {
  test('random add/remove/reduce/fillHead sequences keep identical observable state', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 80 }), (ops) => {
        // A tiny capacity hint makes the pools and index grow mid-sequence.
        const book = new OrderBook(4);
        const ref = new RefBook();
        for (const op of ops) {
          apply(book, ref, op);
          expectSameState(book, ref);
        }
      }),
      { numRuns: 250 },
    );
  });
});

describe('OrderBook version', () => {
  it('changes with every change of the resting orders, to a number no book had, and not with reads', () => {
    const a = new OrderBook();
    const b = new OrderBook();
    const seen = new Set([a.version, b.version]);
    expect(seen.size).toBe(2);
    const changed = (f: () => unknown): void => {
      const before = a.version;
      f();
      expect(a.version).not.toBe(before);
      expect(seen.has(a.version)).toBe(false);
      seen.add(a.version);
    };
    changed(() => a.add(1, BID, 100, 5));
    changed(() => a.add(2, BID, 100, 5));
    changed(() => a.add(3, ASK, 101, 5));
    changed(() => a.reduce(1, 3));
    changed(() => a.fillHead(BID, 2));
    changed(() => a.fillHead(BID, 1));
    changed(() => a.remove(3));
    const v = a.version;
    a.bestPrice(BID);
    a.idsThrough(BID, 0);
    a.remainingOf(2);
    expect(a.remove(99)).toBe(false);
    expect(a.version).toBe(v);
  });
});
