/**
 * The start's reconciliation must succeed before any strategy trades. A start whose first read of
 * the venue's open orders failed (one 503) logged a bot error and went on: the strategy quoted
 * beside the previous run's orders, which were never adopted, repriced or cancelled (4 working
 * orders while /status said 2). Now a busy venue is asked again after growing pauses, and a
 * refusal no retry changes (a key without TRADE permission) fails the start at once, touching
 * nothing. Unit cases for the policy, then the daemon against the local exchange.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { reconcileAtStart } from '../../src/bot/execution/start-reconcile';
import { ErrorCodes, VenueError } from '../../src/core/errors';
import { loadBotConfig } from '../../src/runtime/config';
import { BotDaemon } from '../../src/runtime/daemon';
import { createRuntimeLogger } from '../../src/runtime/logger';
import { startTestExchange, type TestExchange } from '../helpers/exchange';
import { freePort } from '../helpers/ports';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('reconcileAtStart', () => {
  it('asks again after each pause while the venue is busy or unreachable, then goes on', async () => {
    const failures: unknown[] = [new VenueError(ErrorCodes.BUSY, 'service busy'), new Error('socket hang up'), new VenueError(ErrorCodes.RATE_LIMITED, 'slow down')];
    const slept: number[] = [];
    let calls = 0;
    await reconcileAtStart(async () => {
      calls++;
      const f = failures.shift();
      if (f !== undefined) throw f;
    }, async (ms) => void slept.push(ms), silent, [10, 20, 30, 40]);
    expect([calls, slept]).toEqual([4, [10, 20, 30]]);
  });

  it('fails at once on a refusal no retry changes, and after the last pause otherwise; nothing placed either way', async () => {
    const slept: number[] = [];
    await expect(reconcileAtStart(() => Promise.reject(new VenueError(ErrorCodes.PERMISSION_DENIED, 'this API key lacks the TRADE permission')), async (ms) => void slept.push(ms), silent, [10])).rejects.toThrow(
      /^could not reconcile with the venue at start \(its open orders and positions\), and asking again would not help: this API key lacks the TRADE permission; nothing was placed$/,
    );
    expect(slept).toEqual([]);
    await expect(reconcileAtStart(() => Promise.reject(new VenueError(ErrorCodes.BUSY, 'service busy')), async (ms) => void slept.push(ms), silent, [10, 20])).rejects.toThrow(/, 3 attempts in all: service busy; nothing was placed$/);
    expect(slept).toEqual([10, 20]);
  });
});

describe('the daemon start against the local exchange', () => {
  const PASSWORD = 'pw-start-reconcile-1';
  let ex: TestExchange;
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const logger = createRuntimeLogger({ level: 'debug', stream: new Writable({ write: (c: Buffer, _e, cb) => void (lines.push(JSON.parse(c.toString()) as { level: number; msg: string }), cb()) }) });
  beforeAll(async () => {
    ex = await startTestExchange();
  });
  afterAll(async () => {
    await ex.stop();
  });

  async function config(auth: Record<string, unknown>, userId: string, port = 0): Promise<string> {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-start-reconcile-'));
    const file = path.join(dir, 'bot.yaml');
    // Wide quotes that do not fill; no position poll (it would adopt the orphans by chance later).
    writeFileSync(file, JSON.stringify({
      venue: { baseUrl: ex.url, auth },
      strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '60', refreshMs: 200 } }],
      pollPositionsMs: 0,
      cancelOnStop: false,
      http: { host: '127.0.0.1', port, killTokenEnv: 'KILL' },
    }));
    void userId;
    return file;
  }
  const open = (userId: string): string[] => ex.server.core.engine.currentOrders(userId, {}).list.map((o) => o.clientOrderId).sort();
  async function until(cond: () => boolean, ms = 8000): Promise<void> {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('a busy venue at start is asked again: the earlier run\'s quotes are adopted, never left beside new ones', async () => {
    const u = await ex.createUser({ password: PASSWORD, balance: '100000' });
    const file = await config({ username: u.username, passwordEnv: 'PW' }, u.userId);
    const env = { PW: PASSWORD, KILL: 'kill-token-start-reconcile' };
    // What a crashed run of this bot leaves: two quotes with its strategy's client id prefix.
    const token = (await ex.login(u.username, PASSWORD)).accessToken;
    for (const [cid, side, price] of [['mm-old1', 'BUY', '40000'], ['mm-old2', 'SELL', '60000']]) {
      const r = await ex.call<{ status: string }>('POST', '/v1/private/order/place', { token, body: { symbol: 'BTCUSDT', type: 'LIMIT', side, price, quantity: '0.01', clientOrderId: cid } });
      expect(r.body.code).toBe(0);
    }
    const left = open(u.userId);
    expect(left).toEqual(['mm-old1', 'mm-old2']);
    // The next start's reads of the open orders fail for 2.5 s (the SDK's own retries included).
    await ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken }, body: { fault: 'http5xx', status: 503, userId: u.userId, method: 'GET', pathPrefix: '/v1/private/order/current', durationMs: 2500 } });
    const from = lines.length;
    const second = new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false });
    try {
      await second.start();
      const retried = lines.slice(from).filter((l) => /^reconciliation with the venue at start failed/.test(l.msg));
      expect(retried.length).toBeGreaterThan(0);
      expect(retried.map((l) => [l.level, l.attempt])).toEqual(retried.map((_, i) => [40, i + 1]));
      expect(lines.slice(from).find((l) => l.msg === 'reconciled with the venue')).toMatchObject({ reason: 'start', adopted: 2 });
      // The strategy requotes the orders it adopted: never more than its two on the venue.
      const seen: number[] = [];
      const end = Date.now() + 1500;
      while (Date.now() < end) {
        seen.push(open(u.userId).length);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(Math.max(...seen)).toBe(2);
    } finally {
      await second.stop('test');
      await ex.call('POST', '/v1/private/order/cancel-all', { token, body: { symbol: 'BTCUSDT' } });
    }
  });

  it('a key without TRADE permission fails the start at once, saying so, and touches nothing', async () => {
    const u = await ex.createUser({ password: PASSWORD, balance: '100000' });
    const key = await ex.createApiKey(u.userId, ['READ']);
    const file = await config({ apiKeyEnv: 'K', secretEnv: 'S' }, u.userId);
    const d = new BotDaemon({ config: loadBotConfig(file), logger, env: { K: key.apiKey, S: key.secret, KILL: 'kill-token-start-reconcile' }, defaultMetrics: false });
    const from = lines.length;
    await expect(d.start()).rejects.toThrow(/^could not reconcile with the venue at start \(its open orders and positions\), and asking again would not help: .*20004.*TRADE permission.*; nothing was placed$/);
    expect(open(u.userId)).toEqual([]);
    // The stop after the failed start asked the venue for nothing (no cancel refused for the key).
    expect(lines.slice(from).filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  });

  it('a second instance whose http port is taken fails before it signs in: the running bot\'s orders are untouched', async () => {
    const u = await ex.createUser({ password: PASSWORD, balance: '100000' });
    const file = await config({ username: u.username, passwordEnv: 'PW' }, u.userId, await freePort());
    const env = { PW: PASSWORD, KILL: 'kill-token-start-reconcile' };
    const running = new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false });
    await running.start();
    try {
      await until(() => open(u.userId).length === 2);
      const quotes = open(u.userId);
      const from = lines.length;
      const second = new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false });
      await expect(second.start()).rejects.toThrow(/EADDRINUSE/);
      // It never signed in: nothing adopted, nothing cancelled (it used to adopt both quotes, then cancel them at its stop).
      expect(lines.slice(from).some((l) => l.msg === 'connecting to the venue' || l.msg === 'reconciled with the venue')).toBe(false);
      const history = ex.server.core.engine.orderHistory(u.userId, {}).list.filter((o) => quotes.includes(o.clientOrderId));
      expect(history.map((o) => o.status)).not.toContain('CANCELED');
    } finally {
      await running.stop('test');
    }
  });
});
