import { Dec } from '../../../../src/core/decimal';
import { ManualClock } from '../../../../src/core/clock';
import { Engine } from '../../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../../../src/exchange/engine/symbols';
import { limit, world } from '../helpers';

describe('funding', () => {
  it('longs pay shorts Q * mark * rate at settlement, logged as FUNDING_FEE', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    const before = [w.engine.asset('a').walletBalance, w.engine.asset('b').walletBalance];
    w.engine.settleFunding('BTCUSDT', '0.0001');
    expect(new Dec(w.engine.asset('b').walletBalance).minus(before[1]).toString()).toBe('-5');
    expect(new Dec(w.engine.asset('a').walletBalance).minus(before[0]).toString()).toBe('5');
    expect(w.engine.accountChanges('b', { changeType: 'FUNDING_FEE' }).list[0].amount).toBe('-5');
    expect(w.engine.positions('b')[0].fundingFeeAccum).toBe('-5');
    w.engine.settleFunding('BTCUSDT', '-0.0002');
    expect(w.engine.positions('a')[0].fundingFeeAccum).toBe('-5'); // +5 then -10
  });

  it('the schedule: funding falls due every 8 hours', () => {
    const w = world();
    const next = w.engine.marketState('BTCUSDT').nextFundingTime;
    expect(next % (8 * 3600 * 1000)).toBe(0);
    expect(w.engine.fundingDue(next - 1)).toEqual([]);
    expect(w.engine.fundingDue(next)).toEqual(['BTCUSDT', 'ETHUSDT']);
    w.clock.set(next);
    w.engine.settleFunding('BTCUSDT');
    expect(w.engine.marketState('BTCUSDT').nextFundingTime).toBe(next + 8 * 3600 * 1000);
  });
});

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

describe('determinism', () => {
  function script(): string {
    const clock = new ManualClock(1_700_000_000_000);
    const e = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '1000' });
    const out: unknown[] = [];
    e.createAccount({ userId: 'a', balance: '10000' });
    e.createAccount({ userId: 'b', balance: '10000' });
    e.placeOrder('a', limit('SELL', '50000', '0.1'));
    clock.advance(5);
    e.placeOrder('b', limit('BUY', '50010', '0.15'));
    e.placeStrategy('a', {
      strategyType: 'OTOCO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49900', quantity: '0.1' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50500', quantity: '0.1', reduceOnly: true },
        { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000', quantity: '0.1', reduceOnly: true },
      ],
    });
    clock.advance(100);
    e.placeOrder('b', limit('SELL', '49900', '0.3'));
    e.setMarkPrice('BTCUSDT', '48000');
    e.settleFunding('BTCUSDT', '0.0003');
    out.push(e.drain(), e.audit());
    return JSON.stringify(out);
  }

  it('the same commands at the same clock readings give byte-identical events', () => {
    const first = script();
    expect(first.length).toBeGreaterThan(1000);
    expect(script()).toBe(first);
  });
});
