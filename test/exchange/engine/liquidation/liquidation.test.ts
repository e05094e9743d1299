/** Liquidation (src/exchange/engine/liquidation): isolated and cross accounts, the insurance fund's takeover. */
import { Dec } from '../../../../src/core/decimal';
import { limit, world } from '../helpers';

describe('liquidation', () => {
  it('an isolated long is liquidated when mark reaches its liquidation price; the log and history show it', () => {
    const w = world();
    w.engine.setMarginMode('b', { symbol: 'BTCUSDT', marginMode: 2 });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    expect(w.engine.positions('b')[0].liqPrice).toBe('47690.8');
    w.engine.placeOrder('c', limit('BUY', '47600', '2'));
    w.engine.setMarkPrice('BTCUSDT', '47700');
    expect(w.engine.positions('b')).toHaveLength(1);
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '47690');
    const evs = w.drain();
    expect(evs.some((e) => e.kind === 'liquidation' && e.userId === 'b')).toBe(true);
    expect(w.engine.positions('b')).toEqual([]);
    const h = w.engine.positionHistory('b', {}).list[0];
    expect(h.triggerMode).toBe(2);
    const liq = w.engine.orderHistory('b', {}).list[0];
    expect(liq).toMatchObject({ placeType: 'LIQUIDATION', type: 'MARKET', status: 'FILLED', avgPrice: '47600' });
    expect(w.engine.accountChanges('b', { changeType: 'LIQUIDATION' }).total).toBeGreaterThan(0);
    // isolated: the loss is limited to the position's margin (2500) plus fees
    const wallet = new Dec(w.engine.asset('b').walletBalance);
    expect(wallet.gte(new Dec(100000).minus(2500).minus(25).minus('22.61'))).toBe(true);
  });

  it('with no bids the insurance fund takes the position over at mark price and covers a loss beyond margin', () => {
    const w = world({ balance: '3000' });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1')); // b: 20x cross, wallet 2975 after fee
    w.engine.setMarkPrice('BTCUSDT', '45000'); // loss 5000 > wallet
    expect(w.engine.positions('b')).toEqual([]);
    expect(new Dec(w.engine.asset('b').walletBalance).gte(0)).toBe(true);
    const audit = w.engine.audit();
    expect(audit.netQtyBySymbol.BTCUSDT).toBe(0);
    expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
  });

  it('a cross account is liquidated on its total margin; its open orders are cancelled first', () => {
    const w = world({ balance: '5000' });
    w.engine.placeOrder('b', limit('BUY', '40000', '0.01'));
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.placeOrder('c', limit('BUY', '45000', '1'));
    // wallet 4975, uPnL -4700 at 45300: equity 275 > MM 181.2 — still alive
    w.engine.setMarkPrice('BTCUSDT', '45300');
    expect(w.engine.positions('b')).toHaveLength(1);
    // at 45200: equity 175 <= MM 180.8 — liquidated
    w.engine.setMarkPrice('BTCUSDT', '45200');
    expect(w.engine.currentOrders('b', {}).total).toBe(0);
    expect(w.engine.positions('b')).toEqual([]);
  });
});
