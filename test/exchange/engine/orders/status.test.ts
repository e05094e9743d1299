import { ORDER_STATUSES, type OrderStatus } from '../../../../src/core/enums';
import { ORDER_TRANSITIONS, canTransition, transition } from '../../../../src/exchange/engine/orders/status';
import type { EngineOrder } from '../../../../src/exchange/engine/model';
import { limit, world } from '../helpers';

describe('order-status transition table', () => {
  it('lists every status; final statuses have no way out, REJECTED only from NEW, nothing back to NEW', () => {
    expect(Object.keys(ORDER_TRANSITIONS).sort()).toEqual([...ORDER_STATUSES].sort());
    for (const s of ['FILLED', 'CANCELED', 'EXPIRED', 'REJECTED'] as OrderStatus[]) expect(ORDER_TRANSITIONS[s]).toEqual([]);
    for (const from of ORDER_STATUSES) {
      expect(canTransition(from, 'NEW')).toBe(false);
      expect(canTransition(from, 'REJECTED')).toBe(from === 'NEW');
    }
    expect(canTransition('PARTIALLY_FILLED', 'PARTIALLY_FILLED')).toBe(true);
  });

  it('transition() refuses a move the table does not list and leaves the order as it was', () => {
    const o = { id: 7, status: 'FILLED' } as EngineOrder;
    expect(() => transition(o, 'CANCELED')).toThrow('engine: order 7 cannot move from FILLED to CANCELED');
    expect(o.status).toBe('FILLED');
    transition({ ...o, status: 'NEW' } as EngineOrder, 'PARTIALLY_FILLED');
  });

  it('the engine moves orders only along the table: a full life of fills, a cancel and an expiry', () => {
    const w = world();
    const seen: Array<[string, string]> = [];
    const last = new Map<string, string>();
    const watch = (): void => {
      for (const e of w.engine.drain()) {
        if (e.kind !== 'order') continue;
        const prev = last.get(e.order.orderId);
        if (prev !== undefined && prev !== e.order.status) seen.push([prev, e.order.status]);
        last.set(e.order.orderId, e.order.status);
      }
    };
    const rest = w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.4'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.6'));
    w.engine.placeOrder('a', limit('SELL', '51000', '1'));
    w.engine.placeOrder('b', { ...limit('BUY', '49000', '1'), timeInForce: 'IOC' });
    watch();
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', orderId: rest.orderId }).status).toBe('FILLED');
    expect(seen).toEqual(expect.arrayContaining([['NEW', 'PARTIALLY_FILLED'], ['PARTIALLY_FILLED', 'FILLED'], ['NEW', 'FILLED'], ['NEW', 'EXPIRED']]));
    for (const [from, to] of seen) expect(canTransition(from as OrderStatus, to as OrderStatus)).toBe(true);
  });
});
