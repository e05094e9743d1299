/** Two strategies in one bot on one account keep their orders, fills and cancelAll apart. */
import { World, bid, controllable, until, venueTruth, type Account } from './e2e';

describe('e2e: two strategies in one bot', () => {
  let w: World;
  let other: Account;

  beforeAll(async () => {
    w = await World.start();
    other = await w.account('10000000');
  });

  afterAll(async () => {
    await w.stop();
  });

  it('orders, fills and cancelAll stay with the strategy that owns them', async () => {
    const acct = await w.account();
    const a = controllable(['BTCUSDT'], () => [bid('49000'), bid('48990')]);
    const b = controllable(['BTCUSDT', 'ETHUSDT'], () => [bid('48980'), bid('48970'), bid('2900', '0.1', 'ETHUSDT')]);
    const { bot } = await w.bot(acct.client, [
      { id: 'a', definition: a.definition, params: {} },
      { id: 'b', definition: b.definition, params: {} },
    ]);
    await until(() => bot.tracker.live().filter((o) => o.state === 'NEW').length === 5, 'five acknowledged');
    expect(a.ctx().myOrders().map((o) => o.price)).toEqual(['49000', '48990']);
    expect(b.ctx().myOrders('BTCUSDT').map((o) => o.price)).toEqual(['48980', '48970']);
    expect(bot.tracker.live('a').every((o) => o.clientOrderId.startsWith('a-'))).toBe(true);

    const ownedOf = (seen: typeof a.seen, id: string): boolean =>
      seen.every((e) => !(e.type === 'order' || e.type === 'fill' || e.type === 'denial' || e.type === 'rejection') || e.strategyId === id);

    // Fill a's best bid: only a hears about it.
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49000', quantity: '0.01', timeInForce: 'IOC' });
    await until(() => a.seen.some((e) => e.type === 'fill'), 'a sees its fill');
    expect(b.seen.some((e) => e.type === 'fill')).toBe(false);

    // a's cancelAll takes only a's orders off the venue.
    a.ctx().emit({ kind: 'cancelAll' });
    await bot.idle();
    await until(() => bot.tracker.live('a').length === 0, 'a has nothing live');
    const bIds = bot.tracker
      .live('b')
      .map((o) => o.clientOrderId)
      .sort();
    expect(bIds).toHaveLength(3);
    expect((await venueTruth(acct.client)).open).toEqual(bIds);

    // Then fill one of b's: b hears it, a does not get a second fill.
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '48980', quantity: '0.01', timeInForce: 'IOC' });
    await until(() => b.seen.some((e) => e.type === 'fill'), 'b sees its fill');
    expect(a.seen.filter((e) => e.type === 'fill')).toHaveLength(1);
    expect(ownedOf(a.seen, 'a')).toBe(true);
    expect(ownedOf(b.seen, 'b')).toBe(true);
    await until(() => bot.cache.position('BTCUSDT')?.quantity === '0.02', 'position of both fills');
  });
});
