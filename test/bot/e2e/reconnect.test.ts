/**
 * Stream faults through the local exchange's own switches (WsGateway.dropUser / silence): orders
 * change on the venue while the bot cannot hear about it; the bot must notice (reconnect, or
 * silence while orders work), reconcile over REST, and end with its tracker and cache equal to
 * the venue's truth.
 */
import type { BotOptions } from '../../../src/bot/bot';
import { World, bid, botView, controllable, until, venueTruth, type Account, type E2EBot } from './e2e';

describe('e2e: reconnect and reconciliation after stream faults', () => {
  let w: World;
  let other: Account;

  beforeAll(async () => {
    w = await World.start();
    other = await w.account('10000000');
  });

  afterAll(async () => {
    await w.stop();
  });

  /** A bot with three resting bids, all acknowledged. */
  async function botWithBids(opts: { silenceTimeoutMs?: number; logger?: BotOptions['logger'] } = {}): Promise<{ acct: Account; b: E2EBot }> {
    const acct = await w.account();
    const s = controllable(['BTCUSDT'], () => [bid('49000'), bid('48990'), bid('48980')]);
    const b = await w.bot(acct.client, [{ id: 's', definition: s.definition, params: {} }], {}, opts);
    await until(() => b.bot.tracker.live('s').filter((o) => o.state === 'NEW').length === 3, 'three bids acknowledged');
    return { acct, b };
  }

  /** While the bot hears nothing: another user fills one bid, and a second is cancelled over REST. */
  async function changeBehindTheBotsBack(acct: Account, b: E2EBot): Promise<{ filled: string; cancelled: string }> {
    const [o1, o2] = b.bot.tracker.live('s');
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: o1.price, quantity: o1.quantity, timeInForce: 'IOC' });
    await acct.client.orders.cancelOrder({ symbol: 'BTCUSDT', clientOrderId: o2.clientOrderId });
    return { filled: o1.clientOrderId, cancelled: o2.clientOrderId };
  }

  async function expectConverged(acct: Account, b: E2EBot, ids: { filled: string; cancelled: string }): Promise<void> {
    const truth = await venueTruth(acct.client);
    expect(truth.open).toHaveLength(1);
    expect(truth.positions).toEqual(['BTCUSDT:BOTH:0.01']);
    await until(() => {
      const v = botView(b.bot);
      return JSON.stringify([v.tracked, v.cached, v.positions]) === JSON.stringify([truth.open, truth.open, truth.positions]);
    }, `bot view ${JSON.stringify(botView(b.bot))} = venue ${JSON.stringify(truth)}`);
    expect(b.bot.tracker.get(ids.filled)?.state).toBe('FILLED');
    expect(b.bot.tracker.get(ids.cancelled)?.state).toBe('CANCELED');
  }

  it('drop: the connection is cut, orders change meanwhile; the bot reconnects, reconciles and matches the venue', async () => {
    const { acct, b } = await botWithBids();
    const gw = w.ex.server.ws;
    // Events of the outage must be lost, not merely late: silence the user across the drop.
    gw.silence(acct.userId, true);
    expect(gw.dropUser(acct.userId)).toBeGreaterThan(0);
    const ids = await changeBehindTheBotsBack(acct, b);
    gw.silence(acct.userId, false);
    await until(() => b.events.some((e) => e.type === 'stream' && e.stream === 'private' && e.status === 'reconnected'), 'reconnected');
    await until(() => b.events.some((e) => e.type === 'reconciled' && e.reason.startsWith('reconnected')), 'reconciled after reconnect');
    await expectConverged(acct, b, ids);
    expect(b.bot.stats.reconnects).toBeGreaterThanOrEqual(1);
  });

  it('silence: pongs go on but events stop; silence is detected while orders work, REST resync converges', async () => {
    const { acct, b } = await botWithBids({ silenceTimeoutMs: 300 });
    const gw = w.ex.server.ws;
    gw.silence(acct.userId, true);
    try {
      const ids = await changeBehindTheBotsBack(acct, b);
      await until(() => b.events.some((e) => e.type === 'stream' && e.status === 'silent'), 'silence detected');
      await until(() => b.events.some((e) => e.type === 'reconciled' && e.reason.startsWith('silent')), 'reconciled after silence');
      await expectConverged(acct, b, ids);
      // Nothing was reconnected: the connection stayed up the whole time.
      expect(b.events.some((e) => e.type === 'stream' && e.status === 'reconnected')).toBe(false);
    } finally {
      gw.silence(acct.userId, false);
    }
  });
  it('fills a query found are fetched again when the trades endpoint failed, not lost', async () => {
    const lines: Array<{ level: string; fields: Record<string, unknown> }> = [];
    const at = (level: string) => (fields: object) => void lines.push({ level, fields: fields as Record<string, unknown> });
    const { acct, b } = await botWithBids({ silenceTimeoutMs: 300, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } });
    const gw = w.ex.server.ws;
    const admin = { 'x-admin-token': w.ex.adminToken };
    const fault = async (body: Record<string, unknown>): Promise<void> => {
      expect((await w.ex.call('POST', '/v1/admin/faults', { headers: admin, body: { userId: acct.userId, ...body } })).body.code).toBe(0);
    };
    // The trade records of orders answer 503 (the request has no effect) until switched off.
    await fault({ fault: 'http5xx', status: 503, method: 'GET', pathPrefix: '/v1/private/order/trades' });
    gw.silence(acct.userId, true);
    try {
      const ids = await changeBehindTheBotsBack(acct, b);
      await until(() => b.events.some((e) => e.type === 'reconciled' && e.reason.startsWith('silent')), 'reconciled after silence');
      // The query showed the order FILLED; the fetch of its fill failed and was reported.
      await until(() => b.bot.tracker.get(ids.filled)?.state === 'FILLED', 'the filled order settled', 10_000);
      await until(() => b.bot.stats.errors > 0, 'the failed fetch reported', 20_000);
      expect(b.events.some((e) => e.type === 'fill' && e.fill.clientOrderId === ids.filled)).toBe(false);
      await fault({ fault: 'http5xx', on: false });
      // Asked again (after 1, 2, 4, 8 s, then at each reconciliation): the fill reaches the strategy once.
      await until(() => b.events.some((e) => e.type === 'fill' && e.fill.clientOrderId === ids.filled), 'the fill fetched once the endpoint answers', 20_000);
      expect(b.events.filter((e) => e.type === 'fill' && e.fill.clientOrderId === ids.filled)).toHaveLength(1);
      // A 503 is retryable and the bot recovered from it: warn, not error.
      const fetchLines = lines.filter((l) => String(l.fields.context).startsWith('order fills of BTCUSDT order'));
      expect(fetchLines.length).toBeGreaterThan(0);
      expect(new Set(fetchLines.map((l) => l.level))).toEqual(new Set(['warn']));
    } finally {
      gw.silence(acct.userId, false);
      await w.ex.call('POST', '/v1/admin/faults', { headers: admin, body: { fault: 'all', on: false } });
    }
  }, 60_000);
});
