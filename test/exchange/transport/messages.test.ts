/**
 * Error messages over real HTTP: each names the field, the rule and what was found (DESIGN.md
 * "Errors say what was wrong and what was expected"), for the cases where a generic reader message
 * used to hide the rule.
 */
import { TestClock, startTestExchange, type TestExchange } from '../../helpers/exchange';

let ex: TestExchange;
let token: string;

beforeAll(async () => {
  ex = await startTestExchange();
  const u = await ex.createUser();
  token = (await ex.login(u.username, u.password)).accessToken;
});
afterAll(() => ex.stop());

describe('integer-code fields given something that is not an integer', () => {
  it('a history filter sent as a name lists the allowed codes (10001)', async () => {
    const r = await ex.call('GET', '/v1/private/order/history', { token, query: { type: 'LIMIT' } });
    expect([r.status, r.body.code]).toEqual([400, 10001]);
    expect(r.body.message).toBe('type must be one of 1, 2 (an integer code); got "LIMIT"');
  });

  it('a body code sent as a string lists the allowed codes (10001)', async () => {
    const r = await ex.call('POST', '/v1/private/position/margin-mode', { token, body: { symbol: 'BTCUSDT', marginMode: 'ISOLATED' } });
    expect([r.status, r.body.code]).toEqual([400, 10001]);
    expect(r.body.message).toBe('marginMode must be a JSON integer, one of 1, 2; got string "ISOLATED"');
  });

  it('a well-formed integer outside the set is still 10004', async () => {
    const r = await ex.call('POST', '/v1/private/order/batch-cancel-all', { token, body: { cancelType: 3 } });
    expect([r.status, r.body.code]).toEqual([400, 10004]);
    expect(r.body.message).toBe('cancelType must be one of 0, 1, 2; got 3');
  });
});

describe('a body endpoint called without a body', () => {
  it('says the body is missing and what it should hold (10005), not "got undefined"', async () => {
    const r = await ex.call('PUT', '/v1/private/user/listen-key', { token });
    expect([r.status, r.body.code]).toEqual([400, 10005]);
    expect(r.body.message).toBe('request body is missing; expected a JSON object with fields listenKey');
  });

  it('a body that is present but not an object keeps naming its type', async () => {
    const r = await ex.call('PUT', '/v1/private/user/listen-key', { token, body: '[]' });
    expect(r.body.message).toBe('request body must be a JSON object, got array');
  });
});

describe('a 429 names the limit that refused the request', () => {
  it('the order window and the request window, each with its size', async () => {
    // Frozen 1 s into a minute: the fixed windows cannot roll over mid-test.
    const clock = new TestClock();
    clock.freeze(Math.floor(Date.now() / 60_000) * 60_000 + 1000);
    const small = await startTestExchange({ rateLimits: { ordersPer10s: 2, requestsPerMinute: 4 } }, { clock });
    try {
      const u = await small.createUser();
      const t = (await small.login(u.username, u.password)).accessToken;
      const cancel = { symbol: 'BTCUSDT', orderId: '1' };
      for (let i = 0; i < 2; i++) await small.call('POST', '/v1/private/order/cancel', { token: t, body: cancel });
      const orders = await small.call('POST', '/v1/private/order/cancel', { token: t, body: cancel });
      expect([orders.status, orders.body.code]).toEqual([429, 40001]);
      expect(orders.body.message).toBe('rate limit reached (2 order requests per 10 s, per user); retry after 9 s');
      for (let i = 0; i < 2; i++) await small.call('GET', '/v1/private/user/asset', { token: t });
      const all = await small.call('GET', '/v1/private/user/asset', { token: t });
      expect([all.status, all.body.code]).toEqual([429, 40001]);
      expect(all.body.message).toBe('rate limit reached (4 requests per minute, per user); retry after 59 s');
    } finally {
      await small.stop();
    }
  });
});

describe('single order query with both orderId and clientOrderId', () => {
  it('a pair that does not match names both ids and the rule (404 / 30001)', async () => {
    const placed = await ex.call<{ orderId: string }>('POST', '/v1/private/order/place', {
      token,
      body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01', clientOrderId: 'msg-a' },
    });
    const { orderId } = placed.body.data;
    const r = await ex.call('GET', '/v1/private/order', { token, query: { symbol: 'BTCUSDT', orderId, clientOrderId: 'msg-b' } });
    expect([r.status, r.body.code]).toEqual([404, 30001]);
    expect(r.body.message).toBe(`order not found: no order has both orderId ${orderId} and clientOrderId msg-b (given both, both must match) on BTCUSDT`);
    const ok = await ex.call('GET', '/v1/private/order', { token, query: { symbol: 'BTCUSDT', orderId, clientOrderId: 'msg-a' } });
    expect(ok.body.code).toBe(0);
  });
});

describe('a parameter on a request that takes none', () => {
  it('says the request takes no fields (10001), not "accepted fields are: none"', async () => {
    const r = await ex.call('GET', '/v1/private/user/info', { token, query: { x: '1' } });
    expect([r.status, r.body.code]).toEqual([400, 10001]);
    expect(r.body.message).toBe("unknown field 'x'; this request takes no fields");
  });
});
