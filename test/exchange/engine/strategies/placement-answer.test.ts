/**
 * The answer of place-strategy is the state the command left, as placeOrder's is: strategy orders
 * are driven in the command's follow-ups, after the record was made, so the answer was stale
 * (WORKING where the detail right after said ALL_DONE).
 */
import { limit, world } from '../helpers';

describe("place-strategy answers after the command's follow-ups", () => {
  it('an OTO whose entry fills at once and whose IOC exit expires answers ALL_DONE, as the detail right after', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    const s = w.engine.placeStrategy('b', {
      strategyType: 'OTO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.1' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '60000', quantity: '0.1', timeInForce: 'IOC', reduceOnly: true },
      ],
    });
    expect(s.strategyStatus).toBe('ALL_DONE');
    expect(s.subOrders.map((x) => x.status)).toEqual(['FILLED', 'EXPIRED']);
    expect(w.engine.strategy('b', s.strategyId)).toEqual(s);
  });

  it('a strategy order that works answers WORKING with its legs as placed', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', {
      strategyType: 'OTO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.1' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '60000', quantity: '0.1' },
      ],
    });
    expect([s.strategyStatus, s.subOrders.map((x) => x.status)]).toEqual(['WORKING', ['NEW', 'PENDING']]);
    expect(w.engine.strategy('b', s.strategyId)).toEqual(s);
  });
});
