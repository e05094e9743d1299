/**
 * Secrets never appear in logs or error messages (issue 8).
 *
 * DESIGN.md says tests do not assert on logs. This file is the one exception the issue asks for:
 * it does not check what is logged, only what must never be (a secret, or a key repeated in a
 * line), so it does not pin the log format.
 *
 * The exchange and the SDK client both log at `trace` into memory while the flows that handle
 * credentials run: password login (right and wrong), refresh with rotation (and the dead old
 * cookie), API-key signed requests (good, bad signature, outside recvWindow), listenKey create,
 * keepalive and delete, the private WebSocket stream (good and bad keys), agent-SSO ticket and
 * embed-token exchanges (and their reuse), and the admin API. Every secret seen on the wire is
 * collected from the requests and answers themselves; then every log line, every error message
 * the SDK threw and every error answer's body is searched for each of them.
 */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { request } from 'undici';
import WebSocket from 'ws';
import { PerpClient } from '../../src/client';
import { UndiciTransport, type HttpRequest, type HttpResponse, type HttpTransport } from '../../src/client/transport/http';
import { startExchange, type ExchangeServer } from '../../src/exchange/transport/server';
import { signRequest } from '../helpers/exchange';
import { repeatedKeys } from '../helpers/json-keys';
import { ORDER } from './support';

const ADMIN_TOKEN = 'adm-7f3c9e1d-secret-admin-token';
const PASSWORD = 'Corr3ct-Horse-Battery-Staple!';
const WRONG_PASSWORD = 'Wr0ng-Guess-Do-Not-Log-42';

/** What the logs, error messages and error bodies are searched in. */
const logLines: string[] = [];
const errorTexts: string[] = [];
/** What must never be found there, with where each came from (for the failure message). */
const secrets = new Map<string, string>();

function secret(value: string | undefined, what: string): void {
  // Short strings would match by chance; the first label a value got is kept.
  if (value === undefined || value.length < 8 || secrets.has(value)) return;
  secrets.set(value, what);
  // A JWT leaked in part is still a leak of its signature.
  const parts = value.split('.');
  if (parts.length === 3 && parts[2].length >= 16) secrets.set(parts[2], `${what} (signature segment)`);
}

function memoryLogger(level: 'trace' | 'debug'): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.length > 0) logLines.push(line);
      done();
    },
  });
  return pino({ level }, sink);
}

/** Every credential-bearing header of a request and answer, taken as a secret. */
function collectFromHeaders(h: Record<string, string | string[] | undefined>, where: string): void {
  const one = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  for (const v of one(h['x-signature'])) secret(v, `${where} X-SIGNATURE`);
  for (const v of one(h.authorization)) secret(v.replace(/^Bearer /, ''), `${where} bearer token`);
  for (const v of one(h['x-admin-token'])) secret(v, `${where} X-ADMIN-TOKEN`);
  for (const v of [...one(h.cookie), ...one(h['set-cookie'])]) {
    const m = /refreshToken=([^;\s]+)/.exec(v);
    if (m) secret(m[1], `${where} refresh token`);
  }
}

/** Fields of an answer's data that are secrets. */
function collectFromData(data: unknown, where: string): void {
  if (typeof data !== 'object' || data === null) return;
  const d = data as Record<string, unknown>;
  for (const k of ['accessToken', 'secret', 'listenKey', 'ticket', 'embedToken']) if (typeof d[k] === 'string') secret(d[k], `${where} ${k}`);
}

/** The SDK's transport, recording every secret it sends or receives. */
class RecordingTransport implements HttpTransport {
  private readonly inner: UndiciTransport;
  constructor(origin: string) {
    this.inner = new UndiciTransport(origin);
  }
  async request(req: HttpRequest): Promise<HttpResponse> {
    collectFromHeaders(req.headers, `SDK ${req.endpoint} request`);
    if (req.body !== undefined) collectFromData(JSON.parse(req.body) as unknown, `SDK ${req.endpoint} body`);
    const res = await this.inner.request(req);
    collectFromHeaders(res.headers, `SDK ${req.endpoint} answer`);
    const body = JSON.parse(res.text) as { code: number; data: unknown };
    collectFromData(body.data, `SDK ${req.endpoint} answer`);
    if (body.code !== 0) errorTexts.push(res.text);
    return res;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('secrets never appear in logs or error messages', () => {
  let server: ExchangeServer;
  let url: string;

  /** A raw HTTP call that records secrets on the way out and back; error bodies join the haystack. */
  async function call<T = Record<string, unknown>>(method: string, target: string, opts: { headers?: Record<string, string>; body?: unknown } = {}): Promise<{ code: number; data: T; headers: Record<string, string | string[] | undefined> }> {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };
    collectFromHeaders(headers, `${method} ${target} request`);
    const res = await request(`${url}${target}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    collectFromHeaders(res.headers, `${method} ${target} answer`);
    const env = JSON.parse(text) as { code: number; data: T };
    collectFromData(env.data, `${method} ${target} answer`);
    if (env.code !== 0) errorTexts.push(text);
    return { code: env.code, data: env.data, headers: res.headers };
  }

  const admin = { 'x-admin-token': ADMIN_TOKEN };

  function signed(key: { apiKey: string; secret: string }, method: string, target: string, body: string, ts = Date.now()): Record<string, string> {
    return { 'x-api-key': key.apiKey, 'x-timestamp': String(ts), 'x-signature': signRequest(key.secret, ts, method, target, body) };
  }

  /** Opens the private stream and waits for open or refusal; returns the HTTP status of a refusal. */
  function connectPrivate(listenKey: string): Promise<number | 'open'> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/ws/private?listenKey=${encodeURIComponent(listenKey)}`);
      ws.on('error', () => undefined);
      ws.once('open', () => {
        ws.close();
        resolve('open');
      });
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        ws.terminate();
        resolve(res.statusCode ?? 0);
      });
    });
  }

  beforeAll(async () => {
    secret(ADMIN_TOKEN, 'admin token');
    secret(PASSWORD, 'password');
    secret(WRONG_PASSWORD, 'wrong password tried');
    server = await startExchange({ port: 0, host: '127.0.0.1', adminToken: ADMIN_TOKEN }, { logger: memoryLogger('trace') });
    url = `http://127.0.0.1:${(server.httpServer.address() as { port: number }).port}`;
  });
  afterAll(() => server.stop());

  it('raw flows over HTTP and WebSocket', async () => {
    const user = await call<{ userId: string }>('POST', '/v1/admin/users', { headers: admin, body: { username: 'leaky', password: PASSWORD, balance: '100000' } });
    expect(user.code).toBe(0);
    const userId = user.data.userId;
    const key = (await call<{ apiKey: string; secret: string }>('POST', '/v1/admin/api-keys', { headers: admin, body: { userId, permissions: ['READ', 'TRADE'] } })).data;

    // Password login, right and wrong; wrong admin token.
    const login = await call<{ accessToken: string }>('POST', '/v1/public/user/login', { body: { username: 'leaky', password: PASSWORD } });
    expect(login.code).toBe(0);
    expect((await call('POST', '/v1/public/user/login', { body: { username: 'leaky', password: WRONG_PASSWORD } })).code).toBe(20005);
    expect((await call('POST', '/v1/public/user/login', { body: { username: 'no-such-user', password: WRONG_PASSWORD } })).code).toBe(20005);
    expect((await call('POST', '/v1/admin/users', { headers: { 'x-admin-token': `${ADMIN_TOKEN}-guess` }, body: {} })).code).toBe(20001);
    const token = login.data.accessToken;
    const bearer = { authorization: `Bearer ${token}` };

    // Refresh rotates the cookie; the old one is then refused.
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const refreshed = await call<{ accessToken: string }>('POST', '/v1/public/user/refresh-token', { headers: { cookie } });
    expect(refreshed.code).toBe(0);
    expect((await call('POST', '/v1/public/user/refresh-token', { headers: { cookie } })).code).toBe(20006);
    expect((await call('GET', '/v1/private/user/info', { headers: { authorization: `Bearer ${token}x` } })).code).toBe(20001);

    // API-key signing: a GET with a query, a POST with a body, a bad signature, a stale timestamp.
    const q = '/v1/private/user/account-change-log?page=1&pageSize=5';
    expect((await call('GET', q, { headers: signed(key, 'GET', q, '') })).code).toBe(0);
    const orderBody = JSON.stringify(ORDER);
    expect((await call('POST', '/v1/private/order/place', { headers: signed(key, 'POST', '/v1/private/order/place', orderBody), body: ORDER })).code).toBe(0);
    expect((await call('POST', '/v1/private/order/place', { headers: signed({ ...key, secret: 'a-wrong-secret-value' }, 'POST', '/v1/private/order/place', orderBody), body: ORDER })).code).toBe(20002);
    expect((await call('GET', '/v1/private/user/asset', { headers: signed(key, 'GET', '/v1/private/user/asset', '', Date.now() - 60_000) })).code).toBe(20003);
    expect((await call('GET', '/v1/private/user/asset', { headers: { ...signed(key, 'GET', '/v1/private/user/asset', ''), 'x-api-key': 'unknown-api-key-value' } })).code).toBe(20002);

    // listenKey lifecycle and the private stream.
    const lk = (await call<{ listenKey: string }>('POST', '/v1/private/user/listen-key', { headers: bearer })).data.listenKey;
    expect((await call('PUT', '/v1/private/user/listen-key', { headers: bearer, body: { listenKey: lk } })).code).toBe(0);
    expect(await connectPrivate(lk)).toBe('open');
    expect((await call('DELETE', '/v1/private/user/listen-key', { headers: bearer, body: { listenKey: lk } })).code).toBe(0);
    expect((await call('PUT', '/v1/private/user/listen-key', { headers: bearer, body: { listenKey: lk } })).code).toBe(20008);
    expect(await connectPrivate(lk)).toBe(401);

    // Agent SSO: each exchange works once; a wrong channel and a reuse are refused.
    const ticket = (await call<{ ticket: string }>('POST', '/v1/admin/agent-sso/ticket', { headers: admin, body: { userId } })).data.ticket;
    expect((await call('POST', '/v1/public/agent-sso/exchange-ticket', { body: { ticket } })).code).toBe(0);
    expect((await call('POST', '/v1/public/agent-sso/exchange-ticket', { body: { ticket } })).code).toBe(20007);
    const embedToken = (await call<{ embedToken: string }>('POST', '/v1/admin/agent-sso/embed-token', { headers: admin, body: { userId, channelId: 'chan-1' } })).data.embedToken;
    expect((await call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken, channelId: 'chan-2' } })).code).toBe(20007);
    expect((await call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken, channelId: 'chan-1' } })).code).toBe(0);
    expect((await call('POST', '/v1/public/agent-sso/exchange-embed-token', { body: { embedToken, channelId: 'chan-1' } })).code).toBe(20007);
  });

  it('SDK flows with a trace-level client logger', async () => {
    const client = new PerpClient({ baseUrl: url, logger: memoryLogger('trace'), transport: new RecordingTransport(url), maxRetries: 0 });
    const caught: unknown[] = [];
    const attempt = async (fn: () => Promise<unknown>): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        caught.push(err);
      }
    };
    try {
      await attempt(() => client.login('leaky', WRONG_PASSWORD));
      await client.login('leaky', PASSWORD);
      await client.public.refreshToken();
      await client.user.getUserAsset();
      const stream = client.privateStream();
      await stream.start();
      await stream.stop();

      const userId = (await client.user.getUserInfo()).userInfo.userId;
      const key = (await call<{ apiKey: string; secret: string }>('POST', '/v1/admin/api-keys', { headers: admin, body: { userId, permissions: ['READ', 'TRADE'] } })).data;
      client.useApiKey(key);
      await client.user.getUserAsset();
      await client.orders.placeOrder({ ...ORDER, price: '39000' });
      const lk = await client.user.createListenKey();
      await client.user.extendListenKey({ listenKey: lk.listenKey });
      await client.user.closeListenKey({ listenKey: lk.listenKey });
      await attempt(() => client.user.extendListenKey({ listenKey: lk.listenKey }));

      client.useApiKey({ ...key, secret: 'wrong-secret-for-the-sdk' });
      await attempt(() => client.user.getUserAsset());

      const ticket = (await call<{ ticket: string }>('POST', '/v1/admin/agent-sso/ticket', { headers: admin, body: { userId } })).data.ticket;
      await client.public.exchangeTicket({ ticket });
      await attempt(() => client.public.exchangeTicket({ ticket }));
      const embedToken = (await call<{ embedToken: string }>('POST', '/v1/admin/agent-sso/embed-token', { headers: admin, body: { userId, channelId: 'chan-9' } })).data.embedToken;
      await attempt(() => client.public.exchangeEmbedToken({ embedToken, channelId: 'wrong-channel' }));
      await client.public.exchangeEmbedToken({ embedToken, channelId: 'chan-9' });
      await client.public.refreshToken();
    } finally {
      await client.close();
    }
    // The refusals above: wrong password, closed listenKey, wrong secret, used ticket, wrong channel.
    expect(caught.length).toBe(5);
    for (const err of caught) {
      errorTexts.push(String(err));
      if (err instanceof Error) {
        errorTexts.push(err.stack ?? '');
        errorTexts.push(JSON.stringify({ ...err }));
      }
    }
  });

  it('no log line, SDK error or error answer holds any of them', () => {
    // The flows above must have produced what is searched, or the search proves nothing.
    const kinds = [...secrets.values()].join('\n');
    for (const k of ['password', 'admin token', 'X-SIGNATURE', 'bearer token', 'refresh token', 'secret', 'listenKey', 'ticket', 'embedToken', 'accessToken']) {
      expect({ kind: k, seen: kinds.includes(k) }).toEqual({ kind: k, seen: true });
    }
    expect(logLines.length).toBeGreaterThan(50);
    expect(logLines.some((l) => l.includes('perpkit-client'))).toBe(true);
    expect(errorTexts.length).toBeGreaterThan(10);

    const leaks: string[] = [];
    for (const [value, what] of secrets) {
      for (const line of logLines) if (line.includes(value)) leaks.push(`${what} in log line: ${line.slice(0, 300)}`);
      for (const text of errorTexts) if (text.includes(value)) leaks.push(`${what} in error text: ${text.slice(0, 300)}`);
    }
    expect(leaks).toEqual([]);
  });

  it('no log line repeats a key (some log stores refuse such a line; JSON.parse would keep the last silently)', () => {
    expect(logLines.some((l) => l.includes('"exchange-http"'))).toBe(true);
    const repeated = logLines.filter((l) => repeatedKeys(l).length > 0).map((l) => `${repeatedKeys(l).join(', ')} in: ${l.slice(0, 200)}`);
    expect(repeated).toEqual([]);
  });
});
