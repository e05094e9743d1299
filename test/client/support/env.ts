/** A local exchange plus signed-in SDK clients, for the integration tests of the client. */
import type { Permission } from '../../../src/core/enums';
import { PerpClient, type PerpClientOptions } from '../../../src/client';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';
import type { ExchangeConfigOverrides } from '../../../src/exchange/transport/server';
import type { Clock } from '../../../src/core/clock';

export interface ClientEnv {
  ex: TestExchange;
  clients: PerpClient[];
  /** A new user signed in with a password (JWT session). */
  jwtClient(opts?: Partial<PerpClientOptions>, user?: { balance?: string }): Promise<{ client: PerpClient; userId: string; username: string; password: string }>;
  /** A new user with an API key of these permissions. */
  keyClient(permissions?: Permission[], opts?: Partial<PerpClientOptions>): Promise<{ client: PerpClient; userId: string; apiKey: string; secret: string }>;
  client(opts?: Partial<PerpClientOptions>): PerpClient;
  admin<T = unknown>(path: string, body: object): Promise<T>;
  stop(): Promise<void>;
}

export async function startClientEnv(overrides: ExchangeConfigOverrides = {}, opts: { clock?: Clock } = {}): Promise<ClientEnv> {
  const ex = await startTestExchange(overrides, opts);
  const clients: PerpClient[] = [];
  const client = (o: Partial<PerpClientOptions> = {}): PerpClient => {
    const c = new PerpClient({ baseUrl: ex.url, timeoutMs: 5000, ...o });
    clients.push(c);
    return c;
  };
  return {
    ex,
    clients,
    client,
    async jwtClient(o = {}, user = {}) {
      const u = await ex.createUser({ balance: user.balance ?? '100000' });
      const c = client(o);
      await c.login(u.username, u.password);
      return { client: c, ...u };
    },
    async keyClient(permissions = ['READ', 'TRADE'], o = {}) {
      const u = await ex.createUser();
      const k = await ex.createApiKey(u.userId, permissions);
      const c = client({ ...o, apiKey: { apiKey: k.apiKey, secret: k.secret } });
      return { client: c, userId: u.userId, ...k };
    },
    async admin<T>(path: string, body: object): Promise<T> {
      const r = await ex.call<T>('POST', `/v1/admin${path}`, { headers: { 'x-admin-token': ex.adminToken }, body });
      if (r.body.code !== 0) throw new Error(`admin ${path}: ${r.body.code} ${r.body.message}`);
      return r.body.data;
    },
    async stop() {
      for (const c of clients) await c.close().catch(() => undefined);
      await ex.stop();
    },
  };
}

/** Polls `cond` until true or the deadline; no fixed sleeps in tests. */
export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
