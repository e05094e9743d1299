import { ErrorCodes } from '../../../../src/core/errors';
import type { StrategySubOrderInput } from '../../../../src/exchange/engine/inputs';
import { codeOf, limit, world } from '../helpers';

const entry: StrategySubOrderInput = { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '1' };
const tp: StrategySubOrderInput = { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '52000', quantity: '1', reduceOnly: true };
const sl: StrategySubOrderInput = { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', quantity: '1', reduceOnly: true, workingType: 'MARK_PRICE' };

const statuses = (w: ReturnType<typeof world>, id: string, user = 'b'): string[] => w.engine.strategy(user, id).subOrders.map((s) => s.status);

describe('strategy orders', () => {
  it("sub-order records carry the order fields (PROTOCOL.md section 3), the placed order's once it exists", () => {
    const w = world();
    const trailing: StrategySubOrderInput = { strategySubId: 3, symbol: 'BTCUSDT', type: 'TRAILING_STOP', side: 'SELL', quantity: '1', reduceOnly: true, activatePrice: '51000', callbackRate: '1', priceProtect: true };
    const s = w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [{ ...entry, makerOnly: true }, tp, trailing] });
    const [e, t, c] = s.subOrders;
    const entryOrder = w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: e.orderId as string });
    // The entry is placed at once: its fields are the order's, its client id the engine's own.
    expect(e).toMatchObject({ makerOnly: true, priceType: 0, placeType: '', cumQuote: '0', clientOrderId: entryOrder.clientOrderId, createdAt: entryOrder.createdAt, updateTime: entryOrder.updateTime });
    expect(entryOrder.clientOrderId).toMatch(/^auto-/);
    // Waiting ones: the request's fields, the strategy order's times, no client id yet.
    expect(t).toMatchObject({ makerOnly: false, priceType: 0, placeType: '', cumQuote: '0', clientOrderId: '', createdAt: s.bookTime, updateTime: s.updateTime, priceProtect: false, activatePrice: '0', callbackRate: '0' });
    expect(c).toMatchObject({ priceProtect: true, activatePrice: '51000', callbackRate: '1' });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    const filled = w.engine.strategy('b', s.strategyId).subOrders[0];
    expect(filled).toMatchObject({ status: 'FILLED', executedQty: '1', cumQuote: '50000', avgPrice: '50000' });
  });

  // A sub-order's priceType was dropped when its order was placed: a BBO sub-order (no price) was
  // refused with "price is required for LIMIT", the whole strategy order with it.
  it('a sub-order with a BBO priceType takes its price from the book, as a normal order does', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50010', '1'));
    w.engine.placeOrder('c', limit('BUY', '49990', '1'));
    const bbo = (x: Partial<StrategySubOrderInput>): StrategySubOrderInput => ({ symbol: 'BTCUSDT', type: 'LIMIT', quantity: '0.1', side: 'BUY', strategySubId: 1, ...x });
    const s = w.engine.placeStrategy('b', { strategyType: 'OTO', subOrderList: [
      bbo({ priceType: 1 }),
      bbo({ strategySubId: 2, side: 'SELL', priceType: 3, firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER' }),
    ] });
    const [entryOrder, exitOrder] = w.engine.strategy('b', s.strategyId).subOrders.map((x) => w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: x.orderId as string }));
    // The entry buys at the best ask (opponent price 1), the exit rests at the best ask (same-side price 1).
    expect([entryOrder.status, entryOrder.price, entryOrder.priceType]).toEqual(['FILLED', '50010', 1]);
    expect([exitOrder.status, exitOrder.price, exitOrder.priceType]).toEqual(['NEW', '50010', 3]);
    expect(w.engine.strategy('b', s.strategyId).subOrders.map((x) => [x.status, x.price, x.priceType])).toEqual([['FILLED', '50010', 1], ['NEW', '50010', 3]]);
  });

  // The second of two legs with one client order id (or a leg with an open order's) was accepted
  // and ended REJECTED at once: an OCO WORKING with one leg, the reason recorded nowhere.
  it('a client order id two sub-orders share, or an open order has, refuses the strategy order (30002); nothing is placed', () => {
    const w = world();
    const leg = (id: number, price: string, clientOrderId: string): StrategySubOrderInput => ({ strategySubId: id, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.1', clientOrderId });
    let refusal = '';
    try {
      w.engine.placeStrategy('b', { strategyType: 'OCO', subOrderList: [leg(1, '49000', 'dup'), leg(2, '48000', 'dup')] });
    } catch (e) {
      refusal = `${(e as { code: number }).code} ${(e as Error).message}`;
    }
    expect(refusal).toBe(`${ErrorCodes.DUPLICATE_CLIENT_ORDER_ID} subOrderList[1]: clientOrderId 'dup' is also subOrderList[0]'s`);
    const open = w.engine.placeOrder('b', limit('BUY', '47000', '0.1', { clientOrderId: 'mine' }));
    try {
      w.engine.placeStrategy('b', { strategyType: 'OCO', subOrderList: [leg(1, '49000', 'a1'), leg(2, '48000', 'mine')] });
    } catch (e) {
      refusal = `${(e as { code: number }).code} ${(e as Error).message}`;
    }
    expect(refusal).toBe(`${ErrorCodes.DUPLICATE_CLIENT_ORDER_ID} subOrderList[1]: clientOrderId 'mine' is already used by open order ${open.orderId}`);
    expect(w.engine.currentOrders('b', {}).list.map((o) => o.clientOrderId)).toEqual(['mine']);
    expect(codeOf(() => w.engine.strategy('b', '1'))).toBe(ErrorCodes.STRATEGY_NOT_FOUND);
  });

  it("an amended sub-order shows its order's new price and quantity in the detail", () => {
    const w = world();
    const s = w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [entry, tp, sl] });
    const entryId = s.subOrders[0].orderId as string;
    // Price and quantity of the resting entry.
    w.drain();
    w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: entryId, price: '49500', quantity: '2' });
    // The stream says so too: an update of the strategy order with the new figures (there was none).
    const updates = w.drain().filter((e) => e.kind === 'strategy').map((e) => (e.kind === 'strategy' ? [e.record.strategyStatus, e.record.subOrders[0].price, e.record.subOrders[0].quantity] : []));
    expect(updates).toEqual([['WORKING', '49500', '2']]);
    const moved = w.engine.strategy('b', s.strategyId).subOrders[0];
    const order = w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: entryId });
    expect(moved).toMatchObject({ orderId: entryId, price: '49500', quantity: '2', updateTime: order.updateTime });
    expect(order).toMatchObject({ price: '49500', quantity: '2' });
    // The take-profit, placed once the entry filled: a price change alone.
    w.engine.placeOrder('a', limit('SELL', '49500', '2'));
    const placed = w.engine.strategy('b', s.strategyId).subOrders[1];
    expect(placed).toMatchObject({ status: 'NEW', price: '52000', quantity: '1' });
    w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: placed.orderId as string, price: '52500', quantity: '1' });
    expect(w.engine.strategy('b', s.strategyId).subOrders[1]).toMatchObject({ price: '52500', quantity: '1' });
    // The waiting stop-loss still shows what was asked.
    expect(w.engine.strategy('b', s.strategyId).subOrders[2]).toMatchObject({ status: 'NEW', price: '0', quantity: '1', stopPrice: '48000' });
  });

  it('OTOCO: take-profit and stop-loss wait for the entry, and the one that fills cancels the other', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [entry, tp, sl] });
    expect(s.strategyStatus).toBe('WORKING');
    expect(statuses(w, s.strategyId)).toEqual(['NEW', 'PENDING', 'PENDING']);
    expect(s.subOrders[1]).toMatchObject({ firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER', secondDrivenId: 3, secondTrigger: 'CANCEL_ORDER' });
    w.engine.placeOrder('a', limit('SELL', '50000', '0.4'));
    expect(statuses(w, s.strategyId)).toEqual(['PARTIALLY_FILLED', 'PENDING', 'PENDING']);
    w.engine.placeOrder('a', limit('SELL', '50000', '0.6'));
    expect(statuses(w, s.strategyId)).toEqual(['FILLED', 'NEW', 'NEW']);
    const rec = w.engine.strategy('b', s.strategyId);
    expect(rec.subOrders[1].orderId).toBeDefined();
    expect(rec.subOrders[2].conditionId).toBeDefined();
    w.drain();
    // take-profit fills
    w.engine.placeOrder('c', limit('BUY', '52000', '1'));
    expect(statuses(w, s.strategyId)).toEqual(['FILLED', 'FILLED', 'CANCELED']);
    expect(w.engine.strategy('b', s.strategyId).strategyStatus).toBe('ALL_DONE');
    expect(w.engine.currentConditions('b', undefined).total).toBe(0);
    expect(w.engine.positions('b')).toEqual([]);
    const kinds = w.drain().filter((e) => e.kind === 'strategy').map((e) => (e.kind === 'strategy' ? e.record.strategyStatus : ''));
    expect(kinds[kinds.length - 1]).toBe('ALL_DONE');
  });

  it('OTOCO: the stop-loss fires on mark and cancels the take-profit', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [entry, tp, sl] });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('c', limit('BUY', '47900', '2'));
    w.engine.setMarkPrice('BTCUSDT', '48000');
    expect(statuses(w, s.strategyId)).toEqual(['FILLED', 'CANCELED', 'FILLED']);
    expect(w.engine.strategy('b', s.strategyId).strategyStatus).toBe('ALL_DONE');
  });

  it('OTOCO: cancelling the entry before it fills cancels the strategy', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [entry, tp, sl] });
    const entryId = w.engine.strategy('b', s.strategyId).subOrders[0].orderId as string;
    w.engine.cancelOrder('b', { symbol: 'BTCUSDT', orderId: entryId });
    expect(statuses(w, s.strategyId)).toEqual(['CANCELED', 'CANCELED', 'CANCELED']);
    expect(w.engine.strategy('b', s.strategyId).strategyStatus).toBe('CANCELLED');
  });

  it('OTO: the second order is placed when the first fills', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', { strategyType: 'OTO', subOrderList: [entry, { ...tp, strategySubId: 2 }] });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    expect(statuses(w, s.strategyId)).toEqual(['FILLED', 'NEW']);
  });

  it('OCO: both work at once; a fill of one cancels the other', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    const s = w.engine.placeStrategy('b', {
      strategyType: 'OCO',
      subOrderList: [
        { ...tp, strategySubId: 1 },
        { ...sl, strategySubId: 2 },
      ],
    });
    expect(statuses(w, s.strategyId)).toEqual(['NEW', 'NEW']);
    w.engine.placeOrder('c', limit('BUY', '52000', '0.3'));
    expect(statuses(w, s.strategyId)).toEqual(['PARTIALLY_FILLED', 'CANCELED']);
  });

  it.each([
    ['wrong count', { strategyType: 'OTOCO' as const, subOrderList: [entry, tp] }],
    ['duplicate sub ids', { strategyType: 'OTO' as const, subOrderList: [entry, { ...tp, strategySubId: 1 }] }],
    ['a driver naming itself', { strategyType: 'OTO' as const, subOrderList: [entry, { ...tp, firstDrivenId: 2, firstDrivenOn: 'FILLED' as const, firstTrigger: 'PLACE_ORDER' as const }] }],
    ['OCO with a PLACE_ORDER', { strategyType: 'OCO' as const, subOrderList: [entry, { ...tp, firstDrivenId: 1, firstDrivenOn: 'FILLED' as const, firstTrigger: 'PLACE_ORDER' as const }] }],
    ['two symbols', { strategyType: 'OTO' as const, subOrderList: [entry, { ...tp, symbol: 'ETHUSDT' }] }],
  ])('refuses a malformed structure (30017): %s', (_n, input) => {
    const w = world();
    expect(codeOf(() => w.engine.placeStrategy('b', input))).toBe(ErrorCodes.INVALID_STRATEGY);
  });

  it('a sub-order off the grid fails the whole request and changes nothing', () => {
    const w = world();
    expect(codeOf(() => w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [entry, { ...tp, price: '52000.05' }, sl] }))).toBe(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE);
    expect(w.engine.currentOrders('b', {}).total).toBe(0);
  });

  it("another user's strategy behaves as a missing one (30016)", () => {
    const w = world();
    const s = w.engine.placeStrategy('b', { strategyType: 'OTOCO', subOrderList: [entry, tp, sl] });
    expect(codeOf(() => w.engine.strategy('a', s.strategyId))).toBe(ErrorCodes.STRATEGY_NOT_FOUND);
  });
});
