/**
 * Matrix rows on order requests (docs/reliability.md "Fault injection"): the answer of an
 * accepted order lost, the connection cut before an order was applied, 429 and 503 bursts, and
 * a server clock skewed beyond recvWindow. Each runs the SDK alone and a bot (LiveVenue) through
 * the fault and checks the venue's truth: the order exists exactly once or not at all, nothing
 * was resent, cancels went out before new orders, and requests succeeded after a time sync.
 */
import { bid, controllable } from '../bot/e2e/e2e';
import { ServiceUnavailableError, UnknownOrderOutcomeError } from '../../src/client';
import type { TestExchange } from '../helpers/exchange';
import { account, clearFaults, compare, expectConverged, getFaults, recordFigures, setFault, startBot, startReliabilityExchange, until, type Account, type RelBot } from './support/world';

jest.setTimeout(90_000);

const PLACE = '/v1/private/order/place';
const BATCH_PLACE = '/v1/private/order/batch-place';

describe('reliability: order request faults', () => {
  let ex: TestExchange;
  const bots: RelBot[] = [];
  const accounts: Account[] = [];

  beforeAll(async () => {
    ex = await startReliabilityExchange();
  });

  afterEach(async () => {
    await clearFaults(ex);
  });

  afterAll(async () => {
    for (const b of bots) await b.bot.stop();
    for (const a of accounts) await a.client.close();
    await ex.stop();
  });

  async function acct(opts: { apiKey?: boolean } = {}): Promise<Account> {
    const a = await account(ex, opts);
    accounts.push(a);
    return a;
  }

  /** A bot whose strategy the test steers (ctx().emit). */
  async function steeredBot(a: Account): Promise<{ b: RelBot; s: ReturnType<typeof controllable> }> {
    const s = controllable(['BTCUSDT']);
    const b = await startBot(a.client, [{ id: 's', definition: s.definition, params: {} }]);
    bots.push(b);
    return { b, s };
  }

  /** GET /v1/private/order calls (queries by clientOrderId). */
  const queries = (a: Account): number => a.transport.calls.filter((c) => c.method === 'GET' && c.path === '/v1/private/order').length;

  it('order accepted, response lost (SDK alone): the order exists exactly once, found by clientOrderId', async () => {
    const a = await acct();
    await setFault(ex, { fault: 'acceptDropResponse', userId: a.userId, pathPrefix: PLACE, count: 1 });
    const t0 = Date.now();
    const placed = await a.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.01' });
    const settledMs = Date.now() - t0;
    const venue = (await a.client.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).list;
    expect(venue.map((o) => o.clientOrderId)).toEqual([placed.clientOrderId]);
    expect(a.transport.of('/order/place')).toHaveLength(1);
    recordFigures('orders', 'acceptedLostSdk', { settledMs, queries: queries(a), ordersOnVenue: venue.length, resends: a.transport.of('/order/place').length - 1 });
  });

  it('order accepted, response lost (bot): exactly one order, the bot tracks it as NEW', async () => {
    const a = await acct();
    const { b, s } = await steeredBot(a);
    await setFault(ex, { fault: 'acceptDropResponse', userId: a.userId, pathPrefix: BATCH_PLACE, count: 1 });
    const t0 = Date.now();
    s.ctx().emit(bid('45000'));
    await until(() => b.bot.tracker.live('s').some((o) => o.state === 'NEW'), 'the bot learns the order was placed');
    const knownMs = Date.now() - t0;
    const c = await expectConverged(a, b.bot);
    expect(c.venueOpen).toHaveLength(1);
    expect(a.transport.of('/batch-place')).toHaveLength(1);
    expect((await getFaults(ex)).hits.acceptDropResponse).toBe(2);
    recordFigures('orders', 'acceptedLostBot', { knownMs, queries: queries(a), ordersOnVenue: c.venueOpen.length, resends: c.resentClientOrderIds.length, duplicates: c.duplicateClientOrderIds.length });
  });

  it('order not accepted, response lost (SDK alone): UnknownOrderOutcomeError after querying, nothing on the venue', async () => {
    const a = await acct();
    await setFault(ex, { fault: 'rejectDropResponse', userId: a.userId, pathPrefix: PLACE, count: 1 });
    const t0 = Date.now();
    const err = await a.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.01', clientOrderId: 'lost-1' }).catch((e: unknown) => e);
    const concludedMs = Date.now() - t0;
    expect(err).toBeInstanceOf(UnknownOrderOutcomeError);
    expect((err as UnknownOrderOutcomeError).clientOrderIds).toEqual(['lost-1']);
    expect((await a.client.orders.getCurrentOrders({})).list).toHaveLength(0);
    expect(a.transport.of('/order/place')).toHaveLength(1);
    recordFigures('orders', 'notAcceptedLostSdk', { concludedMs, queries: queries(a), ordersOnVenue: 0 });
  });

  it('order not accepted, response lost (bot): concludes it was not placed, after querying; never resent', async () => {
    const a = await acct();
    const { b, s } = await steeredBot(a);
    await setFault(ex, { fault: 'rejectDropResponse', userId: a.userId, pathPrefix: BATCH_PLACE, count: 1 });
    const t0 = Date.now();
    s.ctx().emit(bid('45000'));
    await until(() => b.bot.tracker.live('s').length === 1, 'the order is tracked');
    const cid = b.bot.tracker.live('s')[0].clientOrderId;
    await until(() => b.bot.tracker.get(cid)?.state === 'REJECTED', 'the bot concludes the order was not placed', 30000);
    const concludedMs = Date.now() - t0;
    const c = await expectConverged(a, b.bot);
    expect(c.venueOpen).toEqual([]);
    expect(a.transport.of('/batch-place')).toHaveLength(1);
    recordFigures('orders', 'notAcceptedLostBot', { concludedMs, queries: queries(a), ordersOnVenue: 0, resends: c.resentClientOrderIds.length });
  });

  it('503 on an order (SDK alone): no effect, the client says so after querying', async () => {
    const a = await acct();
    await setFault(ex, { fault: 'http5xx', status: 503, userId: a.userId, pathPrefix: PLACE, count: 1 });
    const err = await a.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.01' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((await a.client.orders.getCurrentOrders({})).list).toHaveLength(0);
  });

  it('429 burst (SDK alone): Retry-After honoured client-wide, each refused request retried once, no storm', async () => {
    const a = await acct();
    const hitsBefore = (await getFaults(ex)).hits.rateLimit ?? 0;
    await setFault(ex, { fault: 'rateLimit', userId: a.userId, retryAfterSec: 1, count: 5 });
    a.transport.clear();
    const t0 = Date.now();
    const results = await Promise.all(Array.from({ length: 10 }, () => a.client.orders.getCurrentOrders({ symbol: 'BTCUSDT' })));
    const elapsedMs = Date.now() - t0;
    expect(results).toHaveLength(10);
    const refused = ((await getFaults(ex)).hits.rateLimit ?? 0) - hitsBefore;
    // 10 requests, and one more per 429: nothing was sent again before Retry-After.
    expect(a.transport.calls.length).toBe(10 + refused);
    expect(elapsedMs).toBeGreaterThanOrEqual(900);
    recordFigures('orders', 'rateLimitSdk', { requests: 10, refused429: refused, sent: a.transport.calls.length, retryAfterMs: 1000, elapsedMs });
  });

  it('429 and 503 bursts (bot): cancels go out first, no request storm, the bot converges', async () => {
    const a = await acct();
    const { b, s } = await steeredBot(a);
    s.ctx().emit([bid('45000'), bid('44990')]);
    await until(() => b.bot.tracker.live('s').filter((o) => o.state === 'NEW').length === 2, 'two bids');
    const [first] = b.bot.tracker.live('s');
    const report: Record<string, unknown> = {};
    for (const fault of ['rateLimit', 'http5xx'] as const) {
      await clearFaults(ex);
      const hitsBefore = (await getFaults(ex)).hits[fault] ?? 0;
      if (fault === 'rateLimit') await setFault(ex, { fault, userId: a.userId, retryAfterSec: 1, durationMs: 1500 });
      else await setFault(ex, { fault, status: 503, userId: a.userId, pathPrefix: '/v1/private/order/batch-', count: 2 });
      a.transport.clear();
      const t0 = Date.now();
      // One tick: a cancel and a new order.
      const live = b.bot.tracker.live('s').filter((o) => o.state === 'NEW');
      const victim = live.find((o) => o.clientOrderId !== first.clientOrderId) ?? live[0];
      s.ctx().emit([{ kind: 'cancel', clientOrderId: victim.clientOrderId }, bid(fault === 'rateLimit' ? '44980' : '44970')]);
      await until(() => b.bot.tracker.get(victim.clientOrderId)?.state === 'CANCELED', `${fault}: the cancel went through`, 30000);
      const c = await expectConverged(a, b.bot, 30000);
      const orderCalls = a.transport.calls.filter((x) => x.path.startsWith('/v1/private/order/batch-'));
      const firstPlace = orderCalls.findIndex((x) => x.path.endsWith('/batch-place'));
      const lastCancel = orderCalls.map((x) => x.path.endsWith('/batch-cancel')).lastIndexOf(true);
      expect(lastCancel).toBeGreaterThanOrEqual(0);
      // Cancels first: every cancel attempt was made before the first placement attempt.
      expect(firstPlace === -1 || lastCancel < firstPlace).toBe(true);
      const hits = ((await getFaults(ex)).hits[fault] ?? 0) - hitsBefore;
      // No storm: a handful of requests, not a retry loop.
      expect(a.transport.calls.length).toBeLessThan(40);
      report[fault] = { refused: hits, requests: a.transport.calls.length, orderRequests: orderCalls.map((x) => x.path.split('/').pop()), convergedMs: Date.now() - t0, duplicates: c.duplicateClientOrderIds.length };
    }
    recordFigures('orders', 'burstsBot', report);
  });

  it('clock skew beyond recvWindow (API key): time re-synced, requests succeed (SDK and bot)', async () => {
    const a = await acct({ apiKey: true });
    await a.client.syncTime();
    const before = a.client.clockOffsetMs;
    await setFault(ex, { fault: 'clockSkewMs', ms: 30000 });
    a.transport.clear();
    const t0 = Date.now();
    const placed = await a.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.01' });
    const sdkMs = Date.now() - t0;
    expect(placed.status).toBe('NEW');
    expect(a.client.clockOffsetMs - before).toBeGreaterThan(25000);
    const timeSyncs = a.transport.calls.filter((x) => x.path === '/v1/time').length;
    expect(timeSyncs).toBe(1);

    // A bot on another API-key account, started before the skew moves the other way.
    const bAcct = await acct({ apiKey: true });
    const { b, s } = await steeredBot(bAcct);
    await setFault(ex, { fault: 'clockSkewMs', on: false });
    await setFault(ex, { fault: 'clockSkewMs', ms: -20000 });
    const t1 = Date.now();
    s.ctx().emit(bid('45000'));
    await until(() => b.bot.tracker.live('s').some((o) => o.state === 'NEW'), 'the bot places under skew');
    const botMs = Date.now() - t1;
    const c = await expectConverged(bAcct, b.bot);
    expect(c.venueOpen).toHaveLength(1);
    // Sent again after the 20003 and the time sync, with the same clientOrderId: one order.
    expect(c.duplicateClientOrderIds).toEqual([]);
    expect(b.bot.stats.errors).toBe(0);
    recordFigures('orders', 'clockSkew', { skewMs: [30000, -20000], recvWindowMs: 5000, sdkPlaceMs: sdkMs, sdkTimeSyncs: timeSyncs, botPlaceMs: botMs, botErrors: b.bot.stats.errors, botSendsOfTheOrder: bAcct.transport.of('/batch-place').length, unknown: (await compare(bAcct, b.bot)).unknown.length });
  });
});
