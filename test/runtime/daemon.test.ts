/**
 * The daemon against a real local exchange over HTTP and WebSocket: health, metrics, the kill
 * switch, graceful stop, and a restart that adopts the orders of the previous run.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { PerpClient } from '../../src/client';
import { runOutcome, runTroubles } from '../../src/cli/run';
import { leftText } from '../../src/cli/left-on-stop';
import type { LeftOnStop } from '../../src/bot/stop';
import { loadBotConfig } from '../../src/runtime/config';
import { BotDaemon } from '../../src/runtime/daemon';
import { createRuntimeLogger } from '../../src/runtime/logger';
import { METRIC_NAMES } from '../../src/runtime/metrics';
import { startTestExchange, TestClock, type TestExchange } from '../helpers/exchange';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { LiveVenue } from '../../src/bot/venue/live-venue';

async function until(cond: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const PASSWORD = 'pw-Zq8vN3xL0-never-logged';
const KILL_TOKEN = 'kill-Tk7p2-never-logged';

let ex: TestExchange;
let other: PerpClient;
const logLines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    logLines.push(chunk.toString());
    cb();
  },
});
const logger = createRuntimeLogger({ level: 'debug', stream: sink });

beforeAll(async () => {
  ex = await startTestExchange();
  const o = await ex.createUser({ balance: '1000000' });
  other = new PerpClient({ baseUrl: ex.url });
  await other.login(o.username, o.password);
});

/** Daemons a failed test may leave running. */
const stopAfter: BotDaemon[] = [];

afterAll(async () => {
  for (const d of stopAfter) await d.stop('test end');
  await other.close();
  await ex.stop();
});

/** A fresh bot user and a config file for it (on `on`, by default the suite's exchange). */
async function setup(extra: Record<string, unknown> = {}, on: TestExchange = ex): Promise<{ userId: string; username: string; file: string }> {
  const u = await on.createUser({ password: PASSWORD, balance: '100000' });
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-daemon-'));
  const file = path.join(dir, 'bot.json.yaml');
  const doc = {
    venue: { baseUrl: on.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
    strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
    risk: { maxOrderNotional: '10000' },
    pollPositionsMs: 0,
    http: { host: '127.0.0.1', port: 0, killTokenEnv: 'KILL_TOKEN' },
    ...extra,
  };
  // JSON is YAML: the file goes through the same loader as a hand-written one.
  writeFileSync(file, JSON.stringify(doc));
  return { userId: u.userId, username: u.username, file };
}

const env = { BOT_PASSWORD: PASSWORD, KILL_TOKEN };

/**
 * A WebSocket relay in front of the exchange that can cut the public stream and refuse it while
 * the private one goes on (the exchange has no switch for the public side).
 */
async function publicCutter(target: string): Promise<{ url: string; cutPublic(): void; restorePublic(): void; close(): Promise<void> }> {
  let refuse = false;
  const live = new Set<{ client: WebSocket; up: WebSocket; pub: boolean }>();
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server });
  wss.on('connection', (client, req) => {
    const pub = (req.url ?? '').startsWith('/v1/ws/public');
    if (pub && refuse) {
      client.terminate();
      return;
    }
    const up = new WebSocket(`${target.replace(/^http/, 'ws')}${req.url ?? ''}`);
    const pair = { client, up, pub };
    live.add(pair);
    const early: Array<[WebSocket.RawData, boolean]> = [];
    up.on('open', () => {
      for (const [m, bin] of early.splice(0)) up.send(m, { binary: bin });
    });
    client.on('message', (m, bin) => (up.readyState === WebSocket.OPEN ? up.send(m, { binary: bin }) : early.push([m, bin])));
    up.on('message', (m, bin) => client.readyState === WebSocket.OPEN && client.send(m, { binary: bin }));
    const end = (): void => {
      live.delete(pair);
      client.terminate();
      up.terminate();
    };
    client.on('close', end);
    up.on('close', end);
    client.on('error', end);
    up.on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cutPublic() {
      refuse = true;
      for (const p of live) if (p.pub) p.client.terminate();
    },
    restorePublic() {
      refuse = false;
    },
    async close() {
      for (const p of live) {
        p.client.terminate();
        p.up.terminate();
      }
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
const openOrders = (userId: string) => ex.server.core.engine.currentOrders(userId, { symbol: 'BTCUSDT' }).list;
const daemonFor = (file: string) => new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false });

describe('bot daemon on the local exchange', () => {
  it('serves health and metrics that move, halts and cancels on POST /kill, stops cleanly', async () => {
    const { userId, file } = await setup();
    const d = daemonFor(file);
    await d.start();
    const url = d.httpUrl as string;
    await until(() => openOrders(userId).length === 2);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', privateStream: 'connected', state: 'ACTIVE' });

    const before = await (await fetch(`${url}/metrics`)).text();
    for (const name of METRIC_NAMES) expect(before).toContain(name);
    expect(before).toMatch(/perpkit_bot_orders\{state="NEW"\} 2/);
    expect(before).toMatch(/perpkit_venue_call_duration_seconds_count\{method="placeOrders",outcome="ok"\} [1-9]/);

    const bid = openOrders(userId).find((o) => o.side === 'BUY');
    await other.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: bid?.price as string, quantity: '0.01', timeInForce: 'IOC' });
    await until(() => d.bot.stats.fills === 1);
    await until(async () => /perpkit_bot_position\{symbol="BTCUSDT",side="BOTH"\} 0\.01/.test(await (await fetch(`${url}/metrics`)).text()));
    const after = await (await fetch(`${url}/metrics`)).text();
    expect(after).toMatch(/perpkit_bot_fills_total\{strategy="mm",symbol="BTCUSDT",side="BUY",role="maker"\} 1/);
    expect(after).toMatch(/perpkit_bot_exposure_usdt [1-9]/);
    expect(after).toMatch(/perpkit_bot_trading_state\{state="ACTIVE"\} 1/);

    const status = (await (await fetch(`${url}/status`)).json()) as { fills: number; positions: Array<{ quantity: string }>; stats: { reconciles: number; reconnects: number } };
    expect(status.fills).toBe(1);
    expect(status.positions[0].quantity).toBe('0.01');
    // /status's counters are the metrics' (it said 0 reconciles beside perpkit_bot_reconciliations_total 1: the start's).
    const metric = (name: string): number => [...after.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
    expect([status.stats.reconciles, status.stats.reconnects]).toEqual([metric('perpkit_bot_reconciliations_total'), metric('perpkit_bot_reconnects_total')]);
    expect(status.stats.reconciles).toBeGreaterThanOrEqual(1);

    expect((await fetch(`${url}/kill`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${url}/kill`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect(d.bot.risk.state).toBe('ACTIVE');
    const kill = await fetch(`${url}/kill`, { method: 'POST', headers: { authorization: `Bearer ${KILL_TOKEN}` } });
    expect(kill.status).toBe(200);
    expect(await kill.json()).toMatchObject({ state: 'HALTED' });
    expect(openOrders(userId)).toHaveLength(0);
    // HALTED stays: the market maker's timer keeps firing, but nothing new reaches the venue.
    await new Promise((r) => setTimeout(r, 500));
    expect(openOrders(userId)).toHaveLength(0);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/perpkit_bot_trading_state\{state="HALTED"\} 1/);

    expect(await d.stop('test')).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const logs = logLines.join('');
    expect(logs).toContain('bot started');
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain(KILL_TOKEN);
  });

  it('cancels the strategies orders on a graceful stop when cancelOnStop is set', async () => {
    const { userId, file } = await setup({ cancelOnStop: true });
    const d = daemonFor(file);
    await d.start();
    await until(() => openOrders(userId).length === 2);
    expect(await d.stop('SIGTERM (test)')).toBe(0);
    expect(openOrders(userId)).toHaveLength(0);
  });

  it.each([
    ['before it signed in', false],
    ['after it took the state file lock', true],
  ])('a stop while the bot is starting (SIGTERM %s) waits for the start: the lock is given up, no order is left, nothing runs on', async (_when, afterLock) => {
    const { userId, file } = await setup({ stateFile: './state.json', stateSaveMs: 100 });
    const lockFile = path.join(path.dirname(file), 'state.json.lock');
    const d = daemonFor(file);
    stopAfter.push(d);
    const starting = d.start();
    // The lock is taken before the bot signs in its streams, adopts and quotes.
    if (afterLock) await until(() => existsSync(lockFile), 8000);
    const code = await d.stop('signal SIGTERM (test)');
    await starting;
    expect(code).toBe(0);
    expect(d.state).toBe('stopped');
    expect(existsSync(lockFile)).toBe(false);
    // Nothing went on after the stop: no quotes, no state saves, no lock taken again.
    await new Promise((r) => setTimeout(r, 400));
    expect(openOrders(userId)).toEqual([]);
    expect(existsSync(lockFile)).toBe(false);
    expect(d.state).toBe('stopped');
  });

  it('a grid, which re-places each level whose order ends, leaves no order at a stop: after onStop only cancels go out', async () => {
    const { userId, file } = await setup({
      cancelOnStop: true,
      strategies: [{ id: 'grid', module: 'grid', params: { symbol: 'BTCUSDT', quantity: '0.001', levels: 5, spacingBps: '20' } }],
    });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    await until(() => openOrders(userId).length === 10);
    const placed = ex.server.core.engine.orderHistory(userId, { symbol: 'BTCUSDT' }).total;
    expect(await d.stop('SIGTERM (test)')).toBe(0);
    // Before the fix the grid heard its levels cancelled and placed the ladder again (10 more).
    expect(openOrders(userId)).toHaveLength(0);
    expect(ex.server.core.engine.orderHistory(userId, { symbol: 'BTCUSDT' }).total).toBe(placed);
    expect(d.leftAtStop?.openOrders).toHaveLength(0);
    // Refused as the stop's, not counted among the run's denials.
    expect(d.bot.stats.denials).toBe(0);
  });

  it('a strategy that stops trading for good (the grid out of its bounds) is halted on /healthz, /metrics and the closing line', async () => {
    const { file } = await setup({
      http: { host: '127.0.0.1', port: 0 },
      strategies: [{ id: 'grid', module: 'grid', params: { symbol: 'BTCUSDT', quantity: '0.001', levels: 2, spacingBps: '20', lowerBound: '49000', upperBound: '51000' } }],
    });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    const url = d.httpUrl as string;
    const health = async (): Promise<{ code: number; body: { status: string; reasons: string[] } }> => {
      const r = await fetch(`${url}/healthz`);
      return { code: r.status, body: (await r.json()) as { status: string; reasons: string[] } };
    };
    await until(async () => (await health()).body.status === 'ok');
    const mark = ex.server.core.engine.marketState('BTCUSDT').markPrice;
    const setMark = (markPrice: string) => ex.call('POST', '/v1/admin/market/mark-price', { headers: { 'x-admin-token': ex.adminToken }, body: { symbol: 'BTCUSDT', markPrice } });
    await setMark('51500.0');
    try {
      // Before: 'ok' and nothing said but one warn line of the grid's, while it traded no more.
      await until(async () => (await health()).body.status === 'degraded');
      const h = await health();
      expect(h.code).toBe(200);
      expect(h.body.reasons).toContain('strategy grid halted: mark 51500 left the bounds [49000, 51000]; orders cancelled, position flattened');
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/perpkit_strategy_halted\{strategy="grid"\} 1/);
      expect(runTroubles(d)).toContain('strategy grid halted (mark 51500 left the bounds [49000, 51000]');
    } finally {
      await setMark(mark);
    }
    expect(await d.stop('test')).toBe(0);
  });

  it('/healthz says the venue is unreachable when every venue call fails though the private stream stays up', async () => {
    const { userId, file } = await setup({ pollPositionsMs: 100, http: { host: '127.0.0.1', port: 0 } });
    const d = new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false, venueUnreachableMs: 1000 });
    stopAfter.push(d);
    await d.start();
    const url = d.httpUrl as string;
    const health = async (): Promise<{ code: number; body: { status: string; privateStream: string; reasons: string[] } }> => {
      const r = await fetch(`${url}/healthz`);
      return { code: r.status, body: (await r.json()) as { status: string; privateStream: string; reasons: string[] } };
    };
    await until(async () => (await health()).body.status === 'ok');
    const faults = (body: Record<string, unknown>) => ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken }, body });
    await faults({ fault: 'http5xx', status: 503, userId });
    try {
      // Before the fix: 200 "ok" for as long as the 503s lasted (40 s in a live run), no reason.
      await until(async () => (await health()).code === 503, 8000);
      const h = await health();
      expect(h.body.status).toBe('unhealthy');
      expect(h.body.privateStream).toBe('connected');
      expect(h.body.reasons.join(' ')).toMatch(/venue unreachable: every call has failed for \d+ s \(\d+ calls; last: positions: 50002 service busy/);
      // A failed poll is counted and logged, as a warning: the next poll comes anyway.
      const polls = logLines.filter((l) => l.includes('"context":"poll positions"')).map((l) => (JSON.parse(l) as { level: number }).level);
      expect(polls.length).toBeGreaterThan(0);
      expect(new Set(polls)).toEqual(new Set([40]));
    } finally {
      await faults({ fault: 'all', on: false });
    }
    await until(async () => (await health()).body.status === 'ok');
    expect(await d.stop('test')).toBe(0);
  });

  // A state file that could not be written: /healthz said ok, and the stop threw midway, leaving the
  // streams open (perpkit run then never exited: the strategy kept getting marks, denied).
  it('a state file that cannot be written: /healthz degraded; the stop closes everything, says so and fails', async () => {
    const { userId, file } = await setup({ stateFile: '/proc/perpkit-nope/state.json' });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    const health = (await (await fetch(`${d.httpUrl as string}/healthz`)).json()) as { status: string; reasons: string[] };
    expect(health.status).toBe('degraded');
    expect(health.reasons.join(' ')).toMatch(/the state file is not being saved: ENOENT: no such file or directory, mkdir '\/proc\/perpkit-nope'/);
    expect(await d.stop('test')).toBe(1);
    expect(d.stopError).toMatch(/^the state could not be saved: ENOENT/);
    expect(d.leftAtStop?.stateNotSaved).toMatch(/^ENOENT/);
    // The stop went on past the save (what it left is known only after it), the orders cancelled.
    expect(d.leftAtStop?.openOrders).toEqual([]);
    expect(ex.server.core.engine.currentOrders(userId, {}).list).toEqual([]);
  });

  it('a restart after a crash reuses the listenKey of the state file: the venue caps live keys per user', async () => {
    const { username, file } = await setup({ stateFile: './state.json' });
    // What ten crashed runs leave: ten live listenKeys (the venue's cap), the last one saved.
    const crashed = new PerpClient({ baseUrl: ex.url });
    await crashed.login(username, PASSWORD);
    const keys: string[] = [];
    for (let i = 0; i < 10; i++) keys.push((await crashed.user.createListenKey()).listenKey);
    await crashed.close();
    const stateFile = path.join(path.dirname(file), 'state.json');
    writeFileSync(stateFile, JSON.stringify({ format: 'perpkit-bot-state', version: 1, savedAt: 0, strategies: {}, orders: [], listenKey: keys[9] }));
    const d = daemonFor(file);
    stopAfter.push(d);
    // Before: 'the bot could not start: 10001 at most 10 live listenKeys per user', for up to an hour.
    await d.start();
    expect(d.status()).toMatchObject({ phase: 'running', privateStream: 'connected' });
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { listenKey?: string };
    expect(saved.listenKey).toBe(keys[9]);
    expect(await d.stop('test')).toBe(0);
  });

  it('a strategy paused from the dashboard stays paused across a restart from the state file, says so at start, and resumes from there', async () => {
    const { userId, file } = await setup({ stateFile: './state.json', http: { host: '127.0.0.1', port: 0, dashboard: true } });
    const stateFile = path.join(path.dirname(file), 'state.json');
    const act = (url: string, what: string) => fetch(`${url}/api/strategies/mm/${what}`, { method: 'POST', headers: { 'x-perpkit-dashboard': '1', 'x-perpkit-operator': 'alice' } });
    const d1 = daemonFor(file);
    stopAfter.push(d1);
    await d1.start();
    await until(() => openOrders(userId).length === 2);
    expect((await act(d1.httpUrl as string, 'pause')).status).toBe(200);
    // On disk with the answer, not at the next periodic save: a crash then would have lost it.
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { paused?: Record<string, string> };
    expect(saved.paused).toEqual({ mm: 'by alice from 127.0.0.1 from the dashboard' });
    expect(await d1.stop('restart')).toBe(0);
    expect(openOrders(userId)).toHaveLength(0); // the market maker's onStop pulled its quotes

    const from = logLines.length;
    const d2 = daemonFor(file);
    stopAfter.push(d2);
    await d2.start();
    const url = d2.httpUrl as string;
    expect(d2.bot.strategyHealth().find((h) => h.id === 'mm')?.paused).toBe('by alice from 127.0.0.1 from the dashboard');
    const warned = logLines
      .slice(from)
      .map((l) => JSON.parse(l) as { level: number; msg: string; strategy?: string })
      .filter((l) => l.strategy === 'mm' && l.msg.startsWith('strategy mm is paused'));
    expect(warned).toEqual([
      expect.objectContaining({ level: 40, msg: `strategy mm is paused (restored from the state file): only its cancels go out until it is resumed; resume it on the dashboard (${url}/, Resume) or with POST ${url}/api/strategies/mm/resume` }),
    ]);
    // Before, it came back quoting after the restart: the market maker re-quotes within its 200 ms refresh.
    await new Promise((r) => setTimeout(r, 800));
    expect(openOrders(userId)).toHaveLength(0);
    const snap = (await (await fetch(`${url}/api/snapshot`)).json()) as { live: { strategies: Array<{ id: string; status: string }> } };
    expect(snap.live.strategies.find((x) => x.id === 'mm')?.status).toBe('paused');

    expect((await act(url, 'resume')).status).toBe(200);
    await until(() => openOrders(userId).length === 2);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { paused?: unknown }).paused).toBeUndefined();
    expect(await d2.stop('test')).toBe(0);
  });

  it('a state file written before pauses were saved loads, nothing paused; without a dashboard the warning says how to resume', async () => {
    const { userId, file } = await setup({ stateFile: './state.json' });
    const stateFile = path.join(path.dirname(file), 'state.json');
    writeFileSync(stateFile, JSON.stringify({ format: 'perpkit-bot-state', version: 1, savedAt: 0, strategies: {}, orders: [] }));
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    await until(() => openOrders(userId).length === 2);
    expect(d.bot.strategyHealth().find((h) => h.id === 'mm')?.paused).toBeUndefined();
    expect(await d.stop('test')).toBe(0);

    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(stateFile, JSON.stringify({ ...saved, paused: { mm: 'by bob from 127.0.0.1 from the dashboard', gone: 'a strategy no longer configured' } }));
    const from = logLines.length;
    const d2 = daemonFor(file);
    stopAfter.push(d2);
    await d2.start();
    const msgs = logLines.slice(from).map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m.includes('is paused (restored'));
    expect(msgs).toEqual([
      `strategy mm is paused (restored from the state file): only its cancels go out until it is resumed; this config serves no dashboard to resume it from: add http.dashboard (docs/running.md, "Dashboard") and press Resume, or stop the bot and delete "mm" under "paused" in ${stateFile}`,
    ]);
    await new Promise((r) => setTimeout(r, 800));
    expect(openOrders(userId)).toHaveLength(0);
    expect(await d2.stop('test')).toBe(0);
    // Kept for the next run; the strategy no longer configured is dropped.
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { paused?: unknown }).paused).toEqual({ mm: 'by bob from 127.0.0.1 from the dashboard' });
  });

  it('/healthz says degraded while the public stream is down: the market data is stale', async () => {
    const proxy = await publicCutter(ex.url);
    try {
      const { username, file } = await setup({ http: { host: '127.0.0.1', port: 0 } });
      const client = new PerpClient({ baseUrl: ex.url, wsUrl: proxy.url });
      await client.login(username, PASSWORD);
      const d = new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false, venue: new LiveVenue({ client }), publicStreamDownMs: 500 });
      stopAfter.push(d);
      await d.start();
      const health = async () => (await (await fetch(`${d.httpUrl as string}/healthz`)).json()) as { status: string; privateStream: string; reasons: string[] };
      await until(async () => (await health()).status === 'ok');
      proxy.cutPublic();
      // Before: ok throughout, while the strategies saw no mark, trade or book.
      // The answer that said degraded is the one read: the proxy accepts a reconnect and then
      // cuts it, and a reconnect that opened for a moment starts the disconnected time anew.
      let h = await health();
      await until(async () => (h = await health()).status === 'degraded', 8000);
      expect(h.privateStream).toBe('connected');
      expect(h.reasons.join(' ')).toMatch(/public stream disconnected for \d+ s: marks, trades and book are stale/);
      proxy.restorePublic();
      await until(async () => (await health()).status === 'ok', 15000);
      expect(await d.stop('test')).toBe(0);
      await client.close();
    } finally {
      await proxy.close();
    }
  });

  it('/healthz says degraded when no market data comes for a symbol for marketDataStaleMs though the public stream is connected, logs it once, and again when it comes back', async () => {
    // An exchange of its own with no market running: nothing moves BTCUSDT until someone trades.
    const ex2 = await startTestExchange();
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-idle-'));
      writeFileSync(path.join(dir, 'idle.js'), `module.exports.default = { name: 'idle', symbols: () => ['BTCUSDT'], params: (raw) => raw, create: () => ({ onMark: () => [] }) };\n`);
      const u = await setup({ strategies: [{ id: 'idle', module: path.join(dir, 'idle.js'), params: {} }], marketDataStaleMs: 1500 }, ex2);
      const from = logLines.length;
      const d = daemonFor(u.file);
      stopAfter.push(d);
      await d.start();
      const health = async () => (await (await fetch(`${d.httpUrl as string}/healthz`)).json()) as { status: string; privateStream: string; reasons: string[] };
      expect((await health()).status).toBe('ok');
      let h = await health();
      await until(async () => (h = await health()).status === 'degraded', 8000);
      // Before: ok throughout, the public stream connected and silent.
      expect(h.privateStream).toBe('connected');
      expect(h.reasons).toEqual([expect.stringMatching(/^no market data for BTCUSDT for \d+ s \(marketDataStaleMs 1500\): marks, trades and book are stale$/)]);
      const lines = () => logLines.slice(from).map((l) => JSON.parse(l) as { level: number; msg: string; symbol?: string });
      await until(() => lines().some((l) => /^no market data for BTCUSDT/.test(l.msg)));
      // Someone quotes BTCUSDT: the book moves, the data is fresh again.
      const t = await ex2.createUser({ balance: '1000000' });
      const quoter = new PerpClient({ baseUrl: ex2.url });
      await quoter.login(t.username, t.password);
      await quoter.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.01' });
      await until(async () => (await health()).status === 'ok');
      await until(() => lines().some((l) => /^market data for BTCUSDT again/.test(l.msg)));
      await quoter.close();
      expect(lines().filter((l) => l.symbol === 'BTCUSDT' && /market data for BTCUSDT/.test(l.msg)).map((l) => [l.level, l.msg.replace(/\d+ s/, 'N s')])).toEqual([
        [40, 'no market data for BTCUSDT for N s (marketDataStaleMs 1500): the strategies see a market that does not move; /healthz says degraded'],
        [30, 'market data for BTCUSDT again, after N s without'],
      ]);
      expect(await d.stop('test')).toBe(0);
    } finally {
      await ex2.stop();
    }
  });

  it('marketDataStaleMs: 0 never says the market data is stale', async () => {
    const ex2 = await startTestExchange();
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-idle-'));
      writeFileSync(path.join(dir, 'idle.js'), `module.exports.default = { name: 'idle', symbols: () => ['BTCUSDT'], params: (raw) => raw, create: () => ({ onMark: () => [] }) };\n`);
      const u = await setup({ strategies: [{ id: 'idle', module: path.join(dir, 'idle.js'), params: {} }], marketDataStaleMs: 0 }, ex2);
      const d = daemonFor(u.file);
      stopAfter.push(d);
      await d.start();
      await new Promise((r) => setTimeout(r, 1500));
      expect(((await (await fetch(`${d.httpUrl as string}/healthz`)).json()) as { status: string }).status).toBe('ok');
      expect(await d.stop('test')).toBe(0);
    } finally {
      await ex2.stop();
    }
  });

  it('a stop that meets a venue throttling the account (429, Retry-After 3 s) waits for it and cancels, past stopTimeoutMs', async () => {
    const { userId, file } = await setup({ cancelOnStop: true, stopTimeoutMs: 1000 });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    await until(() => openOrders(userId).length === 2);
    // The stop's first order request is answered 429 with Retry-After 3: the client holds every
    // request of the account for 3 s, the stop's cancels with them.
    const on = await ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken }, body: { fault: 'rateLimit', retryAfterSec: 3, userId, pathPrefix: '/v1/private/order/', count: 1 } });
    expect(on.body.code).toBe(0);
    const t0 = Date.now();
    expect(await d.stop('SIGTERM (test)')).toBe(0);
    expect(Date.now() - t0).toBeGreaterThan(2500);
    expect(d.stopTimedOut).toBe(false);
    expect(openOrders(userId)).toHaveLength(0);
  });

  it('with killSwitch: true starts HALTED, adopts the orders its strategies left and cancels them', async () => {
    const { userId, username, file } = await setup({ killSwitch: true, stateFile: './state.json' });
    // Orders of an earlier run of strategy 'mm' (the clientOrderId prefix says whose they are).
    const bot = new PerpClient({ baseUrl: ex.url });
    await bot.login(username, PASSWORD);
    for (const [cid, side, price] of [['mm-old1', 'BUY', '49000'], ['mm-old2', 'SELL', '51000']] as const) {
      await bot.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side, price, quantity: '0.01', timeInForce: 'GTC', clientOrderId: cid });
    }
    expect(openOrders(userId)).toHaveLength(2);
    const d = daemonFor(file);
    await d.start();
    expect(d.bot.risk.state).toBe('HALTED');
    expect(openOrders(userId)).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(openOrders(userId)).toHaveLength(0);
    expect(await d.stop('test')).toBe(0);
    // The config keeps this kill switch: the state file does not (a start with killSwitch: false trades).
    expect((JSON.parse(readFileSync(path.join(path.dirname(file), 'state.json'), 'utf8')) as { halted?: unknown }).halted).toBeUndefined();
    await bot.close();
  });

  it('the kill switch outlasts a restart (state file) until the bot is started with clearKill; the config killSwitch is not saved', async () => {
    const { userId, file } = await setup({ stateFile: './state.json' });
    const stateFile = path.join(path.dirname(file), 'state.json');
    const d1 = daemonFor(file);
    stopAfter.push(d1);
    await d1.start();
    await until(() => openOrders(userId).length === 2);
    await d1.kill('SIGUSR2');
    expect(openOrders(userId)).toHaveLength(0);
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { halted?: { reason: string; at: number } };
    expect(saved.halted?.reason).toBe('SIGUSR2');
    // A crash and a restart (systemd): before, it started ACTIVE and quoted within a second.
    expect(await d1.stop('crash')).toBe(0);
    const from = logLines.length;
    const d2 = daemonFor(file);
    stopAfter.push(d2);
    await d2.start();
    expect(d2.bot.risk.state).toBe('HALTED');
    expect(d2.bot.risk.reason).toBe('kill switch: SIGUSR2');
    // The strategy hears it (onRiskState): it asked to quote on every mark, each a STATE_HALTED denial.
    const deniedAtStart = d2.bot.stats.denials;
    for (let i = 0; i < 8; i++) {
      await ex.call('POST', '/v1/admin/market/mark-price', { headers: { 'x-admin-token': ex.adminToken }, body: { symbol: 'BTCUSDT', markPrice: String(50000 + 10 * (i % 2)) } });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(d2.bot.stats.denials - deniedAtStart).toBe(0);
    const warned = logLines.slice(from).map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string });
    expect(warned).toContainEqual(expect.objectContaining({ level: 40, reason: 'SIGUSR2', msg: expect.stringContaining('trading is HALTED: the kill switch pulled in an earlier run is kept across restarts') as unknown }));
    await new Promise((r) => setTimeout(r, 800));
    expect(openOrders(userId)).toHaveLength(0);
    expect(await d2.stop('restart')).toBe(0);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { halted?: unknown }).halted).toMatchObject({ reason: 'SIGUSR2', at: saved.halted?.at });

    // Cleared on purpose: trading resumes, and the state file forgets it.
    const d3 = new BotDaemon({ config: loadBotConfig(file), logger, env, defaultMetrics: false, clearKill: true });
    stopAfter.push(d3);
    await d3.start();
    expect(d3.bot.risk.state).toBe('ACTIVE');
    await until(() => openOrders(userId).length === 2);
    expect(await d3.stop('test')).toBe(0);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { halted?: unknown }).halted).toBeUndefined();
  });

  // The stop after a start that failed before the saved state was read saved the new run's empty
  // state over it: the kill switch pulled in an earlier run (and the risk memory, the strategies'
  // state) was gone, and the next start traded. An API key the venue refuses fails the start there.
  it('a start that fails before the saved state is read leaves the state file as it was, its kill switch kept', async () => {
    const { file } = await setup({ stateFile: './state.json', venue: { baseUrl: ex.url, auth: { apiKeyEnv: 'BAD_KEY', secretEnv: 'BAD_SECRET' } } });
    const stateFile = path.join(path.dirname(file), 'state.json');
    const before = JSON.stringify({ format: 'perpkit-bot-state', version: 1, savedAt: 5, strategies: { mm: { kept: true } }, orders: [], halted: { reason: 'SIGUSR2', at: 7 } });
    writeFileSync(stateFile, before);
    const from = logLines.length;
    const d = new BotDaemon({ config: loadBotConfig(file), logger, env: { ...env, BAD_KEY: 'nobody', BAD_SECRET: 'nothing' }, defaultMetrics: false });
    stopAfter.push(d);
    await expect(d.start()).rejects.toThrow(/20002|API key/i);
    await d.stop('failed start');
    expect(readFileSync(stateFile, 'utf8')).toBe(before);
    // Nor a warn of what is left on a venue it never reached.
    expect(logLines.slice(from).map((l) => (JSON.parse(l) as { msg: string }).msg)).not.toContain('left on the venue at stop');
  });

  it('a state file whose halted entry is malformed is refused, not read as no kill switch', async () => {
    const { file } = await setup({ stateFile: './state.json' });
    const stateFile = path.join(path.dirname(file), 'state.json');
    writeFileSync(stateFile, JSON.stringify({ format: 'perpkit-bot-state', version: 1, savedAt: 0, strategies: {}, orders: [], halted: { reason: 'SIGUSR2' } }));
    const d = daemonFor(file);
    stopAfter.push(d);
    await expect(d.start()).rejects.toThrow(`${stateFile}: "halted" must be {"reason": text, "at": ms}, got {"reason":"SIGUSR2"}; remove it to trade again, or mend it`);
  });

  it('a strategy that keeps throwing: logged with id and stack, counted, stopped, its orders cancelled, REDUCING, degraded', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-thrower-'));
    writeFileSync(
      path.join(dir, 'thrower.js'),
      `module.exports.default = {
  name: 'thrower', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => ['markPrice'],
  create: () => ({
    onStart: () => [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '40000', quantity: '0.01' }],
    onEvent(e) { if (e.type === 'markPrice') throw new Error('thrower fails on mark ' + e.mark.markPrice); return []; },
  }),
};
`,
    );
    const { userId, file } = await setup({
      strategies: [
        { id: 'bad', module: path.join(dir, 'thrower.js'), params: {} },
        { id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } },
      ],
      strategyErrors: { maxErrors: 3, windowMs: 60000 },
    });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    const url = d.httpUrl as string;
    await until(() => openOrders(userId).some((o) => o.clientOrderId.startsWith('bad-')));
    expect(((await (await fetch(`${url}/healthz`)).json()) as { status: string }).status).toBe('ok');
    const from = logLines.length;
    for (let i = 0; i < 4; i++) {
      await ex.call('POST', '/v1/admin/market/mark-price', { headers: { 'x-admin-token': ex.adminToken }, body: { symbol: 'BTCUSDT', markPrice: (50000 + i).toFixed(1) } });
      await new Promise((r) => setTimeout(r, 50));
    }
    await until(() => !openOrders(userId).some((o) => o.clientOrderId.startsWith('bad-')));
    const bot = d.bot;
    expect(bot?.risk.state).toBe('REDUCING');
    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; reasons: string[] };
    expect(health.status).toBe('degraded');
    expect(health.reasons[0]).toMatch(/^strategy bad stopped: 3 errors within 60 s; last in onEvent\(markPrice\): thrower fails on mark/);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/perpkit_strategy_errors_total\{strategy="bad",where="onEvent"\} 3/);
    expect(metrics).toMatch(/perpkit_strategy_stopped\{strategy="bad"\} 1/);
    const errors = logLines.slice(from).map((l) => JSON.parse(l) as { level: number; msg: string; strategy?: string; err?: { stack: string } }).filter((l) => l.msg === 'strategy threw');
    expect(errors).toHaveLength(3);
    // The error's own type, as for every logged error (it said "type":"Object").
    expect(errors[0]).toMatchObject({ level: 50, strategy: 'bad', err: { type: 'Error', message: expect.stringMatching(/^thrower fails on mark \d+$/) } });
    expect(errors[0].err?.stack).toMatch(/^Error: thrower fails on mark[^]*thrower\.js:\d+:\d+/);
    // The other strategy hears REDUCING, as from any risk state change: the market maker pulls its quotes.
    await until(() => openOrders(userId).length === 0);
    expect(bot?.strategyHealth().map((h) => [h.id, h.stopped !== undefined])).toEqual([
      ['bad', true],
      ['mm', false],
    ]);
    expect(await d.stop('test')).toBe(0);
    // The stop finished (0), and what went wrong during the run is still said (perpkit run's stderr).
    // Counted once: stats.errors holds the strategy's errors too, which are not failed calls.
    expect(runTroubles(d)).toMatch(/^3 strategy error\(s\) \(bad stopped for them\)/);
    // perpkit run and the demo exit 3 for it, as a backtest does.
    expect(runOutcome(d, 0)).toEqual({ code: 3, why: expect.stringMatching(/^exit 3: strategies erred 3 times \(threw, or returned what the bot refuses\) during the run \(bad 3 time\(s\), stopped for them; last: onEvent\(markPrice\): thrower fails on mark/) as unknown });
    expect(runOutcome(d, 1).code).toBe(1);
    expect(runTroubles(d)).not.toMatch(/failed venue call/);
  });

  it('a stop says what it leaves on the venue: the position and the orders (cancelOnStop off)', async () => {
    // Two bids and no onStop. (The market maker pulls its quotes in onStop: it left an order only
    // when the stop came while its requote after the fill was still in flight, a race the test
    // lost once the exchange answered faster.)
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-rester-'));
    writeFileSync(
      path.join(dir, 'rester.js'),
      `module.exports.default = {
  name: 'rester', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => [],
  create: () => ({
    onStart: () => [
      { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49990', quantity: '0.01' },
      { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49000', quantity: '0.01' },
    ],
  }),
};
`,
    );
    const { userId, file } = await setup({ cancelOnStop: false, strategies: [{ id: 'rest', module: path.join(dir, 'rester.js'), params: {} }] });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    await until(() => openOrders(userId).length === 2);
    await other.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49990', quantity: '0.01', timeInForce: 'IOC' });
    await until(() => ex.server.core.engine.positions(userId).some((p) => p.quantity === '0.01'));
    const from = logLines.length;
    expect(await d.stop('test')).toBe(0);
    expect(d.leftAtStop?.positions.map((p) => `${p.symbol}:${p.quantity}`)).toEqual(['BTCUSDT:0.01']);
    expect(d.leftAtStop?.openOrders.map((o) => `${o.side}:${o.price}`)).toEqual(['BUY:49000']);
    const line = logLines.slice(from).map((l) => JSON.parse(l) as { level: number; msg: string; positions?: unknown[] }).find((l) => l.msg === 'left on the venue at stop');
    expect(line?.level).toBe(40);
    expect(line?.positions).toEqual([expect.objectContaining({ symbol: 'BTCUSDT', quantity: '0.01' })]);
  });

  it("cancelOnStop with a bracket's position open: the stop says the position is left WITHOUT a stop, and a restart says no stop of the bot guards it", async () => {
    // An exchange of its own: no order of an earlier test's bot on the book to trade with.
    const ex2 = await startTestExchange();
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bracket-'));
      writeFileSync(
        path.join(dir, 'bracket.js'),
        `module.exports.default = {
  name: 'bracket', symbols: () => ['BTCUSDT'], params: (raw) => raw, marketData: () => [],
  create: (ctx) => ({
    onStart: () => ctx.position('BTCUSDT').isZero() ? [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000' }] : [],
  }),
};
`,
      );
      const u = await setup({ strategies: [{ id: 'br', module: path.join(dir, 'bracket.js'), params: {} }], cancelOnStop: false }, ex2);
      const t = await ex2.createUser({ balance: '1000000' });
      const taker = new PerpClient({ baseUrl: ex2.url });
      await taker.login(t.username, t.password);
      const d = daemonFor(u.file);
      stopAfter.push(d);
      await d.start();
      const open = () => ex2.server.core.engine.currentOrders(u.userId, { symbol: 'BTCUSDT' }).list;
      const stops = () => ex2.server.core.engine.currentConditions(u.userId, 'BTCUSDT').list;
      await until(() => open().length === 1);
      await taker.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
      await taker.close();
      // The entry filled: the venue placed the take-profit (an order) and the stop-loss (a condition order).
      await until(() => stops().length === 1 && open().length === 1);
      // cancelOnStop: false leaves the exits working: nothing is said of a missing stop, at the stop
      // or at the next start (the bot's stop-loss guards the position).
      const from0 = logLines.length;
      expect(await d.stop('SIGINT (test)')).toBe(0);
      expect(stops()).toHaveLength(1);
      expect(d.leftAtStop?.unprotected).toBeUndefined();
      writeFileSync(u.file, readFileSync(u.file, 'utf8').replace('"cancelOnStop":false', '"cancelOnStop":true'));
      const d1 = daemonFor(u.file);
      stopAfter.push(d1);
      await d1.start();
      expect(logLines.slice(from0).filter((l) => /WITHOUT a stop|no stop-loss of this bot/.test(l))).toEqual([]);
      const from = logLines.length;
      expect(await d1.stop('SIGINT (test)')).toBe(0);
      expect(stops()).toEqual([]);
      expect(ex2.server.core.engine.positions(u.userId, 'BTCUSDT').map((p) => p.quantity)).toEqual(['0.01']);
      // Said in the log at warn and in the closing line of perpkit run (it said only what was left).
      expect(d1.leftAtStop?.unprotected).toEqual([{ symbol: 'BTCUSDT', positionSide: 'BOTH', quantity: '0.01', cancelled: [expect.objectContaining({ type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000' })] }]);
      const atStop = logLines.slice(from).map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(atStop.filter((l) => /WITHOUT a stop/.test(l.msg)).map((l) => [l.level, l.msg])).toEqual([
        [40, 'position BTCUSDT BOTH 0.01 left open WITHOUT a stop: cancelOnStop cancelled its stop-loss (keep it with cancelOnStop: false, or close the position with flattenOnStop: true)'],
      ]);
      expect(leftText(d1.leftAtStop as LeftOnStop)).toMatch(/^left on the venue: positions BTCUSDT BOTH 0\.01 @ 50000 \(upnl [-\d.]+\); no open order; position BTCUSDT BOTH 0\.01 left WITHOUT a stop \(cancelOnStop cancelled its stop-loss at 49000; cancelOnStop: false keeps it, flattenOnStop: true closes the position\)$/);

      // A restart: reconciliation adopted nothing and said nothing of the position nothing guards.
      const from2 = logLines.length;
      const d2 = daemonFor(u.file);
      stopAfter.push(d2);
      await d2.start();
      const atStart = logLines.slice(from2).map((l) => JSON.parse(l) as { level: number; msg: string; symbol?: string; quantity?: string });
      const warned = atStart.filter((l) => /no stop-loss of this bot/.test(l.msg));
      expect(warned.map((l) => [l.level, l.symbol, l.quantity, l.msg])).toEqual([
        [40, 'BTCUSDT', '0.01', 'position BTCUSDT BOTH 0.01 @ 50000 is open with no stop-loss of this bot on the venue: nothing of this bot limits its loss until a strategy places a stop (a stop with cancelOnStop: true cancels a bracket\'s stop-loss)'],
      ]);
      expect(await d2.stop('test')).toBe(0);
      // A stop that cancelled no stop-loss (there was none) does not claim it did.
      expect(d2.leftAtStop?.unprotected).toBeUndefined();
    } finally {
      await ex2.stop();
    }
  });

  it('flattenOnStop: true closes the position with a reduce-only market order before exiting', async () => {
    const { userId, file } = await setup({ flattenOnStop: true, stopTimeoutMs: 15000 });
    const d = daemonFor(file);
    stopAfter.push(d);
    await d.start();
    await until(() => openOrders(userId).length === 2);
    // Someone to trade with when the position is closed.
    await other.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '1' });
    const bid = openOrders(userId).find((o) => o.side === 'BUY');
    // Through every bid down to the bot's (an earlier test's bot may have left one above it).
    await other.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: bid?.price ?? '0', quantity: '0.05', timeInForce: 'IOC' });
    await until(() => ex.server.core.engine.positions(userId).some((p) => p.quantity === '0.01'));
    expect(await d.stop('test')).toBe(0);
    expect(ex.server.core.engine.positions(userId).filter((p) => p.quantity !== '0')).toEqual([]);
    expect(d.leftAtStop).toMatchObject({ positions: [], openOrders: [], flattened: true });
  });

  it('an API key the restarted venue no longer knows: said once at error, /healthz unhealthy naming it; the key back, it recovers, said at info', async () => {
    const key = { apiKey: 'key-refused-stream-1', secret: 'secret-refused-stream-1', permissions: ['READ', 'TRADE'] as Array<'READ' | 'TRADE'> };
    const user = { username: 'refused-key', password: PASSWORD, balance: '100000' };
    let ex2 = await startTestExchange({ users: [{ ...user, apiKeys: [key] }] });
    const port = Number(new URL(ex2.url).port);
    try {
      const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-daemon-'));
      const file = path.join(dir, 'bot.json.yaml');
      const doc = {
        venue: { baseUrl: ex2.url, auth: { apiKeyEnv: 'BOT_KEY', secretEnv: 'BOT_SECRET' } },
        strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
        pollPositionsMs: 0,
        // The restarted venue lost the quotes: the reconciliation asks for each a few times before it concludes so.
        stopTimeoutMs: 30_000,
        http: { host: '127.0.0.1', port: 0, killTokenEnv: 'KILL_TOKEN' },
      };
      writeFileSync(file, JSON.stringify(doc));
      const d = new BotDaemon({ config: loadBotConfig(file), logger, env: { ...env, BOT_KEY: key.apiKey, BOT_SECRET: key.secret }, defaultMetrics: false });
      stopAfter.push(d);
      await d.start();
      const health = async (): Promise<{ code: number; body: { status: string; privateStream: string; reasons: string[] } }> => {
        const r = await fetch(`${d.httpUrl as string}/healthz`);
        return { code: r.status, body: (await r.json()) as { status: string; privateStream: string; reasons: string[] } };
      };
      await until(async () => (await health()).code === 200);
      const from = logLines.length;
      const lines = (): Array<{ level: number; msg: string }> => logLines.slice(from).map((l) => JSON.parse(l) as { level: number; msg: string });
      const refused = () => lines().filter((l) => l.msg.startsWith('private stream: the venue refuses the credentials'));
      // The venue restarts without the key (revoked): every reconnect is refused (20002), not a network failure.
      await ex2.stop();
      ex2 = await startTestExchange({ users: [user], port });
      await until(() => refused().length > 0, 15_000);
      const down = await health();
      expect(down.code).toBe(503);
      expect(down.body).toMatchObject({ status: 'unhealthy', privateStream: 'unauthenticated' });
      expect(down.body.reasons[0]).toMatch(/^private stream unauthenticated: the venue refuses the credentials \(.*20002.*\); no order updates or fills reach the bot until they are fixed \(it keeps retrying\)$/);
      expect(refused().map((l) => l.level)).toEqual([50]);
      // The key back: the next attempt connects, said at info; healthy again.
      await ex2.stop();
      ex2 = await startTestExchange({ users: [{ ...user, apiKeys: [key] }], port });
      await until(async () => (await health()).code === 200, 40_000);
      expect(lines().filter((l) => l.msg === 'private stream: the venue accepts the credentials again; reconnecting').map((l) => l.level)).toEqual([30]);
      expect(refused()).toHaveLength(1);
      expect(await d.stop('test')).toBe(0);
    } finally {
      await ex2.stop();
    }
  }, 90_000);

  it('signs in again when the venue has forgotten its session (refresh token expired, or a restart), and keeps quoting', async () => {
    // An exchange of its own, whose clock the test moves past the refresh token's lifetime (7 days).
    // Its heartbeat, which ends the streams of listenKeys that ran out, every 250 ms (20 s by
    // default): the renewal below happens at once instead of at any time in the next 20 s (a
    // /healthz between the two read 200 and then 503, the stream down for its renewal).
    const clock = new TestClock();
    const ex2 = await startTestExchange({ ws: { pingIntervalMs: 250 } }, { clock });
    try {
      const u = await setup({}, ex2);
      const file = u.file;
      const d = daemonFor(file);
      stopAfter.push(d);
      await d.start();
      const open = () => ex2.server.core.engine.currentOrders(u.userId, { symbol: 'BTCUSDT' }).list;
      await until(() => open().length === 2);
      const reconnects = d.bot.stats.reconnects;
      clock.advance(8 * 24 * 3600_000);
      // Someone takes the bid: the bot must see the fill and quote again, which needs its session.
      const t = await ex2.createUser({ balance: '1000000' });
      const taker = new PerpClient({ baseUrl: ex2.url });
      await taker.login(t.username, t.password);
      const bid = open().find((o) => o.side === 'BUY');
      await taker.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: bid?.price as string, quantity: '0.01', timeInForce: 'IOC' });
      await taker.close();
      await until(() => d.bot.stats.fills === 1 && open().length === 2, 15_000);
      expect(d.bot.stats.errors).toBe(0);
      // Its listenKey ran out with the 8 days too: the private stream renews it and reconnects.
      await until(() => d.bot.stats.reconnects > reconnects);
      await until(async () => (await fetch(`${d.httpUrl as string}/healthz`)).status === 200);
      expect(((await (await fetch(`${d.httpUrl as string}/healthz`)).json()) as { status: string }).status).toBe('ok');
      // The private stream is cut, and so is every reconnect, for 3 s: unhealthy, and the reasons say what is down.
      const cut = await ex2.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex2.adminToken }, body: { fault: 'dropWs', mode: 'terminate', userId: u.userId, durationMs: 3000 } });
      expect(cut.body.code).toBe(0);
      let down: { status: string; reasons: string[] } | undefined;
      await until(async () => {
        const r = await fetch(`${d.httpUrl as string}/healthz`);
        down = (await r.json()) as { status: string; reasons: string[] };
        return r.status === 503;
      });
      expect(down).toMatchObject({ status: 'unhealthy' });
      expect(down?.reasons[0]).toMatch(/^private stream (disconnected|reconnecting)/);
      await until(async () => (await fetch(`${d.httpUrl as string}/healthz`)).status === 200, 15_000);
      // Each request refused for the expired token said so at info (96 lines in 30 s once): debug now;
      // what happens next is said once ('signed in again' at info, a failure at error).
      const refused = logLines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.msg.startsWith('access token refused (20001)'));
      expect(refused.length).toBeGreaterThan(0);
      expect(new Set(refused.map((l) => l.level))).toEqual(new Set([20]));
      // The stream lost is said at warn (it was info: nothing an operator filtering on warn saw), back at info.
      const streamLines = logLines.map((l) => JSON.parse(l) as { level: number; msg: string; stream?: string; status?: string }).filter((l) => l.msg === 'stream status' && l.stream === 'private');
      expect(streamLines.filter((l) => l.status === 'disconnected').map((l) => l.level)).toContain(40);
      expect(new Set(streamLines.filter((l) => l.status === 'connected' || l.status === 'reconnected').map((l) => l.level))).toEqual(new Set([30]));
      expect(await d.stop('test')).toBe(0);
    } finally {
      await ex2.stop();
    }
  });
});
