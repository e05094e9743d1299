/**
 * The authorization matrix (issue 8, docs/reliability.md "Authorization matrix"): every private
 * endpoint of the registry against every way of being the wrong caller, and every admin endpoint
 * against every way of not holding the admin token. Each endpoint gets its valid request
 * (support.ts), so a refusal can only come from authentication or authorization, and every refused
 * request must leave the state fingerprint as it was.
 *
 * auth.test.ts shows each mechanism once on a few endpoints; this file covers the whole table.
 */
import { ENDPOINTS, ENDPOINT_NAMES, type AnyEndpoint, type EndpointName } from '../../src/protocol/endpoints';
import { TestClock, signRequest, startTestExchange, type CallOptions, type CallResult, type TestExchange } from '../helpers/exchange';
import { envelopeProblem, fingerprint, ORDER, sampleRequest, seedUser, type Rec, type SampleIds } from './support';

const PRIVATE = ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].auth === 'private');
const ADMIN = ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].auth === 'admin');
const OPTIONAL = ENDPOINT_NAMES.filter((n) => ENDPOINTS[n].auth === 'optional');
const ACCESS_TTL_MS = 15 * 60 * 1000;
const RECV_WINDOW_DEFAULT = 5000;

type Key = { apiKey: string; secret: string };
type Seeded = Awaited<ReturnType<typeof seedUser>>;

const label = (n: EndpointName): string => `${ENDPOINTS[n].method} ${ENDPOINTS[n].path}`;

describe('authorization matrix', () => {
  const clock = new TestClock();
  let ex: TestExchange;
  let alice: Seeded;
  let bob: Seeded;
  let ids: SampleIds;
  let expiredToken: string;
  let keys: { read: Key; trade: Key; both: Key };
  let watched: string[];

  beforeAll(async () => {
    ex = await startTestExchange({ rateLimits: { ordersPer10s: 1_000_000, requestsPerMinute: 1_000_000 } }, { clock });
    alice = await seedUser(ex, 'az-alice');
    bob = await seedUser(ex, 'az-bob');
    expiredToken = (await ex.login(alice.username, alice.password)).accessToken;
    // Every token issued so far is now past its 15 minutes; the fresh logins below are not.
    clock.advance(ACCESS_TTL_MS + 1000);
    alice.token = (await ex.login(alice.username, alice.password)).accessToken;
    bob.token = (await ex.login(bob.username, bob.password)).accessToken;
    keys = {
      read: await ex.createApiKey(alice.userId, ['READ']),
      trade: await ex.createApiKey(alice.userId, ['TRADE']),
      both: await ex.createApiKey(alice.userId, ['READ', 'TRADE']),
    };
    ids = { ...alice, ticket: 'unused', embedToken: 'unused', channelId: 'unused' };
    watched = [alice.listenKey, bob.listenKey];
  });
  afterAll(() => ex.stop());

  /** Sends the endpoint's valid request with the given credentials; asserts the refusal and that nothing changed. */
  async function refused(name: EndpointName, creds: CallOptions, expected: [number, number]): Promise<CallResult<unknown>> {
    const ep: AnyEndpoint = ENDPOINTS[name];
    const before = fingerprint(ex.server, watched);
    const r = await ex.call(ep.method, ep.path, { ...sampleRequest(name, ids), ...creds });
    expect(envelopeProblem(r)).toBeUndefined();
    expect({ endpoint: label(name), answer: [r.status, r.body.code] }).toEqual({ endpoint: label(name), answer: expected });
    expect(fingerprint(ex.server, watched)).toBe(before);
    return r;
  }

  /** Signing headers of the endpoint's valid request, made at `ts` with `secret`, for `pathOverride` if given. */
  function signed(name: EndpointName, key: Key, ts: number, secret = key.secret, pathOverride?: string): CallOptions {
    const ep: AnyEndpoint = ENDPOINTS[name];
    const s = sampleRequest(name, ids);
    const target = `${pathOverride ?? ep.path}${s.query !== undefined ? `?${s.query}` : ''}`;
    return { headers: { 'x-api-key': key.apiKey, 'x-timestamp': String(ts), 'x-signature': signRequest(secret, ts, ep.method, target, s.body ?? '') } };
  }

  describe('(a) no credentials: 401 / 20001', () => {
    it.each(PRIVATE)('%s', async (name) => {
      await refused(name, {}, [401, 20001]);
      // Credentials in the wrong form are no credentials either.
      await refused(name, { headers: { authorization: alice.token } }, [401, 20001]);
      await refused(name, { headers: { authorization: 'Basic YWxpY2U6cHc=' } }, [401, 20001]);
      await refused(name, { headers: { cookie: alice.cookie } }, [401, 20001]);
    });
  });

  describe('(b) expired or foreign access token: 401 / 20001', () => {
    it.each(PRIVATE)('%s', async (name) => {
      await refused(name, { token: expiredToken }, [401, 20001]);
      // Same claims, another exchange's key: the signature cannot match.
      const [h, p] = alice.token.split('.');
      await refused(name, { token: `${h}.${p}.${'A'.repeat(43)}` }, [401, 20001]);
    });
  });

  describe('(c) API key with a wrong signature: 401 / 20002', () => {
    it.each(PRIVATE)('%s', async (name) => {
      await refused(name, signed(name, keys.both, clock.now(), 'not-the-secret'), [401, 20002]);
      // A genuine signature, but of the same request on another path.
      const other = ENDPOINTS[name].path === '/v1/private/user/info' ? '/v1/private/user/asset' : '/v1/private/user/info';
      await refused(name, signed(name, keys.both, clock.now(), keys.both.secret, other), [401, 20002]);
      // An unknown key signed with a real secret.
      await refused(name, signed(name, { apiKey: 'no-such-key', secret: keys.both.secret }, clock.now()), [401, 20002]);
    });
  });

  describe('(d) a valid signature replayed outside recvWindow: 401 / 20003', () => {
    it.each(PRIVATE)('%s', async (name) => {
      // Captured now, replayed once the default window has passed.
      const captured = signed(name, keys.both, clock.now());
      clock.advance(RECV_WINDOW_DEFAULT + 1);
      await refused(name, captured, [401, 20003]);
      // Even the widest window a client may ask for does not admit an older one.
      const old = signed(name, keys.both, clock.now() - 60_001);
      await refused(name, { headers: { ...old.headers, 'x-recv-window': '60000' } }, [401, 20003]);
    });
  });

  describe('(e) a key without the permission the endpoint needs: 403 / 20004', () => {
    it.each(PRIVATE)('%s', async (name) => {
      const need = ENDPOINTS[name].permission;
      const wrong = need === 'TRADE' ? keys.read : keys.trade;
      await refused(name, { ...wrong }, [403, 20004]);
    });

    it('order and position endpoints need TRADE, user and account endpoints READ (PROTOCOL.md section 2)', () => {
      for (const name of PRIVATE) {
        const ep: AnyEndpoint = ENDPOINTS[name];
        const expected = ep.path.startsWith('/v1/private/order') || ep.path.startsWith('/v1/private/position') ? 'TRADE' : 'READ';
        expect({ name, permission: ep.permission }).toEqual({ name, permission: expected });
      }
    });
  });

  // ---------------------------------------------------------------- (f) another user's ids

  describe("(f) another user's ids behave exactly as missing ones and change nothing", () => {
    const MISSING = { orderId: '987654321', clientOrderId: 'no-such-client-id', conditionId: '987654321', strategyId: '987654321', listenKey: 'A'.repeat(32) };

    /** Status, code, and the message (or batch results) with the id written as <id>. */
    function shape(r: CallResult<unknown>, id: string): unknown {
      const norm = (s: string): string => s.split(id).join('<id>');
      const data = r.body.data as Rec | null;
      const results = Array.isArray(data?.results) ? (data.results as Rec[]).map((x) => ({ success: x.success, code: x.code, message: norm(String(x.message)) })) : undefined;
      const list = Array.isArray(data?.list) ? (data.list as unknown[]).length : undefined;
      return { status: r.status, code: r.body.code, message: norm(r.body.message), results, list };
    }

    const cases: Array<{ title: string; name: EndpointName; field: keyof typeof MISSING; body: (id: string) => Rec; code: number }> = [
      { title: 'query an order by orderId', name: 'getOrder', field: 'orderId', body: (id) => ({ symbol: 'BTCUSDT', orderId: id }), code: 30001 },
      { title: 'query an order by clientOrderId', name: 'getOrder', field: 'clientOrderId', body: (id) => ({ symbol: 'BTCUSDT', clientOrderId: id }), code: 30001 },
      { title: 'cancel by orderId', name: 'cancelOrder', field: 'orderId', body: (id) => ({ symbol: 'BTCUSDT', orderId: id }), code: 30001 },
      { title: 'cancel by clientOrderId', name: 'cancelOrder', field: 'clientOrderId', body: (id) => ({ symbol: 'BTCUSDT', clientOrderId: id }), code: 30001 },
      { title: 'amend', name: 'moveOrder', field: 'orderId', body: (id) => ({ symbol: 'BTCUSDT', orderId: id, price: '39000', quantity: '0.02' }), code: 30001 },
      { title: 'batch cancel', name: 'batchCancelOrders', field: 'orderId', body: (id) => ({ orders: [{ symbol: 'BTCUSDT', orderId: id }] }), code: 0 },
      { title: 'batch cancel by clientOrderId', name: 'batchCancelOrders', field: 'clientOrderId', body: (id) => ({ orders: [{ symbol: 'BTCUSDT', clientOrderId: id }] }), code: 0 },
      { title: 'batch amend', name: 'batchMoveOrders', field: 'orderId', body: (id) => ({ symbol: 'BTCUSDT', orders: [{ orderId: id, price: '39000', quantity: '0.02' }] }), code: 0 },
      { title: 'order history filtered by orderId', name: 'getOrderHistory', field: 'orderId', body: (id) => ({ orderId: id }), code: 0 },
      { title: 'order history filtered by clientOrderId', name: 'getOrderHistory', field: 'clientOrderId', body: (id) => ({ clientOrderId: id }), code: 0 },
      { title: 'trades filtered by orderId', name: 'getTrades', field: 'orderId', body: (id) => ({ orderId: id }), code: 0 },
      { title: 'cancel a condition order', name: 'cancelConditionOrder', field: 'conditionId', body: (id) => ({ symbol: 'BTCUSDT', conditionId: id }), code: 30015 },
      { title: 'query a strategy order', name: 'getStrategyOrder', field: 'strategyId', body: (id) => ({ strategyId: id }), code: 30016 },
      { title: 'keep a listenKey alive', name: 'extendListenKey', field: 'listenKey', body: (id) => ({ listenKey: id }), code: 20008 },
      { title: 'close a listenKey', name: 'closeListenKey', field: 'listenKey', body: (id) => ({ listenKey: id }), code: 20008 },
    ];

    it('covers every private endpoint that takes an id', () => {
      const idFields = new Set(['orderId', 'clientOrderId', 'conditionId', 'strategyId', 'listenKey']);
      // placeOrder takes a clientOrderId to create, not to find: the next test covers it.
      const covered = new Set<EndpointName>([...cases.map((c) => c.name), 'placeOrder']);
      // An endpoint whose sample names one of these ids must have a case above.
      const takingIds = PRIVATE.filter((n) => {
        const s = sampleRequest(n, ids);
        return [...idFields].some((f) => (s.query ?? '').includes(`${f}=`) || (s.body ?? '').includes(`"${f}"`));
      });
      expect(takingIds.filter((n) => !covered.has(n))).toEqual([]);
    });

    it.each(cases)('$title ($name, $field)', async ({ name, field, body, code }) => {
      const ep: AnyEndpoint = ENDPOINTS[name];
      const send = (id: string): Promise<CallResult<unknown>> => {
        const input = body(id);
        const place = ep.method === 'GET' ? { query: Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)])) } : { body: input };
        return ex.call(ep.method, ep.path, { token: alice.token, ...place });
      };
      const bobsId = String(bob[field]);
      const before = fingerprint(ex.server, watched);
      const foreign = await send(bobsId);
      const after = fingerprint(ex.server, watched);
      const missing = await send(MISSING[field]);
      expect(foreign.body.code).toBe(code);
      expect(shape(foreign, bobsId)).toEqual(shape(missing, MISSING[field]));
      // Batches journal their (all-failed) command, so compare the engine's state for them.
      if (name === 'batchCancelOrders' || name === 'batchMoveOrders') {
        expect(JSON.parse(after).engine).toEqual(JSON.parse(before).engine);
      } else {
        expect(after).toBe(before);
      }
    });

    it("bob's clientOrderId is free for alice: no 30002 that would reveal it exists", async () => {
      const r = await ex.call('POST', '/v1/private/order/place', { token: alice.token, body: { ...ORDER, price: '30000', clientOrderId: bob.clientOrderId } });
      expect(r.body.code).toBe(0);
      const again = await ex.call('POST', '/v1/private/order/place', { token: alice.token, body: { ...ORDER, price: '30000', clientOrderId: bob.clientOrderId } });
      expect(again.body.code).toBe(30002);
    });

    it("lists and bulk actions never show or touch bob's records", async () => {
      const bobBefore = JSON.stringify({
        orders: ex.server.core.engine.currentOrders(bob.userId, {}),
        conditions: ex.server.core.engine.currentConditions(bob.userId, undefined),
        strategy: ex.server.core.engine.strategy(bob.userId, bob.strategyId),
      });
      // Order and condition ids are global sequences: any of bob's showing up in alice's lists is a leak.
      const engine = ex.server.core.engine;
      const bobOrders = new Set(engine.orderHistory(bob.userId, { pageSize: 1000 }).list.map((o) => o.orderId));
      const bobConditions = new Set(engine.conditionHistory(bob.userId, { pageSize: 1000 }).list.map((c) => c.conditionId));
      expect(bobOrders.size).toBeGreaterThan(0);
      expect(bobConditions.size).toBeGreaterThan(0);
      const lists: Array<[string, Rec]> = [
        ['/v1/private/order/current', {}],
        ['/v1/private/order/current-condition', {}],
        ['/v1/private/order/history', {}],
        ['/v1/private/order/history-condition', {}],
      ];
      for (const [path, query] of lists) {
        const r = await ex.call<{ list: Rec[] }>('GET', path, { token: alice.token, query: query as Record<string, string> });
        expect(r.body.code).toBe(0);
        const leaked = r.body.data.list.filter((x) => bobOrders.has(String(x.orderId)) || bobConditions.has(String(x.conditionId)));
        expect({ path, leaked }).toEqual({ path, leaked: [] });
      }
      for (const symbol of ['BTCUSDT', 'ETHUSDT']) {
        expect((await ex.call('POST', '/v1/private/order/batch-cancel-all', { token: alice.token, body: { symbol, cancelType: 0 } })).body.code).toBe(0);
        expect((await ex.call('POST', '/v1/private/order/batch-cancel-all', { token: alice.token, body: { symbol, cancelType: 1 } })).body.code).toBe(0);
      }
      expect(
        JSON.stringify({
          orders: ex.server.core.engine.currentOrders(bob.userId, {}),
          conditions: ex.server.core.engine.currentConditions(bob.userId, undefined),
          strategy: ex.server.core.engine.strategy(bob.userId, bob.strategyId),
        }),
      ).toBe(bobBefore);
      expect(ex.server.listenKeys.lookup(bob.listenKey)).toBeDefined();
    });
  });

  // ---------------------------------------------------------------- optional auth and admin

  describe('optional-auth endpoints: anonymous works, and bad credentials are answered as anonymous', () => {
    it.each(OPTIONAL)('%s', async (name) => {
      const ep: AnyEndpoint = ENDPOINTS[name];
      const anon = await ex.call(ep.method, ep.path, sampleRequest(name, ids));
      expect(anon.body.code).toBe(0);
      // Public endpoints (SERVICE_SPEC: the leaderboard's myRank is 0 for an unauthenticated
      // caller): an expired token or a bad signature gets the anonymous answer, not a 401.
      for (const creds of [{ token: expiredToken }, signed(name, keys.both, clock.now(), 'not-the-secret')]) {
        const r = await ex.call(ep.method, ep.path, { ...sampleRequest(name, ids), ...creds });
        expect([r.status, r.body.code, r.body.data]).toEqual([200, 0, anon.body.data]);
      }
    });
  });

  describe('admin API: a missing or wrong X-ADMIN-TOKEN is 401 / 20001', () => {
    it.each(ADMIN)('%s', async (name) => {
      const right = ex.adminToken;
      const wrongs = ['', 'x', right.slice(0, -1), `${right}x`, right.toUpperCase(), `${right.slice(0, -1)}${right.endsWith('n') ? 'm' : 'n'}`, 'A'.repeat(4096)];
      await refused(name, {}, [401, 20001]);
      for (const w of wrongs) await refused(name, { headers: { 'x-admin-token': w } }, [401, 20001]);
      // A user's session or API key is not an admin credential.
      await refused(name, { token: alice.token }, [401, 20001]);
      await refused(name, signed(name, keys.both, clock.now()), [401, 20001]);
      await refused(name, { headers: { authorization: `Bearer ${right}` } }, [401, 20001]);
    });
  });

  // Last, because these requests are accepted and change alice's state.
  describe('the matching credential is let through (the refusals above are not blanket ones)', () => {
    it.each(PRIVATE)('%s', async (name) => {
      const need = ENDPOINTS[name].permission;
      const ep: AnyEndpoint = ENDPOINTS[name];
      const key = need === 'TRADE' ? keys.trade : keys.read;
      const r = await ex.call(ep.method, ep.path, { ...sampleRequest(name, ids), ...key });
      expect({ endpoint: label(name), refusedByAuth: [20001, 20002, 20003, 20004].includes(r.body.code) }).toEqual({ endpoint: label(name), refusedByAuth: false });
    });
  });
});

describe('admin API without a configured token does not exist: 404 / 10006', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange({ adminToken: undefined });
  });
  afterAll(() => ex.stop());

  it.each(ADMIN)('%s', async (name) => {
    const ep: AnyEndpoint = ENDPOINTS[name];
    const variants: Array<Record<string, string>> = [{}, { 'x-admin-token': '' }, { 'x-admin-token': 'test-admin-token' }, { 'x-admin-token': 'undefined' }];
    for (const headers of variants) {
      const before = fingerprint(ex.server);
      const r = await ex.call(ep.method, ep.path, { ...sampleRequest(name, { userId: '10000001' } as SampleIds), headers });
      expect(envelopeProblem(r)).toBeUndefined();
      expect([r.status, r.body.code]).toEqual([404, 10006]);
      expect(fingerprint(ex.server)).toBe(before);
    }
  });
});
