import { SystemClock, SystemScheduler } from '../../../src/core/clock';
import { Bot } from '../../../src/bot/bot';
import { LiveVenue } from '../../../src/bot/venue/live-venue';
import { PerpClient } from '../../../src/client';
import marketMaker from '../../../strategies/market-maker';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';
import { silentLogger } from '../harness';

async function until(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a bot on the local exchange over real HTTP and WebSocket (LiveVenue)', () => {
  let ex: TestExchange;
  let bot: Bot;
  let client: PerpClient;
  let other: PerpClient;

  beforeAll(async () => {
    ex = await startTestExchange();
    const u = await ex.createUser({ balance: '100000' });
    const o = await ex.createUser({ balance: '100000' });
    client = new PerpClient({ baseUrl: ex.url });
    await client.login(u.username, u.password);
    other = new PerpClient({ baseUrl: ex.url });
    await other.login(o.username, o.password);
    bot = new Bot({
      venue: new LiveVenue({ client }),
      strategies: [{ id: 'mm', definition: marketMaker, params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
      risk: { maxOrderNotional: '10000' },
      clock: new SystemClock(),
      scheduler: new SystemScheduler(),
      logger: silentLogger,
    });
    await bot.start();
  });

  afterAll(async () => {
    await bot.stop();
    await ex.stop();
  });

  it('quotes on the venue, gets filled through the stream, and tracks the fill', async () => {
    await until(async () => (await client.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).total === 2);
    const { list } = await client.orders.getCurrentOrders({ symbol: 'BTCUSDT' });
    expect(list.every((x) => x.clientOrderId.startsWith('mm-'))).toBe(true);
    const bidPrice = list.find((x) => x.side === 'BUY')?.price as string;
    await other.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: bidPrice, quantity: '0.01', timeInForce: 'IOC' });
    await until(() => bot.stats.fills === 1);
    await until(() => bot.cache.position('BTCUSDT')?.quantity === '0.01');
    expect(bot.tracker.live('mm').length).toBeGreaterThanOrEqual(1);
  });
});
