/** The engine's cheap paths for replays: muted users and the net quantity without position records. */
import { ErrorCodes } from '../../../src/core/errors';
import { codeOf, limit, orderEvents, world } from './helpers';

describe('Engine.netQuantity', () => {
  it('is the signed net of the position records, one-way and hedge', () => {
    const w = world();
    expect(w.engine.netQuantity('b', 'BTCUSDT')).toBe('0');
    w.engine.placeOrder('a', limit('SELL', '50000', '0.7'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.7'));
    expect(w.engine.netQuantity('b', 'BTCUSDT')).toBe('0.7');
    expect(w.engine.netQuantity('a', 'BTCUSDT')).toBe('-0.7');
    // Hedge: a long of 0.5 and a short of 0.2 net to 0.3.
    w.engine.placeOrder('a', limit('SELL', '50000', '0.5'));
    w.engine.placeOrder('h', limit('BUY', '50000', '0.5', { positionSide: 'LONG' }));
    w.engine.placeOrder('c', limit('BUY', '50000', '0.2'));
    w.engine.placeOrder('h', limit('SELL', '50000', '0.2', { positionSide: 'SHORT' }));
    const recs = w.engine.positions('h', 'BTCUSDT');
    expect(recs.map((p) => [p.positionSide, p.quantity]).sort()).toEqual([['LONG', '0.5'], ['SHORT', '0.2']]);
    expect(w.engine.netQuantity('h', 'BTCUSDT')).toBe('0.3');
  });
});

describe('Engine.equityParts', () => {
  it('equals the wallet and unrealized PnL of asset(), cross and isolated', () => {
    const w = world();
    w.engine.setMarginMode('a', { symbol: 'ETHUSDT', marginMode: 2 });
    w.engine.placeOrder('b', limit('SELL', '50000', '0.3'));
    w.engine.placeOrder('a', limit('BUY', '50000', '0.3'));
    w.engine.placeOrder('b', { symbol: 'ETHUSDT', type: 'LIMIT', side: 'BUY', price: '3000', quantity: '1.5' });
    w.engine.placeOrder('a', { symbol: 'ETHUSDT', type: 'LIMIT', side: 'SELL', price: '3000', quantity: '1.5' });
    for (const [btc, eth] of [['50123.4', '2987.65'], ['49001.1', '3100.01']]) {
      w.engine.setMarkPrice('BTCUSDT', btc);
      w.engine.setMarkPrice('ETHUSDT', eth);
      for (const u of ['a', 'b', 'c']) {
        const { walletBalance, unrealizedPnl } = w.engine.asset(u);
        expect(w.engine.equityParts(u)).toEqual({ walletBalance, unrealizedPnl });
      }
    }
    expect(w.engine.asset('a').unrealizedPnl).not.toBe('0');
  });
});

describe('Engine.forgetFinalOrders', () => {
  it('drops final orders from every index and keeps live ones, trades and positions', () => {
    const w = world();
    w.engine.forgetFinalOrders('a');
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1', { clientOrderId: 'gone' }));
    w.engine.placeOrder('a', limit('SELL', '50100', '0.1', { clientOrderId: 'live' }));
    w.engine.placeOrder('a', limit('SELL', '50200', '0.1', { clientOrderId: 'cxl' }));
    w.engine.cancelOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'cxl' });
    w.engine.placeOrder('b', limit('BUY', '50000', '0.1'));
    const missing = (cid: string) => () => w.engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: cid });
    expect(codeOf(missing('gone'))).toBe(ErrorCodes.ORDER_NOT_FOUND);
    expect(codeOf(missing('cxl'))).toBe(ErrorCodes.ORDER_NOT_FOUND);
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'live' }).status).toBe('NEW');
    expect(w.engine.orderHistory('a', {}).list).toEqual([]);
    expect(w.engine.tradeHistory('a', {}).list).toHaveLength(1);
    expect(w.engine.netQuantity('a', 'BTCUSDT')).toBe('-0.1');
    // A clientOrderId of a forgotten order may be used again.
    w.engine.placeOrder('a', limit('SELL', '50300', '0.1', { clientOrderId: 'gone' }));
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'gone' }).status).toBe('NEW');
    // Others keep their history.
    expect(w.engine.orderHistory('b', {}).list).toHaveLength(1);
  });
});

describe('Engine.muteEvents', () => {
  it('drops the private events of a muted user and nothing else', () => {
    const w = world();
    w.engine.muteEvents('a');
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.1'));
    const evs = w.drain();
    expect(orderEvents(evs, 'a')).toEqual([]);
    expect(evs.filter((e) => e.kind === 'account' && e.userId === 'a')).toEqual([]);
    // The other side and the public trade still come out, and a's state is whole.
    expect(orderEvents(evs, 'b').map((e) => e.exec)).toEqual(['NEW', 'TRADE']);
    expect(evs.filter((e) => e.kind === 'trade')).toHaveLength(1);
    expect(evs.some((e) => e.kind === 'account' && e.userId === 'b')).toBe(true);
    expect(w.engine.netQuantity('a', 'BTCUSDT')).toBe('-0.1');
    expect(w.engine.positions('a', 'BTCUSDT')[0].quantity).toBe('-0.1');
  });
});

describe('Engine.exemptFromMargin', () => {
  it('lets an exempt account rest orders beyond its margin and freezes nothing; others are still checked', () => {
    const w = world({ balance: '1000' });
    // 1 BTC at 50000 and 20x needs 2500 USDT: more than the 1000 each user has.
    expect(() => w.engine.placeOrder('a', limit('BUY', '50000', '1'))).toThrow(/insufficient margin/);
    w.engine.exemptFromMargin('a');
    w.engine.placeOrder('a', limit('BUY', '50000', '1', { clientOrderId: 'big' }));
    expect(w.engine.asset('a').frozenMargin).toBe('0');
    expect(w.engine.orderProgress('a', { symbol: 'BTCUSDT', clientOrderId: 'big' })).toEqual({ status: 'NEW', executedQty: '0' });
    expect(() => w.engine.placeOrder('b', limit('BUY', '50000', '1'))).toThrow(/insufficient margin/);
    // A fill settles into the exempt account like any other.
    w.engine.placeOrder('c', limit('SELL', '50000', '0.01'));
    expect(w.engine.orderProgress('a', { symbol: 'BTCUSDT', clientOrderId: 'big' })).toEqual({ status: 'PARTIALLY_FILLED', executedQty: '0.01' });
    expect(w.engine.netQuantity('a', 'BTCUSDT')).toBe('0.01');
    expect(w.engine.audit().frozenMismatch).toEqual([]);
  });
});

describe('Engine.setPrivateEventFilter', () => {
  it('builds account updates only for wanted users, and order events for everyone', () => {
    const w = world();
    const wanted = new Set(['b']);
    w.engine.setPrivateEventFilter((u) => wanted.has(u));
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.1'));
    let evs = w.drain();
    expect(evs.filter((e) => e.kind === 'account').map((e) => (e.kind === 'account' ? e.userId : ''))).toEqual(['b']);
    expect(orderEvents(evs, 'a').map((e) => e.exec)).toEqual(['NEW', 'TRADE']);
    // The filter is asked at each event: a user becomes wanted from then on.
    wanted.add('a');
    w.engine.placeOrder('a', limit('SELL', '50100', '0.1'));
    w.engine.placeOrder('c', limit('BUY', '50100', '0.1'));
    evs = w.drain();
    expect(evs.some((e) => e.kind === 'account' && e.userId === 'c')).toBe(false);
    expect(evs.some((e) => e.kind === 'account' && e.userId === 'a')).toBe(true);
  });
});
