/**
 * Margin mode cannot change with an open position or open orders on the symbol (PROTOCOL.md
 * section 4, 30012). Orders waiting to be placed count: a waiting condition order and a strategy
 * order's pending sub-order each place an order there later, which would open under the new mode.
 * (They did not: the mode changed under a waiting stop.)
 */
import { ErrorCodes } from '../../../../src/core/errors';
import { refusal, world } from '../helpers';


const isolated = { symbol: 'BTCUSDT', marginMode: 2 as const };

describe('margin mode and orders waiting to be placed', () => {
  it('a waiting condition order on the symbol keeps the margin mode (30012) until it is gone', () => {
    const w = world();
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '55000', quantity: '0.1', workingType: 'MARK_PRICE' });
    expect(refusal(() => w.engine.setMarginMode('b', isolated))).toBe(`${ErrorCodes.MARGIN_MODE_LOCKED} margin mode of BTCUSDT cannot change while there is an open condition order on it`);
    // Another symbol's, or another user's, does not.
    expect(w.engine.setMarginMode('b', { symbol: 'ETHUSDT', marginMode: 2 }).marginMode).toBe(2);
    expect(w.engine.setMarginMode('a', isolated).marginMode).toBe(2);
    w.engine.cancelCondition('b', 'BTCUSDT', c.conditionId);
    expect(w.engine.setMarginMode('b', isolated).marginMode).toBe(2);
  });

  // A pending sub-order waits on its sub-order 1, a live order or condition order on the symbol.
  it("a strategy order whose sub-order 1 is a waiting condition keeps it while its sub-order 2 waits", () => {
    const w = world();
    const s = w.engine.placeStrategy('b', {
      strategyType: 'OTO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '55000', quantity: '0.1', workingType: 'MARK_PRICE' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '60000', quantity: '0.1', reduceOnly: true },
      ],
    });
    expect(s.subOrders.map((x) => x.status)).toEqual(['NEW', 'PENDING']);
    expect(refusal(() => w.engine.setMarginMode('b', isolated))).toBe(`${ErrorCodes.MARGIN_MODE_LOCKED} margin mode of BTCUSDT cannot change while there is an open condition order on it`);
    w.engine.cancelCondition('b', 'BTCUSDT', s.subOrders[0].conditionId as string);
    expect(w.engine.strategy('b', s.strategyId).strategyStatus).toBe('CANCELLED');
    expect(w.engine.setMarginMode('b', isolated).marginMode).toBe(2);
  });
});
