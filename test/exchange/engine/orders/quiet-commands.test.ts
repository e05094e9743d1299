/** placeOrderStatus and cancelOrderQuiet: the same commands as placeOrder and cancelOrder, without the record. */
import { world } from '../helpers';

describe('commands without a record (the replay tape uses them)', () => {
  it('placeOrderStatus places as placeOrder does and answers its status; cancelOrderQuiet cancels', () => {
    const { engine } = world();
    expect(engine.placeOrderStatus('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000.0', quantity: '0.010', clientOrderId: 'ask' })).toBe('NEW');
    // makerOnly crossing the resting ask: refused, as placeOrder would answer.
    expect(engine.placeOrderStatus('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000.0', quantity: '0.010', makerOnly: true })).toBe('REJECTED');
    expect(engine.placeOrderStatus('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000.0', quantity: '0.004', timeInForce: 'IOC' })).toBe('FILLED');
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'ask' })).toMatchObject({ status: 'PARTIALLY_FILLED', executedQty: '0.004' });
    engine.cancelOrderQuiet('a', { symbol: 'BTCUSDT', clientOrderId: 'ask' });
    expect(engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'ask' }).status).toBe('CANCELED');
    expect(() => engine.cancelOrderQuiet('a', { symbol: 'BTCUSDT', clientOrderId: 'ask' })).toThrow(/CANCELED and cannot be cancelled/);
  });
});
