/**
 * POST /v1/admin/clock/funding over real HTTP on a frozen clock: the round it settles "now" is
 * answered with the time its payments' change-log records name (`referenceId` funding-<time>).
 */
import { TestClock, startTestExchange, type TestExchange } from '../../helpers/exchange';

type Rec = Record<string, unknown>;

const START = Date.UTC(2026, 0, 15, 10, 17, 23, 456);
const admin = { 'x-admin-token': 'test-admin-token' };

let ex: TestExchange;
const clock = new TestClock();

beforeAll(async () => {
  clock.freeze(START);
  ex = await startTestExchange({}, { clock });
});
afterAll(() => ex.stop());

it('the answer and the FUNDING_FEE records name the same time: the round settled now, not the scheduled time ahead', async () => {
  const long = await ex.createUser({ username: 'longer', balance: '100000' });
  const short = await ex.createUser({ username: 'shorter', balance: '100000' });
  const tl = (await ex.login(long.username, long.password)).accessToken;
  const ts = (await ex.login(short.username, short.password)).accessToken;
  await ex.call('POST', '/v1/private/order/place', { token: ts, body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '1' } });
  expect((await ex.call('POST', '/v1/private/order/place', { token: tl, body: { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '1' } })).body.code).toBe(0);
  const scheduled = (await ex.call<Rec>('GET', '/v1/public/market/mark-price', { query: { symbol: 'BTCUSDT' } })).body.data.nextFundingTime as number;
  expect(scheduled).toBeGreaterThan(START);

  clock.advance(1000);
  const f = await ex.call<Rec>('POST', '/v1/admin/clock/funding', { headers: admin, body: { symbol: 'BTCUSDT', fundingRate: '0.0001' } });
  expect(f.body.data).toEqual({ symbol: 'BTCUSDT', fundingRate: '0.0001', fundingTime: START + 1000 });
  for (const [token, amount] of [[tl, '-5'], [ts, '5']]) {
    const log = await ex.call<{ list: Rec[] }>('GET', '/v1/private/user/account-change-log', { token, query: { changeType: 'FUNDING_FEE' } });
    expect(log.body.data.list).toEqual([expect.objectContaining({ amount, referenceId: `funding-${START + 1000}`, createdAt: START + 1000 })]);
  }
  // The scheduled round moved on past the one settled.
  expect((await ex.call<Rec>('GET', '/v1/public/market/mark-price', { query: { symbol: 'BTCUSDT' } })).body.data.nextFundingTime).toBe(scheduled + 8 * 3600_000);
});
