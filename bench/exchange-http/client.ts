/**
 * HTTP side of the load generator: one undici keep-alive Pool to the exchange, the envelope
 * check, and the setup calls (admin user creation, login, listenKey).
 */
import { Pool } from 'undici';

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
  requestId: string;
}

export interface BenchUser {
  index: number;
  userId: string;
  username: string;
  /** Prebuilt headers for JWT calls with a JSON body (one object per user, reused per request). */
  headers: Record<string, string>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** How the order loads (load.ts) send their requests: undici (ExchangeClient) or pipelined sockets (pipelined.ts). */
export interface OrderTransport {
  /**
   * POST with a JSON body as `user`; resolves with the response body of an HTTP 200 whose envelope
   * code is 0, rejects with ApiError otherwise. `lane` (the worker's number) picks the connection
   * where the transport assigns them itself.
   */
  post(user: BenchUser, path: string, body: string, lane: number): Promise<string>;
}

export class ExchangeClient implements OrderTransport {
  readonly pool: Pool;

  constructor(
    readonly url: string,
    opts: { connections: number; pipelining: number },
  ) {
    this.pool = new Pool(url, { connections: opts.connections, pipelining: opts.pipelining, keepAliveTimeout: 60_000 });
  }

  /** A JSON request; throws ApiError unless HTTP 200 with envelope code 0. */
  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, headers: Record<string, string>, body?: string): Promise<T> {
    return (await this.request<T>(method, path, headers, body)).env.data;
  }

  /** The pool assigns connections itself: `lane` is not used. */
  async post(user: BenchUser, path: string, body: string): Promise<string> {
    return (await this.request('POST', path, user.headers, body)).text;
  }

  private async request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, headers: Record<string, string>, body?: string): Promise<{ text: string; env: Envelope<T> }> {
    const res = await this.pool.request({ method, path, headers, body });
    const text = await res.body.text();
    let env: Envelope<T>;
    try {
      env = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new ApiError(res.statusCode, -1, `non-JSON answer ${res.statusCode} to ${method} ${path}: ${text.slice(0, 200)}`);
    }
    if (res.statusCode !== 200 || env.code !== 0) throw new ApiError(res.statusCode, env.code, `${method} ${path}: HTTP ${res.statusCode} code ${env.code} ${env.message}`);
    return { text, env };
  }

  /** Creates `count` users through the admin API and logs each in once (JWT). */
  async createUsers(adminToken: string, count: number, balance: string): Promise<BenchUser[]> {
    const tag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
    const users: BenchUser[] = [];
    for (let i = 0; i < count; i++) {
      const username = `bench${tag}u${i}`;
      const password = `pw-${username}`;
      const { userId } = await this.call<{ userId: string }>('POST', '/v1/admin/users', { 'content-type': 'application/json', 'x-admin-token': adminToken }, JSON.stringify({ username, password, balance }));
      const { accessToken } = await this.call<{ accessToken: string }>('POST', '/v1/public/user/login', { 'content-type': 'application/json' }, JSON.stringify({ username, password }));
      users.push({ index: i, userId, username, headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` } });
    }
    return users;
  }

  async listenKey(user: BenchUser): Promise<string> {
    const { listenKey } = await this.call<{ listenKey: string }>('POST', '/v1/private/user/listen-key', { authorization: user.headers.authorization });
    return listenKey;
  }

  async close(): Promise<void> {
    await this.pool.close().catch(() => this.pool.destroy());
  }
}
