/**
 * What a strategy order checks at acceptance: every sub-order as its own endpoint would (the rules
 * that need neither margin, position nor market), and client ids, those of waiting sub-orders
 * included. Such legs were accepted and ended REJECTED when their driver fired, with no reason.
 */
import { ErrorCodes } from '../../../../src/core/errors';
import type { PlaceStrategyInput, StrategySubOrderInput } from '../../../../src/exchange/engine/inputs';
import { codeOf, limit, refusal, world, type World } from '../helpers';

const entry: StrategySubOrderInput = { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '1' };
const oto = (leg: Partial<StrategySubOrderInput>): PlaceStrategyInput => ({
  strategyType: 'OTO',
  subOrderList: [entry, { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '52000', quantity: '1', ...leg }],
});


/** Nothing of the request was applied: no order, no condition, no strategy order. */
function nothingPlaced(w: World): void {
  expect(w.engine.currentOrders('b', {}).total).toBe(0);
  expect(w.engine.currentConditions('b', undefined).total).toBe(0);
  expect(codeOf(() => w.engine.strategy('b', '1'))).toBe(ErrorCodes.STRATEGY_NOT_FOUND);
}

describe('strategy orders: a waiting sub-order is checked at acceptance as its own endpoint would check it', () => {
  it.each([
    ['a trailing stop callbackRate out of 0.1..10', { type: 'TRAILING_STOP' as const, price: undefined, callbackRate: '50', reduceOnly: true }, 'placeCondition', `${ErrorCodes.INVALID_PARAMETER} subOrderList[1]: callbackRate is a percentage from 0.1 to 10, got 50`],
    ['a LIMIT below the minimum notional', { price: '2', quantity: '0.01' }, 'placeOrder', `${ErrorCodes.BELOW_MIN_NOTIONAL} subOrderList[1]: order notional 0.02 is below the minimum notional 5 of BTCUSDT`],
    ['makerOnly with IOC', { makerOnly: true, timeInForce: 'IOC' as const }, 'placeOrder', `${ErrorCodes.INVALID_PARAMETER} subOrderList[1]: makerOnly applies only to LIMIT orders with timeInForce GTC, got LIMIT IOC`],
    ['a price on a STOP_MARKET', { type: 'STOP_MARKET' as const, stopPrice: '48000' }, 'placeCondition', `${ErrorCodes.INVALID_PARAMETER} subOrderList[1]: price must not be given for STOP_MARKET: it places a MARKET order`],
  ])('%s: refused with the endpoint\'s code and message, naming the sub-order; nothing is placed', (_n, leg, endpoint, expected) => {
    const w = world();
    expect(refusal(() => w.engine.placeStrategy('b', oto(leg)))).toBe(expected);
    nothingPlaced(w);
    // The same request alone is refused by its endpoint alike.
    const { strategySubId: _id, ...alone } = { ...oto(leg).subOrderList[1] };
    const single = endpoint === 'placeOrder'
      ? () => w.engine.placeOrder('b', alone as Parameters<typeof w.engine.placeOrder>[1])
      : () => w.engine.placeCondition('b', alone as Parameters<typeof w.engine.placeCondition>[1]);
    expect(refusal(single)).toBe(expected.replace('subOrderList[1]: ', ''));
  });

  // priceProtect compares the stop with the mark when the sub-order is placed: a stop-loss 10 % from
  // today's mark can be 2 % from the mark at which its entry fills. It is checked then, not at acceptance.
  it('priceProtect of a waiting stop is checked when it is placed, against the mark of then', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', oto({ type: 'STOP_MARKET', price: undefined, side: 'SELL', stopPrice: '43000', priceProtect: true, reduceOnly: true, workingType: 'MARK_PRICE', quantity: '1' }));
    expect(s.subOrders.map((x) => x.status)).toEqual(['NEW', 'PENDING']);
  });
});

describe("strategy orders: a waiting sub-order's client id is reserved", () => {
  it('another order, condition order or strategy sub-order may not take it (30002) until the sub-order is placed', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', oto({ clientOrderId: 'exit' }));
    const held = `${ErrorCodes.DUPLICATE_CLIENT_ORDER_ID} clientOrderId 'exit' is reserved by sub-order 2 of strategy order ${s.strategyId}, which is not placed yet`;
    expect(refusal(() => w.engine.placeOrder('b', limit('BUY', '40000', '0.1', { clientOrderId: 'exit' })))).toBe(held);
    expect(refusal(() => w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '60000', quantity: '0.1', clientOrderId: 'exit' }))).toBe(held);
    expect(refusal(() => w.engine.placeStrategy('b', oto({ clientOrderId: 'exit', price: '53000' })))).toBe(held.replace('clientOrderId', 'subOrderList[1]: clientOrderId'));
    // Another user's ids are their own.
    expect(w.engine.placeOrder('c', limit('BUY', '40000', '0.1', { clientOrderId: 'exit' })).status).toBe('NEW');
    // The entry fills: the sub-order is placed with its id, which is now an open order's.
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    const exit = w.engine.strategy('b', s.strategyId).subOrders[1];
    expect([exit.status, exit.clientOrderId]).toEqual(['NEW', 'exit']);
    expect(w.engine.queryOrder('b', { symbol: 'BTCUSDT', clientOrderId: 'exit' }).orderId).toBe(exit.orderId);
  });

  it('a sub-order that will not be placed gives its id back', () => {
    const w = world();
    const s = w.engine.placeStrategy('b', oto({ clientOrderId: 'exit' }));
    w.engine.cancelOrder('b', { symbol: 'BTCUSDT', orderId: s.subOrders[0].orderId as string });
    expect(w.engine.strategy('b', s.strategyId).subOrders.map((x) => x.status)).toEqual(['CANCELED', 'CANCELED']);
    expect(w.engine.placeOrder('b', limit('BUY', '40000', '0.1', { clientOrderId: 'exit' })).status).toBe('NEW');
  });

  it('a waiting sub-order may not take the id of an open order either', () => {
    const w = world();
    const open = w.engine.placeOrder('b', limit('BUY', '40000', '0.1', { clientOrderId: 'exit' }));
    expect(refusal(() => w.engine.placeStrategy('b', oto({ clientOrderId: 'exit' })))).toBe(`${ErrorCodes.DUPLICATE_CLIENT_ORDER_ID} subOrderList[1]: clientOrderId 'exit' is already used by open order ${open.orderId}`);
  });

  it('the reservation survives a snapshot', () => {
    const w = world();
    w.engine.placeStrategy('b', oto({ clientOrderId: 'exit' }));
    const w2 = world();
    w2.engine.importState(JSON.parse(JSON.stringify(w.engine.exportState())) as ReturnType<typeof w.engine.exportState>);
    expect(codeOf(() => w2.engine.placeOrder('b', limit('BUY', '40000', '0.1', { clientOrderId: 'exit' })))).toBe(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID);
  });
});

describe('strategy orders: every sub-order the request places at once is checked before anything is applied', () => {
  // The probe's case: mark 3000 on ETHUSDT, an OCO whose stop is 200 % from mark with priceProtect.
  const eth = (x: Partial<StrategySubOrderInput>): StrategySubOrderInput => ({ strategySubId: 1, symbol: 'ETHUSDT', type: 'LIMIT', side: 'BUY', price: '2000', quantity: '0.1', ...x });
  const stop = eth({ strategySubId: 2, type: 'STOP_MARKET', price: undefined, stopPrice: '9000', priceProtect: true });

  it("an OCO whose second leg is refused (priceProtect 30013) fails whole, with that leg's error; nothing is placed", () => {
    const w = world();
    const alone = refusal(() => w.engine.placeCondition('b', { symbol: 'ETHUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '9000', quantity: '0.1', priceProtect: true }));
    expect(alone).toMatch(new RegExp(`^${ErrorCodes.PRICE_PROTECTION} priceProtect: stopPrice 9000 `));
    expect(refusal(() => w.engine.placeStrategy('b', { strategyType: 'OCO', subOrderList: [eth({}), stop] }))).toBe(alone.replace(' priceProtect', ' subOrderList[1]: priceProtect'));
    nothingPlaced(w);
    expect(w.drain()).toEqual([]);
  });

  it('an OCO whose second leg lacks margin (30003) fails whole; the first leg\'s margin counts against it', () => {
    const w = world({ balance: '1000' });
    // Each leg alone fits 1000 USDT at 20x (600 USDT each); both together do not.
    const leg = (id: number, price: string): StrategySubOrderInput => ({ strategySubId: id, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.3' });
    const r = refusal(() => w.engine.placeStrategy('b', { strategyType: 'OCO', subOrderList: [leg(1, '40000'), leg(2, '40000')] }));
    expect(r).toMatch(new RegExp(`^${ErrorCodes.INSUFFICIENT_MARGIN} subOrderList\\[1\\]: insufficient margin: .*held for the request's sub-orders before this one\\)$`));
    nothingPlaced(w);
    expect(w.engine.asset('b').frozenMargin).toBe('0');
    // One of them alone is accepted.
    expect(w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.3' }).status).toBe('NEW');
  });

  it('an OCO whose second leg is GTE_GTC with no position (30004) fails whole', () => {
    const w = world();
    const r = refusal(() => w.engine.placeStrategy('b', { strategyType: 'OCO', subOrderList: [eth({}), eth({ strategySubId: 2, type: 'STOP_MARKET', price: undefined, stopPrice: '3100', timeInForce: 'GTE_GTC' })] }));
    expect(r).toBe(`${ErrorCodes.REDUCE_ONLY_WOULD_INCREASE} subOrderList[1]: GTE_GTC condition order needs an open BOTH position on ETHUSDT to close`);
    nothingPlaced(w);
  });

  it('the refusal names the sub-order by its place in the request, the first one too', () => {
    const w = world({ balance: '10' });
    const r = refusal(() => w.engine.placeStrategy('b', { strategyType: 'OCO', subOrderList: [stop, eth({ strategySubId: 1, price: '2000', quantity: '1' })] }));
    expect(r).toMatch(new RegExp(`^${ErrorCodes.INSUFFICIENT_MARGIN} subOrderList\\[1\\]: insufficient margin`));
    nothingPlaced(w);
  });
});
