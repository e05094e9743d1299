import fc from 'fast-check';
import { ManualClock } from '../../../src/core/clock';
import { ORDER_STATUSES, ORDER_TYPES, POSITION_SIDES, SIDES, TIME_IN_FORCE, PRICE_TYPES } from '../../../src/core/enums';
import { EX_ZERO } from '../../../src/core/exact';
import { Engine } from '../../../src/exchange/engine/engine';
import type { EngineOrder } from '../../../src/exchange/engine/model';
import { OrderStore } from '../../../src/exchange/engine/order-store';
import { DEFAULT_SYMBOLS, SymbolSpec } from '../../../src/exchange/engine/symbols';

const SPECS = DEFAULT_SYMBOLS.map((c) => new SymbolSpec(c));
const RATE = { m: 123n, e: -9 };

/** Any order the engine could hold, as it is when it ends (nothing frozen). */
const finalOrder = (id: number): fc.Arbitrary<EngineOrder> =>
  fc
    .tuple(anyFinalOrder(id), fc.oneof(fc.constant(undefined), fc.integer({ min: -(2 ** 31), max: 2 ** 31 })))
    // Most orders end soon after they were made (kept as a 32-bit difference), some far from it or before it (kept apart).
    .map(([o, later]) => (later === undefined ? o : { ...o, updateTime: o.createdAt + later }));

const anyFinalOrder = (id: number): fc.Arbitrary<EngineOrder> =>
  fc.record({
    id: fc.constant(id),
    userId: fc.constantFrom('u1', 'u2', 'insurance'),
    symbol: fc.constantFrom(...SPECS),
    side: fc.constantFrom(...SIDES),
    positionSide: fc.constantFrom(...POSITION_SIDES),
    type: fc.constantFrom(...ORDER_TYPES),
    timeInForce: fc.constantFrom(...TIME_IN_FORCE),
    price: fc.integer({ min: 0, max: 2 ** 40 }),
    qty: fc.integer({ min: 1, max: 2 ** 40 }),
    executed: fc.integer({ min: 0, max: 2 ** 40 }),
    // Beyond 64 bits too: the columns never wrap.
    cumQuote: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 2n ** 63n - 5n, max: 2n ** 70n })),
    status: fc.constantFrom(...ORDER_STATUSES),
    reduceOnly: fc.boolean(),
    makerOnly: fc.boolean(),
    closePosition: fc.boolean(),
    priceType: fc.constantFrom(...PRICE_TYPES),
    placeType: fc.constantFrom('', 'LIQUIDATION', 'API'),
    clientOrderId: fc.constantFrom(`auto-${id}`, `auto-0${id}`, `auto-${id}x`, `liq-${id}`, 'mine-1', 'auto-1', ''),
    createdAt: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
    updateTime: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
    conditionId: fc.integer({ min: 0, max: 2 ** 40 }),
    strategyId: fc.integer({ min: 0, max: 2 ** 40 }),
    // Equal values as other objects (a snapshot's rates are an object per order), and the same
    // value written otherwise: each reads back with its own digits.
    frozenPerStep: fc.constantFrom(EX_ZERO, RATE, { m: 123n, e: -9 }, { m: 1230n, e: -10 }, { m: 0n, e: 0 }),
    frozen: fc.constant(0n),
  });

describe('OrderStore: open orders as objects, final ones in columns', () => {
  test('a retired order reads back equal, fields in the same order; open and final orders iterate together in id order', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 3000 }), fc.nat(), (retire, first, seed) => {
        const ids = retire.map((_, i) => first + 7 * i);
        const orders = ids.map((id, i) => fc.sample(finalOrder(id), { seed: seed + i, numRuns: 1 })[0]);
        const store = new OrderStore();
        for (const o of orders) store.set(o.id, o);
        orders.forEach((o, i) => {
          if (retire[i]) store.retire(o);
        });
        expect(store.size).toBe(orders.length);
        orders.forEach((o, i) => {
          const back = store.get(o.id) as EngineOrder;
          // The open ones are the objects themselves; the final ones equal copies.
          if (retire[i]) expect(back).not.toBe(o);
          else expect(back).toBe(o);
          expect(back).toEqual(o);
          expect(Object.keys(back)).toEqual(Object.keys(o));
          expect(store.has(o.id)).toBe(true);
        });
        // Read as they come: an ended order is handed out in one reused object.
        expect(Array.from(store.values(), (o) => o.id)).toEqual(ids);
        expect(Array.from(store.values(), (o) => ({ ...o }))).toEqual(orders);
        expect(store.get(first + 1)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  test('rows in 32 bits: an order whose price or quantities 32 bits cannot hold turns only its chunk into doubles; every row before and after it reads back equal', () => {
    const store = new OrderStore();
    // 600 orders: three chunks of 256 rows. Past 32 bits: a price in the first, an executed quantity in the third.
    // A few sampled orders (a sample per order took seconds), each copy with its own id and figures.
    const samples = fc.sample(anyFinalOrder(1), { seed: 42, numRuns: 16 });
    const orders = Array.from({ length: 600 }, (_, i) => {
      const o = samples[i % samples.length];
      return {
        ...o,
        id: i + 1,
        clientOrderId: i % 3 === 0 ? `mine-${i}` : `auto-${i + 1}`,
        price: i === 100 ? 2 ** 31 : i === 101 ? 2 ** 40 + 3 : (i * 7919) % 2 ** 20,
        qty: i === 102 ? 2 ** 31 - 1 : 1 + ((i * 104729) % 2 ** 20),
        executed: i === 550 ? 2 ** 45 : i % 1000,
        createdAt: o.createdAt + i,
        updateTime: o.createdAt + i + (i % 5_000),
      };
    });
    for (const o of orders) store.set(o.id, o);
    for (const o of orders) store.retire(o);
    // The symbol by name (its spec object is the same one, and large to print).
    const text = (o: EngineOrder | undefined): string => JSON.stringify(o, (k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : k === 'symbol' ? (v as { name: string }).name : v));
    const wrong = orders.filter((o) => text(store.get(o.id)) !== text(o));
    expect(wrong.map((o) => o.id)).toEqual([]);
  });

  test('an order holding frozen margin is refused; retiring twice or a copy changes nothing', () => {
    const store = new OrderStore();
    const o = fc.sample(finalOrder(5), { seed: 1, numRuns: 1 })[0];
    store.set(5, { ...o, frozen: 10n });
    expect(() => store.retire(store.get(5) as EngineOrder)).toThrow('order 5 still holds frozen margin and cannot be retired');
    store.set(5, o);
    store.retire(o);
    store.retire(o);
    store.retire(store.get(5) as EngineOrder);
    expect(store.size).toBe(1);
    expect(store.get(5)).toEqual(o);
    // A value no column can hold (a damaged snapshot's): the order stays the object it is.
    const odd = { ...fc.sample(finalOrder(9), { seed: 2, numRuns: 1 })[0], side: 'SIDEWAYS' } as unknown as EngineOrder;
    store.set(9, odd);
    store.retire(odd);
    expect(store.get(9)).toBe(odd);
    store.clear();
    expect(store.size).toBe(0);
    expect(store.get(5)).toBeUndefined();
  });
});

describe('the engine keeps final orders in columns', () => {
  test('queries, history and a snapshot answer for ended orders as for open ones, the records equal to their last events', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const e = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
    e.createAccount({ userId: 'a', balance: '100000' });
    e.createAccount({ userId: 'b', balance: '100000' });
    const last = new Map<string, unknown>();
    const note = (): void => {
      for (const ev of e.drain()) if (ev.kind === 'order') last.set(ev.order.orderId, ev.order);
    };
    // Cancelled, filled (maker and taker), expired IOC, rejected makerOnly, partly filled then cancelled, one left open.
    const cancelled = e.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000.0', quantity: '0.010', clientOrderId: 'mine-1' });
    e.cancelOrder('a', { symbol: 'BTCUSDT', orderId: cancelled.orderId });
    clock.advance(5);
    const maker = e.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50010.0', quantity: '0.020', reduceOnly: false });
    const taker = e.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50010.0', quantity: '0.005', timeInForce: 'IOC' });
    const expired = e.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49990.0', quantity: '0.005', timeInForce: 'IOC' });
    const rejected = e.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50010.0', quantity: '0.005', makerOnly: true });
    clock.advance(5);
    const filled = e.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.015' });
    const open = e.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50100.0', quantity: '0.010' });
    note();
    const ended = [cancelled, maker, taker, expired, rejected, filled];
    for (const r of ended) expect(['FILLED', 'CANCELED', 'EXPIRED', 'REJECTED']).toContain(e.queryOrder(r.orderId === cancelled.orderId || r.orderId === maker.orderId ? 'a' : 'b', { symbol: 'BTCUSDT', orderId: r.orderId }).status);
    for (const r of [...ended, open]) {
      const user = [cancelled.orderId, maker.orderId, open.orderId].includes(r.orderId) ? 'a' : 'b';
      expect(e.queryOrder(user, { symbol: 'BTCUSDT', orderId: r.orderId })).toEqual(last.get(r.orderId));
    }
    // By client id too, and the history newest first, and a cancel of an ended order refused.
    expect(e.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'mine-1' }).status).toBe('CANCELED');
    expect(e.orderHistory('a', {}).list.map((o) => o.orderId)).toEqual([open.orderId, maker.orderId, cancelled.orderId]);
    expect(() => e.cancelOrder('a', { symbol: 'BTCUSDT', orderId: maker.orderId })).toThrow(/FILLED and cannot be cancelled/);
    // A snapshot holds them all; restored, every query answers the same.
    const snap = e.exportState();
    const f = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
    f.importState(JSON.parse(JSON.stringify(snap)));
    expect(JSON.stringify(f.exportState())).toBe(JSON.stringify(snap));
    expect(snap.orders.map((o) => String(o.id))).toEqual([cancelled, maker, taker, expired, rejected, filled, open].map((r) => r.orderId));
    for (const u of ['a', 'b']) expect(f.orderHistory(u, {})).toEqual(e.orderHistory(u, {}));
  });
});
