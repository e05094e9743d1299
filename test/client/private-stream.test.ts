/**
 * Private stream against the local exchange: typed events, keepalive, expiry and renewal,
 * server-side close, dropped connections, seq gaps and silence (the gateway's own fault switches).
 */
import { firstValueFrom, filter, take, toArray } from 'rxjs';
import { createServer, type AddressInfo } from 'node:net';
import pino from 'pino';
import { StreamError, type PerpClient, type PrivateStream, type ResyncRequest, type StreamNotice } from '../../src/client';
import type { PrivateEvent } from '../../src/protocol/ws';
import { startClientEnv, waitFor, type ClientEnv } from './support/env';
import type { ApiKeyRecord } from '../../src/exchange/service/accounts-state';

let env: ClientEnv;
const streams: PrivateStream[] = [];

beforeAll(async () => {
  env = await startClientEnv({ listenKey: { ttlMs: 1500, maxPerUser: 10 } });
});
afterAll(async () => {
  for (const s of streams) await s.stop();
  await env.stop();
});

interface Harness {
  client: PerpClient;
  userId: string;
  stream: PrivateStream;
  events: PrivateEvent[];
  notices: StreamNotice[];
  resyncs: ResyncRequest[];
}

async function open(opts: Parameters<PerpClient['privateStream']>[0] = {}): Promise<Harness> {
  const { client, userId } = await env.jwtClient();
  const stream = client.privateStream({ reconnectBackoff: { baseMs: 20, maxMs: 200 }, keepAliveIntervalMs: 500, ...opts });
  streams.push(stream);
  const h: Harness = { client, userId, stream, events: [], notices: [], resyncs: [] };
  stream.events$.subscribe((e) => h.events.push(e));
  stream.notices$.subscribe((n) => h.notices.push(n));
  stream.resync$.subscribe((r) => h.resyncs.push(r));
  await stream.start();
  return h;
}

const place = (c: PerpClient, price = '45000'): Promise<{ orderId: string }> =>
  c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.01' });

test('typed, validated events: ORDER_TRADE_UPDATE and ACCOUNT_UPDATE after a placement and a fill', async () => {
  const h = await open();
  const update = firstValueFrom(h.stream.on('ORDER_TRADE_UPDATE'));
  const { orderId } = await place(h.client);
  const e = await update;
  expect(e.data.orderId).toBe(orderId);
  expect(e.data.executionType).toBe('NEW');
  expect(e.seq).toBeGreaterThanOrEqual(1);
  // A fill moves the balance and the position: ACCOUNT_UPDATE, and a TRADE execution with its fill fields.
  const other = (await env.jwtClient()).client;
  await other.orders.placeOrder({ symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
  await waitFor(() => h.events.some((x) => x.event === 'ACCOUNT_UPDATE'), 3000, 'ACCOUNT_UPDATE');
  const trade = h.events.find((x) => x.event === 'ORDER_TRADE_UPDATE' && x.data.executionType === 'TRADE');
  expect(trade?.event === 'ORDER_TRADE_UPDATE' && trade.data.lastFilledQty).toBe('0.01');
});

test('keepalive: the listenKey is extended well before it expires (ttl 1.5 s, stream lives 2.5 s on one key)', async () => {
  const h = await open({ keepAliveIntervalMs: 400 });
  const key = h.stream.currentListenKey;
  await new Promise((r) => setTimeout(r, 2500));
  expect(h.notices.filter((n) => n.type === 'keepAlive').length).toBeGreaterThanOrEqual(4);
  expect(h.stream.currentListenKey).toBe(key);
  expect(h.resyncs).toHaveLength(0);
  const update = firstValueFrom(h.stream.on('ORDER_TRADE_UPDATE'));
  await place(h.client);
  await update;
});

test('expiry: LISTEN_KEY_EXPIRED and close 4001 lead to a new listenKey, a reconnect and resync notices', async () => {
  const h = await open({ keepAliveIntervalMs: 60_000 });
  const key = h.stream.currentListenKey;
  await waitFor(() => h.events.some((e) => e.event === 'LISTEN_KEY_EXPIRED'), 5000, 'LISTEN_KEY_EXPIRED');
  await waitFor(() => h.resyncs.some((r) => r.reason === 'reconnect'), 5000, 'reconnect');
  expect(h.resyncs.map((r) => r.reason)).toContain('listenKeyRenewed');
  expect(h.stream.currentListenKey).not.toBe(key);
  expect(h.notices.some((n) => n.type === 'close' && n.code === 4001)).toBe(true);
  // Keep the new key alive now and check that events flow on it.
  const update = firstValueFrom(h.stream.on('ORDER_TRADE_UPDATE'));
  await place(h.client);
  await update;
});

test('a close for the key (4001) reconnects at once with a new one, not after a backoff step', async () => {
  // A backoff of 3 s: the reconnect must not wait for it when a fresh key mends the close.
  const h = await open({ keepAliveIntervalMs: 60_000, reconnectBackoff: { baseMs: 3000, maxMs: 3000 } });
  await waitFor(() => h.notices.some((n) => n.type === 'close' && n.code === 4001), 5000, 'close 4001');
  const closedAt = Date.now();
  await waitFor(() => h.resyncs.some((r) => r.reason === 'reconnect'), 5000, 'reconnect');
  expect(Date.now() - closedAt).toBeLessThan(1000);
  expect(h.notices.filter((n) => n.type === 'reconnecting').map((n) => (n.type === 'reconnecting' ? n.delayMs : -1))).toEqual([0]);
});

test('a listenKey deleted behind the stream (20008 on keepalive / 4001) is replaced', async () => {
  const h = await open({ keepAliveIntervalMs: 200 });
  const key = h.stream.currentListenKey as string;
  await h.client.user.closeListenKey({ listenKey: key });
  await waitFor(() => h.stream.currentListenKey !== key && h.stream.connected, 5000, 'new key and connection');
  expect(h.resyncs.map((r) => r.reason)).toEqual(expect.arrayContaining(['listenKeyRenewed', 'reconnect']));
});

test('server-side close (1001): reconnect with backoff and a resync request', async () => {
  const h = await open();
  env.ex.server.ws.dropUser(h.userId, { code: 1001, reason: 'going away' });
  await waitFor(() => h.resyncs.some((r) => r.reason === 'reconnect'), 5000, 'reconnect');
  expect(h.notices.some((n) => n.type === 'close' && n.code === 1001)).toBe(true);
  expect(h.notices.some((n) => n.type === 'reconnecting')).toBe(true);
  const update = firstValueFrom(h.stream.on('ORDER_TRADE_UPDATE'));
  await place(h.client);
  expect((await update).seq).toBe(1);
});

test('dropped WebSocket (TCP cut, no close frame): reconnect and resync', async () => {
  const h = await open();
  expect(env.ex.server.ws.dropUser(h.userId)).toBe(1);
  await waitFor(() => h.resyncs.some((r) => r.reason === 'reconnect'), 5000, 'reconnect');
  expect(h.stream.connected).toBe(true);
});

test('seq gap: an event lost in transit is reported with expected and received seq', async () => {
  const h = await open();
  const first = firstValueFrom(h.stream.on('ORDER_TRADE_UPDATE'));
  await place(h.client);
  await first;
  await waitFor(() => h.events.length >= 1, 3000, 'first events');
  env.ex.server.ws.silence(h.userId, true);
  await place(h.client, '44000');
  env.ex.server.ws.silence(h.userId, false);
  const gap = firstValueFrom(h.stream.resync$.pipe(filter((r) => r.reason === 'gap')));
  await place(h.client, '43000');
  const r = await gap;
  expect(r.notice).toMatchObject({ type: 'gap' });
  const n = r.notice as Extract<StreamNotice, { type: 'gap' }>;
  expect(n.received).toBeGreaterThan(n.expected);
});

test('reordered and repeated frames are not gaps: every event once, no resync, no warning', async () => {
  const h = await open();
  const faults = (body: Record<string, unknown>) => env.ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': env.ex.adminToken }, body });
  await faults({ fault: 'reorderEvents', userId: h.userId, probability: 1, windowMs: 50 });
  await faults({ fault: 'duplicateEvents', userId: h.userId, probability: 0.5 });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await place(h.client, `${41000 + i}`)).orderId);
    const news = () => h.events.filter((e) => e.event === 'ORDER_TRADE_UPDATE' && e.data.executionType === 'NEW');
    await waitFor(() => new Set(news().map((e) => (e.event === 'ORDER_TRADE_UPDATE' ? e.data.orderId : ''))).size === ids.length, 5000, 'every NEW');
    await new Promise((r) => setTimeout(r, 400));
    // Before: a resync (and a 'gap' warning) per swap and per repeat, and repeats delivered twice.
    const seqs = h.events.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(news()).toHaveLength(ids.length);
    expect(h.resyncs.filter((r) => r.reason === 'gap')).toEqual([]);
    expect(h.notices.filter((n) => n.type === 'gap')).toEqual([]);
    // And they were reordered: some event came before one with a lower seq.
    expect(seqs.some((s, i) => i > 0 && s < seqs[i - 1])).toBe(true);
  } finally {
    await faults({ fault: 'all', on: false });
  }
});

test('a keepalive still in flight when the stream moves to a new listenKey leaves the new connection alone (its 20008 is for the old key)', async () => {
  const h = await open({ keepAliveIntervalMs: 200 });
  const faults = (body: Record<string, unknown>) => env.ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': env.ex.adminToken }, body });
  const count = (type: StreamNotice['type']): number => h.notices.filter((n) => n.type === type).length;
  await waitFor(() => count('keepAlive') > 0, 3000, 'a keepalive');
  // The next keepalive is held 1.2 s by the venue; meanwhile its key ends and the stream takes a new one.
  await faults({ on: true, fault: 'delayMs', ms: 1200, userId: h.userId, method: 'PUT', pathPrefix: '/v1/private/user/listen-key', count: 1 });
  try {
    await new Promise((r) => setTimeout(r, 400));
    const opens = count('open');
    await faults({ on: true, fault: 'expireListenKeys', userId: h.userId });
    await waitFor(() => count('open') > opens, 3000, 'the stream open on a new key');
    const closes = count('close');
    // The held keepalive answers 20008 (its key is gone): before, that ended the new connection too.
    await new Promise((r) => setTimeout(r, 1500));
    expect(count('close')).toBe(closes);
    expect(h.stream.connected).toBe(true);
  } finally {
    await faults({ fault: 'all', on: false });
  }
});

test('silence: no events while an order is working is reported so the caller can poll', async () => {
  const h = await open({ silenceTimeoutMs: 300 });
  env.ex.server.ws.silence(h.userId, true);
  await place(h.client);
  const r = await firstValueFrom(h.stream.resync$.pipe(filter((x) => x.reason === 'silence')));
  expect(r.notice).toMatchObject({ type: 'silence' });
  env.ex.server.ws.silence(h.userId, false);
});

test('several events arrive in seq order', async () => {
  const h = await open();
  const three = firstValueFrom(h.stream.on('ORDER_TRADE_UPDATE').pipe(take(3), toArray()));
  for (let i = 0; i < 3; i++) await place(h.client, `${42000 + i}`);
  const got = await three;
  for (let i = 1; i < got.length; i++) expect((got[i] as PrivateEvent).seq).toBeGreaterThan((got[i - 1] as PrivateEvent).seq);
  expect(h.resyncs.filter((r) => r.reason === 'gap')).toHaveLength(0);
});

test('stop() while start() waits for a connection that never comes: start() rejects with StreamError instead of hanging', async () => {
  const { client } = await env.jwtClient();
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  const stream = client.privateStream({ wsOrigin: `ws://127.0.0.1:${port}`, reconnectBackoff: { baseMs: 20, maxMs: 50 } });
  const started = stream.start();
  await firstValueFrom(stream.notices$.pipe(filter((n) => n.type === 'reconnecting')));
  const settled = expect(started).rejects.toBeInstanceOf(StreamError);
  await stream.stop();
  await settled;
});

test('start() refused (not signed in yet) can be called again after login, and connects', async () => {
  const u = await env.ex.createUser();
  const client = env.client();
  const stream = client.privateStream({ reconnectBackoff: { baseMs: 20, maxMs: 200 } });
  streams.push(stream);
  await expect(stream.start()).rejects.toMatchObject({ venueCode: 20001 });
  await client.login(u.username, u.password);
  await stream.start();
  expect(stream.connected).toBe(true);
});

test('a keepalive the venue refuses for the credentials (an API key it no longer knows) is said once at error and as an unauthenticated notice, not warned per attempt; the key known again, the next keepalive says so', async () => {
  // An exchange of its own: its listenKeys live the default 60 min, so the spell outlasts no key.
  const own = await startClientEnv();
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
  let stream: PrivateStream | undefined;
  try {
    const { client, apiKey } = await own.keyClient(['READ', 'TRADE'], { logger, maxRetries: 0 });
    stream = client.privateStream({ keepAliveIntervalMs: 200, reconnectBackoff: { baseMs: 20, maxMs: 200 } });
    const notices: StreamNotice[] = [];
    stream.notices$.subscribe((n) => notices.push(n));
    await stream.start();
    await waitFor(() => notices.some((n) => n.type === 'keepAlive'), 5000, 'a keepalive');
    const refused = (): Array<{ level: number; msg: string }> => lines.filter((l) => l.msg.startsWith('private stream: the venue refuses the credentials'));
    const retried = (): Array<{ level: number; msg: string }> => lines.filter((l) => l.msg === 'private stream: the venue still refuses the credentials; retrying');

    // The venue forgets the key (revoked), the connection stays open.
    const keys = own.ex.server.core.accounts.apiKeys;
    const record = keys.get(apiKey) as ApiKeyRecord;
    keys.delete(apiKey);
    await waitFor(() => notices.some((n) => n.type === 'unauthenticated'), 5000, 'the unauthenticated notice');
    await waitFor(() => retried().length >= 1, 10_000, 'a keepalive retried');
    expect(refused().map((l) => l.level)).toEqual([50]);
    expect(refused()[0].msg).toMatch(/^private stream: the venue refuses the credentials \(20002: .+\) for the keepalive of the listenKey in use, not a network failure: once the key expires \(\d+ s\) no order updates or fills reach this client until they are fixed/);
    expect(new Set(retried().map((l) => l.level))).toEqual(new Set([20]));
    expect(notices.filter((n) => n.type === 'unauthenticated')).toHaveLength(1);
    // Not a network failure: no warning per failed keepalive.
    expect(lines.filter((l) => l.level === 40 && l.msg === 'private stream')).toEqual([]);
    expect(stream.connected).toBe(true);

    // The key known again: the next keepalive goes through, said at info and as an authenticated notice.
    keys.set(apiKey, record);
    await waitFor(() => notices.some((n) => n.type === 'authenticated'), 10_000, 'the authenticated notice');
    expect(lines.filter((l) => l.msg.startsWith('private stream: the venue accepts the credentials again')).map((l) => l.level)).toEqual([30]);
    expect(refused()).toHaveLength(1);
    expect(stream.connected).toBe(true);
  } finally {
    await stream?.stop();
    await own.stop();
  }
}, 30_000);
