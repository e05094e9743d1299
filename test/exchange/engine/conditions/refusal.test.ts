/**
 * Why an order the engine placed itself was refused: a fired condition's, a strategy sub-order's
 * when its driver fired. Only the status (REJECTED) was kept; the code and message went nowhere.
 * The wire records have no field for it (PROTOCOL.md section 3): the engine keeps it on the
 * condition or sub-order (snapshots with it) and says it in a `refused` event, which the local
 * exchange logs.
 */
import { ErrorCodes } from '../../../../src/core/errors';
import type { EngineEvent } from '../../../../src/exchange/engine/events';
import { limit, world } from '../helpers';

const refusals = (evs: EngineEvent[]): Array<Extract<EngineEvent, { kind: 'refused' }>> => evs.flatMap((e) => (e.kind === 'refused' ? [e] : []));

describe('the refusal of an order the engine placed itself is kept and said', () => {
  it('a stop that fires without the margin for its order ends REJECTED with the 30003 in a refused event', () => {
    const w = world();
    w.engine.createAccount({ userId: 'poor', balance: '100' });
    const c = w.engine.placeCondition('poor', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '51000', quantity: '1', workingType: 'MARK_PRICE' });
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '51000');
    const [r] = refusals(w.drain());
    expect(r).toMatchObject({ kind: 'refused', userId: 'poor', symbol: 'BTCUSDT', conditionId: c.conditionId, strategyId: '', strategySubId: 0, status: 'REJECTED', code: ErrorCodes.INSUFFICIENT_MARGIN });
    expect(r.message).toMatch(/^insufficient margin: the order needs 2550 USDT at 20x, available is 100 USDT$/);
    expect(w.engine.conditionHistory('poor', {}).list[0]).toMatchObject({ conditionStatus: 'REJECTED', triggeredOrderId: '' });
    // Kept with the condition, through a snapshot.
    const snap = JSON.parse(JSON.stringify(w.engine.exportState())) as { conditions: Array<{ id: number; refusal?: unknown }> };
    expect(snap.conditions.find((x) => String(x.id) === c.conditionId)?.refusal).toEqual({ code: ErrorCodes.INSUFFICIENT_MARGIN, message: r.message });
  });

  it('a strategy sub-order refused when its driver fires is REJECTED with its reason (priceProtect against the mark of then)', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', {
      strategyType: 'OTO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.1' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '40000', quantity: '0.1', reduceOnly: true, priceProtect: true, workingType: 'MARK_PRICE' },
      ],
    });
    w.drain();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    const evs = w.drain();
    expect(refusals(evs)).toEqual([{
      kind: 'refused', userId: 'b', symbol: 'BTCUSDT', time: expect.any(Number) as number, conditionId: '', strategyId: s.strategyId, strategySubId: 2, status: 'REJECTED',
      code: ErrorCodes.PRICE_PROTECTION, message: 'priceProtect: stopPrice 40000 is 20 % from mark price 50000, more than 10 %',
    }]);
    expect(w.engine.strategy('b', s.strategyId).subOrders.map((x) => x.status)).toEqual(['FILLED', 'REJECTED']);
    const snap = w.engine.exportState() as unknown as { strategies: Array<{ subs: Array<{ refusal?: unknown }> }> };
    expect(snap.strategies[0].subs[1].refusal).toEqual({ code: ErrorCodes.PRICE_PROTECTION, message: 'priceProtect: stopPrice 40000 is 20 % from mark price 50000, more than 10 %' });
  });

  it('a condition that fires with nothing to close ends EXPIRED with the 30004 said', () => {
    const w = world();
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000', closePosition: true, workingType: 'MARK_PRICE' });
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '49000');
    expect(refusals(w.drain()).map((r) => [r.conditionId, r.status, r.code])).toEqual([[c.conditionId, 'EXPIRED', ErrorCodes.REDUCE_ONLY_WOULD_INCREASE]]);
  });
});
