/**
 * The answer of place-condition is the state the command left, as
 * placeOrder's is (a MARKET order answers FILLED): triggers run in the
 * command's follow-ups, after the record was made, so the answer was stale (NEW).
 */
import { limit, world } from '../helpers';

describe('placement answers after the command\'s follow-ups', () => {
  it('a condition whose trigger is met at placement answers TRIGGERED with its order, as the history has it', () => {
    const w = world();
    w.engine.placeOrder('a', limit('BUY', '49990', '1'));
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '50500', quantity: '0.1', workingType: 'MARK_PRICE' });
    expect(c.conditionStatus).toBe('TRIGGERED');
    expect(c.triggeredOrderId).not.toBe('');
    expect(w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: c.triggeredOrderId }).status).toBe('FILLED');
    expect(w.engine.conditionHistory('b', {}).list[0]).toEqual(c);
  });

  it('a condition that waits answers NEW', () => {
    const w = world();
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000', quantity: '0.1', workingType: 'MARK_PRICE' });
    expect([c.conditionStatus, c.triggeredOrderId]).toEqual(['NEW', '']);
  });
});
