/**
 * Issue 12 item 10: alerts to a human, against a real local HTTP receiver (and, for the kill
 * switch, a daemon on the real local exchange). Payload shapes, rate limit with the suppressed
 * count, a receiver that is down (the bot goes on, the failure is counted and logged without the
 * URL), and the conditions that raise alerts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { Dec } from '../../src/core/decimal';
import { loadBotConfig } from '../../src/runtime/config';
import { BotDaemon } from '../../src/runtime/daemon';
import { createRuntimeLogger } from '../../src/runtime/logger';
import { Notifier, type NotifyOptions } from '../../src/runtime/notify';
import { botWorld, scripted } from '../bot/harness';
import { startTestExchange } from '../helpers/exchange';

interface Received {
  path: string;
  body: Record<string, unknown>;
}

async function receiver(): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
      res.statusCode = req.url?.startsWith('/fail') ? 500 : 200;
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const logLines: string[] = [];
const log = createRuntimeLogger({ level: 'debug', stream: new Writable({ write: (c: Buffer, _e, cb) => (logLines.push(c.toString()), cb()) }) });
const base = (targets: NotifyOptions['targets']): NotifyOptions => ({ targets, botName: 'mm-bot', minIntervalMs: 1000, venueUnreachableMs: 500, streamDownMs: 300, dailyLossWarnFraction: 0.8, retryDelayMs: 10 });
const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('generic, Slack and Telegram payloads; a rate limit that counts what it held back', async () => {
  const rx = await receiver();
  let now = 1_700_000_000_000;
  const n = new Notifier(base([{ kind: 'webhook', url: `${rx.url}/hook` }, { kind: 'slack', url: `${rx.url}/slack` }, { kind: 'telegram', url: `${rx.url}/bot123:secret/sendMessage`, chatId: '42' }]), log, () => now);
  n.alert({ kind: 'riskState', severity: 'warning', message: 'trading state REDUCING: LOSS_LIMIT', details: { state: 'REDUCING' } });
  await n.idle();
  const by = (p: string): Record<string, unknown> | undefined => rx.got.find((g) => g.path.startsWith(p))?.body;
  expect(by('/hook')).toEqual({ bot: 'mm-bot', kind: 'riskState', severity: 'warning', message: 'trading state REDUCING: LOSS_LIMIT', details: { state: 'REDUCING' }, time: new Date(now).toISOString(), suppressed: 0 });
  expect(by('/slack')).toEqual({ text: '[warning] mm-bot: trading state REDUCING: LOSS_LIMIT' });
  expect(by('/bot123')).toEqual({ chat_id: '42', text: '[warning] mm-bot: trading state REDUCING: LOSS_LIMIT' });
  // Two more of the same kind within the interval are held back; the next after it says so.
  n.alert({ kind: 'riskState', severity: 'info', message: 'x' });
  n.alert({ kind: 'riskState', severity: 'info', message: 'y' });
  now += 1500;
  n.alert({ kind: 'riskState', severity: 'critical', message: 'trading state HALTED' });
  await n.idle();
  const hooks = rx.got.filter((g) => g.path === '/hook');
  expect(hooks).toHaveLength(2);
  expect(hooks[1].body).toMatchObject({ message: 'trading state HALTED', suppressed: 2 });
  expect(n.stats).toMatchObject({ sent: 6, failed: 0, suppressed: 2 });
  await rx.close();
});

test('a receiver that is down or failing: alert() returns at once, failures counted and logged without the URL', async () => {
  const rx = await receiver();
  const n = new Notifier(base([{ kind: 'webhook', url: 'http://127.0.0.1:9/token-in-url-secret' }, { kind: 'slack', url: `${rx.url}/fail/secret-path` }]), log);
  const from = logLines.length;
  const t0 = Date.now();
  n.alert({ kind: 'killSwitch', severity: 'critical', message: 'kill switch' });
  expect(Date.now() - t0).toBeLessThan(50);
  await n.idle();
  expect(n.stats).toMatchObject({ sent: 0, failed: 2 });
  // Three attempts each at the failing receiver.
  expect(rx.got.filter((g) => g.path.startsWith('/fail'))).toHaveLength(3);
  const lines = logLines.slice(from).join('');
  expect(lines).toContain('alert not delivered');
  expect(lines).not.toContain('secret');
  await rx.close();
});

test('a bot: risk state changes, a strategy stopped, the stream down too long, the venue unreachable, the daily loss near', async () => {
  const rx = await receiver();
  const thrower = scripted(['BTCUSDT'], {
    event: (e) => {
      if (e.type === 'markPrice') throw new Error('boom');
      return [];
    },
  });
  const w = await botWorld([{ id: 't', definition: thrower, params: {} }], { maxDailyLoss: '100' });
  const n = new Notifier({ ...base([{ kind: 'webhook', url: `${rx.url}/hook` }]), minIntervalMs: 0 }, log);
  n.watch(w.bot);
  w.bot.risk.setState('REDUCING', 'test');
  for (let i = 0; i < 10; i++) w.bot.bus.publish({ type: 'markPrice', time: w.clock.now(), symbol: 'BTCUSDT', mark: { markPrice: '50000', indexPrice: '50000', fundingRate: '0', nextFundingTime: 0 } });
  w.bot.bus.publish({ type: 'stream', time: w.clock.now(), stream: 'private', status: 'disconnected', detail: 'test' });
  n.observeVenueCall(false);
  w.bot.risk.observeEquity(new Dec('100000'), w.clock.now());
  w.bot.risk.observeEquity(new Dec('99915'), w.clock.now());
  const kinds = (): string[] => [...new Set(rx.got.map((g) => String(g.body.kind)))].sort();
  await until(() => kinds().length >= 5);
  expect(kinds()).toEqual(['dailyLossNear', 'riskState', 'strategyStopped', 'streamDown', 'venueUnreachable']);
  const stopped = rx.got.find((g) => g.body.kind === 'strategyStopped');
  expect(stopped?.body).toMatchObject({ severity: 'critical', message: expect.stringMatching(/^strategy t stopped for its errors: 10 errors/) });
  n.close();
  await w.bot.stop();
  await rx.close();
});

test('the daemon sends the kill switch to the configured webhook; a notify URL missing from the environment is a config error', async () => {
  const rx = await receiver();
  const ex = await startTestExchange();
  const u = await ex.createUser({ password: 'pw-notify-1', balance: '100000' });
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-notify-'));
  const file = path.join(dir, 'bot.yaml');
  writeFileSync(file, JSON.stringify({ venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } }, strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01' } }], pollPositionsMs: 0, http: { host: '127.0.0.1', port: 0 }, notify: { targets: [{ kind: 'webhook', urlEnv: 'ALERT_URL' }] } }));
  await expect(new BotDaemon({ config: loadBotConfig(file), logger: log, env: { BOT_PASSWORD: 'pw-notify-1' }, defaultMetrics: false }).start()).rejects.toThrow(/notify\.targets\[0\]\.urlEnv: expected environment variable ALERT_URL to be set/);
  const d = new BotDaemon({ config: loadBotConfig(file), logger: log, env: { BOT_PASSWORD: 'pw-notify-1', ALERT_URL: `${rx.url}/hook` }, defaultMetrics: false });
  await d.start();
  const r = await fetch(`${d.httpUrl as string}/kill`, { method: 'POST' });
  expect(r.status).toBe(200);
  await until(() => rx.got.some((g) => g.body.kind === 'killSwitch'));
  expect(rx.got.find((g) => g.body.kind === 'killSwitch')?.body).toMatchObject({ severity: 'critical', message: expect.stringMatching(/^kill switch: HTTP POST \/kill/) });
  const metrics = await (await fetch(`${d.httpUrl as string}/metrics`)).text();
  expect(metrics).toMatch(/perpkit_alerts_total\{outcome="sent"\} [1-9]/);
  expect(await d.stop('test')).toBe(0);
  await ex.stop();
  await rx.close();
});
