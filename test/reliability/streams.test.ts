/**
 * Matrix rows on the private stream (docs/reliability.md "Fault injection"): half-open
 * connection, pongs without events, listenKey expiry and failing keepalives, duplicated and
 * reordered events. Each runs a bot (LiveVenue, short heartbeats) on the local exchange, injects
 * the fault through the admin API, changes orders behind the bot's back while it cannot hear,
 * and checks that the bot ends equal to the venue: open orders, positions, executed quantities,
 * no duplicates. Detection and recovery times go to .results/streams.json.
 */
import type { BotEvent } from '../../src/bot/bus/events';
import { Dec } from '../../src/core/decimal';
import { bid, controllable } from '../bot/e2e/e2e';
import type { TestExchange } from '../helpers/exchange';
import { account, clearFaults, expectConverged, getFaults, recordFigures, setFault, startBot, startReliabilityExchange, until, type Account, type RelBot } from './support/world';

jest.setTimeout(90_000);

const isStream = (status: string) => (e: BotEvent) => e.type === 'stream' && e.stream === 'private' && e.status === status;
const reconciled = (prefix: string) => (e: BotEvent) => e.type === 'reconciled' && e.reason.startsWith(prefix);

describe('reliability: private stream faults', () => {
  let ex: TestExchange;
  let other: Account;

  beforeAll(async () => {
    ex = await startReliabilityExchange();
    other = await account(ex, { balance: '100000000' });
  });

  afterEach(async () => {
    await clearFaults(ex);
  });

  afterAll(async () => {
    await other.client.close();
    await ex.stop();
  });

  const bots: RelBot[] = [];
  afterAll(async () => {
    for (const b of bots) await b.bot.stop();
  });

  /** A bot with three acknowledged bids. */
  async function botWithBids(opts: { silenceTimeoutMs?: number } = {}): Promise<{ a: Account; b: RelBot }> {
    const a = await account(ex);
    const s = controllable(['BTCUSDT'], () => [bid('49000'), bid('48990'), bid('48980')]);
    const b = await startBot(a.client, [{ id: 's', definition: s.definition, params: {} }], opts);
    bots.push(b);
    await until(() => b.bot.tracker.live('s').filter((o) => o.state === 'NEW').length === 3, 'three bids acknowledged');
    return { a, b };
  }

  /** Another user fills the first bid; the owner cancels the second over REST (not through the bot). */
  async function behindTheBotsBack(a: Account, b: RelBot): Promise<void> {
    const [o1, o2] = b.bot.tracker.live('s').sort((x, y) => Number(y.price) - Number(x.price));
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: o1.price, quantity: o1.quantity, timeInForce: 'IOC' });
    await a.client.orders.cancelOrder({ symbol: 'BTCUSDT', clientOrderId: o2.clientOrderId });
  }

  it('half-open WebSocket: detected within the ping deadline, reconnect with backoff, REST resync', async () => {
    const { a, b } = await botWithBids();
    const t0 = Date.now();
    const r = await setFault(ex, { fault: 'dropWs', userId: a.userId, mode: 'halfOpen' });
    expect(r.hits.dropWs).toBeGreaterThanOrEqual(1);
    await behindTheBotsBack(a, b);
    await until(() => b.firstAt(t0, isStream('disconnected')) !== undefined, 'the dead connection is noticed');
    await until(() => b.firstAt(t0, reconciled('reconnected')) !== undefined, 'reconnected and reconciled');
    const c = await expectConverged(a, b.bot);
    expect(c.venuePositions).toEqual(['BTCUSDT:BOTH:0.01']);
    expect(c.venueOpen).toHaveLength(1);
    const detectionMs = (b.firstAt(t0, isStream('disconnected')) as number) - t0;
    const recoveryMs = (b.firstAt(t0, reconciled('reconnected')) as number) - t0;
    // Ping every 500 ms, pong deadline 1000 ms: found within ~1.5 s; generous bound for a loaded machine.
    expect(detectionMs).toBeLessThan(15000);
    recordFigures('streams', 'halfOpen', { pingDeadlineMs: 1500, detectionMs, recoveryMs, duplicates: c.duplicateClientOrderIds.length, resent: c.resentClientOrderIds.length });
  });

  it('WebSocket cut (terminate, 1006): reconnect and resync', async () => {
    const { a, b } = await botWithBids();
    const t0 = Date.now();
    await setFault(ex, { fault: 'silence', userId: a.userId, durationMs: 60000 });
    await setFault(ex, { fault: 'dropWs', userId: a.userId, mode: 'terminate' });
    await behindTheBotsBack(a, b);
    await setFault(ex, { fault: 'silence', on: false, userId: a.userId });
    await until(() => b.firstAt(t0, reconciled('reconnected')) !== undefined, 'reconnected and reconciled');
    const c = await expectConverged(a, b.bot);
    recordFigures('streams', 'terminate', {
      detectionMs: (b.firstAt(t0, isStream('disconnected')) as number) - t0,
      recoveryMs: (b.firstAt(t0, reconciled('reconnected')) as number) - t0,
      duplicates: c.duplicateClientOrderIds.length,
    });
  });

  it('pongs but no events: the silence watchdog polls REST and state converges', async () => {
    const { a, b } = await botWithBids({ silenceTimeoutMs: 1000 });
    const t0 = Date.now();
    await setFault(ex, { fault: 'silence', userId: a.userId, durationMs: 60000 });
    await behindTheBotsBack(a, b);
    await until(() => b.firstAt(t0, isStream('silent')) !== undefined, 'silence detected');
    await until(() => b.firstAt(t0, reconciled('silent')) !== undefined, 'reconciled after silence');
    const c = await expectConverged(a, b.bot);
    // The connection stayed up all along: nothing was reconnected.
    expect(b.firstAt(t0, isStream('reconnected'))).toBeUndefined();
    recordFigures('streams', 'silence', {
      silenceTimeoutMs: 1000,
      detectionMs: (b.firstAt(t0, isStream('silent')) as number) - t0,
      recoveryMs: (b.firstAt(t0, reconciled('silent')) as number) - t0,
      duplicates: c.duplicateClientOrderIds.length,
    });
  });

  it('listenKey expired: new key, reconnect, resync, no missed fills', async () => {
    const { a, b } = await botWithBids();
    const firstKey = b.venue.privateStream?.currentListenKey;
    const t0 = Date.now();
    const r = await setFault(ex, { fault: 'expireListenKeys', userId: a.userId });
    expect(r.hits.expireListenKeys).toBeGreaterThanOrEqual(1);
    // Fills right after the expiry, while the bot gets a new key: they must not be lost.
    await behindTheBotsBack(a, b);
    await until(() => b.firstAt(t0, reconciled('reconnected')) !== undefined, 'reconnected on a new key and reconciled');
    const c = await expectConverged(a, b.bot);
    expect(b.venue.privateStream?.currentListenKey).not.toBe(firstKey);
    expect(c.venuePositions).toEqual(['BTCUSDT:BOTH:0.01']);
    recordFigures('streams', 'listenKeyExpired', {
      detectionMs: (b.firstAt(t0, isStream('disconnected')) as number) - t0,
      recoveryMs: (b.firstAt(t0, reconciled('reconnected')) as number) - t0,
      fillMismatches: c.fillMismatches.length,
    });
  });

  it('keepalive fails (503 on PUT listen-key) until the key runs out: renewed, no missed fills', async () => {
    // Keys made from now on live 3 s; every keepalive of this user is refused for 8 s.
    await setFault(ex, { fault: 'expireListenKeys', ttlMs: 3000, durationMs: 20000 });
    const { a, b } = await botWithBids();
    const firstKey = b.venue.privateStream?.currentListenKey;
    const t0 = Date.now();
    await setFault(ex, { fault: 'http5xx', status: 503, userId: a.userId, method: 'PUT', pathPrefix: '/v1/private/user/listen-key', durationMs: 8000 });
    await until(() => b.venue.privateStream?.currentListenKey !== firstKey, 'a new listenKey after the old one expired', 30000);
    await behindTheBotsBack(a, b);
    await until(() => b.firstAt(t0, reconciled('reconnected')) !== undefined, 'reconciled after the renewal');
    const c = await expectConverged(a, b.bot);
    const hits = (await getFaults(ex)).hits;
    expect(hits.http5xx).toBeGreaterThanOrEqual(1);
    recordFigures('streams', 'keepAliveFails', {
      keepAlivesRefused: hits.http5xx,
      renewedAfterMs: (b.firstAt(t0, isStream('disconnected')) as number) - t0,
      recoveryMs: (b.firstAt(t0, reconciled('reconnected')) as number) - t0,
      fillMismatches: c.fillMismatches.length,
    });
  });

  it('duplicated and reordered events: state never moves backwards; fills equal the venue', async () => {
    const { a, b } = await botWithBids();
    const t0 = Date.now();
    await setFault(ex, { fault: 'duplicateEvents', userId: a.userId, probability: 0.7 });
    await setFault(ex, { fault: 'reorderEvents', userId: a.userId, probability: 0.5, windowMs: 30 });
    // Partial fills in steps: TRADE and ACCOUNT_UPDATE events, duplicated and swapped.
    const live = b.bot.tracker.live('s');
    for (let i = 0; i < 4; i++) {
      for (const o of live) await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: o.price, quantity: '0.002', timeInForce: 'IOC' });
    }
    const hits = (await getFaults(ex)).hits;
    await clearFaults(ex);
    const c = await expectConverged(a, b.bot);
    expect(c.venuePositions).toHaveLength(1);
    // The fills the strategies were told about add up to the venue's executed quantity.
    const fillQty = new Map<string, Dec>();
    for (const e of b.events) if (e.type === 'fill') fillQty.set(e.fill.clientOrderId, (fillQty.get(e.fill.clientOrderId) ?? new Dec(0)).plus(e.fill.quantity));
    const told = live.map((o) => `${o.clientOrderId}:${(fillQty.get(o.clientOrderId) ?? new Dec(0)).toString()}`);
    const venue = live.map((o) => `${o.clientOrderId}:${new Dec(b.bot.tracker.get(o.clientOrderId)?.executedQty ?? '0').toString()}`);
    expect(told).toEqual(venue);
    recordFigures('streams', 'duplicateReorder', {
      duplicatedFrames: hits.duplicateEvents ?? 0,
      reorderedFrames: hits.reorderEvents ?? 0,
      illegalTransitionsRefused: b.events.filter((e) => e.type === 'illegalTransition').length,
      resyncs: b.events.filter((e, i) => i >= 0 && e.type === 'reconciled').length,
      fillMismatches: c.fillMismatches.length,
      duplicates: c.duplicateClientOrderIds.length,
      sinceMs: Date.now() - t0,
    });
  });
});
