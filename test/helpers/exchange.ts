/**
 * A real local exchange on a loopback port for integration tests, with the few calls every test
 * needs: create users through the admin API, log in, mint API keys and call any endpoint (JWT,
 * API-key signed, or anonymous). Reuse it; do not mock HTTP for what the exchange can answer.
 */
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { Clock } from '../../src/core/clock';
import type { Permission } from '../../src/core/enums';
import type { ExchangeConfigOverrides } from '../../src/exchange/service/config';
import { startExchange, type ExchangeServer } from '../../src/exchange/transport/server';

export interface CallOptions {
  token?: string;
  apiKey?: string;
  secret?: string;
  /** An object is sent as JSON; a string or Buffer is sent as is (for malformed-body tests). */
  body?: unknown;
  query?: Record<string, string | number | boolean> | string;
  headers?: Record<string, string>;
  /** Override X-TIMESTAMP when signing (recvWindow tests). */
  timestamp?: number;
}

export interface CallResult<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code: number; message: string; data: T; requestId: string };
}

export interface TestExchange {
  server: ExchangeServer;
  url: string;
  adminToken: string;
  stop(): Promise<void>;
  createUser(opts?: { username?: string; password?: string; balance?: string; positionMode?: 'ONE_WAY' | 'HEDGE' }): Promise<{ userId: string; username: string; password: string }>;
  login(username: string, password: string): Promise<{ accessToken: string; cookie: string }>;
  createApiKey(userId: string, permissions: Permission[]): Promise<{ apiKey: string; secret: string }>;
  call<T = unknown>(method: string, path: string, opts?: CallOptions): Promise<CallResult<T>>;
}

let userSeq = 0;

export function signRequest(secret: string, timestamp: number, method: string, pathWithQuery: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}${method.toUpperCase()}${pathWithQuery}${body}`).digest('hex');
}

/**
 * Wall time plus an offset a test can move forward (expiry without waiting), or, once frozen,
 * a fixed time that moves only by advance() (window boundaries without flakiness).
 */
export class TestClock implements Clock {
  offset = 0;
  private frozenAt: number | undefined;

  now(): number {
    return this.frozenAt ?? Date.now() + this.offset;
  }

  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offset += ms;
  }

  freeze(at: number): void {
    this.frozenAt = at;
  }
}

/**
 * Holds every command the exchange's core executes until `release()` (a spy on the real core:
 * what runs after is the real command); `restore()` takes the spy away.
 */
export function holdCommands(server: ExchangeServer): { release: () => void; restore: () => void } {
  const core = server.core;
  const real = core.execute.bind(core);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const spy = jest.spyOn(core, 'execute').mockImplementation(async (cmd) => {
    await gate;
    return real(cmd);
  });
  return { release: () => release(), restore: () => spy.mockRestore() };
}

export async function startTestExchange(overrides: ExchangeConfigOverrides = {}, opts: { clock?: Clock; fastLane?: boolean } = {}): Promise<TestExchange> {
  const adminToken = 'adminToken' in overrides ? overrides.adminToken : 'test-admin-token';
  const server = await startExchange({ port: 0, host: '127.0.0.1', ...overrides, adminToken }, { wallClock: opts.clock, fastLane: opts.fastLane });
  const url = server.httpServer.address() === null ? '' : `http://127.0.0.1:${(server.httpServer.address() as { port: number }).port}`;

  async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
    const query = opts.query === undefined ? '' : typeof opts.query === 'string' ? opts.query : new URLSearchParams(Object.entries(opts.query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const target = query.length > 0 ? `${path}?${query}` : path;
    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? opts.body : JSON.stringify(opts.body);
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    if (opts.apiKey !== undefined) {
      const ts = opts.timestamp ?? server.core.wallClock.now();
      headers['x-api-key'] = opts.apiKey;
      headers['x-timestamp'] = String(ts);
      headers['x-signature'] = signRequest(opts.secret ?? '', ts, method, target, body === undefined ? '' : body.toString());
    }
    Object.assign(headers, opts.headers ?? {});
    const res = await request(`${url}${target}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    let parsed: CallResult<T>['body'];
    try {
      parsed = JSON.parse(text) as CallResult<T>['body'];
    } catch {
      throw new Error(`non-JSON answer ${res.statusCode} to ${method} ${target}: ${text.slice(0, 200)}`);
    }
    return { status: res.statusCode, headers: res.headers, body: parsed };
  }

  const admin = { 'x-admin-token': adminToken ?? '' };

  return {
    server,
    url,
    adminToken: adminToken ?? '',
    stop: () => server.stop(),
    call,
    async createUser(opts = {}) {
      const username = opts.username ?? `user${process.pid % 1000}x${++userSeq}`;
      const password = opts.password ?? `pw-${username}`;
      const r = await call<{ userId: string }>('POST', '/v1/admin/users', {
        headers: admin,
        body: { username, password, balance: opts.balance ?? '100000', ...(opts.positionMode ? { positionMode: opts.positionMode } : {}) },
      });
      if (r.body.code !== 0) throw new Error(`createUser failed: ${r.body.code} ${r.body.message}`);
      return { userId: r.body.data.userId, username, password };
    },
    async login(username, password) {
      const r = await call<{ accessToken: string }>('POST', '/v1/public/user/login', { body: { username, password } });
      if (r.body.code !== 0) throw new Error(`login failed: ${r.body.code} ${r.body.message}`);
      const setCookie = r.headers['set-cookie'];
      const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie ?? '').split(';')[0];
      return { accessToken: r.body.data.accessToken, cookie };
    },
    async createApiKey(userId, permissions) {
      const r = await call<{ apiKey: string; secret: string }>('POST', '/v1/admin/api-keys', { headers: admin, body: { userId, permissions } });
      if (r.body.code !== 0) throw new Error(`createApiKey failed: ${r.body.code} ${r.body.message}`);
      return r.body.data;
    },
  };
}
