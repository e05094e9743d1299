import { RestingOrders } from '../../src/backtest/backtest/resting-orders';

const order = (orderId: string, side: 'BUY' | 'SELL', price: string, status = 'NEW'): { orderId: string; symbol: string; side: string; price: string; status: string; type: string } => ({ orderId, symbol: 'BTCUSDT', side, price, status, type: 'LIMIT' });

describe('the participant resting orders the backtest driver keeps (RestingOrders)', () => {
  test('reaches: a trade at or through the best bid or ask, by exact decimal comparison', () => {
    const r = new RestingOrders();
    expect(r.reaches('BTCUSDT', '60000')).toBe(false);
    r.onOrder(order('1', 'BUY', '59990.0'));
    r.onOrder(order('2', 'SELL', '60010.0'));
    expect(r.reaches('BTCUSDT', '59990')).toBe(true);
    expect(r.reaches('BTCUSDT', '59990.1')).toBe(false);
    expect(r.reaches('BTCUSDT', '60010.00')).toBe(true);
    expect(r.reaches('ETHUSDT', '60010.00')).toBe(false);
  });

  test('an answer kept for a repeated price is not reused once the orders changed, even when bestOf saw the change first', () => {
    const r = new RestingOrders();
    r.onOrder(order('1', 'BUY', '59990.0'));
    r.onOrder(order('2', 'SELL', '60010.0'));
    expect(r.reaches('BTCUSDT', '60010.0')).toBe(true);
    r.onOrder(order('2', 'SELL', '60010.0', 'FILLED'));
    // The driver's quiet-trade bounds read the best prices between two trades at one price.
    expect(r.bestOf('BTCUSDT')).toEqual({ bid: '59990.0', ask: undefined });
    expect(r.reaches('BTCUSDT', '60010.0')).toBe(false);
    r.onOrder(order('3', 'SELL', '60005.0'));
    expect(r.bestOf('BTCUSDT')).toEqual({ bid: '59990.0', ask: '60005.0' });
    expect(r.reaches('BTCUSDT', '60010.0')).toBe(true);
  });
});
