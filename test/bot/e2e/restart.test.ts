/**
 * Restart mid-run: bot 1 stops without cancelling, bot 2 (new process: new client, new Bot, the
 * same strategy ids) starts on the same account and adopts the orders instead of duplicating them.
 */
import { defineStrategy, type StrategyContext } from '../../../src/bot/strategy/api';
import type { Intent } from '../../../src/bot/strategy/intents';
import { World, until, venueTruth } from './e2e';

const LEVELS = ['49000', '48990', '48980', '48970', '48960'];

/** A ladder of `levels` bids that places only the levels it does not already hold. */
function ladder(seenAtStart: number[]) {
  return defineStrategy<{ levels: number }>({
    name: 'ladder',
    symbols: () => ['BTCUSDT'],
    params: (raw) => ({ levels: Number(raw.levels) }),
    create: (ctx: StrategyContext<{ levels: number }>) => ({
      onStart: (): Intent[] => {
        const mine = ctx.myOrders('BTCUSDT');
        seenAtStart.push(mine.length);
        const held = new Set(mine.map((o) => o.price));
        return LEVELS.slice(0, ctx.params.levels)
          .filter((p) => !held.has(p))
          .map((price) => ({ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, quantity: '0.01' }));
      },
    }),
  });
}

describe('e2e: restart of the bot mid-run with open orders', () => {
  let w: World;

  beforeAll(async () => {
    w = await World.start();
  });

  afterAll(async () => {
    await w.stop();
  });

  it('bot 2 adopts the open orders of bot 1: no duplicates, its strategy sees them, new ids do not collide', async () => {
    const u = await w.ex.createUser({ balance: '100000' });
    const first = await w.login(u.username, u.password);
    const seen1: number[] = [];
    const b1 = await w.bot(first.client, [{ id: 'lad', definition: ladder(seen1), params: { levels: 3 } }]);
    await until(() => b1.bot.tracker.live('lad').filter((o) => o.state === 'NEW').length === 3, 'bot 1 quotes');
    const before = await venueTruth(first.client);
    await b1.bot.stop();
    // Stopping without cancelOnStop leaves the orders working.
    expect((await venueTruth(first.client)).open).toEqual(before.open);

    // The restarted process: new client and bot, same strategy id, one more level configured.
    const second = await w.login(u.username, u.password);
    const seen2: number[] = [];
    const b2 = await w.bot(second.client, [{ id: 'lad', definition: ladder(seen2), params: { levels: 4 } }]);
    expect(seen1).toEqual([0]);
    expect(seen2).toEqual([3]);
    expect(b2.events.find((e) => e.type === 'reconciled')).toMatchObject({ reason: 'start', adopted: 3 });
    // Only the missing level was sent.
    expect(second.transport.placedOrders().map((o) => o.price)).toEqual(['48970']);
    await until(() => b2.bot.tracker.live('lad').filter((o) => o.state === 'NEW').length === 4, 'bot 2 holds 4');
    const after = await venueTruth(second.client);
    expect(after.open).toHaveLength(4);
    expect(new Set(after.open).size).toBe(4);
    expect(after.open.filter((c) => before.open.includes(c))).toEqual(before.open);
    const prices = (await second.client.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).list.map((o) => o.price).sort();
    expect(prices).toEqual(['48970', '48980', '48990', '49000']);
    expect(
      b2.bot.tracker
        .live('lad')
        .map((o) => o.clientOrderId)
        .sort(),
    ).toEqual(after.open);
    expect(b2.bot.stats.errors).toBe(0);
  });
});
