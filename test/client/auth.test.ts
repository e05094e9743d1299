/** Authentication paths against the local exchange: sessions, refresh, signatures, clock, permissions. */
import { AuthenticationError, PerpClient, PermissionDeniedError, RequestAbortedError, RequestTimeoutError } from '../../src/client';
import { TestClock } from '../helpers/exchange';
import { startClientEnv, type ClientEnv } from './support/env';

let env: ClientEnv;
const clock = new TestClock();

beforeAll(async () => {
  env = await startClientEnv({}, { clock });
});
afterAll(async () => env.stop());

test('bad credentials: login answers AuthenticationError 20005', async () => {
  const u = await env.ex.createUser();
  const err = await env.client().login(u.username, 'wrong-password').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AuthenticationError);
  expect(err).toMatchObject({ venueCode: 20005, httpStatus: 401, retryable: false });
});

test('no credentials on a private endpoint: AuthenticationError 20001', async () => {
  await expect(env.client().user.getUserInfo()).rejects.toMatchObject({ venueCode: 20001, code: 'PERPKIT_ERR_AUTHENTICATION' });
});

test('the access token is renewed before it expires', async () => {
  const { client } = await env.jwtClient({ clock });
  const first = client.session?.accessToken;
  clock.advance(15 * 60 * 1000 - 30_000); // 30 s left, under the 60 s margin
  await client.user.getUserInfo();
  expect(client.session?.accessToken).not.toBe(first);
  expect(client.session?.accessExpire).toBeGreaterThan(clock.now() + 10 * 60 * 1000);
});

test('an expired token refused with 20001 is refreshed once and the request retried', async () => {
  // The client's own clock does not move, so it believes its token is fresh; the venue's does.
  const { client } = await env.jwtClient({ clock: { now: () => Date.now() } });
  const first = client.session?.accessToken;
  clock.advance(16 * 60 * 1000);
  const info = await client.user.getUserInfo();
  expect(info.userInfo.userId).toBeTruthy();
  expect(client.session?.accessToken).not.toBe(first);
});

test('a rotated refresh cookie cannot be used twice (20006)', async () => {
  const { client } = await env.jwtClient({ clock });
  const stale = client.core.session?.refreshCookie;
  await client.public.refreshToken();
  const replay = new PerpClient({ baseUrl: env.ex.url });
  replay.core.useSession(client.core.session);
  const copy = replay.core.session;
  if (copy === undefined || stale === undefined) throw new Error('no session');
  replay.core.useSession(Object.assign(Object.create(Object.getPrototypeOf(copy) as object) as typeof copy, copy, { refreshCookie: stale }));
  await expect(replay.public.refreshToken()).rejects.toMatchObject({ venueCode: 20006 });
  await replay.close();
});

test('refreshToken takes the request options: timeoutMs bounds the request, signal ends the wait', async () => {
  const { client } = await env.jwtClient({ clock });
  const before = client.session?.accessToken;
  expect((await client.public.refreshToken({ timeoutMs: 5000 })).accessToken).not.toBe(before);
  await env.admin('/faults', { on: true, fault: 'delayMs', ms: 600, pathPrefix: '/v1/public/user/refresh-token', count: 1 });
  await expect(client.public.refreshToken({ timeoutMs: 50 })).rejects.toBeInstanceOf(RequestTimeoutError);
  const ac = new AbortController();
  ac.abort();
  await expect(client.public.refreshToken({ signal: ac.signal })).rejects.toBeInstanceOf(RequestAbortedError);
  await env.admin('/faults', { fault: 'all', on: false });
});

test('a used agent-SSO ticket is refused (20007)', async () => {
  const u = await env.ex.createUser();
  const { ticket } = await env.admin<{ ticket: string }>('/agent-sso/ticket', { userId: u.userId });
  await env.client().public.exchangeTicket({ ticket });
  await expect(env.client().public.exchangeTicket({ ticket })).rejects.toMatchObject({ venueCode: 20007 });
});

test('bad signature: AuthenticationError 20002', async () => {
  const { client, apiKey } = await env.keyClient(['READ', 'TRADE'], { clock });
  client.useApiKey({ apiKey, secret: 'not-the-secret' });
  const err = await client.user.getUserInfo().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AuthenticationError);
  expect(err).toMatchObject({ venueCode: 20002 });
});

test('clock skew: refused with 20003 without time sync, corrected by GET /v1/time', async () => {
  const skewed = { now: () => clock.now() + 10 * 60 * 1000 };
  const off = await env.keyClient(['READ'], { clock: skewed, autoTimeSync: false });
  await expect(off.client.user.getUserInfo()).rejects.toMatchObject({ venueCode: 20003 });
  const offset = await off.client.syncTime();
  expect(Math.abs(offset + 10 * 60 * 1000)).toBeLessThan(1000);
  expect((await off.client.user.getUserInfo()).userInfo.userId).toBe(off.userId);

  // With autoTimeSync (the default) the first signed request syncs first.
  const on = await env.keyClient(['READ'], { clock: skewed });
  expect((await on.client.user.getUserInfo()).userInfo.userId).toBe(on.userId);
});

test('a clock that drifts after sync: 20003 triggers one re-sync and a retry', async () => {
  let drift = 0;
  const drifting = { now: () => clock.now() + drift };
  const k = await env.keyClient(['READ'], { clock: drifting });
  await k.client.user.getUserInfo();
  drift = 20_000;
  expect((await k.client.user.getUserInfo()).userInfo.userId).toBe(k.userId);
  expect(Math.abs(k.client.clockOffsetMs + 20_000)).toBeLessThan(1000);
});

test('permission denied: a READ key cannot trade, a TRADE key cannot read the account', async () => {
  const read = await env.keyClient(['READ'], { clock });
  const e1 = await read.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' }).catch((e: unknown) => e);
  expect(e1).toBeInstanceOf(PermissionDeniedError);
  expect(e1).toMatchObject({ venueCode: 20004, httpStatus: 403, retryable: false });
  const trade = await env.keyClient(['TRADE'], { clock });
  await expect(trade.client.user.getUserAsset()).rejects.toBeInstanceOf(PermissionDeniedError);
  expect((await trade.client.positions.getPositions()).positions).toEqual([]);
});

test('API-key signing works on every request shape (query, body, none)', async () => {
  const k = await env.keyClient(['READ', 'TRADE'], { clock });
  const p = await k.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' });
  expect((await k.client.orders.getOrder({ symbol: 'BTCUSDT', orderId: p.orderId })).status).toBe('NEW');
  const lk = await k.client.user.createListenKey();
  await k.client.user.closeListenKey({ listenKey: lk.listenKey });
});

describe('a session the venue forgot (refresh token expired, or a restart)', () => {
  /** A client clock that stands still unless moved: the client believes its access token is fresh. */
  const still = (): { t: number; now(): number } => ({ t: Date.now(), now() { return this.t; } });
  const faultHits = async (): Promise<number> => (await env.ex.call<{ hits: Record<string, number> }>('GET', '/v1/admin/faults', { headers: { 'x-admin-token': env.ex.adminToken } })).body.data.hits.http5xx ?? 0;

  test('keepSignedIn: the client signs in again and retries the request; without it the request fails with 20006', async () => {
    const a = await env.ex.createUser();
    const b = await env.ex.createUser();
    const kept = env.client({ clock: still() });
    const plain = env.client({ clock: still() });
    await kept.login(a.username, a.password, { keepSignedIn: true });
    await plain.login(b.username, b.password);
    const first = kept.session?.accessToken;
    // Past the refresh token's lifetime (7 days) on the venue's clock: both sessions are gone there.
    clock.advance(8 * 24 * 3600_000);
    const info = await kept.user.getUserInfo();
    expect(info.userInfo.userId).toBe(a.userId);
    expect(kept.session?.accessToken).not.toBe(first);
    expect(kept.session?.canRefresh).toBe(true);
    await expect(plain.user.getUserInfo()).rejects.toMatchObject({ venueCode: 20006 });
  });

  test('a failed sign-in-again is given back for 5 s without another login, then tried again', async () => {
    const u = await env.ex.createUser();
    const local = still();
    const c = env.client({ clock: local, maxRetries: 0 });
    await c.login(u.username, u.password, { keepSignedIn: true });
    clock.advance(8 * 24 * 3600_000);
    await env.admin('/faults', { fault: 'http5xx', pathPrefix: '/v1/public/user/login' });
    try {
      const before = await faultHits();
      await expect(c.user.getUserInfo()).rejects.toMatchObject({ venueCode: 50002 });
      expect(await faultHits()).toBe(before + 1);
      await expect(c.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).rejects.toMatchObject({ venueCode: 50002 });
      expect(await faultHits()).toBe(before + 1);
      local.t += 5_000;
      await expect(c.user.getUserInfo()).rejects.toMatchObject({ venueCode: 50002 });
      expect(await faultHits()).toBe(before + 2);
    } finally {
      await env.admin('/faults', { fault: 'all', on: false });
    }
    local.t += 5_000;
    expect((await c.user.getUserInfo()).userInfo.userId).toBe(u.userId);
  });

  test('signing in again is only for the credentials of a keepSignedIn login: an API key or a plain login clears it', async () => {
    const u = await env.ex.createUser();
    const c = env.client({ clock: still() });
    await c.login(u.username, u.password, { keepSignedIn: true });
    expect(c.core.relogin).toBeDefined();
    await c.login(u.username, u.password);
    expect(c.core.relogin).toBeUndefined();
    await c.login(u.username, u.password, { keepSignedIn: true });
    c.useApiKey({ apiKey: 'k', secret: 's' });
    expect(c.core.relogin).toBeUndefined();
  });
});
