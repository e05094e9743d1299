import { ErrorCodes, VenueError } from '../../src/core/errors';
import {
  requireAllValid,
  validateBatchCancel,
  validateBatchMove,
  validateBatchPlace,
  validateCancelAll,
  validateCancelCondition,
  validateCancelOrder,
  validateConditionHistory,
  validateCurrentConditionOrders,
  validateCurrentOrders,
  validateMoveOrder,
  validateOrderHistory,
  validatePlaceCondition,
  validatePlaceOrder,
  validatePlaceStrategy,
  validateQueryOrder,
  validateStrategyOrder,
  validateTrades,
} from '../../src/protocol';
import { errorOf, json } from './helpers';

const { INVALID_PARAMETER: P, MISSING_PARAMETER: M, INVALID_ENUM: E, TOO_MANY_IN_BATCH: B } = ErrorCodes;

const limit = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000.1', quantity: '0.01' };

describe('validatePlaceOrder', () => {
  it('fills defaults', () => {
    expect(validatePlaceOrder(limit)).toEqual({
      ...limit,
      positionSide: 'BOTH',
      timeInForce: 'GTC',
      reduceOnly: false,
      makerOnly: false,
      closePosition: false,
      placeType: '',
      priceType: 0,
    });
  });

  it('keeps what was sent', () => {
    const body = {
      ...limit, positionSide: 'LONG', timeInForce: 'IOC', reduceOnly: true, makerOnly: true, clientOrderId: 'my_id-1', placeType: 'web',
    };
    expect(validatePlaceOrder(body)).toMatchObject(body);
  });

  it.each([
    ['MARKET with quantity', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '1' }],
    ['closePosition without quantity', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', closePosition: true }],
    ['LIMIT with a BBO priceType and no price', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', quantity: '1', priceType: 1 }],
    ['36-character clientOrderId', { ...limit, clientOrderId: 'a'.repeat(36) }],
  ])('accepts %s', (_, body) => {
    expect(() => validatePlaceOrder(body)).not.toThrow();
  });

  it.each<[string, unknown, number, string, RegExp]>([
    // missing
    ['no symbol', { ...limit, symbol: undefined }, M, 'symbol', /symbol is required/],
    ['no type', { ...limit, type: undefined }, M, 'type', /type is required/],
    ['no side', { ...limit, side: undefined }, M, 'side', /./],
    ['LIMIT without price', { ...limit, price: undefined }, M, 'price', /price is required for LIMIT/],
    ['no quantity', { ...limit, quantity: undefined }, M, 'quantity', /unless closePosition/],
    // enums
    ['type STOP', { ...limit, type: 'STOP' }, E, 'type', /type must be one of LIMIT, MARKET; got "STOP"/],
    ['side lower case', { ...limit, side: 'buy' }, E, 'side', /BUY, SELL/],
    ['positionSide', { ...limit, positionSide: 'NET' }, E, 'positionSide', /BOTH, LONG, SHORT/],
    ['timeInForce GTE_GTC on a normal order', { ...limit, timeInForce: 'GTE_GTC' }, E, 'timeInForce', /GTC, IOC, FOK;/],
    ['priceType 5', { ...limit, priceType: 5 }, E, 'priceType', /0, 1, 2, 3, 4/],
    // types and decimals
    ['price as JSON number', { ...limit, price: 50000 }, P, 'price', /not a JSON number/],
    ['price in exponent form', { ...limit, price: '5e4' }, P, 'price', /exponent/],
    ['empty price', { ...limit, price: '' }, P, 'price', /empty string/],
    ['price with spaces', { ...limit, price: ' 1' }, P, 'price', /plain decimal/],
    ['negative price', { ...limit, price: '-1' }, P, 'price', /negative/],
    ['zero quantity', { ...limit, quantity: '0.000' }, P, 'quantity', /greater than zero/],
    ['symbol as number', { ...limit, symbol: 1 }, P, 'symbol', /must be a string, got number/],
    ['empty symbol', { ...limit, symbol: '' }, P, 'symbol', /must not be empty/],
    ['symbol too long', { ...limit, symbol: 'X'.repeat(33) }, P, 'symbol', /at most 32/],
    ['type as number', { ...limit, type: 1 }, P, 'type', /must be a string/],
    ['reduceOnly as string', { ...limit, reduceOnly: 'true' }, P, 'reduceOnly', /JSON boolean/],
    ['null field', { ...limit, makerOnly: null }, P, 'makerOnly', /got null/],
    ['priceType as string', { ...limit, priceType: '1' }, P, 'priceType', /JSON integer/],
    ['priceType fractional', { ...limit, priceType: 1.5 }, P, 'priceType', /./],
    ['clientOrderId too long', { ...limit, clientOrderId: 'a'.repeat(37) }, P, 'clientOrderId', /at most 36/],
    ['clientOrderId with a space', { ...limit, clientOrderId: 'a b' }, P, 'clientOrderId', /letters, digits/],
    ['clientOrderId empty', { ...limit, clientOrderId: '' }, P, 'clientOrderId', /./],
    // The venue's own marker of its liquidation orders: a user's order so marked had its realized PnL booked as a liquidation.
    ['placeType LIQUIDATION', { ...limit, placeType: 'LIQUIDATION' }, P, 'placeType', /placeType must be other than LIQUIDATION \(the venue marks its own liquidation orders so\), got "LIQUIDATION"/],
    // conditional
    ['MARKET with price', { ...limit, type: 'MARKET' }, P, 'price', /omitted for MARKET/],
    ['MARKET with a BBO priceType', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '1', priceType: 2 }, P, 'priceType', /./],
    ['price next to a BBO priceType', { ...limit, priceType: 3 }, P, 'price', /priceType is 3/],
    ['quantity with closePosition', { ...limit, closePosition: true }, P, 'quantity', /omitted when closePosition is true \(the whole position is closed\), got "0\.01"$/],
    // strictness
    ['unknown field', { ...limit, stopPrice: '1' }, P, 'stopPrice', /unknown field 'stopPrice'/],
  ])('%s', (_, body, code, field, msg) => {
    const e = errorOf(() => validatePlaceOrder(JSON.parse(JSON.stringify(body)) as unknown));
    expect([e.code, e.field]).toEqual([code, field]);
    expect(e.message).toMatch(msg);
  });

  it('checks the unknown field before anything else', () => {
    expect(errorOf(() => validatePlaceOrder({ symbl: 'BTCUSDT' })).message).toMatch(/unknown field 'symbl'/);
  });
});

describe('validateBatchPlace', () => {
  it('validates each item on its own: a bad one becomes a failed item naming its path', () => {
    const out = validateBatchPlace({ orders: [limit, { ...limit, price: 1 }, 'x', { ...limit, clientOrderId: 'ok' }] });
    expect(out.orders.map((o) => o.ok)).toEqual([true, false, false, true]);
    const bad = out.orders[1];
    if (bad === undefined || bad.ok) throw new Error('item 1 should have failed');
    expect([bad.error.code, bad.error.field]).toEqual([P, 'orders[1].price']);
    expect(bad.error.message).toMatch(/^orders\[1\]\.price /);
    const notObj = out.orders[2];
    if (notObj === undefined || notObj.ok) throw new Error('item 2 should have failed');
    expect([notObj.error.code, notObj.error.field]).toEqual([P, 'orders[2]']);
  });

  it('names nested missing and unknown fields with their path', () => {
    const out = validateBatchPlace(json('{"orders":[{"symbol":"BTCUSDT","type":"LIMIT","side":"BUY","quantity":"1"},{"__proto__":{}}]}'));
    const errs = out.orders.map((o) => (o.ok ? undefined : [o.error.code, o.error.field]));
    expect(errs).toEqual([[M, 'orders[0].price'], [P, 'orders[1].__proto__']]);
  });

  it('requireAllValid returns the values or throws the first item error', () => {
    expect(requireAllValid(validateBatchPlace({ orders: [limit] }).orders)).toHaveLength(1);
    const e = errorOf(() => requireAllValid(validateBatchPlace({ orders: [limit, { ...limit, side: 'X' }] }).orders));
    expect([e.code, e.field]).toEqual([E, 'orders[1].side']);
  });

  it.each<[string, unknown, number, string | undefined]>([
    ['20 orders are fine', { orders: Array(20).fill(limit) }, 0, undefined],
    ['21 orders are too many', { orders: Array(21).fill(limit) }, B, 'orders'],
    ['empty array', { orders: [] }, P, 'orders'],
    ['orders missing', {}, M, 'orders'],
    ['orders not an array', { orders: limit }, P, 'orders'],
    ['body an array', [limit], ErrorCodes.BODY_NOT_OBJECT, undefined],
    ['unknown top-level field', { orders: [limit], symbol: 'BTCUSDT' }, P, 'symbol'],
  ])('%s', (_, body, code, field) => {
    if (code === 0) {
      expect(validateBatchPlace(body).orders).toHaveLength(20);
      return;
    }
    const e = errorOf(() => validateBatchPlace(body));
    expect([e.code, e.field]).toEqual([code, field]);
  });
});

const stop = { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', quantity: '1', stopPrice: '49000' };

describe('validatePlaceCondition', () => {
  it('fills defaults', () => {
    expect(validatePlaceCondition(stop)).toEqual({
      ...stop, positionSide: 'BOTH', timeInForce: 'GTC', reduceOnly: false, workingType: 'CONTRACT_PRICE', priceProtect: false, closePosition: false,
    });
  });

  it.each([
    ['STOP_LIMIT', { ...stop, type: 'STOP_LIMIT', price: '48900', timeInForce: 'GTE_GTC' }],
    ['TAKE_PROFIT_MARKET closing the position', { symbol: 'BTCUSDT', type: 'TAKE_PROFIT_MARKET', side: 'SELL', stopPrice: '51000', closePosition: true }],
    ['TRAILING_STOP', { symbol: 'BTCUSDT', type: 'TRAILING_STOP', side: 'SELL', quantity: '1', callbackRate: '1', activatePrice: '51000', workingType: 'MARK_PRICE' }],
  ])('accepts %s', (_, body) => {
    expect(validatePlaceCondition(body)).toMatchObject(body);
  });

  it.each<[string, unknown, number, string]>([
    ['STOP_LIMIT without price', { ...stop, type: 'STOP_LIMIT' }, M, 'price'],
    ['TAKE_PROFIT_LIMIT without price', { ...stop, type: 'TAKE_PROFIT_LIMIT' }, M, 'price'],
    ['STOP_MARKET with price', { ...stop, price: '1' }, P, 'price'],
    ['no stopPrice', { ...stop, stopPrice: undefined }, M, 'stopPrice'],
    ['TRAILING_STOP without callbackRate', { ...stop, type: 'TRAILING_STOP', stopPrice: undefined }, M, 'callbackRate'],
    ['TRAILING_STOP with stopPrice', { ...stop, type: 'TRAILING_STOP', callbackRate: '1' }, P, 'stopPrice'],
    ['callbackRate on a stop', { ...stop, callbackRate: '1' }, P, 'callbackRate'],
    ['activatePrice on a stop', { ...stop, activatePrice: '1' }, P, 'activatePrice'],
    ['type LIMIT', { ...stop, type: 'LIMIT' }, E, 'type'],
    ['workingType', { ...stop, workingType: 'LAST' }, E, 'workingType'],
    ['priceProtect as 1', { ...stop, priceProtect: 1 }, P, 'priceProtect'],
    ['stopPrice as number', { ...stop, stopPrice: 49000 }, P, 'stopPrice'],
    ['no quantity', { ...stop, quantity: undefined }, M, 'quantity'],
    ['makerOnly is not a condition field', { ...stop, makerOnly: true }, P, 'makerOnly'],
  ])('%s', (_, body, code, field) => {
    const e = errorOf(() => validatePlaceCondition(JSON.parse(JSON.stringify(body)) as unknown));
    expect([e.code, e.field]).toEqual([code, field]);
  });
});

const entry = { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '1' };
const tp = {
  strategySubId: 2, symbol: 'BTCUSDT', type: 'TAKE_PROFIT_MARKET', side: 'SELL', stopPrice: '52000', quantity: '1', reduceOnly: true,
  firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER', secondDrivenId: 3, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER',
};

describe('validatePlaceStrategy', () => {
  it('reads sub-orders of both kinds with their driving fields and defaults', () => {
    const out = validatePlaceStrategy({ strategyType: 'OTO', subOrderList: [entry, tp] });
    expect(out.strategyType).toBe('OTO');
    expect(out.subOrderList[0]).toMatchObject({ ...entry, firstDrivenId: 0, secondDrivenId: 0, positionSide: 'BOTH', timeInForce: 'GTC' });
    expect(out.subOrderList[0]?.firstDrivenOn).toBeUndefined();
    expect(out.subOrderList[1]).toMatchObject({ ...tp, workingType: 'CONTRACT_PRICE', priceProtect: false });
  });

  it('leaves the count of sub-orders to the engine (30017)', () => {
    expect(validatePlaceStrategy({ strategyType: 'OTOCO', subOrderList: [entry] }).subOrderList).toHaveLength(1);
  });

  it.each<[string, unknown, number, string]>([
    ['strategyType missing', { subOrderList: [entry] }, M, 'strategyType'],
    ['strategyType unknown', { strategyType: 'OCOO', subOrderList: [entry] }, E, 'strategyType'],
    ['subOrderList missing', { strategyType: 'OTO' }, M, 'subOrderList'],
    ['subOrderList not an array', { strategyType: 'OTO', subOrderList: entry }, P, 'subOrderList'],
    ['sub-order not an object', { strategyType: 'OTO', subOrderList: [entry, 7] }, P, 'subOrderList[1]'],
    ['strategySubId missing', { strategyType: 'OTO', subOrderList: [{ ...entry, strategySubId: undefined }] }, M, 'subOrderList[0].strategySubId'],
    ['strategySubId 0', { strategyType: 'OTO', subOrderList: [{ ...entry, strategySubId: 0 }] }, P, 'subOrderList[0].strategySubId'],
    ['strategySubId as string', { strategyType: 'OTO', subOrderList: [{ ...entry, strategySubId: '1' }] }, P, 'subOrderList[0].strategySubId'],
    ['firstDrivenId negative', { strategyType: 'OTO', subOrderList: [entry, { ...tp, firstDrivenId: -1 }] }, P, 'subOrderList[1].firstDrivenId'],
    ['firstDrivenOn unknown', { strategyType: 'OTO', subOrderList: [entry, { ...tp, firstDrivenOn: 'DONE' }] }, E, 'subOrderList[1].firstDrivenOn'],
    ['secondTrigger unknown', { strategyType: 'OTO', subOrderList: [entry, { ...tp, secondTrigger: 'NOTHING' }] }, E, 'subOrderList[1].secondTrigger'],
    ['condition field on LIMIT', { strategyType: 'OTO', subOrderList: [{ ...entry, stopPrice: '1' }] }, P, 'subOrderList[0].stopPrice'],
    ['normal field on a condition', { strategyType: 'OTO', subOrderList: [entry, { ...tp, makerOnly: true }] }, P, 'subOrderList[1].makerOnly'],
    ['GTE_GTC on LIMIT', { strategyType: 'OTO', subOrderList: [{ ...entry, timeInForce: 'GTE_GTC' }] }, E, 'subOrderList[0].timeInForce'],
    ['LIMIT without price', { strategyType: 'OTO', subOrderList: [{ ...entry, price: undefined }] }, M, 'subOrderList[0].price'],
    ['condition without stopPrice', { strategyType: 'OTO', subOrderList: [entry, { ...tp, stopPrice: undefined }] }, M, 'subOrderList[1].stopPrice'],
    ['unknown sub-order field', { strategyType: 'OTO', subOrderList: [{ ...entry, orderId: '1' }] }, P, 'subOrderList[0].orderId'],
  ])('%s', (_, body, code, field) => {
    const e = errorOf(() => validatePlaceStrategy(JSON.parse(JSON.stringify(body)) as unknown));
    expect([e.code, e.field]).toEqual([code, field]);
  });
});

describe('order queries', () => {
  it('single order needs orderId or clientOrderId', () => {
    expect(validateQueryOrder({ symbol: 'BTCUSDT', orderId: '12' })).toEqual({ symbol: 'BTCUSDT', orderId: '12' });
    expect(validateQueryOrder({ symbol: 'BTCUSDT', clientOrderId: 'c1' })).toEqual({ symbol: 'BTCUSDT', clientOrderId: 'c1' });
    const e = errorOf(() => validateQueryOrder({ symbol: 'BTCUSDT' }));
    expect([e.code, e.field]).toEqual([M, 'orderId']);
    expect(e.message).toMatch(/orderId or clientOrderId is required/);
    expect(errorOf(() => validateQueryOrder({ orderId: '1' })).field).toBe('symbol');
  });

  it.each<[string, (q: unknown) => unknown, Record<string, string> | undefined, unknown]>([
    ['current orders default limit', validateCurrentOrders, undefined, { limit: 100 }],
    ['current orders with cursor', validateCurrentOrders, { symbol: 'BTCUSDT', limit: '1', lastOrderId: '99' }, { symbol: 'BTCUSDT', limit: 1, lastOrderId: '99' }],
    ['current condition orders', validateCurrentConditionOrders, { symbol: 'ETHUSDT' }, { symbol: 'ETHUSDT' }],
    ['order history defaults', validateOrderHistory, {}, { page: 1, pageSize: 20 }],
    ['order history filters', validateOrderHistory, { symbol: 'BTCUSDT', orderId: '5', clientOrderId: 'c', type: '1', side: '2', status: '6' }, { symbol: 'BTCUSDT', orderId: '5', clientOrderId: 'c', type: 1, side: 2, status: 6, page: 1, pageSize: 20 }],
    ['condition history', validateConditionHistory, { side: '1', status: '5', startTime: '0', endTime: '0', page: '2', pageSize: '1' }, { side: 1, status: 5, startTime: 0, endTime: 0, page: 2, pageSize: 1 }],
    ['trades', validateTrades, { orderId: '7' }, { orderId: '7', page: 1, pageSize: 20 }],
    ['strategy', validateStrategyOrder, { strategyId: 's1' }, { strategyId: 's1' }],
  ])('%s', (_, v, q, out) => {
    expect(v(q)).toEqual(out);
  });

  it.each<[string, (q: unknown) => unknown, Record<string, string>, number, string]>([
    ['limit 0', validateCurrentOrders, { limit: '0' }, P, 'limit'],
    ['limit 101', validateCurrentOrders, { limit: '101' }, P, 'limit'],
    ['limit 1.0', validateCurrentOrders, { limit: '1.0' }, P, 'limit'],
    ['pageSize 0', validateOrderHistory, { pageSize: '0' }, P, 'pageSize'],
    ['pageSize 101 (never clamped)', validateTrades, { pageSize: '101' }, P, 'pageSize'],
    ['page 0', validateConditionHistory, { page: '0' }, P, 'page'],
    ['page 1e3', validateOrderHistory, { page: '1e3' }, P, 'page'],
    ['type 3', validateOrderHistory, { type: '3' }, E, 'type'],
    ['side 0', validateOrderHistory, { side: '0' }, E, 'side'],
    ['side BUY', validateConditionHistory, { side: 'BUY' }, P, 'side'],
    ['status 7', validateOrderHistory, { status: '7' }, E, 'status'],
    ['condition status 6', validateConditionHistory, { status: '6' }, E, 'status'],
    ['negative startTime', validateTrades, { startTime: '-1' }, P, 'startTime'],
    ['endTime before startTime', validateTrades, { startTime: '10', endTime: '9' }, P, 'endTime'],
    ['unknown query parameter', validateTrades, { sym: 'BTCUSDT' }, P, 'sym'],
    ['strategyId missing', validateStrategyOrder, {}, M, 'strategyId'],
    ['empty symbol', validateCurrentConditionOrders, { symbol: '' }, P, 'symbol'],
  ])('%s', (_, v, q, code, field) => {
    const e = errorOf(() => v(q));
    expect([e.code, e.field]).toEqual([code, field]);
  });
});

describe('cancel and amend', () => {
  it('cancel needs symbol and orderId or clientOrderId', () => {
    expect(validateCancelOrder({ symbol: 'BTCUSDT', clientOrderId: 'c' })).toEqual({ symbol: 'BTCUSDT', clientOrderId: 'c' });
    expect(errorOf(() => validateCancelOrder({ symbol: 'BTCUSDT' })).code).toBe(M);
    expect(errorOf(() => validateCancelOrder({ symbol: 'BTCUSDT', orderId: 5 })).code).toBe(P);
  });

  it('move needs all four fields', () => {
    const body = { symbol: 'BTCUSDT', orderId: '1', price: '1', quantity: '2' };
    expect(validateMoveOrder(body)).toEqual(body);
    for (const k of Object.keys(body)) {
      const e = errorOf(() => validateMoveOrder({ ...body, [k]: undefined }));
      expect([e.code, e.field]).toEqual([M, k]);
    }
    expect(errorOf(() => validateMoveOrder({ ...body, quantity: 2 })).code).toBe(P);
  });

  it('batch move: per-item results, array limits', () => {
    const out = validateBatchMove({ symbol: 'BTCUSDT', orders: [{ orderId: '1', price: '1', quantity: '1' }, { orderId: '2', price: '1e1', quantity: '1' }] });
    expect(out.symbol).toBe('BTCUSDT');
    expect(out.orders[0]).toEqual({ ok: true, value: { orderId: '1', price: '1', quantity: '1' } });
    expect(out.orders[1]?.ok).toBe(false);
    expect(errorOf(() => validateBatchMove({ symbol: 'BTCUSDT', orders: Array(21).fill({}) })).code).toBe(B);
    expect(errorOf(() => validateBatchMove({ orders: [] })).field).toBe('symbol');
  });

  it('batch cancel: per-item results, array limits', () => {
    const out = validateBatchCancel({ orders: [{ symbol: 'BTCUSDT', orderId: '1' }, { symbol: 'BTCUSDT' }] });
    expect(out.orders[0]).toEqual({ ok: true, value: { symbol: 'BTCUSDT', orderId: '1' } });
    const bad = out.orders[1];
    expect(bad !== undefined && !bad.ok && bad.error instanceof VenueError && bad.error.field).toBe('orders[1].orderId');
    expect(errorOf(() => validateBatchCancel({ orders: Array(21).fill({ symbol: 'BTCUSDT', orderId: '1' }) })).code).toBe(B);
    expect(errorOf(() => validateBatchCancel({ orders: [] })).code).toBe(P);
  });

  it.each<[unknown, unknown]>([
    [{}, { cancelType: 0 }],
    [{ symbol: 'BTCUSDT', cancelType: 2 }, { symbol: 'BTCUSDT', cancelType: 2 }],
  ])('cancel all %j', (body, out) => {
    expect(validateCancelAll(body)).toEqual(out);
  });

  it.each<[unknown, number]>([
    [{ cancelType: 3 }, E],
    [{ cancelType: '1' }, P],
    [{ cancelType: -1 }, E],
  ])('cancel all refuses %j', (body, code) => {
    expect(errorOf(() => validateCancelAll(body)).code).toBe(code);
  });

  it('cancel condition needs symbol and conditionId', () => {
    expect(validateCancelCondition({ symbol: 'BTCUSDT', conditionId: 'c1' })).toEqual({ symbol: 'BTCUSDT', conditionId: 'c1' });
    expect(errorOf(() => validateCancelCondition({ symbol: 'BTCUSDT' })).field).toBe('conditionId');
  });
});
