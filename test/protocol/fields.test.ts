import { ErrorCodes } from '../../src/core/errors';
import { parseQueryInt, validateCancelAll, validateCurrentOrders, validateEmptyBody, validateEmptyQuery, validateLogin, validateOrderHistory, validatePlaceOrder } from '../../src/protocol';
import { errorOf, json } from './helpers';

describe('query integers', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['20', 20],
    ['-5', -5],
    ['9007199254740991', 9007199254740991],
  ])('%j parses to %d', (s, n) => {
    expect(parseQueryInt(s, 'x')).toBe(n);
  });

  it.each(['1.0', '1e3', '+1', ' 1', '1 ', '01', '0x10', '', '-0', '1_000', 'NaN', 'Infinity', '９', '99999999999999999'])(
    '%j is refused with 10001 naming the field',
    (s) => {
      const e = errorOf(() => parseQueryInt(s, 'pageSize'));
      expect(e.code).toBe(ErrorCodes.INVALID_PARAMETER);
      expect(e.field).toBe('pageSize');
      expect(e.message).toMatch(/pageSize/);
    },
  );

  it('a well-formed integer out of range is refused naming the range, however many digits it has', () => {
    for (const s of ['9007199254740992', '9223372036854775807', '123456789012345678901234567890']) {
      const e = errorOf(() => parseQueryInt(s, 'x'));
      expect([e.code, e.field]).toEqual([ErrorCodes.INVALID_PARAMETER, 'x']);
      expect(e.message).toMatch(/must be an integer between -9007199254740991 and 9007199254740991/);
      expect(e.message).not.toMatch(/digits only/);
    }
    const e = errorOf(() => validateOrderHistory({ startTime: '99999999999999999999' }));
    expect(e.field).toBe('startTime');
    expect(e.message).toMatch(/must be an integer between 0 and \d+, got 99999999999999999999$/);
  });

  it('lastOrderId is an int64 cursor kept as text: the whole range, not rounded', () => {
    for (const s of ['0', '9007199254740993', '9223372036854775807']) expect(validateCurrentOrders({ lastOrderId: s }).lastOrderId).toBe(s);
    for (const s of ['9223372036854775808', '-1', '01', '1e3', ' 1']) {
      const e = errorOf(() => validateCurrentOrders({ lastOrderId: s }));
      expect([e.code, e.field]).toEqual([ErrorCodes.INVALID_PARAMETER, 'lastOrderId']);
      expect(e.message).toMatch(/between 0 and 9223372036854775807/);
    }
  });

  it('converts query integers to numbers in the output', () => {
    expect(validateOrderHistory({ page: '3', pageSize: '100', startTime: '1700000000000', type: '2' })).toEqual({
      page: 3,
      pageSize: 100,
      startTime: 1700000000000,
      type: 2,
    });
  });
});

describe('bodies that are not JSON objects', () => {
  it.each([[[]], ['{"a":1}'], [null], [1], [true], [[{ symbol: 'BTCUSDT' }]], [new Date(0)], [undefined]])('%j is 10005', (body) => {
    expect(errorOf(() => validatePlaceOrder(body)).code).toBe(ErrorCodes.BODY_NOT_OBJECT);
  });

  it('an all-optional body may be absent, but not null', () => {
    expect(validateCancelAll(undefined)).toEqual({ cancelType: 0 });
    expect(errorOf(() => validateCancelAll(null)).code).toBe(ErrorCodes.BODY_NOT_OBJECT);
  });

  it('accepts a null-prototype object (as from Object.fromEntries on a null prototype)', () => {
    const q = Object.assign(Object.create(null) as Record<string, string>, { page: '2' });
    expect(validateOrderHistory(q).page).toBe(2);
  });
});

describe('unknown and reserved keys', () => {
  it('refuses an unknown field by name, listing the accepted ones', () => {
    const e = errorOf(() => validateLogin({ username: 'alice', password: 'pw', pasword: 'x' }));
    expect(e.code).toBe(ErrorCodes.INVALID_PARAMETER);
    expect(e.field).toBe('pasword');
    expect(e.message).toMatch(/unknown field 'pasword'/);
    expect(e.message).toMatch(/username, password, deviceId, deviceName/);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses %s without polluting any prototype', (k) => {
    const body = json(`{"username":"alice","password":"pw","${k}":{"polluted":true,"isAdmin":true}}`);
    const e = errorOf(() => validateLogin(body));
    expect(e.code).toBe(ErrorCodes.INVALID_PARAMETER);
    expect(e.field).toBe(k);
    expect(e.message).toMatch(/reserved/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('refuses reserved keys in queries and nested batch items too', () => {
    expect(errorOf(() => validateOrderHistory(json('{"__proto__":"1"}'))).code).toBe(ErrorCodes.INVALID_PARAMETER);
  });

  it('builds a fresh plain object holding known keys only', () => {
    const body = { username: 'alice', password: 'pw' };
    const out = validateLogin(body);
    expect(out).not.toBe(body);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out).sort()).toEqual(['deviceId', 'deviceName', 'password', 'username']);
  });

  it('reads only own properties: inherited values are not fields', () => {
    const proto = { symbol: 'BTCUSDT' };
    const body = Object.create(proto) as Record<string, unknown>;
    // An object with a foreign prototype is not what JSON.parse makes: refused outright.
    expect(errorOf(() => validatePlaceOrder(body)).code).toBe(ErrorCodes.BODY_NOT_OBJECT);
  });
});

describe('endpoints without input', () => {
  it.each([[undefined], [{}]])('accept %j', (v) => {
    expect(validateEmptyBody(v)).toEqual({});
    expect(validateEmptyQuery(v)).toEqual({});
  });

  it('refuse fields they would ignore', () => {
    expect(errorOf(() => validateEmptyBody({ x: 1 })).message).toMatch(/unknown field 'x'/);
    expect(errorOf(() => validateEmptyQuery({ x: '1' })).code).toBe(ErrorCodes.INVALID_PARAMETER);
    expect(errorOf(() => validateEmptyBody([])).code).toBe(ErrorCodes.BODY_NOT_OBJECT);
  });

  it('a query value that is not a string is refused (a server bug, not a crash)', () => {
    expect(errorOf(() => validateOrderHistory({ page: 2 })).code).toBe(ErrorCodes.INVALID_PARAMETER);
    expect(errorOf(() => validateOrderHistory('page=2')).code).toBe(ErrorCodes.INVALID_PARAMETER);
  });
});
