/**
 * A venue that forgets the bot's orders (a local exchange restarted without its data directory, on
 * the same port): the bot's acknowledged bid is not found after the reconnect. It was taken as
 * "never placed" at info (ordersByState REJECTED, nothing said); the bot now says at warn that the
 * venue lost an order it had acknowledged.
 */
import pino from 'pino';
import { SystemClock, SystemScheduler } from '../../../src/core/clock';
import { Bot } from '../../../src/bot/bot';
import { LiveVenue } from '../../../src/bot/venue/live-venue';
import { PerpClient } from '../../../src/client';
import type { ExchangeConfigOverrides } from '../../../src/exchange/service/config';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';
import { bid, controllable, until } from './e2e';

const USER = { username: 'lost-orders', password: 'pw-lost-orders-1', balance: '100000' };
const CONFIG: ExchangeConfigOverrides = { users: [USER], rateLimits: { ordersPer10s: 100_000, requestsPerMinute: 1_000_000 } };

describe('e2e: a venue that lost the bot orders', () => {
  let ex: TestExchange | undefined;
  afterAll(async () => {
    await ex?.stop();
  });

  it('an acknowledged order the restarted venue does not know is said at warn, and ends', async () => {
    ex = await startTestExchange(CONFIG);
    const port = Number(new URL(ex.url).port);
    const lines: Array<{ level: number; msg: string; err?: { message?: string } }> = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) });
    const client = new PerpClient({ baseUrl: ex.url });
    await client.login(USER.username, USER.password, { keepSignedIn: true });
    const venue = new LiveVenue({ client, privateStream: { pingIntervalMs: 500, pongTimeoutMs: 500, reconnectBackoff: { baseMs: 100, maxMs: 500 } } });
    const s = controllable(['BTCUSDT'], () => [bid('49000')]);
    const bot = new Bot({ venue, strategies: [{ id: 's', definition: s.definition, params: {} }], risk: {}, clock: new SystemClock(), scheduler: new SystemScheduler(), logger, cancelOnStop: false });
    try {
      await bot.start();
      await until(() => bot.tracker.live('s').some((o) => o.state === 'NEW'), 'the bid acknowledged');
      const [order] = bot.tracker.live('s');
      // The venue restarts with nothing of its past: same port, same configured user.
      await ex.stop();
      ex = await startTestExchange({ ...CONFIG, port });
      await until(() => bot.tracker.get(order.clientOrderId)?.state !== 'NEW', 'the bid settled after the restart', 30_000);
      const lost = lines.filter((l) => l.err?.message?.includes('unknown to the venue now'));
      expect(lost.map((l) => [l.level, l.err?.message])).toEqual([[40, expect.stringMatching(new RegExp(`^order ${order.clientOrderId} \\(venue id ${order.orderId}, NEW, 0 of 0\\.01 filled\\) is unknown to the venue now: it lost the order`))]]);
    } finally {
      await bot.stop();
      await client.close();
    }
  }, 60_000);
});
