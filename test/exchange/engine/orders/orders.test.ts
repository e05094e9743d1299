import { ErrorCodes } from '../../../../src/core/errors';
import { codeOf, limit, orderEvents, refusal, world } from '../helpers';

describe('normal orders: time in force and flags', () => {
  it('a GTC limit rests in the book and can be cancelled', () => {
    const w = world();
    const r = w.engine.placeOrder('a', limit('BUY', '49000', '0.5'));
    expect(r.status).toBe('NEW');
    expect(w.engine.depth('BTCUSDT', 5).bids).toEqual([['49000', '0.5']]);
    expect(w.engine.asset('a').frozenMargin).toBe('1225'); // 49000 * 0.5 / 20
    const c = w.engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId });
    expect(c.status).toBe('CANCELED');
    expect(w.engine.depth('BTCUSDT', 5).bids).toEqual([]);
    expect(w.engine.asset('a').frozenMargin).toBe('0');
    expect(orderEvents(w.drain(), 'a').map((e) => e.exec)).toEqual(['NEW', 'CANCELED']);
  });

  it('a crossing order trades at the maker price with maker and taker fees and one shared tradeId', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    const r = w.engine.placeOrder('b', limit('BUY', '50010', '0.4'));
    expect(r.status).toBe('FILLED');
    expect(r.avgPrice).toBe('50000');
    const ta = w.engine.tradeHistory('a', {}).list[0];
    const tb = w.engine.tradeHistory('b', {}).list[0];
    expect(ta.tradeId).toBe(tb.tradeId);
    expect(ta.fillId).not.toBe(tb.fillId);
    expect([ta.roleType, ta.handlingFee, ta.price, ta.quantity, ta.tradeValue]).toEqual(['maker', '4', '50000', '0.4', '20000']);
    expect([tb.roleType, tb.handlingFee]).toEqual(['taker', '10']);
    expect(w.engine.asset('a').walletBalance).toBe('99996');
    expect(w.engine.asset('b').walletBalance).toBe('99990');
    expect(w.engine.positions('a')[0].quantity).toBe('-0.4');
    expect(w.engine.positions('b')[0].quantity).toBe('0.4');
    const changes = w.engine.accountChanges('b', {}).list;
    expect(changes[0]).toMatchObject({ changeType: 'TRADE_FEE', amount: '-10', walletBalanceBefore: '100000', walletBalanceAfter: '99990' });
  });

  it('an order that closes part of a one-way position keeps the margin of what it opens when its closing part fills', () => {
    const w = world();
    // a is short 0.15 BTC.
    w.engine.placeOrder('a', limit('SELL', '50000', '0.15'));
    w.engine.placeOrder('c', { ...limit('BUY', '50000', '0.15'), timeInForce: 'IOC' });
    // BUY 0.4 closes 0.15 and opens 0.25: 49900 * 0.25 / 20 frozen.
    w.engine.placeOrder('a', limit('BUY', '49900', '0.4'));
    expect(w.engine.asset('a').frozenMargin).toBe('623.75');
    // The closing part fills: what is left opens 0.25 all the same (pro rata would keep 389.84375).
    w.engine.placeOrder('b', { ...limit('SELL', '49900', '0.15'), timeInForce: 'IOC' });
    expect(w.engine.positions('a')).toEqual([]);
    expect(w.engine.asset('a').frozenMargin).toBe('623.75');
    // Opening fills release it as they come: 0.15 left to open.
    w.engine.placeOrder('b', { ...limit('SELL', '49900', '0.1'), timeInForce: 'IOC' });
    expect(w.engine.asset('a').frozenMargin).toBe('374.25');
    w.engine.placeOrder('b', { ...limit('SELL', '49900', '0.15'), timeInForce: 'IOC' });
    expect(w.engine.asset('a').frozenMargin).toBe('0');
    expect(w.engine.positions('a')[0].quantity).toBe('0.25');
    expect(w.engine.audit().netQtyBySymbol.BTCUSDT).toBe(0);
  });

  it('walks several levels in price-time priority', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50001', '0.1'));
    w.engine.placeOrder('b', limit('SELL', '50000', '0.1'));
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    w.drain();
    const r = w.engine.placeOrder('c', limit('BUY', '50001', '0.25'));
    expect(r.status).toBe('FILLED');
    const makers = w.drain().filter((e) => e.kind === 'order' && e.executionType === 'TRADE' && e.userId !== 'c');
    expect(makers.map((e) => (e.kind === 'order' ? [e.order.orderId, e.fill?.lastFilledPrice, e.fill?.lastFilledQty] : []))).toEqual([
      ['2', '50000', '0.1'],
      ['3', '50000', '0.1'],
      ['1', '50001', '0.05'],
    ]);
    expect(r.cumQuote).toBe('12500.05');
  });

  it.each([
    ['IOC partially filled: the rest expires', { timeInForce: 'IOC' }, '0.3', 'EXPIRED', '0.2'],
    ['FOK that cannot fill fully expires with no fill', { timeInForce: 'FOK' }, '0.3', 'EXPIRED', '0'],
    ['FOK that can fill fully fills', { timeInForce: 'FOK' }, '0.2', 'FILLED', '0.2'],
    ['GTC partially filled rests', {}, '0.3', 'PARTIALLY_FILLED', '0.2'],
  ])('%s', (_name, extra, qty, status, executed) => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.2'));
    const r = w.engine.placeOrder('b', limit('BUY', '50000', qty, extra));
    expect([r.status, r.executedQty]).toEqual([status, executed]);
  });

  it('a market order takes what there is and expires the rest', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.2'));
    const r = w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.5' });
    expect([r.status, r.executedQty, r.price]).toEqual(['EXPIRED', '0.2', '0']);
    const none = w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.5' });
    expect([none.status, none.executedQty]).toEqual(['EXPIRED', '0']);
  });

  it("a market order's fills quote the account's frozen margin as it stands outside the command", () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    w.engine.placeOrder('a', limit('SELL', '50010', '0.1'));
    w.engine.placeOrder('c', limit('BUY', '40000', '1'));
    expect(w.engine.asset('c').frozenMargin).toBe('2000');
    const frozenOf = (orderId: string): string[] =>
      w.engine.accountChanges('c', {}).list.filter((x) => x.referenceId === orderId).flatMap((x) => [x.changeType, x.frozenBalanceBefore, x.frozenBalanceAfter]);
    // Two fills: each fee quotes the 2000 the resting bid holds, before and after the command alike.
    const buy = w.engine.placeOrder('c', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.2' });
    expect([buy.status, w.engine.asset('c').frozenMargin]).toEqual(['FILLED', '2000']);
    expect(frozenOf(buy.orderId)).toEqual(['TRADE_FEE', '2000', '2000', 'TRADE_FEE', '2000', '2000']);
    // A sell that closes the long 0.2 and opens a short 0.3 in one fill: its realized PnL too.
    w.engine.placeOrder('b', limit('BUY', '49000', '1'));
    const flip = w.engine.placeOrder('c', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.5' });
    expect([flip.status, w.engine.positions('c')[0].quantity, w.engine.asset('c').frozenMargin]).toEqual(['FILLED', '-0.3', '2000']);
    expect(frozenOf(flip.orderId)).toEqual(['TRADE_FEE', '2000', '2000', 'REALIZED_PNL', '2000', '2000']);
    // A LIMIT taker holds margin for what it has not filled, as an open order: its fee quotes that
    // too (3000 x 2 / 20 = 300), and the margin of its rest (150) stands after the command.
    w.engine.placeOrder('a', { ...limit('SELL', '3000', '1'), symbol: 'ETHUSDT' });
    const eth = w.engine.placeOrder('c', { ...limit('BUY', '3000', '2'), symbol: 'ETHUSDT' });
    expect([eth.status, w.engine.asset('c').frozenMargin]).toEqual(['PARTIALLY_FILLED', '2150']);
    expect(frozenOf(eth.orderId)).toEqual(['TRADE_FEE', '2300', '2300']);
    // An IOC or FOK LIMIT order never rests either: it holds nothing, and its fills quote the
    // frozen margin outside the command (b's bid, 1225; they added 150.05, 3001 / 20, its own).
    const frozenOfB = (orderId: string): string[] =>
      w.engine.accountChanges('b', {}).list.filter((x) => x.referenceId === orderId).flatMap((x) => [x.changeType, x.frozenBalanceBefore, x.frozenBalanceAfter]);
    for (const timeInForce of ['IOC', 'FOK'] as const) {
      w.engine.placeOrder('a', { ...limit('SELL', '3001', '1'), symbol: 'ETHUSDT' });
      const taker = w.engine.placeOrder('b', { ...limit('BUY', '3001', '1'), symbol: 'ETHUSDT', timeInForce });
      expect([taker.status, w.engine.asset('b').frozenMargin]).toEqual(['FILLED', '1225']);
      expect(frozenOfB(taker.orderId)).toEqual(['TRADE_FEE', '1225', '1225']);
    }
    expect(w.engine.audit().frozenMismatch).toEqual([]);
  });

  it('makerOnly that would take is REJECTED without a fill; one that would not rests', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.2'));
    const rej = w.engine.placeOrder('b', limit('BUY', '50000', '0.1', { makerOnly: true }));
    expect([rej.status, rej.executedQty]).toEqual(['REJECTED', '0']);
    expect(w.engine.positions('b')).toEqual([]);
    const ok = w.engine.placeOrder('b', limit('BUY', '49999.9', '0.1', { makerOnly: true }));
    expect(ok.status).toBe('NEW');
  });

  it('reduceOnly is refused without a position, cut to the position, and cancelled when it is gone', () => {
    const w = world();
    expect(codeOf(() => w.engine.placeOrder('b', limit('SELL', '51000', '1', { reduceOnly: true })))).toBe(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE);
    w.engine.placeOrder('a', limit('SELL', '50000', '0.3'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.3'));
    expect(codeOf(() => w.engine.placeOrder('b', limit('BUY', '49000', '1', { reduceOnly: true })))).toBe(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE);
    const ro = w.engine.placeOrder('b', limit('SELL', '52000', '1', { reduceOnly: true }));
    expect(ro.quantity).toBe('0.3');
    // b closes the position another way: the reduce-only order has nothing left to reduce.
    w.engine.placeOrder('c', limit('BUY', '50000', '0.3'));
    w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.3' });
    expect(w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: ro.orderId }).status).toBe('CANCELED');
  });

  it('closePosition closes the whole position', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.3'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.3'));
    w.engine.placeOrder('c', limit('BUY', '49990', '1'));
    const r = w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', closePosition: true });
    expect([r.status, r.executedQty]).toEqual(['FILLED', '0.3']);
    expect(w.engine.positions('b')).toEqual([]);
    expect(w.engine.tradeHistory('b', {}).list[0].realizedPnl).toBe('-3'); // (49990 - 50000) * 0.3
  });

  it.each([
    [1, 'BUY', '50000'],
    [2, 'BUY', '50004'],
    [3, 'BUY', '49999'],
    [4, 'BUY', '49995'],
    [1, 'SELL', '49999'],
    [3, 'SELL', '50000'],
  ] as const)('priceType %i for a %s takes its price from the book (%s)', (priceType, side, expected) => {
    const w = world();
    for (let i = 0; i < 6; i++) {
      w.engine.placeOrder('a', limit('SELL', String(50000 + i), '0.01'));
      w.engine.placeOrder('a', limit('BUY', String(49999 - i), '0.01'));
    }
    const r = w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side, quantity: '0.001', priceType, timeInForce: 'IOC' });
    expect(r.price).toBe(expected);
  });

  it('a clientOrderId is unique among open orders and free again once the order is final', () => {
    const w = world();
    const r = w.engine.placeOrder('a', limit('BUY', '49000', '0.1', { clientOrderId: 'x1' }));
    expect(codeOf(() => w.engine.placeOrder('a', limit('BUY', '48000', '0.1', { clientOrderId: 'x1' })))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'x1' }).orderId).toBe(r.orderId);
    // another user may use the same id
    expect(w.engine.placeOrder('b', limit('BUY', '48000', '0.1', { clientOrderId: 'x1' })).status).toBe('NEW');
    w.engine.cancelOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'x1' });
    const again = w.engine.placeOrder('a', limit('BUY', '48000', '0.1', { clientOrderId: 'x1' }));
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', clientOrderId: 'x1' }).orderId).toBe(again.orderId);
  });
});

describe('rejections: every refusal has its code and changes nothing', () => {
  const cases: Array<[string, (w: ReturnType<typeof world>) => unknown, number]> = [
    ['unknown symbol', (w) => w.engine.placeOrder('a', { ...limit('BUY', '1', '1'), symbol: 'DOGEUSDT' }), ErrorCodes.UNKNOWN_SYMBOL],
    ['price off the tick grid', (w) => w.engine.placeOrder('a', limit('BUY', '49000.05', '0.1')), ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE],
    ['quantity off the step grid', (w) => w.engine.placeOrder('a', limit('BUY', '49000', '0.0005')), ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE],
    ['quantity above maxQty', (w) => w.engine.placeOrder('a', limit('BUY', '49000', '1001')), ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE],
    ['below min notional', (w) => w.engine.placeOrder('a', limit('BUY', '1000', '0.001')), ErrorCodes.BELOW_MIN_NOTIONAL],
    ['insufficient margin', (w) => w.engine.placeOrder('a', limit('BUY', '50000', '100')), ErrorCodes.INSUFFICIENT_MARGIN],
    ['positionSide LONG on a one-way account', (w) => w.engine.placeOrder('a', limit('BUY', '49000', '0.1', { positionSide: 'LONG' })), ErrorCodes.POSITION_SIDE_MISMATCH],
    ['positionSide BOTH on a hedge account', (w) => w.engine.placeOrder('h', limit('BUY', '49000', '0.1')), ErrorCodes.POSITION_SIDE_MISMATCH],
    ['leverage above the symbol maximum', (w) => w.engine.setLeverage('a', { symbol: 'BTCUSDT', leverage: 126 }), ErrorCodes.LEVERAGE_OUT_OF_RANGE],
    ['leverage zero', (w) => w.engine.setLeverage('a', { symbol: 'ETHUSDT', leverage: 0 }), ErrorCodes.LEVERAGE_OUT_OF_RANGE],
    ['cancel of an unknown order', (w) => w.engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: '999' }), ErrorCodes.ORDER_NOT_FOUND],
    ['limit without price', (w) => w.engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', quantity: '1' }), ErrorCodes.MISSING_PARAMETER],
    ['makerOnly with IOC', (w) => w.engine.placeOrder('a', limit('BUY', '49000', '0.1', { makerOnly: true, timeInForce: 'IOC' })), ErrorCodes.INVALID_PARAMETER],
    ['priceType on an empty book side', (w) => w.engine.placeOrder('a', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', quantity: '0.1', priceType: 3 }), ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE],
    ['batch of 21', (w) => w.engine.batchPlace('a', Array.from({ length: 21 }, () => limit('BUY', '49000', '0.1'))), ErrorCodes.TOO_MANY_IN_BATCH],
  ];

  it.each(cases)('%s', (_name, act, code) => {
    const w = world();
    w.engine.placeOrder('b', limit('SELL', '51000', '0.1'));
    w.drain();
    const before = JSON.stringify([w.engine.audit(), w.engine.asset('a'), w.engine.currentOrders('a', {}), w.engine.depth('BTCUSDT', 20)]);
    expect(codeOf(() => act(w))).toBe(code);
    expect(w.drain()).toEqual([]);
    expect(JSON.stringify([w.engine.audit(), w.engine.asset('a'), w.engine.currentOrders('a', {}), w.engine.depth('BTCUSDT', 20)])).toBe(before);
  });

  it("another user's order behaves as one that does not exist", () => {
    const w = world();
    const r = w.engine.placeOrder('a', limit('BUY', '49000', '0.1'));
    expect(codeOf(() => w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId }))).toBe(ErrorCodes.ORDER_NOT_FOUND);
    expect(codeOf(() => w.engine.cancelOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId }))).toBe(ErrorCodes.ORDER_NOT_FOUND);
    expect(codeOf(() => w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId, price: '48000', quantity: '0.1' }))).toBe(ErrorCodes.ORDER_NOT_FOUND);
  });

  it('a final order cannot be cancelled or amended (30007)', () => {
    const w = world();
    const r = w.engine.placeOrder('a', limit('BUY', '49000', '0.1'));
    w.engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId });
    expect(codeOf(() => w.engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId }))).toBe(ErrorCodes.ORDER_FINAL);
    expect(codeOf(() => w.engine.moveOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId, price: '48000', quantity: '0.1' }))).toBe(ErrorCodes.ORDER_FINAL);
  });

  // An amend was not held to the minimum notional: a 400 USDT bid moved to price 1 rested at a
  // notional of 0.01, which a placement is refused (the venue refuses it too).
  it('an amend is held to the minimum notional as a placement is (30006); a reduce-only one is not', () => {
    const w = world();
    const r = w.engine.placeOrder('b', limit('BUY', '40000', '0.01'));
    let refusal = '';
    try {
      w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId, price: '1', quantity: '0.01' });
    } catch (e) {
      refusal = `${(e as { code: number }).code} ${(e as Error).message}`;
    }
    expect(refusal).toBe(`${ErrorCodes.BELOW_MIN_NOTIONAL} amended order notional 0.01 is below the minimum notional 5 of BTCUSDT`);
    expect(w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId })).toMatchObject({ price: '40000', quantity: '0.01', status: 'NEW' });
    expect(codeOf(() => w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId, price: '4000', quantity: '0.001' }))).toBe(ErrorCodes.BELOW_MIN_NOTIONAL);
    expect(w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: r.orderId, price: '5000', quantity: '0.001' }).price).toBe('5000');
    // A reduce-only order may be small, placed or amended.
    w.engine.placeOrder('a', limit('SELL', '50000', '0.01'));
    w.engine.placeOrder('b', limit('BUY', '50000', '0.01'));
    const ro = w.engine.placeOrder('b', limit('SELL', '60000', '0.001', { reduceOnly: true }));
    expect(w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: ro.orderId, price: '1000', quantity: '0.001' }).price).toBe('1000');
  });

  it('too many open orders on one symbol (30010)', () => {
    const w = world({ balance: '100000000' });
    for (let i = 0; i < 200; i++) w.engine.placeOrder('a', limit('BUY', String(40000 + i), '0.001'));
    expect(codeOf(() => w.engine.placeOrder('a', limit('BUY', '39000', '0.001')))).toBe(ErrorCodes.TOO_MANY_OPEN_ORDERS);
  });

  it('margin mode cannot change with an open order or position (30012)', () => {
    const w = world();
    const r = w.engine.placeOrder('a', limit('BUY', '49000', '0.1'));
    expect(codeOf(() => w.engine.setMarginMode('a', { symbol: 'BTCUSDT', marginMode: 2 }))).toBe(ErrorCodes.MARGIN_MODE_LOCKED);
    w.engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: r.orderId });
    expect(w.engine.setMarginMode('a', { symbol: 'BTCUSDT', marginMode: 2 }).marginMode).toBe(2);
    expect(w.engine.positionSettings('a', 'BTCUSDT')).toEqual({ symbol: 'BTCUSDT', marginMode: 2, leverage: 20 });
  });
});

describe('amend (move)', () => {
  it('a pure quantity decrease keeps queue priority', () => {
    const w = world();
    const first = w.engine.placeOrder('a', limit('SELL', '50000', '0.2'));
    w.engine.placeOrder('b', limit('SELL', '50000', '0.2'));
    w.engine.moveOrder('a', { symbol: 'BTCUSDT', orderId: first.orderId, price: '50000', quantity: '0.1' });
    w.engine.placeOrder('c', limit('BUY', '50000', '0.1'));
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', orderId: first.orderId }).status).toBe('FILLED');
  });

  it('a price change loses priority', () => {
    const w = world();
    const first = w.engine.placeOrder('a', limit('SELL', '50000.1', '0.2'));
    const second = w.engine.placeOrder('b', limit('SELL', '50000', '0.2'));
    w.engine.moveOrder('a', { symbol: 'BTCUSDT', orderId: first.orderId, price: '50000', quantity: '0.2' });
    w.engine.placeOrder('c', limit('BUY', '50000', '0.2'));
    expect(w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: second.orderId }).status).toBe('FILLED');
    expect(w.engine.queryOrder('a', { symbol: 'BTCUSDT', orderId: first.orderId }).status).toBe('NEW');
  });

  it('an amend to a crossing price trades at once; quantity must exceed what is executed', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '0.1'));
    const b = w.engine.placeOrder('b', limit('BUY', '49000', '0.3'));
    w.drain();
    const moved = w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: b.orderId, price: '50000', quantity: '0.3' });
    expect([moved.status, moved.executedQty]).toEqual(['PARTIALLY_FILLED', '0.1']);
    expect(orderEvents(w.drain(), 'b').map((e) => e.exec)).toEqual(['AMENDED', 'TRADE']);
    expect(codeOf(() => w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: b.orderId, price: '50000', quantity: '0.1' }))).toBe(ErrorCodes.INVALID_PARAMETER);
  });

  it('batch-move reports per-order results', () => {
    const w = world();
    const a1 = w.engine.placeOrder('a', limit('BUY', '49000', '0.1'));
    const res = w.engine.batchMove('a', 'BTCUSDT', [
      { orderId: a1.orderId, price: '48000', quantity: '0.2' },
      { orderId: '424242', price: '48000', quantity: '0.2' },
    ]);
    expect(res.successCount).toBe(1);
    expect(res.failedCount).toBe(1);
    // The failed item names the order the request named (it came back with orderId '').
    expect(res.results[1]).toMatchObject({ index: 1, success: false, code: ErrorCodes.ORDER_NOT_FOUND, orderId: '424242', clientOrderId: '' });
    const cancelled = w.engine.batchCancel('a', [{ symbol: 'BTCUSDT', orderId: '777' }, { symbol: 'BTCUSDT', clientOrderId: 'nope' }]);
    expect(cancelled.results.map((r) => [r.success, r.orderId, r.clientOrderId])).toEqual([
      [false, '777', ''],
      [false, '', 'nope'],
    ]);
  });
});

/**
 * The margin check counts an order's open loss, as Binance does in an order's cost: a BUY priced
 * above mark loses (price - mark) x what it opens against mark the moment it fills, a SELL below
 * mark (mark - price) x. Without it an order far through mark on thin margin opened a position
 * already past its liquidation price (then liquidated at once by the check after the trade,
 * liquidation/after-trade.test.ts). Mark 50 000, 20x.
 */
describe('margin check: the open loss of a price through mark', () => {
  it('a BUY above mark and a SELL below it need the open loss besides the initial margin; on the good side of mark none', () => {
    const w = world();
    w.engine.deposit('b', '-97000');
    // BUY 1 at 51 000: 2 550 initial margin + 1 000 open loss = 3 550 > 3 000.
    expect(refusal(() => w.engine.placeOrder('b', limit('BUY', '51000', '1')))).toBe(
      `${ErrorCodes.INSUFFICIENT_MARGIN} insufficient margin: the order needs 3550 USDT at 20x (1000 USDT of it the open loss of its price against mark 50000), available is 3000 USDT`,
    );
    // SELL 1 at 49 000: 2 450 + 1 000 = 3 450 > 3 000.
    expect(refusal(() => w.engine.placeOrder('b', limit('SELL', '49000', '1')))).toBe(
      `${ErrorCodes.INSUFFICIENT_MARGIN} insufficient margin: the order needs 3450 USDT at 20x (1000 USDT of it the open loss of its price against mark 50000), available is 3000 USDT`,
    );
    // SELL 1 at 50 500 (2 525) and BUY 1 at 49 500 (2 475) lose nothing against mark: the initial margin alone.
    w.engine.cancelOrder('b', { symbol: 'BTCUSDT', orderId: w.engine.placeOrder('b', limit('SELL', '50500', '1')).orderId });
    w.engine.cancelOrder('b', { symbol: 'BTCUSDT', orderId: w.engine.placeOrder('b', limit('BUY', '49500', '1')).orderId });
    // The BUY at 51 000 fits with 3 550 available, not with 3 549.99.
    w.engine.deposit('b', '549.99');
    expect(codeOf(() => w.engine.placeOrder('b', limit('BUY', '51000', '1')))).toBe(ErrorCodes.INSUFFICIENT_MARGIN);
    w.engine.deposit('b', '0.01');
    expect(w.engine.placeOrder('b', limit('BUY', '51000', '1')).status).toBe('NEW');
    // It freezes its initial margin only, as before.
    expect(w.engine.asset('b').frozenMargin).toBe('2550');
  });

  it('a MARKET SELL is sized at the bid it takes: a bid below mark brings its open loss; only what the order opens counts', () => {
    const w = world();
    w.engine.placeOrder('a', limit('BUY', '49900', '1'));
    w.engine.deposit('b', '-97500');
    // 1 at the bid 49 900: 2 495 + 100 open loss = 2 595 > 2 500.
    expect(codeOf(() => w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '1' }))).toBe(ErrorCodes.INSUFFICIENT_MARGIN);
    // A position of 1 long to close: the SELL of 1 opens nothing, so it needs nothing.
    w.engine.deposit('b', '97500');
    w.engine.placeOrder('c', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.deposit('b', '-97000');
    expect(w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '1' }).status).toBe('FILLED');
  });

  it('an amend that moves the price through mark needs the open loss too; a pure decrease never does', () => {
    const w = world();
    w.engine.deposit('b', '-97000');
    const o = w.engine.placeOrder('b', limit('BUY', '49000', '1'));
    expect(refusal(() => w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: o.orderId, price: '51000', quantity: '1' }))).toBe(
      `${ErrorCodes.INSUFFICIENT_MARGIN} insufficient margin: the amended order needs 3550 USDT (1000 USDT of it the open loss of its price against mark 50000), available is 3000 USDT`,
    );
    expect(w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: o.orderId, price: '50000', quantity: '1' }).price).toBe('50000');
    // The mark falls below the order: 3 000 open loss now, but a smaller order at the same price is no more of it.
    w.engine.setMarkPrice('BTCUSDT', '47000');
    expect(w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: o.orderId, price: '50000', quantity: '0.5' }).quantity).toBe('0.5');
  });
});

describe('batches and cancel-all', () => {
  it('batch-place: one bad order never fails the others', () => {
    const w = world();
    const res = w.engine.batchPlace('a', [limit('BUY', '49000', '0.1'), limit('BUY', '49000.05', '0.1'), limit('SELL', '51000', '0.1', { clientOrderId: 'k' })]);
    expect([res.successCount, res.failedCount]).toEqual([2, 1]);
    expect(res.results.map((r) => [r.index, r.success, r.code])).toEqual([
      [0, true, 0],
      [1, false, ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE],
      [2, true, 0],
    ]);
    expect(res.results[2].clientOrderId).toBe('k');
  });

  it('batch-cancel reports per-order results', () => {
    const w = world();
    const r = w.engine.placeOrder('a', limit('BUY', '49000', '0.1'));
    const res = w.engine.batchCancel('a', [{ symbol: 'BTCUSDT', orderId: r.orderId }, { symbol: 'BTCUSDT', orderId: r.orderId }]);
    expect(res.results.map((x) => x.code)).toEqual([0, ErrorCodes.ORDER_FINAL]);
  });

  it.each([
    [0, 0, 1],
    [1, 0, 1],
    [2, 2, 0],
  ])('cancelType %i leaves %i normal and %i condition orders of two each', (cancelType, normalLeft, condLeft) => {
    const w = world();
    w.engine.placeOrder('a', limit('BUY', '49000', '0.1'));
    w.engine.placeOrder('a', { ...limit('BUY', '2900', '0.1'), symbol: 'ETHUSDT' });
    w.engine.placeCondition('a', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '52000', quantity: '0.1' });
    w.engine.placeCondition('a', { symbol: 'ETHUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '3200', quantity: '0.1' });
    w.engine.cancelAll('a', { symbol: cancelType === 2 ? undefined : 'BTCUSDT', cancelType: cancelType as 0 | 1 | 2 });
    expect(w.engine.currentOrders('a', {}).total).toBe(cancelType === 2 ? 2 : 1);
    expect(w.engine.currentConditions('a', undefined).total).toBe(cancelType === 2 ? 0 : 2);
    void normalLeft;
    void condLeft;
  });
});

describe('queries', () => {
  it('current orders page with the lastOrderId cursor; history is newest first and filterable', () => {
    const w = world();
    const ids = [0, 1, 2].map((i) => w.engine.placeOrder('a', limit('BUY', String(49000 + i), '0.1')).orderId);
    expect(w.engine.currentOrders('a', { limit: 2 }).list.map((o) => o.orderId)).toEqual(ids.slice(0, 2));
    expect(w.engine.currentOrders('a', { lastOrderId: Number(ids[1]) }).list.map((o) => o.orderId)).toEqual([ids[2]]);
    w.engine.cancelOrder('a', { symbol: 'BTCUSDT', orderId: ids[0] });
    const h = w.engine.orderHistory('a', { status: 'CANCELED' });
    expect(h.list.map((o) => o.orderId)).toEqual([ids[0]]);
    expect(w.engine.orderHistory('a', { page: 1, pageSize: 2 }).list.map((o) => o.orderId)).toEqual([ids[2], ids[1]]);
    expect(w.engine.orderHistory('a', {}).total).toBe(3);
  });
});

describe('refusals', () => {
  it('carry code, message and field but no stack frames, and leave the stack trace limit as it was', () => {
    const w = world();
    const before = Error.stackTraceLimit;
    let caught: unknown;
    try {
      w.engine.placeOrder('a', limit('BUY', '49000.05', '0.5'));
    } catch (e) {
      caught = e;
    }
    expect(codeOf(() => w.engine.placeOrder('a', limit('BUY', '49000.05', '0.5')))).toBe(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE);
    const err = caught as Error & { field?: string };
    expect(err.name).toBe('VenueError');
    expect(err.field).toBe('price');
    expect(err.stack).toBe(`VenueError: ${err.message}`);
    expect(Error.stackTraceLimit).toBe(before);
    // Errors of anything else still have their frames.
    expect(new Error('x').stack?.split('\n').length).toBeGreaterThan(1);
  });
});

describe('prices and quantities the grid cannot hold', () => {
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      return `${(e as { code?: number }).code} ${(e as Error).message}`;
    }
    throw new Error('expected a VenueError, but the call succeeded');
  };

  // A multiple of the tick beyond 2^53 ticks was called "not a multiple of the tick size".
  it('a price on the grid but beyond what the engine holds is out of range, not off the grid', () => {
    const w = world();
    expect(messageOf(() => w.engine.placeOrder('a', limit('BUY', '100000000000000000000', '0.001')))).toBe('30005 price 100000000000000000000 is out of range: at most 900719925474099.1 for BTCUSDT');
    expect(messageOf(() => w.engine.placeOrder('a', limit('BUY', '9007199254740992.1', '0.001')))).toBe('30005 price 9007199254740992.1 is out of range: at most 900719925474099.1 for BTCUSDT');
    expect(messageOf(() => w.engine.placeOrder('a', limit('BUY', '49000.05', '0.001')))).toBe('30005 price 49000.05 is not a multiple of the tick size 0.1 of BTCUSDT');
    expect(messageOf(() => w.engine.placeOrder('a', limit('BUY', '49000', '100000000000000000000')))).toMatch(/^30005 quantity 100000000000000000000 is outside 0\.001\.\.\S+ for BTCUSDT$/);
    expect(messageOf(() => w.engine.placeOrder('a', limit('BUY', '49000', '0.0005')))).toBe('30005 quantity 0.0005 is not a multiple of the step size 0.001 of BTCUSDT');
  });
});
