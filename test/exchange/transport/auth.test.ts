/** Authentication over real HTTP: JWT, refresh rotation, agent SSO, API-key signing, permissions, admin token. */
import { Client } from 'undici';
import { TestClock, signRequest, startTestExchange, type TestExchange } from '../../helpers/exchange';

const ORDER = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' };

describe('login, tokens and refresh', () => {
  let ex: TestExchange;
  const clock = new TestClock();
  let alice: { userId: string; username: string; password: string };
  beforeAll(async () => {
    ex = await startTestExchange({ auth: { accessTokenTtlMs: 60_000 } }, { clock });
    alice = await ex.createUser({ username: 'alice', password: 'correct horse' });
  });
  afterAll(() => ex.stop());

  it('login returns an access token, its expiry in ms and the refresh cookie exactly as specified', async () => {
    const before = clock.now();
    const r = await ex.call<{ accessToken: string; accessExpire: number }>('POST', '/v1/public/user/login', { body: { username: 'alice', password: 'correct horse', deviceId: 'd1' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: 0, message: 'success' });
    expect(r.body.data.accessToken.split('.')).toHaveLength(3);
    expect(r.body.data.accessExpire).toBeGreaterThanOrEqual(before + 60_000);
    expect(r.body.data.accessExpire).toBeLessThanOrEqual(clock.now() + 60_000);
    const cookie = r.headers['set-cookie'];
    expect(String(cookie)).toMatch(/^refreshToken=[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=\/v1\/public\/user$/);
    const claims = JSON.parse(Buffer.from(r.body.data.accessToken.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: alice.userId });
    expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'jti', 'sub']);
  });

  it('wrong password and unknown user get the same 20005 answer', async () => {
    const a = await ex.call('POST', '/v1/public/user/login', { body: { username: 'alice', password: 'wrong' } });
    const b = await ex.call('POST', '/v1/public/user/login', { body: { username: 'nobody', password: 'wrong' } });
    expect([a.status, a.body.code, b.status, b.body.code]).toEqual([401, 20005, 401, 20005]);
    expect(a.body.message).toBe(b.body.message);
  });

  it('login validation: username length, missing password', async () => {
    expect((await ex.call('POST', '/v1/public/user/login', { body: { username: 'al', password: 'x' } })).body.code).toBe(10001);
    expect((await ex.call('POST', '/v1/public/user/login', { body: { username: 'alice' } })).body.code).toBe(10002);
  });

  it('login records lastLoginAt and lastLoginIp for user info', async () => {
    const { accessToken } = await ex.login('alice', 'correct horse');
    const r = await ex.call<{ userInfo: Record<string, unknown> }>('GET', '/v1/private/user/info', { token: accessToken });
    expect(r.body.data.userInfo).toMatchObject({ userId: alice.userId, username: 'alice', agentId: 0, vipLevel: 0, lastLoginIp: expect.stringContaining('127.0.0.1') });
    expect(r.body.data.userInfo.lastLoginAt).toBeGreaterThan(0);
  });

  it('refresh rotates the cookie: the new one works, the old one is dead (20006)', async () => {
    const { cookie } = await ex.login('alice', 'correct horse');
    const r1 = await ex.call<{ accessToken: string; accessExpire: number }>('POST', '/v1/public/user/refresh-token', { headers: { cookie } });
    expect(r1.body.code).toBe(0);
    expect(typeof r1.body.data.accessToken).toBe('string');
    const next = String(r1.headers['set-cookie']).split(';')[0];
    expect(next).not.toBe(cookie);
    const again = await ex.call('POST', '/v1/public/user/refresh-token', { headers: { cookie } });
    expect([again.status, again.body.code]).toEqual([401, 20006]);
    const r2 = await ex.call('POST', '/v1/public/user/refresh-token', { headers: { cookie: `other=1; ${next}` } });
    expect(r2.body.code).toBe(0);
    const ok = await ex.call('GET', '/v1/private/user/info', { token: r1.body.data.accessToken });
    expect(ok.body.code).toBe(0);
  });

  it('refresh without cookie or with a made-up one: 20006', async () => {
    expect((await ex.call('POST', '/v1/public/user/refresh-token')).body.code).toBe(20006);
    expect((await ex.call('POST', '/v1/public/user/refresh-token', { headers: { cookie: 'refreshToken=forged' } })).body.code).toBe(20006);
  });

  it('bearer token missing, malformed, forged or expired: 20001', async () => {
    const { accessToken } = await ex.login('alice', 'correct horse');
    const none = await ex.call('GET', '/v1/private/user/info');
    expect([none.status, none.body.code]).toEqual([401, 20001]);
    expect((await ex.call('GET', '/v1/private/user/info', { headers: { authorization: 'Basic abc' } })).body.code).toBe(20001);
    const [h, p] = accessToken.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ sub: '10000099', iat: 1, exp: 9e12, jti: 'x' })).toString('base64url');
    expect((await ex.call('GET', '/v1/private/user/info', { token: `${h}.${forgedPayload}.${accessToken.split('.')[2]}` })).body.code).toBe(20001);
    expect((await ex.call('GET', '/v1/private/user/info', { token: `${h}.${p}.AAAA` })).body.code).toBe(20001);
    const none256 = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    expect((await ex.call('GET', '/v1/private/user/info', { token: none256 })).body.code).toBe(20001);
    clock.advance(61_000);
    const expired = await ex.call('GET', '/v1/private/user/info', { token: accessToken });
    expect([expired.status, expired.body.code]).toEqual([401, 20001]);
  });

  it('on one kept-alive connection: each request acts for its own token, and a token that worked is refused once expired', async () => {
    const bob = await ex.createUser({ username: 'bob', password: 'battery staple' });
    const aliceToken = (await ex.login('alice', 'correct horse')).accessToken;
    const bobToken = (await ex.login('bob', 'battery staple')).accessToken;
    const conn = new Client(ex.url);
    try {
      const info = async (token: string): Promise<{ code: number; userId?: string }> => {
        const r = await conn.request({ method: 'GET', path: '/v1/private/user/info', headers: { authorization: `Bearer ${token}` } });
        const body = (await r.body.json()) as { code: number; data: { userInfo: { userId: string } } | null };
        return { code: body.code, userId: body.data?.userInfo.userId };
      };
      expect(await info(aliceToken)).toEqual({ code: 0, userId: alice.userId });
      expect(await info(aliceToken)).toEqual({ code: 0, userId: alice.userId });
      expect(await info(bobToken)).toEqual({ code: 0, userId: bob.userId });
      expect(await info(aliceToken)).toEqual({ code: 0, userId: alice.userId });
      clock.advance(61_000);
      expect((await info(aliceToken)).code).toBe(20001);
    } finally {
      await conn.close();
    }
  });
});

describe('the leaderboard is public: credentials that do not authenticate are answered anonymously', () => {
  let ex: TestExchange;
  const clock = new TestClock();
  beforeAll(async () => {
    ex = await startTestExchange({ auth: { accessTokenTtlMs: 60_000 } }, { clock });
  });
  afterAll(() => ex.stop());

  it('an expired, forged or malformed token, or a bad API-key signature: 200 with myRank 0, as without any; a valid token gets its rank', async () => {
    const dan = await ex.createUser({ username: 'dan', balance: '10000' });
    const erin = await ex.createUser({ username: 'erin', balance: '10000' });
    const td = (await ex.login(dan.username, dan.password)).accessToken;
    const te = (await ex.login(erin.username, erin.password)).accessToken;
    await ex.call('POST', '/v1/private/order/place', { token: te, body: { ...ORDER, side: 'SELL', price: '50000' } });
    expect((await ex.call('POST', '/v1/private/order/place', { token: td, body: { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.01' } })).body.code).toBe(0);
    const board = (opts: Parameters<TestExchange['call']>[2] = {}) => ex.call<{ list: unknown[]; myRank: number }>('GET', '/v1/public/leaderboard/pnl', { ...opts, query: { period: '7d' } });
    const anon = await board();
    expect([anon.status, anon.body.code, anon.body.data.myRank, anon.body.data.list]).toEqual([200, 0, 0, expect.any(Array)]);
    expect(anon.body.data.list).toHaveLength(2);
    const signedIn = await board({ token: td });
    expect([signedIn.body.code, signedIn.body.data.myRank > 0]).toEqual([0, true]);
    const key = await ex.createApiKey(dan.userId, ['READ']);
    expect((await board({ apiKey: key.apiKey, secret: key.secret })).body.data.myRank).toBe(signedIn.body.data.myRank);

    clock.advance(61_000);
    // The same token, expired: refused where it is needed, answered anonymously here.
    expect((await ex.call('GET', '/v1/private/user/info', { token: td })).body.code).toBe(20001);
    const expired = await board({ token: td });
    expect([expired.status, expired.body.code, expired.body.data]).toEqual([200, 0, anon.body.data]);
    const [h, p] = td.split('.');
    for (const opts of [{ token: `${h}.${p}.AAAA` }, { token: 'bad' }, { headers: { authorization: 'Basic abc' } }, { apiKey: key.apiKey, secret: 'not-the-secret' }]) {
      const r = await board(opts);
      expect([r.status, r.body.code, r.body.data.myRank]).toEqual([200, 0, 0]);
    }
  });
});

describe('agent SSO', () => {
  let ex: TestExchange;
  const clock = new TestClock();
  let userId: string;
  const admin = { 'x-admin-token': 'test-admin-token' };
  beforeAll(async () => {
    ex = await startTestExchange({}, { clock });
    userId = (await ex.createUser()).userId;
  });
  afterAll(() => ex.stop());

  const mintTicket = async (): Promise<string> => (await ex.call<{ ticket: string }>('POST', '/v1/admin/agent-sso/ticket', { headers: admin, body: { userId } })).body.data.ticket;
  const mintEmbed = async (channelId: string): Promise<string> =>
    (await ex.call<{ embedToken: string }>('POST', '/v1/admin/agent-sso/embed-token', { headers: admin, body: { userId, channelId } })).body.data.embedToken;

  it('a ticket exchanges once for an access token and a redirect path', async () => {
    const ticket = await mintTicket();
    const r = await ex.call<{ accessToken: string; accessExpire: number; redirectPath: string }>('POST', '/v1/public/agent-sso/exchange-ticket', { body: { ticket, deviceId: 'dev' } });
    expect(r.body.code).toBe(0);
    expect(r.body.data.redirectPath).toBe('/trade');
    expect(r.body.data.accessExpire).toBeGreaterThan(clock.now());
    expect((await ex.call('GET', '/v1/private/user/info', { token: r.body.data.accessToken })).body.code).toBe(0);
    const again = await ex.call('POST', '/v1/public/agent-sso/exchange-ticket', { body: { ticket } });
    expect([again.status, again.body.code]).toEqual([401, 20007]);
  });

  it('a ticket expires after 60 s', async () => {
    const ticket = await mintTicket();
    clock.advance(60_001);
    expect((await ex.call('POST', '/v1/public/agent-sso/exchange-ticket', { body: { ticket } })).body.code).toBe(20007);
  });

  it('an unknown ticket: 20007', async () => {
    expect((await ex.call('POST', '/v1/public/agent-sso/exchange-ticket', { body: { ticket: 'nope' } })).body.code).toBe(20007);
  });

  it('an embed token is bound to its channel, works once, and expires after 5 minutes', async () => {
    const token = await mintEmbed('chan-1');
    const wrong = await ex.call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken: token, channelId: 'chan-2' } });
    expect(wrong.body.code).toBe(20007);
    const ok = await ex.call<{ accessToken: string; accessExpire: number }>('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken: token, channelId: 'chan-1' } });
    expect(ok.body.code).toBe(0);
    expect(Object.keys(ok.body.data).sort()).toEqual(['accessExpire', 'accessToken']);
    expect((await ex.call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken: token, channelId: 'chan-1' } })).body.code).toBe(20007);
    const late = await mintEmbed('chan-1');
    clock.advance(4 * 60_000);
    const still = await mintEmbed('chan-1');
    clock.advance(60_001);
    expect((await ex.call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken: late, channelId: 'chan-1' } })).body.code).toBe(20007);
    expect((await ex.call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken: still, channelId: 'chan-1' } })).body.code).toBe(0);
  });

  it('embed exchange needs channelId (10002)', async () => {
    expect((await ex.call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken: 'x' } })).body.code).toBe(10002);
  });
});

describe('API-key signing and permissions', () => {
  let ex: TestExchange;
  let userId: string;
  let read: { apiKey: string; secret: string };
  let trade: { apiKey: string; secret: string };
  let both: { apiKey: string; secret: string };
  beforeAll(async () => {
    ex = await startTestExchange();
    userId = (await ex.createUser()).userId;
    read = await ex.createApiKey(userId, ['READ']);
    trade = await ex.createApiKey(userId, ['TRADE']);
    both = await ex.createApiKey(userId, ['READ', 'TRADE']);
  });
  afterAll(() => ex.stop());

  it('a signed GET with a query and a signed POST with a body succeed', async () => {
    const g = await ex.call('GET', '/v1/private/user/account-change-log', { ...both, query: { page: 1, pageSize: 5 } });
    expect(g.body.code).toBe(0);
    const p = await ex.call<{ orderId: string }>('POST', '/v1/private/order/place', { ...both, body: ORDER });
    expect(p.body.code).toBe(0);
    const d = await ex.call('DELETE', '/v1/private/user/listen-key', { ...both, body: { listenKey: 'x' } });
    expect(d.body.code).toBe(20008);
  });

  it('signature over the exact bytes: another body, method, path or secret is 20002', async () => {
    const ts = Date.now();
    const body = JSON.stringify(ORDER);
    const good = signRequest(both.secret, ts, 'POST', '/v1/private/order/place', body);
    const base = { 'x-api-key': both.apiKey, 'x-timestamp': String(ts), 'content-type': 'application/json' };
    const tampered = await ex.call('POST', '/v1/private/order/place', { body: JSON.stringify({ ...ORDER, quantity: '0.02' }), headers: { ...base, 'x-signature': good } });
    expect([tampered.status, tampered.body.code]).toEqual([401, 20002]);
    const wrongSecret = await ex.call('POST', '/v1/private/order/place', { apiKey: both.apiKey, secret: 'not-the-secret', body: ORDER });
    expect(wrongSecret.body.code).toBe(20002);
    const unknownKey = await ex.call('POST', '/v1/private/order/place', { apiKey: 'unknown', secret: both.secret, body: ORDER });
    expect(unknownKey.body.code).toBe(20002);
    const upper = await ex.call('POST', '/v1/private/order/place', { body, headers: { ...base, 'x-signature': good.toUpperCase() } });
    expect(upper.body.code).toBe(20002);
    const exact = await ex.call('POST', '/v1/private/order/place', { body, headers: { ...base, 'x-signature': good } });
    expect(exact.body.code).toBe(0);
  });

  it('timestamp outside recvWindow is 20003; a wider X-RECV-WINDOW (up to 60000) admits it', async () => {
    const old = Date.now() - 10_000;
    const r = await ex.call('GET', '/v1/private/user/asset', { ...read, timestamp: old });
    expect([r.status, r.body.code]).toEqual([401, 20003]);
    const future = await ex.call('GET', '/v1/private/user/asset', { ...read, timestamp: Date.now() + 10_000 });
    expect(future.body.code).toBe(20003);
    const wide = await ex.call('GET', '/v1/private/user/asset', { ...read, timestamp: old, headers: { 'x-recv-window': '60000' } });
    expect(wide.body.code).toBe(0);
    const tooWide = await ex.call('GET', '/v1/private/user/asset', { ...read, headers: { 'x-recv-window': '60001' } });
    expect(tooWide.body.code).toBe(10001);
    const notInt = await ex.call('GET', '/v1/private/user/asset', { ...read, headers: { 'x-timestamp': '1e12' } });
    expect(notInt.body.code).toBe(10001);
  });

  it('missing X-SIGNATURE or X-TIMESTAMP: 20001', async () => {
    expect((await ex.call('GET', '/v1/private/user/asset', { headers: { 'x-api-key': read.apiKey, 'x-timestamp': String(Date.now()) } })).body.code).toBe(20001);
    expect((await ex.call('GET', '/v1/private/user/asset', { headers: { 'x-api-key': read.apiKey, 'x-signature': 'ab' } })).body.code).toBe(20001);
  });

  it('READ key on TRADE endpoints and TRADE key on READ endpoints: 20004', async () => {
    const r = await ex.call('POST', '/v1/private/order/place', { ...read, body: ORDER });
    expect([r.status, r.body.code]).toEqual([403, 20004]);
    // Counted, and said in the headers every answer carries (PROTOCOL.md section 8): a refused
    // request had neither, and the next one showed the count unchanged.
    const refused = await ex.call('GET', '/v1/private/position/positions', { ...read });
    expect(refused.body.code).toBe(20004);
    const left = Number(refused.headers['x-ratelimit-remaining']);
    expect(refused.headers['x-ratelimit-limit']).toBeDefined();
    expect(Number.isInteger(left)).toBe(true);
    expect(Number((await ex.call('GET', '/v1/private/position/positions', { ...read })).headers['x-ratelimit-remaining'])).toBe(left - 1);
    expect((await ex.call('GET', '/v1/private/user/asset', { ...trade })).body.code).toBe(20004);
    expect((await ex.call('GET', '/v1/private/order/current', { ...trade })).body.code).toBe(0);
    expect((await ex.call('GET', '/v1/private/user/asset', { ...read })).body.code).toBe(0);
  });

  it('JWT sessions hold both permissions', async () => {
    const u = await ex.createUser();
    const { accessToken } = await ex.login(u.username, u.password);
    expect((await ex.call('POST', '/v1/private/order/place', { token: accessToken, body: ORDER })).body.code).toBe(0);
    expect((await ex.call('GET', '/v1/private/user/asset', { token: accessToken })).body.code).toBe(0);
  });
});

describe('admin token', () => {
  it('wrong or missing token: 20001; correct token works', async () => {
    const ex = await startTestExchange();
    try {
      const body = { username: 'someone', password: 'pw', balance: '10' };
      const missing = await ex.call('POST', '/v1/admin/users', { body });
      expect([missing.status, missing.body.code]).toEqual([401, 20001]);
      const wrong = await ex.call('POST', '/v1/admin/users', { body, headers: { 'x-admin-token': 'test-admin-tokem' } });
      expect(wrong.body.code).toBe(20001);
      const ok = await ex.call('POST', '/v1/admin/users', { body, headers: { 'x-admin-token': ex.adminToken } });
      expect(ok.body.code).toBe(0);
    } finally {
      await ex.stop();
    }
  });

  it('without a configured token the admin API does not exist: 10006', async () => {
    const ex = await startTestExchange({ adminToken: undefined });
    try {
      const r = await ex.call('POST', '/v1/admin/users', { body: { username: 'someone', password: 'pw', balance: '10' }, headers: { 'x-admin-token': 'anything' } });
      expect([r.status, r.body.code]).toEqual([404, 10006]);
      expect((await ex.call('POST', '/v1/admin/market/mark-price', { body: {} })).body.code).toBe(10006);
    } finally {
      await ex.stop();
    }
  });
});
