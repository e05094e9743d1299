/**
 * `venue.stream` of the bot config reaches the streams the daemon opens: a half-open private
 * connection (the venue neither reads nor sends) is found within ping + pong, not the SDK's
 * default 20 + 10 s, and replaced.
 */
import { connectLiveVenue } from '../../src/runtime/wiring';
import { parseBotConfig } from '../../src/runtime/config';
import type { VenueEvent } from '../../src/bot/venue/venue';
import pino from 'pino';
import { startTestExchange, type TestExchange } from '../helpers/exchange';
import { setFault, until } from '../reliability/support/world';

describe('venue.stream heartbeat settings', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange();
  });
  afterAll(async () => {
    await ex.stop();
  });

  it('a half-open private stream is replaced within pingIntervalMs + pongTimeoutMs', async () => {
    const u = await ex.createUser({ balance: '1000' });
    const config = parseBotConfig(
      {
        venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'UNUSED' }, stream: { pingIntervalMs: 1000, pongTimeoutMs: 500 } },
        strategies: [{ id: 's', module: 'market-maker' }],
      },
      'bot.yaml',
    );
    const { client, venue } = await connectLiveVenue(config, { kind: 'password', username: u.username, password: u.password }, pino({ level: 'silent' }));
    const events: VenueEvent[] = [];
    const sub = venue.events.subscribe((e) => events.push(e));
    try {
      await venue.start(['BTCUSDT']);
      const t0 = Date.now();
      await setFault(ex, { fault: 'dropWs', userId: u.userId, mode: 'halfOpen' });
      // The SDK's defaults would take 20-30 s here.
      await until(() => events.some((e) => e.type === 'stream' && e.stream === 'private' && e.status === 'reconnected'), 'the private stream replaced', 10_000);
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      sub.unsubscribe();
      await venue.stop();
      await client.close();
    }
  }, 30_000);
});
