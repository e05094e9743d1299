/**
 * Finding orders by client order id, with engine-made `auto-<id>` ids no longer indexed one by
 * one (orders/client-ids.ts): the latest order with a client id, final or not, is found exactly as
 * before, and snapshots still hold every id in creation order.
 */
import { codeOf, world } from '../helpers';
import { ErrorCodes } from '../../../../src/core/errors';

const limit = (price: string, clientOrderId?: string) => ({ symbol: 'BTCUSDT', type: 'LIMIT' as const, side: 'BUY' as const, price, quantity: '0.010', ...(clientOrderId !== undefined ? { clientOrderId } : {}) });

describe('client order ids', () => {
  it('finds a final order by its engine-made id, and not another user\'s', () => {
    const { engine } = world();
    const r = engine.placeOrder('a', limit('40000.0'));
    expect(r.clientOrderId).toBe(`auto-${r.orderId}`);
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId });
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: r.clientOrderId })).toMatchObject({ orderId: r.orderId, status: 'CANCELED' });
    expect(codeOf(() => engine.queryOrder('b', { symbol: 'BTCUSDT', clientOrderId: r.clientOrderId }))).toBe(ErrorCodes.ORDER_NOT_FOUND);
    expect(codeOf(() => engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'auto-999999' }))).toBe(ErrorCodes.ORDER_NOT_FOUND);
  });

  it('answers the latest order with a client id when a user\'s id and an engine-made one are the same text', () => {
    const { engine } = world();
    const first = engine.placeOrder('a', limit('40000.0'));
    const next = Number(first.orderId) + 2;
    // The user takes the text the engine will give order `next`, then cancels it.
    const mine = engine.placeOrder('a', limit('40001.0', `auto-${next}`));
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: mine.orderId });
    const auto = engine.placeOrder('a', limit('40002.0'));
    expect(auto.orderId).toBe(String(next));
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: `auto-${next}` }).orderId).toBe(auto.orderId);
    // Now a user's order takes an engine-made id of an earlier order, which is final.
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: first.orderId });
    const again = engine.placeOrder('a', limit('40003.0', first.clientOrderId));
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: first.clientOrderId }).orderId).toBe(again.orderId);
  });

  it('finds the latest of the final orders a user gave the same id, among many others, and a lookup between placements changes nothing', () => {
    const { engine } = world();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = engine.placeOrder('a', limit('40000.0', i % 10 === 0 ? 'again' : `c-${i}`));
      engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId });
      ids.push(r.orderId);
      if (i === 25) expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'again' }).orderId).toBe(ids[20]);
    }
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'again' }).orderId).toBe(ids[40]);
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'c-7' }).orderId).toBe(ids[7]);
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'c-49' }).orderId).toBe(ids[49]);
  });

  it('snapshots hold every client id of the account, engine-made ones included, latest order per id, in first-use order', () => {
    const { engine } = world();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(engine.placeOrder('a', limit(`4000${i}.0`, i === 2 ? 'mine' : undefined)).orderId);
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: ids[0] });
    const reused = engine.placeOrder('a', limit('39000.0', `auto-${ids[0]}`)).orderId;
    const acct = engine.exportState().accounts.find((x) => x.userId === 'a');
    expect(acct?.lastClientIds).toEqual([
      [`auto-${ids[0]}`, Number(reused)],
      [`auto-${ids[1]}`, Number(ids[1])],
      ['mine', Number(ids[2])],
      [`auto-${ids[3]}`, Number(ids[3])],
      [`auto-${ids[4]}`, Number(ids[4])],
    ]);
  });

  it('an account that forgets final orders no longer finds them, and still finds open ones', () => {
    const { engine } = world();
    const done = engine.placeOrder('a', limit('40000.0'));
    engine.forgetFinalOrders('a');
    const open = engine.placeOrder('a', limit('40001.0'));
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: done.orderId });
    expect(codeOf(() => engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: done.clientOrderId }))).toBe(ErrorCodes.ORDER_NOT_FOUND);
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: open.clientOrderId }).orderId).toBe(open.orderId);
  });
});
