import { OrderTracker, type LocalState } from '../../../src/bot/execution/order-tracker';
import { bracketSubOrders, planTick, type Queued } from '../../../src/bot/execution/tick-plan';
import type { Intent } from '../../../src/bot/strategy/intents';

function tracker(...orders: Array<[cid: string, state: LocalState, orderId: string]>): OrderTracker {
  const t = new OrderTracker();
  for (const [cid, state, orderId] of orders) {
    t.add({ clientOrderId: cid, strategyId: 's', symbol: 'BTCUSDT', side: 'BUY', price: '100', quantity: '1', executedQty: '0', state, orderId, tag: undefined, reduceOnly: false, sentAt: 0, updatedAt: 0 });
  }
  return t;
}

const q = (intent: Intent, cid?: string): Queued => ({ strategyId: 's', intent, cid });
const place = (cid: string): Queued => q({ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '100', quantity: '1' }, cid);

describe('planTick: what a tick of intents becomes before anything is sent', () => {
  it('withdraws a placement cancelled before it was sent, and sends neither', () => {
    const t = tracker(['a', 'PENDING_NEW', ''], ['b', 'PENDING_NEW', '']);
    const plan = planTick([place('a'), place('b'), q({ kind: 'cancel', clientOrderId: 'a' })], t, new Set(['a', 'b']));
    expect(plan.withdrawn).toEqual(['a']);
    expect(plan.places.map((p) => p.cid)).toEqual(['b']);
    expect(plan.cancels).toEqual([]);
  });

  it('sends one cancel per order, and no amend of an order cancelled in the same tick', () => {
    const t = tracker(['x', 'NEW', '11'], ['y', 'NEW', '12']);
    const plan = planTick(
      [
        q({ kind: 'amend', clientOrderId: 'x', price: '101', quantity: '1' }),
        q({ kind: 'cancel', clientOrderId: 'x' }),
        q({ kind: 'cancelAll', symbol: 'BTCUSDT' }),
      ],
      t,
      new Set(),
    );
    expect(plan.cancels.map((c) => c.cid).sort()).toEqual(['x', 'y']);
    expect(plan.amends.size).toBe(0);
  });

  it('keeps the last of several amends of one order, and refuses an amend of an order not acknowledged or ended', () => {
    const t = tracker(['x', 'NEW', '11'], ['p', 'PENDING_NEW', ''], ['f', 'FILLED', '13']);
    const plan = planTick(
      [
        q({ kind: 'amend', clientOrderId: 'x', price: '101', quantity: '1' }),
        q({ kind: 'amend', clientOrderId: 'x', price: '102', quantity: '2' }),
        q({ kind: 'amend', clientOrderId: 'p', price: '101', quantity: '1' }),
        q({ kind: 'amend', clientOrderId: 'f', price: '101', quantity: '1' }),
      ],
      t,
      new Set(),
    );
    expect(plan.amends.get('BTCUSDT')?.map((a) => [a.cid, a.orderId, a.price, a.quantity])).toEqual([['x', '11', '102', '2']]);
    expect(plan.refusals.map((r) => [r.code, r.message])).toEqual([
      [30001, 'cannot amend p: the venue has not acknowledged it yet'],
      [30007, 'order 13 is FILLED and cannot be amended (it ended before the amend was sent)'],
    ]);
  });

  // The amends of an order that queued behind a reconciliation which found the order gone were
  // refused one by one: 83 rejections at once for one order, each a line and a metric count.
  it('refuses the amends of an ended order once per order in a tick: the last one', () => {
    const t = tracker(['f', 'REJECTED', '13'], ['g', 'CANCELED', '14']);
    const amend = (cid: string, price: string): Queued => q({ kind: 'amend', clientOrderId: cid, price, quantity: '1' });
    const plan = planTick([amend('f', '101'), amend('g', '99'), amend('f', '102'), amend('f', '103'), amend('g', '98')], t, new Set());
    expect(plan.refusals.map((r) => [r.code, r.intent])).toEqual([
      [30007, { kind: 'amend', clientOrderId: 'f', price: '103', quantity: '1' }],
      [30007, { kind: 'amend', clientOrderId: 'g', price: '98', quantity: '1' }],
    ]);
    expect(plan.amends.size).toBe(0);
  });

  it("a bracket's exits are reduce-only, on the other side, under the entry's client id base", () => {
    const subs = bracketSubOrders('s-7', { kind: 'bracket', symbol: 'BTCUSDT', side: 'SELL', quantity: '0.5', takeProfitPrice: '90', stopLossPrice: '110' });
    expect(subs.map((s) => [s.clientOrderId, s.side, s.type, s.reduceOnly ?? false])).toEqual([
      ['s-7e', 'SELL', 'MARKET', false],
      ['s-7t', 'BUY', 'LIMIT', true],
      ['s-7s', 'BUY', 'STOP_MARKET', true],
    ]);
    expect(subs[2].workingType).toBe('MARK_PRICE');
  });
});
