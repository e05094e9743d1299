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

  it('an open order\'s engine-made id is taken: a user\'s order with that text is refused', () => {
    const { engine } = world();
    const open = engine.placeOrder('a', limit('40000.0'));
    const err = codeOf(() => engine.placeOrder('a', limit('40001.0', open.clientOrderId)));
    expect(err).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    expect(() => engine.placeOrder('a', limit('40001.0', open.clientOrderId))).toThrow(`already used by open order ${open.orderId}`);
    // Another user may use the same text.
    expect(engine.placeOrder('b', limit('40001.0', open.clientOrderId)).clientOrderId).toBe(open.clientOrderId);
    // Once the order is final, the text is free again.
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: open.orderId });
    expect(engine.placeOrder('a', limit('40002.0', open.clientOrderId)).clientOrderId).toBe(open.clientOrderId);
  });

  it('a user\'s open order holding the text of a later engine-made id gives it up to that order, as when every id was indexed', () => {
    const { engine } = world();
    const first = engine.placeOrder('a', limit('40000.0'));
    const next = Number(first.orderId) + 2;
    const mine = engine.placeOrder('a', limit('40001.0', `auto-${next}`));
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: `auto-${next}` }).orderId).toBe(mine.orderId);
    // The same from a snapshot taken here.
    const restored = world().engine;
    restored.importState(engine.exportState());
    expect(restored.placeOrder('a', limit('40002.0')).orderId).toBe(String(next));
    expect(restored.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: `auto-${next}` }).orderId).toBe(String(next));
    const auto = engine.placeOrder('a', limit('40002.0'));
    expect(auto.orderId).toBe(String(next));
    // Both are open with the same text: the engine's order is the one the text finds now.
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: `auto-${next}` }).orderId).toBe(auto.orderId);
    expect(engine.exportState().accounts.find((x) => x.userId === 'a')?.liveClientIds).toEqual([
      [first.clientOrderId, Number(first.orderId)],
      [`auto-${next}`, next],
    ]);
    // When it ends, the text finds it still (the latest order with it), not the user's open one.
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: auto.orderId });
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: `auto-${next}` })).toMatchObject({ orderId: auto.orderId, status: 'CANCELED' });
    // And the text is free for a new order although the user's order holding it is open.
    expect(engine.placeOrder('a', limit('40003.0', `auto-${next}`)).clientOrderId).toBe(`auto-${next}`);
    expect(engine.currentOrders('a', {}).list.map((o) => o.orderId)).toContain(mine.orderId);
  });

  it('snapshots hold the open orders\' index with engine-made ids, in the order the orders opened, and a restored engine finds the same orders', () => {
    const { engine } = world();
    const a = engine.placeOrder('a', limit('40000.0'));
    const b = engine.placeOrder('a', limit('40001.0', 'mine'));
    const c = engine.placeOrder('a', limit('40002.0'));
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: a.orderId });
    const d = engine.placeOrder('a', limit('40003.0', 'also-mine'));
    const state = engine.exportState();
    const live = state.accounts.find((x) => x.userId === 'a')?.liveClientIds;
    expect(live).toEqual([
      ['mine', Number(b.orderId)],
      [c.clientOrderId, Number(c.orderId)],
      ['also-mine', Number(d.orderId)],
    ]);
    const restored = world().engine;
    restored.importState(state);
    expect(restored.exportState()).toEqual(state);
    expect(restored.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: c.clientOrderId }).orderId).toBe(c.orderId);
    expect(codeOf(() => restored.placeOrder('a', limit('40004.0', c.clientOrderId)))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    restored.cancelOrder('a', { symbol: 'BTCUSDT', orderId: c.orderId });
    expect(restored.exportState().accounts.find((x) => x.userId === 'a')?.liveClientIds).toEqual([
      ['mine', Number(b.orderId)],
      ['also-mine', Number(d.orderId)],
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

  it('hundreds of orders with the user\'s ids opening and ending (the open index made afresh many times): open ones found and refused as duplicates, ended ones found as the latest', () => {
    const { engine } = world();
    const open: Array<{ cid: string; id: string }> = [];
    const ended = new Map<string, string>();
    for (let i = 0; i < 600; i++) {
      const cid = `q-${i % 450}`;
      if (open.some((o) => o.cid === cid)) continue;
      open.push({ cid, id: engine.placeOrder('a', limit(`${40000 + (i % 7)}.0`, cid)).orderId });
      if (open.length > 5) {
        const gone = open.shift() as { cid: string; id: string };
        engine.cancelOrder('a', { symbol: 'BTCUSDT', clientOrderId: gone.cid });
        ended.set(gone.cid, gone.id);
      }
      // Through every renewal of the index: each open order's id is taken.
      for (const o of open) expect(codeOf(() => engine.placeOrder('a', limit('39000.0', o.cid)))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    }
    for (const o of open) {
      expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: o.cid })).toMatchObject({ orderId: o.id, status: 'NEW' });
      expect(codeOf(() => engine.placeOrder('a', limit('39000.0', o.cid)))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    }
    // q-3 was used twice (orders 3 and 453): the later one is the answer.
    expect(ended.get('q-3')).not.toBe(undefined);
    for (const [cid, id] of ended) {
      // An id in use again by an open order finds that one (above).
      if (!open.some((o) => o.cid === cid)) expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: cid })).toMatchObject({ orderId: id, status: 'CANCELED' });
    }
    expect(engine.exportState().accounts.find((x) => x.userId === 'a')?.liveClientIds).toEqual(open.map((o) => [o.cid, Number(o.id)]));
  });

  it('a restored account finds the ended orders of its ids placed before the snapshot and after it', () => {
    const { engine } = world();
    const before = engine.placeOrder('a', limit('40000.0', 'early'));
    engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: before.orderId });
    const restored = world().engine;
    restored.importState(engine.exportState());
    const after = restored.placeOrder('a', limit('40001.0', 'late'));
    restored.cancelOrder('a', { symbol: 'BTCUSDT', orderId: after.orderId });
    const again = restored.placeOrder('a', limit('40002.0', 'early'));
    restored.cancelOrder('a', { symbol: 'BTCUSDT', orderId: again.orderId });
    expect(restored.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'late' }).orderId).toBe(after.orderId);
    expect(restored.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'early' }).orderId).toBe(again.orderId);
    expect(restored.exportState().accounts.find((x) => x.userId === 'a')?.lastClientIds.filter(([cid]) => !cid.startsWith('auto-'))).toEqual([
      ['early', Number(again.orderId)],
      ['late', Number(after.orderId)],
    ]);
  });
});

