/**
 * Fault cases through a fault-injecting proxy in front of the local exchange: lost answers,
 * resets, 5xx, 429 with Retry-After, timeouts. The order must exist exactly once afterwards.
 */
import {
  MalformedResponseError,
  PerpClient,
  RateLimitError,
  RequestAbortedError,
  RequestTimeoutError,
  ServiceUnavailableError,
  UnknownOrderOutcomeError,
} from '../../src/client';
import pino from 'pino';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy';
import { startClientEnv, waitFor, type ClientEnv } from './support/env';

let env: ClientEnv;
let proxy: FaultProxy;

beforeAll(async () => {
  env = await startClientEnv();
  proxy = await startFaultProxy(env.ex.url);
});
afterAll(async () => {
  await proxy.close();
  await env.stop();
});

async function proxiedClient(opts: Partial<ConstructorParameters<typeof PerpClient>[0]> = {}): Promise<PerpClient> {
  const u = await env.ex.createUser();
  const c = env.client({ baseUrl: proxy.url, orderSafety: { resolveAttempts: 4, resolveBackoff: { baseMs: 20, maxMs: 200 } }, retryBackoff: { baseMs: 10, maxMs: 50 }, ...opts });
  // The login is set-up, not under test: a generous timeout, whatever the client's (a loaded machine
  // takes more than a short test timeout to answer it).
  await c.login(u.username, u.password, {}, { timeoutMs: 10_000 });
  return c;
}

const order = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.01' } as const;

async function countOrders(c: PerpClient, clientOrderId: string): Promise<number> {
  let n = 0;
  for await (const o of c.orders.iterateOrderHistory({ symbol: 'BTCUSDT' })) if (o.clientOrderId === clientOrderId) n++;
  return n;
}

test('order accepted but the answer lost: settled by clientOrderId, the order exists exactly once', async () => {
  const c = await proxiedClient();
  proxy.add({ method: 'POST', path: '/v1/private/order/place', times: 1, action: { kind: 'lose-response' } });
  const before = proxy.forwarded.filter((x) => x === 'POST /v1/private/order/place').length;
  const r = await c.orders.placeOrder({ ...order, clientOrderId: 'lost-answer-1' });
  expect(r).toMatchObject({ clientOrderId: 'lost-answer-1', status: 'NEW' });
  expect(proxy.forwarded.filter((x) => x === 'POST /v1/private/order/place').length - before).toBe(1);
  expect(await countOrders(c, 'lost-answer-1')).toBe(1);
});

test('batch place with a lost answer: every order found once, none sent twice', async () => {
  const c = await proxiedClient();
  proxy.add({ method: 'POST', path: '/v1/private/order/batch-place', times: 1, action: { kind: 'lose-response' } });
  const r = await c.orders.batchPlaceOrders({ orders: [order, { ...order, price: '45001' }] });
  expect(r.successCount).toBe(2);
  for (const item of r.results) expect(await countOrders(c, item.clientOrderId)).toBe(1);
});

test('condition order with a lost answer is settled through the condition lists', async () => {
  const c = await proxiedClient();
  proxy.add({ method: 'POST', path: '/v1/private/order/place-condition', times: 1, action: { kind: 'lose-response' } });
  const r = await c.orders.placeConditionOrder({ symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '40000', quantity: '0.01', clientOrderId: 'lost-cond-1' });
  expect(r.conditionStatus).toBe('NEW');
  const list = await c.orders.getCurrentConditionOrders({ symbol: 'BTCUSDT' });
  expect(list.list.filter((x) => x.clientOrderId === 'lost-cond-1')).toHaveLength(1);
});

test('a reset before the request reached the venue: not found after bounded queries → UnknownOrderOutcomeError, never resent', async () => {
  const c = await proxiedClient();
  proxy.add({ method: 'POST', path: '/v1/private/order/place', times: 1, action: { kind: 'reset' } });
  const before = proxy.forwarded.length;
  const err = await c.orders.placeOrder({ ...order, clientOrderId: 'reset-1' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnknownOrderOutcomeError);
  expect((err as UnknownOrderOutcomeError).clientOrderIds).toEqual(['reset-1']);
  expect(proxy.forwarded.slice(before).filter((x) => x === 'POST /v1/private/order/place')).toHaveLength(0);
  expect(await countOrders(c, 'reset-1')).toBe(0);
});

test('a bare 503 on an order: outcome unknown, settled by query (here: the order was never placed)', async () => {
  const c = await proxiedClient();
  proxy.add({ method: 'POST', path: '/v1/private/order/place', times: 1, action: { kind: 'respond', status: 503, body: 'busy' } });
  await expect(c.orders.placeOrder({ ...order, clientOrderId: 'bare-503' })).rejects.toBeInstanceOf(UnknownOrderOutcomeError);
});

test('a venue 50002 envelope on an order: no effect by protocol, the error is ServiceUnavailableError (retryable)', async () => {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) });
  const c = await proxiedClient({ logger });
  const body = JSON.stringify({ code: 50002, message: 'busy', data: null, requestId: 'r-1' });
  proxy.add({ method: 'POST', path: '/v1/private/order/place', times: 1, action: { kind: 'respond', status: 503, body } });
  const err = await c.orders.placeOrder(order).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ServiceUnavailableError);
  expect(err).toMatchObject({ retryable: true, venueCode: 50002, httpStatus: 503, requestId: 'r-1' });
  // Not a warning that contradicts the venue ("outcome unknown" of a request that had no effect).
  expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
  expect(lines.filter((l) => /no effect; confirming/.test(l.msg)).map((l) => l.level)).toEqual([30]);
});

test('5xx on a read is retried with backoff; each retry is logged at debug, not as a warning', async () => {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) });
  const c = await proxiedClient({ logger });
  proxy.add({ method: 'GET', path: '/v1/private/user/info', times: 2, action: { kind: 'respond', status: 502, body: 'bad gateway' } });
  expect((await c.user.getUserInfo()).userInfo.userId).toBeTruthy();
  // A retry that may well succeed asks nothing of anyone; the caller reports a final failure. At
  // warn, a venue failing for a while gave a warning per retry (97 in 6 s for one bot, live).
  const retries = lines.filter((l) => l.msg === 'retrying request');
  expect(retries.map((l) => l.level)).toEqual([20, 20]);
});

test('429 with Retry-After: the whole client waits, then the request is retried', async () => {
  const c = await proxiedClient();
  const body = JSON.stringify({ code: 40001, message: 'rate limit reached', data: null, requestId: 'r-429' });
  proxy.add({ method: 'GET', path: '/v1/private/user/asset', times: 1, action: { kind: 'respond', status: 429, body, headers: { 'retry-after': '1' } } });
  const t0 = Date.now();
  const [asset, info] = await Promise.all([c.user.getUserAsset(), (async () => {
    await new Promise((r) => setTimeout(r, 100));
    return c.user.getUserInfo();
  })()]);
  expect(asset.userAsset.assetType).toBe('USDT');
  expect(info.userInfo.userId).toBeTruthy();
  expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
});

test('429 beyond the retry budget surfaces as RateLimitError with retryAfterMs', async () => {
  const c = await proxiedClient({ maxRetries: 0 });
  proxy.add({ method: 'GET', path: '/v1/private/user/asset', times: 1, action: { kind: 'respond', status: 429, body: '', headers: { 'retry-after': '0.2' } } });
  const err = await c.user.getUserAsset().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RateLimitError);
  expect(err).toMatchObject({ retryAfterMs: 200, retryable: true });
});

test('the venue rate limit (real 429 from the exchange) maps to RateLimitError', async () => {
  const local = await startClientEnv({ rateLimits: { ordersPer10s: 2, requestsPerMinute: 2400 } });
  try {
    const { client } = await local.jwtClient({ maxRetries: 0 });
    await client.orders.cancelAllOrders({});
    await client.orders.cancelAllOrders({});
    const err = await client.orders.cancelAllOrders({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBeGreaterThan(0);
  } finally {
    await local.stop();
  }
});

test('timeout on a read: RequestTimeoutError after retries', async () => {
  const c = await proxiedClient({ timeoutMs: 100, maxRetries: 1 });
  proxy.add({ method: 'GET', path: '/v1/private/user/volume-stats', times: 2, action: { kind: 'delay', ms: 400 } });
  await expect(c.user.getVolumeStats()).rejects.toBeInstanceOf(RequestTimeoutError);
});

test('timeout on an order whose answer is late: settled by query, exactly one order', async () => {
  const c = await proxiedClient({ timeoutMs: 150 });
  proxy.add({ method: 'POST', path: '/v1/private/order/place', times: 1, action: { kind: 'delay', ms: 50 } });
  proxy.add({ method: 'POST', path: '/v1/private/order/place', times: 1, action: { kind: 'lose-response' } });
  const r = await c.orders.placeOrder({ ...order, clientOrderId: 'late-1' }, { timeoutMs: 30 });
  expect(r.clientOrderId).toBe('late-1');
  expect(await countOrders(c, 'late-1')).toBe(1);
});

test('the caller can abort a request', async () => {
  const c = await proxiedClient();
  proxy.add({ method: 'GET', path: '/v1/private/user/asset/overview/summary', times: 1, action: { kind: 'delay', ms: 500 } });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  await expect(c.user.getAssetSummary({ signal: ac.signal })).rejects.toBeInstanceOf(RequestAbortedError);
});

test('aborting while the client waits out a 429 or a retry backoff rejects with RequestAbortedError', async () => {
  const { client, userId } = await env.jwtClient({ retryBackoff: { baseMs: 2000, maxMs: 2000 } });
  try {
    await env.admin('/faults', { fault: 'rateLimit', userId, retryAfterSec: 2, count: 1 });
    const ac = new AbortController();
    const t0 = Date.now();
    const gated = client.user.getUserAsset({ signal: ac.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    const err = await gated;
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(err).toMatchObject({ code: 'PERPKIT_ERR_ABORTED', endpoint: 'getUserAsset' });
    // What it was waiting for (it said only "request aborted by the caller (getUserAsset)").
    expect((err as Error).message).toMatch(/^request aborted by the caller \(getUserAsset\) while it waited for the venue's rate limit to lift \(a 429's Retry-After; \d+ ms were left\)$/);
    expect(Date.now() - t0).toBeLessThan(1500);

    await waitFor(() => client.core.gate.remainingMs() === 0, 3000, 'the 429 gate to open');
    await env.admin('/faults', { fault: 'http5xx', userId, status: 503, count: 1 });
    const ac2 = new AbortController();
    const backingOff = client.user.getUserInfo({ signal: ac2.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    ac2.abort();
    const backedOff = await backingOff;
    expect(backedOff).toBeInstanceOf(RequestAbortedError);
    expect((backedOff as Error).message).toMatch(/^request aborted by the caller \(getUserInfo\) while it waited to retry after \S+ \(attempt 1 of \d+\)$/);
  } finally {
    await env.admin('/faults', { fault: 'all', on: false });
  }
});

test('a malformed success answer is a MalformedResponseError naming the endpoint and field', async () => {
  const c = await proxiedClient();
  const body = JSON.stringify({ code: 0, message: 'success', data: { volume30d: 12.5, feeTotal30d: '0' }, requestId: 'r-bad' });
  proxy.add({ method: 'GET', path: '/v1/private/user/volume-stats', times: 1, action: { kind: 'respond', status: 200, body } });
  const err = await c.user.getVolumeStats().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MalformedResponseError);
  expect(err).toMatchObject({ endpoint: 'getVolumeStats', field: 'data.volume30d', requestId: 'r-bad' });
  expect((err as Error).message).toContain('getVolumeStats');
});

describe('iterateCurrentOrders and int64 order ids (pages answered by the proxy where the exchange has no such ids)', () => {
  const page = (list: object[]): string => JSON.stringify({ code: 0, message: 'success', data: { list, total: list.length }, requestId: 'r-page' });
  async function openOrder(c: PerpClient): Promise<object> {
    await c.orders.placeOrder(order);
    return (await c.orders.getCurrentOrders({ symbol: 'BTCUSDT', limit: 1 })).list[0] as object;
  }
  const collect = async (it: AsyncIterable<{ orderId: string }>): Promise<string[]> => {
    const ids: string[] = [];
    for await (const o of it) ids.push(o.orderId);
    return ids;
  };

  test('a 19-digit id is followed as the cursor, exactly, to the next page', async () => {
    const c = await proxiedClient();
    const rec = await openOrder(c);
    const big = '9223372036854775000';
    proxy.add({ method: 'GET', path: '/v1/private/order/current', times: 1, action: { kind: 'respond', status: 200, body: page([{ ...rec, orderId: big }]) } });
    const before = proxy.seenTargets.length;
    // The second page comes from the exchange: nothing is above that cursor.
    expect(await collect(c.orders.iterateCurrentOrders({ symbol: 'BTCUSDT', limit: 1 }))).toEqual([big]);
    const asked = proxy.seenTargets.slice(before).filter((t) => t.startsWith('GET /v1/private/order/current'));
    expect(asked).toHaveLength(2);
    expect(asked[1]).toContain(`lastOrderId=${big}`);
  });

  test('a full page that does not move past the cursor, or an id that is no integer, throws instead of ending silently', async () => {
    const c = await proxiedClient();
    const rec = await openOrder(c);
    proxy.add({ method: 'GET', path: '/v1/private/order/current', times: 1, action: { kind: 'respond', status: 200, body: page([{ ...rec, orderId: '5' }]) } });
    const stuck = await collect(c.orders.iterateCurrentOrders({ limit: 1, lastOrderId: '5' })).catch((e: unknown) => e);
    expect(stuck).toBeInstanceOf(MalformedResponseError);
    expect(stuck).toMatchObject({ endpoint: 'getCurrentOrders', field: 'data.list[0].orderId' });
    expect((stuck as Error).message).toMatch(/not above the cursor 5/);
    proxy.add({ method: 'GET', path: '/v1/private/order/current', times: 1, action: { kind: 'respond', status: 200, body: page([{ ...rec, orderId: 'ord-7' }]) } });
    const odd = await collect(c.orders.iterateCurrentOrders({ limit: 1 })).catch((e: unknown) => e);
    expect(odd).toBeInstanceOf(MalformedResponseError);
    expect((odd as Error).message).toMatch(/"ord-7", not a base-10 integer id/);
  });

  test('a numeric cursor is still accepted (ids below 2^53)', async () => {
    const c = await proxiedClient();
    expect(await collect(c.orders.iterateCurrentOrders({ lastOrderId: Number.MAX_SAFE_INTEGER }))).toEqual([]);
  });
});
