/**
 * An amend the venue refuses because the order has ended (30007), while the bot has not heard of
 * the end: its private stream is silent. Found live (`perpkit run`, the market maker, a silence
 * fault): both quotes filled during the silence, the net position did not change (so the position
 * poll saw no difference), and the bot amended the filled bid about 12 times a second for 50 s,
 * each answered 30007, until a reconnect reconciled it. The venue's answer says the bot's view is
 * stale: the order is asked for, and its fill reaches the tracker, the position and the strategy.
 */
import { Dec } from '../../src/core/decimal';
import { bid, controllable } from '../bot/e2e/e2e';
import type { TestExchange } from '../helpers/exchange';
import { account, clearFaults, expectConverged, setFault, startBot, startReliabilityExchange, until, type Account, type RelBot } from './support/world';

jest.setTimeout(60_000);

describe('reliability: an amend refused because its order ended, the end not heard', () => {
  let ex: TestExchange;
  let other: Account;
  let a: Account;
  let b: RelBot | undefined;

  beforeAll(async () => {
    ex = await startReliabilityExchange();
    other = await account(ex, { balance: '100000000' });
  });

  afterAll(async () => {
    await b?.bot.stop();
    await a?.client.close();
    await other.client.close();
    await ex.stop();
  });

  it('asks the venue for the order: the fill reaches the tracker, the position and the strategy, and amends stop', async () => {
    await clearFaults(ex);
    a = await account(ex);
    const s = controllable(['BTCUSDT'], () => [bid('49000', '0.01')]);
    // The silence watchdog is far away, and no position poll: only the refused amend can tell.
    b = await startBot(a.client, [{ id: 's', definition: s.definition, params: {} }], { silenceTimeoutMs: 600_000 });
    const bot = b.bot;
    await until(() => bot.tracker.live('s').filter((o) => o.state === 'NEW').length === 1, 'the bid is acknowledged');
    const [order] = bot.tracker.live('s');

    await setFault(ex, { fault: 'silence', userId: a.userId, durationMs: 60_000 });
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49000', quantity: '0.01', timeInForce: 'IOC' });
    const refused = () => s.seen.filter((e) => e.type === 'rejection' && e.code === 30007).length;
    // The strategy requotes, as a market maker does on every mark, not knowing its bid filled.
    const t0 = Date.now();
    for (let i = 0; i < 40 && bot.tracker.get(order.clientOrderId)?.state !== 'FILLED'; i++) {
      s.ctx().emit({ kind: 'amend', clientOrderId: order.clientOrderId, price: String(48990 - i), quantity: '0.01' });
      await new Promise((r) => setTimeout(r, 100));
    }
    // Before the fix: NEW after 40 amends, each refused by the venue, the fill never known.
    expect(bot.tracker.get(order.clientOrderId)?.state).toBe('FILLED');
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(refused()).toBeGreaterThanOrEqual(1);
    expect(new Dec(bot.tracker.get(order.clientOrderId)?.executedQty ?? '0').toString()).toBe('0.01');
    await until(() => bot.cache.position('BTCUSDT', 'BOTH')?.quantity === '0.01', 'the position has the fill');
    const told = () => s.seen.filter((e) => e.type === 'fill' && e.fill.clientOrderId === order.clientOrderId);
    // The trade records are fetched after the query that made it FILLED.
    await until(() => told().length > 0, 'the strategy is told of the fill');
    expect(told().map((e) => (e.type === 'fill' ? new Dec(e.fill.quantity).toString() : ''))).toEqual(['0.01']);

    await setFault(ex, { fault: 'silence', on: false, userId: a.userId });
    const c = await expectConverged(a, bot);
    expect(c.fillMismatches).toEqual([]);
  });
});
