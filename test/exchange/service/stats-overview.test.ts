/**
 * The overview statistics of an account that began inside the 30-day window, over real HTTP on a
 * frozen clock: its first balance is the drawdown's opening peak (the 0 before the account hid a
 * loss of its first day), and the days before it are no fall from that peak.
 */
import { TestClock, startTestExchange, type TestExchange } from '../../helpers/exchange';

type Rec = Record<string, unknown>;

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 10, 12, 0, 0);

let ex: TestExchange;
const clock = new TestClock();

beforeAll(async () => {
  clock.freeze(START);
  ex = await startTestExchange({}, { clock });
});
afterAll(() => ex.stop());

async function tokenOf(user: { username: string; password: string }): Promise<string> {
  return (await ex.login(user.username, user.password)).accessToken;
}

it("a loss on the account's first day is a drawdown from its first balance, and stays one on later days", async () => {
  const carol = await ex.createUser({ username: 'carol', balance: '10000' });
  const dave = await ex.createUser({ username: 'dave', balance: '10000' });
  const tc = await tokenOf(carol);
  const td = await tokenOf(dave);
  const place = async (token: string, body: Rec): Promise<void> => {
    const r = await ex.call('POST', '/v1/private/order/place', { token, body: { symbol: 'BTCUSDT', quantity: '0.1', ...body } });
    expect(r.body.code).toBe(0);
  };
  // carol buys 0.1 BTC at 50000 (taker fee 2.5) and sells it at 49000 (loss 100, fee 2.45).
  await place(td, { type: 'LIMIT', side: 'SELL', price: '50000' });
  await place(tc, { type: 'MARKET', side: 'BUY' });
  await place(td, { type: 'LIMIT', side: 'BUY', price: '49000' });
  await place(tc, { type: 'MARKET', side: 'SELL' });

  const summary = async (): Promise<Rec> => (await ex.call<Rec>('GET', '/v1/private/user/asset/overview/summary', { token: await tokenOf(carol) })).body.data;
  // The first day: 10000 -> 9895.05 is a fall of 104.95 from the opening peak, 1.0495 %.
  expect(await summary()).toMatchObject({ totalPnl: '-104.95', maxDrawdown30d: '104.95', maxDrawdown30dRate: '0.010495', transferIn: '10000' });
  const overview = await ex.call<Rec>('GET', '/v1/private/user/trade-overview', { query: { type: '1W' }, token: await tokenOf(carol) });
  expect(overview.body.data).toMatchObject({ maxDrawdown30d: '104.95', maxDrawdown30dRate: '0.010495' });

  // Three days on, nothing changed: the same fall; the days before the account are none (not a fall from 10000 to 0).
  clock.advance(3 * DAY);
  expect(await summary()).toMatchObject({ maxDrawdown30d: '104.95', maxDrawdown30dRate: '0.010495' });

  // dave gained on his first day: no drawdown.
  const daveSummary = await ex.call<Rec>('GET', '/v1/private/user/asset/overview/summary', { token: await tokenOf(dave) });
  expect(daveSummary.body.data).toMatchObject({ maxDrawdown30d: '0', maxDrawdown30dRate: '0' });
});
