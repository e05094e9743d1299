/**
 * Many clients crossing orders at once over real HTTP: every request is answered, and afterwards
 * the engine's conservation audit holds (positions sum to zero per symbol; wallets minus cost
 * basis plus fees collected equal deposits; frozen margin matches open orders).
 */
import { Dec } from '../../../src/core/decimal';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';

type Rec = Record<string, unknown>;

let ex: TestExchange;
beforeAll(async () => {
  ex = await startTestExchange({ rateLimits: { ordersPer10s: 100_000, requestsPerMinute: 100_000 } });
});
afterAll(() => ex.stop());

it('20 clients x 25 orders crossing around the mark, with cancels and amends: audit holds', async () => {
  const clients = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const u = await ex.createUser({ balance: '200000' });
      if (i % 2 === 0) return { token: (await ex.login(u.username, u.password)).accessToken };
      const k = await ex.createApiKey(u.userId, ['READ', 'TRADE']);
      return { apiKey: k.apiKey, secret: k.secret };
    }),
  );
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const codes = new Map<number, number>();
  await Promise.all(
    clients.map(async (auth, ci) => {
      for (let n = 0; n < 25; n++) {
        const side = rnd() < 0.5 ? 'BUY' : 'SELL';
        const symbol = rnd() < 0.7 ? 'BTCUSDT' : 'ETHUSDT';
        const mid = symbol === 'BTCUSDT' ? 50000 : 3000;
        const price = (mid + Math.round((rnd() - 0.5) * 20) * (symbol === 'BTCUSDT' ? 1 : 0.5)).toFixed(1);
        const quantity = (0.001 * (1 + Math.floor(rnd() * 50))).toFixed(3);
        const body: Rec = rnd() < 0.2 ? { symbol, type: 'MARKET', side, quantity } : { symbol, type: 'LIMIT', side, price, quantity, timeInForce: rnd() < 0.2 ? 'IOC' : 'GTC' };
        const r = await ex.call<Rec>('POST', '/v1/private/order/place', { ...auth, body });
        codes.set(r.body.code, (codes.get(r.body.code) ?? 0) + 1);
        expect(r.status).toBeLessThan(500);
        if (r.body.code === 0 && r.body.data.status === 'NEW' && rnd() < 0.3) {
          const orderId = String(r.body.data.orderId);
          const c = rnd() < 0.5
            ? await ex.call('POST', '/v1/private/order/cancel', { ...auth, body: { symbol, orderId } })
            : await ex.call('POST', '/v1/private/order/move', { ...auth, body: { symbol, orderId, price, quantity: (Number(quantity) + 0.001).toFixed(3) } });
          expect(c.status).toBeLessThan(500);
        }
      }
      if (ci % 5 === 0) await ex.call('POST', '/v1/private/order/batch-cancel-all', { ...auth, body: {} });
    }),
  );
  expect(codes.get(0)).toBeGreaterThan(400);
  const trades = await ex.call<{ list: unknown[] }>('GET', '/v1/public/market/trades', { query: { symbol: 'BTCUSDT', limit: 500 } });
  expect(trades.body.data.list.length).toBeGreaterThan(10);

  const audit = ex.server.core.engine.audit();
  expect(audit.netQtyBySymbol).toEqual({ BTCUSDT: 0, ETHUSDT: 0 });
  expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
  expect(audit.frozenMismatch).toEqual([]);
  expect(new Dec(audit.deposits).eq(new Dec('200000').times(20).plus(ex.server.core.config.insuranceFund))).toBe(true);
});
