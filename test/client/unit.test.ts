/** Unit tests of the client's pure parts: no server, fake timers where time matters. */
import { createHmac } from 'node:crypto';
import { ManualClock } from '../../src/core/clock';
import { PerpClient, type PerpClientOptions } from '../../src/client/client';
import {
  AuthenticationError,
  ClockOffset,
  MalformedResponseError,
  NetworkError,
  NotFoundError,
  OrderRejectedError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
  SeqTracker,
  ServiceUnavailableError,
  UnexpectedVenueError,
  ValidationError,
  backoffDelay,
  buildQuery,
  decodeResponse,
  errorFromVenue,
  hadNoEffect,
  isUnknownOutcome,
  paginate,
  prepareRequest,
  retryAfterMs,
  signPayload,
  refreshCookieFrom,
  ClientOrderIdGenerator,
} from '../../src/client';
import { RateGate } from '../../src/client/rate-gate';
import { NODE_TIMERS } from '../../src/client/timers';
import { decodePrivateEvent } from '../../src/client/streams/events';

describe('API-key signing (PROTOCOL.md section 2)', () => {
  test('known vector', () => {
    // HMAC-SHA256("secret", "1700000000000GET/v1/private/order?symbol=BTCUSDT&orderId=1")
    const sig = signPayload('secret', 1700000000000, 'GET', '/v1/private/order', 'symbol=BTCUSDT&orderId=1', '');
    expect(sig).toBe(createHmac('sha256', 'secret').update('1700000000000GET/v1/private/order?symbol=BTCUSDT&orderId=1').digest('hex'));
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(sig).toBe('f06d172294d53babb252f7e2918180185d062e49f6a157c574d77da6389709a4');
  });
  test('body requests sign the exact body and no "?" without a query', () => {
    const body = '{"symbol":"BTCUSDT","side":"BUY"}';
    expect(signPayload('s', 1, 'POST', '/v1/private/order/place', '', body)).toBe(
      createHmac('sha256', 's').update(`1POST/v1/private/order/place${body}`).digest('hex'),
    );
  });
  test('clock offset halves the round trip', () => {
    const o = new ClockOffset();
    expect(o.update(1000, 5100, 1200)).toBe(4000);
    expect(o.venueNow(2000)).toBe(6000);
  });
});

describe('request building', () => {
  test('query in key order, undefined skipped, encoded', () => {
    expect(buildQuery({ symbol: 'BTCUSDT', orderId: undefined, clientOrderId: 'a b', page: 2 })).toBe('symbol=BTCUSDT&clientOrderId=a%20b&page=2');
  });
  test('endpoint input source decides query, body or none', () => {
    expect(prepareRequest('getOrder', { symbol: 'X', orderId: '1' })).toEqual({ method: 'GET', path: '/v1/private/order', rawQuery: 'symbol=X&orderId=1', body: undefined });
    expect(prepareRequest('cancelAllOrders', {}).body).toBe('{}');
    expect(prepareRequest('createListenKey', undefined).body).toBeUndefined();
    expect(prepareRequest('closeListenKey', { listenKey: 'k' })).toMatchObject({ method: 'DELETE', body: '{"listenKey":"k"}' });
  });
  test('refresh cookie is read from Set-Cookie', () => {
    expect(refreshCookieFrom(['a=b', 'refreshToken=xyz; HttpOnly; Path=/v1/public/user'])).toBe('refreshToken=xyz');
    expect(refreshCookieFrom(undefined)).toBeUndefined();
  });
  test('clientOrderIds are unique and follow the venue rule', () => {
    const g = new ClientOrderIdGenerator('bot1');
    const ids = new Set(Array.from({ length: 1000 }, () => g.next()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,36}$/);
    expect(() => new ClientOrderIdGenerator('bad prefix!')).toThrow(RangeError);
  });
});

describe('error classification', () => {
  test.each([
    [10001, 400, ValidationError, false],
    [10005, 400, ValidationError, false],
    [10006, 404, NotFoundError, false],
    [20001, 401, AuthenticationError, false],
    [20002, 401, AuthenticationError, false],
    [20003, 401, AuthenticationError, false],
    [20004, 403, PermissionDeniedError, false],
    [20008, 404, NotFoundError, false],
    [30001, 404, NotFoundError, false],
    [30002, 409, OrderRejectedError, false],
    [30003, 400, OrderRejectedError, false],
    [30017, 400, OrderRejectedError, false],
    [30016, 404, NotFoundError, false],
    [40001, 429, RateLimitError, true],
    [50001, 500, ServiceUnavailableError, true],
    [50002, 503, ServiceUnavailableError, true],
    [99999, 418, UnexpectedVenueError, false],
  ])('venue code %i → %p', (code, status, cls, retryable) => {
    const e = errorFromVenue(code, 'm', status, { requestId: 'r', endpoint: 'placeOrder' });
    expect(e).toBeInstanceOf(cls);
    expect(e).toMatchObject({ venueCode: code, httpStatus: status, requestId: 'r', retryable, endpoint: 'placeOrder' });
  });
  test('no envelope: the HTTP status decides', () => {
    expect(errorFromVenue(undefined, 'x', 502)).toBeInstanceOf(ServiceUnavailableError);
    expect(errorFromVenue(undefined, 'x', 429, { retryAfterMs: 3000 })).toMatchObject({ retryAfterMs: 3000 });
  });
  test('which errors leave an order outcome unknown, and which had no effect', () => {
    expect(isUnknownOutcome(new NetworkError('reset'))).toBe(true);
    expect(isUnknownOutcome(new RequestTimeoutError(100))).toBe(true);
    expect(isUnknownOutcome(errorFromVenue(undefined, 'x', 503))).toBe(true);
    expect(isUnknownOutcome(errorFromVenue(30003, 'x', 400))).toBe(false);
    expect(hadNoEffect(errorFromVenue(50002, 'busy', 503))).toBe(true);
    expect(hadNoEffect(errorFromVenue(undefined, 'busy', 503))).toBe(false);
    expect(hadNoEffect(new NetworkError('reset'))).toBe(false);
  });
  test('Retry-After in seconds, as a date, or absent', () => {
    expect(retryAfterMs('2', 1000, 0)).toBe(2000);
    expect(retryAfterMs(undefined, 1000, 0)).toBe(1000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 1000, 4000)).toBe(6000);
  });
});

describe('response validation', () => {
  const ok = (data: unknown, status = 200): { status: number; headers: Record<string, string>; text: string } => ({
    status,
    headers: { 'x-request-id': 'rid' },
    text: JSON.stringify({ code: 0, message: 'success', data, requestId: 'rid' }),
  });
  const order = {
    orderId: '1', clientOrderId: 'c', symbol: 'BTCUSDT', side: 'BUY', positionSide: 'BOTH', type: 'LIMIT', timeInForce: 'GTC',
    price: '50000', quantity: '0.01', executedQty: '0', avgPrice: '0', cumQuote: '0', status: 'NEW', reduceOnly: false,
    makerOnly: false, closePosition: false, priceType: 0, placeType: '', createdAt: 1, updateTime: 1,
  };
  test('a well-formed answer passes', () => {
    expect(decodeResponse('getOrder', ok(order), 0, 1000).orderId).toBe('1');
    expect(decodeResponse('getCurrentOrders', ok({ list: [order], total: 1 }), 0, 1000).total).toBe(1);
  });
  test.each([
    ['getOrder', { ...order, price: 50000 }, 'data.price'],
    ['getOrder', { ...order, status: 'OPEN' }, 'data.status'],
    ['getCurrentOrders', { list: [order, { ...order, createdAt: '1' }], total: 2 }, 'data.list[1].createdAt'],
    ['placeOrder', { orderId: '', clientOrderId: 'c', status: 'NEW', timestamp: 1 }, 'data.orderId'],
    ['getTime', { serverTime: 1.5 }, 'data.serverTime'],
    ['getPositions', { positions: {} }, 'data.positions'],
    ['getDepth', { symbol: 'X', bids: [['1']], asks: [], time: 1 }, 'data.bids[0]'],
  ] as const)('%s with a bad field names it (%#)', (ep, data, field) => {
    let err: unknown;
    try {
      decodeResponse(ep, ok(data), 0, 1000);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err).toMatchObject({ endpoint: ep, field, requestId: 'rid' });
  });
  test('not JSON, or not the envelope', () => {
    expect(() => decodeResponse('getTime', { status: 200, headers: {}, text: '<html>' }, 0, 1000)).toThrow(MalformedResponseError);
    expect(() => decodeResponse('getTime', { status: 200, headers: {}, text: '{"serverTime":1}' }, 0, 1000)).toThrow(/envelope/);
    expect(() => decodeResponse('getTime', { status: 502, headers: {}, text: 'bad gateway' }, 0, 1000)).toThrow(ServiceUnavailableError);
  });
  test('an error envelope maps to its class with Retry-After', () => {
    const res = { status: 429, headers: { 'retry-after': '3' }, text: JSON.stringify({ code: 40001, message: 'slow down', data: null, requestId: 'q' }) };
    expect(() => decodeResponse('placeOrder', res, 0, 1000)).toThrow(RateLimitError);
    try {
      decodeResponse('placeOrder', res, 0, 1000);
    } catch (e) {
      expect(e).toMatchObject({ retryAfterMs: 3000, requestId: 'q' });
    }
  });
  test('private events: frame and data are validated', () => {
    const frame = (data: unknown, event = 'ORDER_TRADE_UPDATE'): string => JSON.stringify({ event, eventTime: 1, seq: 1, data });
    expect(decodePrivateEvent(frame({ ...order, executionType: 'NEW' })).ok).toBe(true);
    const bad = decodePrivateEvent(frame({ ...order, executionType: 'TRADE' }));
    expect(bad).toMatchObject({ ok: false, field: 'data.tradeId' });
    expect(decodePrivateEvent('{"event":"NOPE","eventTime":1,"seq":1,"data":{}}').ok).toBe(false);
  });
});

describe('backoff and the client-wide rate gate', () => {
  test('exponential with equal jitter, capped', () => {
    const o = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(0, o, () => 0)).toBe(50);
    expect(backoffDelay(0, o, () => 0.999999)).toBe(100);
    expect(backoffDelay(3, o, () => 0)).toBe(400);
    expect(backoffDelay(10, o, () => 0.999999)).toBe(1000);
    expect(backoffDelay(10, o, () => 0)).toBe(500);
    for (let a = 0; a < 40; a++) expect(backoffDelay(a, o)).toBeLessThanOrEqual(1000);
  });

  test('a 429 blocks every request until Retry-After has passed (fake timers)', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const clock = { now: () => Date.now() };
      const gate = new RateGate(clock, NODE_TIMERS);
      gate.block(2000);
      gate.block(500); // a shorter block never shortens the longer one
      let a = false;
      let b = false;
      void gate.wait().then(() => (a = true));
      void gate.wait().then(() => (b = true));
      await jest.advanceTimersByTimeAsync(1999);
      expect([a, b]).toEqual([false, false]);
      await jest.advanceTimersByTimeAsync(1);
      await jest.advanceTimersByTimeAsync(0);
      expect([a, b]).toEqual([true, true]);
      expect(gate.remainingMs()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  test('when the gate opens, the cancels that waited go out before the requests that waited longer', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const clock = { now: () => Date.now() };
      const gate = new RateGate(clock, NODE_TIMERS);
      gate.block(1000);
      const order: string[] = [];
      void gate.wait().then(() => order.push('place'));
      await jest.advanceTimersByTimeAsync(10);
      void gate.wait(undefined, true).then(() => order.push('cancel'));
      void gate.wait().then(() => order.push('amend'));
      await jest.advanceTimersByTimeAsync(1000);
      await jest.advanceTimersByTimeAsync(5);
      expect(order).toEqual(['cancel', 'place', 'amend']);
      // An open gate lets a cancel through at once, and with no cancel waiting, anything else.
      expect(gate.remainingMs()).toBe(0);
      let now = false;
      void gate.wait().then(() => (now = true));
      await jest.advanceTimersByTimeAsync(0);
      expect(now).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  test('the gate reads the injected clock', () => {
    const clock = new ManualClock(0);
    const gate = new RateGate(clock, NODE_TIMERS);
    gate.block(1000);
    clock.advance(400);
    expect(gate.remainingMs()).toBe(600);
  });
});

describe('seq gap detection on synthetic frames', () => {
  test('in order, ahead (holes), late (a hole filled), repeat, reset', () => {
    const t = new SeqTracker();
    expect(t.check(1)).toEqual({ kind: 'next' });
    expect(t.check(2)).toEqual({ kind: 'next' });
    expect(t.check(5)).toEqual({ kind: 'ahead', gap: { expected: 3, received: 5 } });
    expect(t.hasHoles).toBe(true);
    expect(t.check(6)).toEqual({ kind: 'next' });
    expect(t.check(6)).toEqual({ kind: 'duplicate' });
    expect(t.check(3)).toEqual({ kind: 'late' });
    expect(t.check(3)).toEqual({ kind: 'duplicate' });
    expect(t.hasHoles).toBe(true);
    // Reported (the caller resynced): no longer open, but a late 4 is still not a repeat.
    t.markReported();
    expect(t.hasHoles).toBe(false);
    expect(t.check(4)).toEqual({ kind: 'late' });
    expect(t.check(4)).toEqual({ kind: 'duplicate' });
    // A skip too long to keep its numbers is a loss until reported.
    expect(t.check(10_000)).toMatchObject({ kind: 'ahead' });
    expect(t.hasHoles).toBe(true);
    t.markReported();
    expect(t.hasHoles).toBe(false);
    t.reset();
    expect(t.check(1)).toEqual({ kind: 'next' });
    const u = new SeqTracker();
    expect(u.check(2)).toEqual({ kind: 'ahead', gap: { expected: 1, received: 2 } });
  });
});

describe('pagination', () => {
  test('reads every page until short page or total', async () => {
    const data = Array.from({ length: 7 }, (_, i) => i);
    const calls: number[] = [];
    const got: number[] = [];
    for await (const x of paginate(async (p: { page?: number; pageSize?: number }) => {
      calls.push(p.page ?? 0);
      const from = ((p.page ?? 1) - 1) * (p.pageSize ?? 0);
      return { list: data.slice(from, from + (p.pageSize ?? 0)), total: data.length };
    }, { pageSize: 3 })) got.push(x);
    expect(got).toEqual(data);
    expect(calls).toEqual([1, 2, 3]);
  });
  test('stops on an exact multiple via total', async () => {
    const calls: number[] = [];
    for await (const _ of paginate(async (p: { page?: number; pageSize?: number }) => {
      calls.push(p.page ?? 0);
      return { list: [1, 2], total: 4 };
    }, { pageSize: 2 })) void _;
    expect(calls).toEqual([1, 2]);
  });
});

describe('PerpClient options', () => {
  it.each([
    ['baseUrl', { baseUrl: '127.0.0.1:8080' }, 'http:// or https://', '"127.0.0.1:8080"'],
    ['baseUrl', { baseUrl: 'localhost:8080' }, 'http:// or https://', '"localhost:8080"'],
    ['baseUrl', { baseUrl: '' }, 'http:// or https://', '""'],
    ['baseUrl', { baseUrl: 'ftp://x' }, 'http:// or https://', '"ftp://x"'],
    ['wsUrl', { baseUrl: 'http://127.0.0.1:8080', wsUrl: 'http://127.0.0.1:8080' }, 'ws:// or wss://', '"http://127.0.0.1:8080"'],
  ])('%s that is no URL of its protocols is refused at construction, naming it (%j)', (option, opts, protocols, got) => {
    const example = option === 'baseUrl' ? 'http://127.0.0.1:8080' : 'ws://127.0.0.1:8080';
    // It used to be taken, and the first request failed with undici's bare "Invalid URL".
    expect(() => new PerpClient(opts)).toThrow(`PerpClient: ${option} must be a URL starting with ${protocols}, such as ${example}; got ${got}`);
  });

  it.each([
    ['baseUrl', 'http://127.0.0.1:8080/v1', 'path "/v1"'],
    ['baseUrl', 'http://127.0.0.1:8080/v1/', 'path "/v1/"'],
    ['baseUrl', 'http://127.0.0.1:8080?x=1', 'query "?x=1"'],
    ['baseUrl', 'http://127.0.0.1:8080/#top', 'fragment "#top"'],
    ['baseUrl', 'http://u:p@127.0.0.1:8080', 'credentials'],
    ['wsUrl', 'ws://127.0.0.1:8080/v1/ws', 'path "/v1/ws"'],
  ])('%s with more than an origin (%j) is refused at construction, naming what is extra', (option, value, extra) => {
    // A path used to pass, and the first request failed with undici's bare "invalid url".
    const opts = option === 'baseUrl' ? { baseUrl: value } : { baseUrl: 'http://127.0.0.1:8080', wsUrl: value };
    const example = option === 'baseUrl' ? 'http://127.0.0.1:8080' : 'ws://127.0.0.1:8080';
    expect(() => new PerpClient(opts)).toThrow(`PerpClient: ${option} must be an origin only (scheme, host and optional port), such as ${example}, without ${extra}; got ${JSON.stringify(value)}`);
  });

  it.each<[string, Partial<PerpClientOptions>, string]>([
    ['timeoutMs -1', { timeoutMs: -1 }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); got -1'],
    ['timeoutMs 0', { timeoutMs: 0 }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); got 0'],
    ['timeoutMs NaN', { timeoutMs: NaN }, 'timeoutMs must be an integer from 1 to 2147483647 (ms); got NaN'],
    ['maxRetries -1', { maxRetries: -1 }, 'maxRetries must be an integer from 0 to 1000; got -1'],
    ['recvWindow 70000', { apiKey: { apiKey: 'k', secret: 's', recvWindow: 70000 } }, 'apiKey.recvWindow must be an integer from 1 to 60000 (ms, PROTOCOL.md section 2); got 70000'],
    ['recvWindow 0', { apiKey: { apiKey: 'k', secret: 's', recvWindow: 0 } }, 'apiKey.recvWindow must be an integer from 1 to 60000 (ms, PROTOCOL.md section 2); got 0'],
    ['resolveAttempts 1.5', { orderSafety: { resolveAttempts: 1.5 } }, 'orderSafety.resolveAttempts must be an integer from 0 to 1000; got 1.5'],
    ['retryBackoff.baseMs -5', { retryBackoff: { baseMs: -5, maxMs: 10 } }, 'retryBackoff.baseMs must be an integer from 0 to 2147483647 (ms); got -5'],
  ])('%s is refused at construction, naming the option, the rule and the value', (_, opts, message) => {
    // They used to be taken: every call then failed ("no answer within -1 ms"), or the venue refused
    // every signed call with 10001 (recvWindow above 60000).
    const make = (): PerpClient => new PerpClient({ baseUrl: 'http://127.0.0.1:8080', ...opts });
    expect(make).toThrow(RangeError);
    expect(make).toThrow(`PerpClient: ${message}`);
  });

  it('a per-request timeoutMs outside the rule is refused before anything is sent', async () => {
    const c = new PerpClient({ baseUrl: 'http://127.0.0.1:1' });
    await expect(c.public.getTime({ timeoutMs: -1 })).rejects.toThrow('getTime: timeoutMs must be an integer from 1 to 2147483647 (ms); got -1');
    await expect(c.public.getTime({ timeoutMs: 0 })).rejects.toThrow(RangeError);
    await c.close();
  });

  it('useApiKey refuses a recvWindow the venue would refuse', async () => {
    const c = new PerpClient({ baseUrl: 'http://127.0.0.1:8080' });
    expect(() => c.useApiKey({ apiKey: 'k', secret: 's', recvWindow: 60001 })).toThrow('PerpClient: useApiKey(creds).recvWindow must be an integer from 1 to 60000');
    c.useApiKey({ apiKey: 'k', secret: 's', recvWindow: 60000 });
    await c.close();
  });

  it('takes http, https and a trailing slash', async () => {
    for (const baseUrl of ['http://127.0.0.1:8080', 'https://venue.example', 'http://127.0.0.1:8080/']) await new PerpClient({ baseUrl }).close();
  });
});
