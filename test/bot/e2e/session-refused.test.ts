/**
 * A private stream whose credentials the venue refuses: a JWT session signed in without
 * keepSignedIn, and a local exchange restarted on the same port (it forgets sessions and
 * listenKeys). Every reconnect needs a new listenKey, which the venue refuses as unauthenticated,
 * and the refresh token is gone too. It was said per attempt at warn, forever, as a network
 * failure would be; the bot was never told. Now: once at error, a stream status `unauthenticated`
 * on which the bot reconciles (its order state is unknown), retries at the capped backoff, and a
 * new login recovers it, said at info, and the bot reconciles again.
 */
import pino from 'pino';
import { SystemClock, SystemScheduler } from '../../../src/core/clock';
import { Bot } from '../../../src/bot/bot';
import type { BotEvent } from '../../../src/bot/bus/events';
import { LiveVenue } from '../../../src/bot/venue/live-venue';
import { PerpClient } from '../../../src/client';
import type { ApiKeyRecord } from '../../../src/exchange/service/accounts-state';
import { StatusTracker } from '../../../src/runtime/status';
import type { ExchangeConfigOverrides } from '../../../src/exchange/service/config';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';
import { bid, controllable, until } from './e2e';

const USER = { username: 'refused-session', password: 'pw-refused-session-1', balance: '100000' };
const CONFIG: ExchangeConfigOverrides = { users: [USER], rateLimits: { ordersPer10s: 100_000, requestsPerMinute: 1_000_000 } };

type Line = { level: number; msg: string };

describe('e2e: a private stream whose session the venue no longer accepts', () => {
  let ex: TestExchange | undefined;
  afterAll(async () => {
    await ex?.stop();
  });

  it('is said once at error and to the bot, which reconciles; retried at the capped backoff; a new login recovers it, said at info', async () => {
    ex = await startTestExchange(CONFIG);
    const port = Number(new URL(ex.url).port);
    const lines: Line[] = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as Line) });
    const client = new PerpClient({ baseUrl: ex.url, logger, maxRetries: 0 });
    // No keepSignedIn: nothing signs in again when the venue forgets the session.
    await client.login(USER.username, USER.password);
    const venue = new LiveVenue({ client, privateStream: { pingIntervalMs: 500, pongTimeoutMs: 500, reconnectBackoff: { baseMs: 50, maxMs: 200 } } });
    const s = controllable(['BTCUSDT'], () => [bid('49000')]);
    const bot = new Bot({ venue, strategies: [{ id: 's', definition: s.definition, params: {} }], risk: {}, clock: new SystemClock(), scheduler: new SystemScheduler(), logger, cancelOnStop: false });
    const events: BotEvent[] = [];
    bot.bus.subscribeAll((e) => events.push(e));
    const refusedLines = (): Line[] => lines.filter((l) => l.msg.startsWith('private stream: the venue refuses the credentials'));
    const retries = (): Line[] => lines.filter((l) => l.msg === 'private stream: the venue still refuses the credentials; retrying');
    try {
      await bot.start();
      await until(() => bot.tracker.live('s').some((o) => o.state === 'NEW'), 'the bid acknowledged');
      await ex.stop();
      ex = await startTestExchange({ ...CONFIG, port });
      await until(() => refusedLines().length > 0, 'the refusal said', 15_000);
      // Several attempts later it is still said once, at error; the attempts at debug (not warn, each).
      await until(() => retries().length >= 3, 'three more attempts', 15_000);
      expect(refusedLines().map((l) => l.level)).toEqual([50]);
      expect(refusedLines()[0].msg).toMatch(/^private stream: the venue refuses the credentials \(2000\d: .+\), not a network failure: no order updates or fills reach this client until they are fixed/);
      expect(new Set(retries().map((l) => l.level))).toEqual(new Set([20]));
      const unauth = events.filter((e) => e.type === 'stream' && e.status === 'unauthenticated');
      expect(unauth).toHaveLength(1);
      // The bot takes its order state as unknown: it reconciles (here in vain: the venue refuses its REST calls as well).
      await until(() => events.some((e) => e.type === 'errorReported' && e.context === 'reconcile'), 'the reconciliation tried');
      const from = events.length;

      // The credentials fixed: the next attempt connects, said at info, and the bot reconciles.
      await client.login(USER.username, USER.password);
      await until(() => lines.some((l) => l.msg === 'private stream: the venue accepts the credentials again; reconnecting'), 'recovered', 15_000);
      expect(lines.find((l) => l.msg === 'private stream: the venue accepts the credentials again; reconnecting')?.level).toBe(30);
      await until(() => events.slice(from).some((e) => e.type === 'reconciled' && e.reason.startsWith('reconnected')), 'reconciled after the reconnect');
      expect(events.slice(from).filter((e) => e.type === 'stream').map((e) => (e.type === 'stream' ? `${e.stream} ${e.status}` : ''))).toContain('private reconnected');
      expect(refusedLines()).toHaveLength(1);
    } finally {
      await bot.stop();
      await client.close();
    }
  }, 60_000);

  it('a keepalive the venue refuses for the credentials (an API key it no longer knows) is the same: said once at error, the bot and /healthz see it unauthenticated; the key known again, connected', async () => {
    await ex?.stop();
    ex = await startTestExchange(CONFIG);
    const u = await ex.createUser({ balance: '100000' });
    const { apiKey, secret } = await ex.createApiKey(u.userId, ['READ', 'TRADE']);
    const lines: Line[] = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as Line) });
    const client = new PerpClient({ baseUrl: ex.url, logger, maxRetries: 0, apiKey: { apiKey, secret } });
    const venue = new LiveVenue({ client, privateStream: { keepAliveIntervalMs: 200, pingIntervalMs: 500, pongTimeoutMs: 500, reconnectBackoff: { baseMs: 50, maxMs: 200 } } });
    const s = controllable(['BTCUSDT'], () => [bid('49000')]);
    const bot = new Bot({ venue, strategies: [{ id: 's', definition: s.definition, params: {} }], risk: {}, clock: new SystemClock(), scheduler: new SystemScheduler(), logger, cancelOnStop: false });
    const status = new StatusTracker(bot);
    const events: BotEvent[] = [];
    bot.bus.subscribeAll((e) => events.push(e));
    const refusedLines = (): Line[] => lines.filter((l) => l.msg.startsWith('private stream: the venue refuses the credentials'));
    const streamStatuses = (): string[] => events.flatMap((e) => (e.type === 'stream' && e.stream === 'private' ? [e.status] : []));
    try {
      await bot.start();
      await until(() => bot.tracker.live('s').some((o) => o.state === 'NEW'), 'the bid acknowledged');
      expect(status.privateStream).toBe('connected');
      // The venue forgets the key (revoked); the connection stays open.
      const keys = ex.server.core.accounts.apiKeys;
      const record = keys.get(apiKey) as ApiKeyRecord;
      keys.delete(apiKey);
      await until(() => status.privateStream === 'unauthenticated', 'the bot sees the stream unauthenticated', 10_000);
      expect(status.privateStreamReason).toMatch(/^private stream unauthenticated: the venue refuses the credentials \(.*signature does not match, or the API key is unknown.*\); no order updates or fills reach the bot until they are fixed/);
      expect(refusedLines().map((l) => l.level)).toEqual([50]);
      expect(streamStatuses().filter((x) => x === 'unauthenticated')).toHaveLength(1);
      // The bot takes its order state as unknown: it reconciles (in vain: the venue refuses its REST calls as well).
      await until(() => events.some((e) => e.type === 'errorReported' && e.context === 'reconcile'), 'the reconciliation tried');

      keys.set(apiKey, record);
      await until(() => status.privateStream === 'connected', 'connected again', 15_000);
      expect(streamStatuses().slice(-1)).toEqual(['connected']);
      expect(refusedLines()).toHaveLength(1);
    } finally {
      await bot.stop();
      await client.close();
    }
  }, 60_000);
});
