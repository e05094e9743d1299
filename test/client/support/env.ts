/** A local exchange plus signed-in SDK clients, for the integration tests of the client. */
import type { Permission } from '../../../src/core/enums';
import { PerpClient, type PerpClientOptions } from '../../../src/client';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';
import type { ExchangeConfigOverrides } from '../../../src/exchange/service/config';
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

/** A LIMIT BUY 0.01 BTCUSDT at 42000 with a take-profit at 55000 and a stop at 40000, one cancelling the other (an OTOCO). */
export const BRACKET_OTOCO = {
  strategyType: 'OTOCO' as const,
  subOrderList: [
    { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT' as const, side: 'BUY' as const, price: '42000', quantity: '0.01' },
    { strategySubId: 2, symbol: 'BTCUSDT', type: 'TAKE_PROFIT_MARKET' as const, side: 'SELL' as const, stopPrice: '55000', quantity: '0.01', reduceOnly: true, firstDrivenId: 1, firstDrivenOn: 'FILLED' as const, firstTrigger: 'PLACE_ORDER' as const, secondDrivenId: 3, secondDrivenOn: 'PARTIALLY_FILLED_OR_FILLED' as const, secondTrigger: 'CANCEL_ORDER' as const },
    { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET' as const, side: 'SELL' as const, stopPrice: '40000', quantity: '0.01', reduceOnly: true, firstDrivenId: 1, firstDrivenOn: 'FILLED' as const, firstTrigger: 'PLACE_ORDER' as const, secondDrivenId: 2, secondDrivenOn: 'PARTIALLY_FILLED_OR_FILLED' as const, secondTrigger: 'CANCEL_ORDER' as const },
  ],
};
