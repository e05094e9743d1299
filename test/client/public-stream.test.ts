/** Public stream against the local exchange, and the ping/pong deadline against a mute server. */
import pino from 'pino';
import { firstValueFrom, filter } from 'rxjs';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { PerpClient, StreamError, type PublicStream, type StreamNotice } from '../../src/client';
import type { PublicTopic } from '../../src/protocol/ws';
import { freePort } from '../helpers/ports';
import { startClientEnv, waitFor, type ClientEnv } from './support/env';

let env: ClientEnv;
let client: PerpClient;
let stream: PublicStream;

beforeAll(async () => {
  env = await startClientEnv();
  client = (await env.jwtClient()).client;
  stream = client.publicStream({ reconnectBackoff: { baseMs: 20, maxMs: 200 } });
  await stream.start();
});
afterAll(async () => {
  stream.stop();
  await env.stop();
});

test('markPrice pushes after subscribe (typed)', async () => {
  const push = firstValueFrom(stream.markPrice$('BTCUSDT').pipe(filter((p) => p.data.markPrice === '50100')));
  await waitFor(() => stream.topics.has('markPrice:BTCUSDT'), 2000, 'subscription');
  await new Promise((r) => setTimeout(r, 50));
  await env.admin('/market/mark-price', { symbol: 'BTCUSDT', markPrice: '50100' });
  const p = await push;
  expect(p.event).toBe('markPrice');
  expect(p.symbol).toBe('BTCUSDT');
});

test('depth, trade and ticker pushes', async () => {
  const maker = (await env.jwtClient()).client;
  const depth = firstValueFrom(stream.depth$('ETHUSDT').pipe(filter((p) => p.data.asks.length > 0)));
  const trade = firstValueFrom(stream.trades$('ETHUSDT'));
  const ticker = firstValueFrom(stream.ticker$('ETHUSDT').pipe(filter((p) => p.data.lastPrice === '3001')));
  await stream.subscribe(['depth:ETHUSDT', 'trade:ETHUSDT', 'ticker:ETHUSDT']);
  await maker.orders.placeOrder({ symbol: 'ETHUSDT', type: 'LIMIT', side: 'SELL', price: '3001', quantity: '0.1' });
  expect((await depth).data.asks[0]).toEqual(['3001', '0.1']);
  await client.orders.placeOrder({ symbol: 'ETHUSDT', type: 'MARKET', side: 'BUY', quantity: '0.05' });
  expect((await trade).data).toMatchObject({ price: '3001', quantity: '0.05', side: 'BUY' });
  expect((await ticker).data.lastPrice).toBe('3001');
});

test('unsubscribe is acknowledged; a bad topic is refused with StreamError', async () => {
  await stream.unsubscribe(['ticker:ETHUSDT']);
  expect(stream.topics.has('ticker:ETHUSDT')).toBe(false);
  await expect(stream.subscribe(['depth:NOPE'])).rejects.toBeInstanceOf(StreamError);
});

test('resubscribes after a reconnect', async () => {
  const notices: StreamNotice[] = [];
  const sub = stream.notices$.subscribe((n) => notices.push(n));
  stream.reconnectNow();
  await waitFor(() => notices.some((n) => n.type === 'open' && n.reconnect), 5000, 'reopen');
  await new Promise((r) => setTimeout(r, 100));
  const push = firstValueFrom(stream.markPrice$('BTCUSDT').pipe(filter((p) => p.data.markPrice === '50200')));
  await env.admin('/market/mark-price', { symbol: 'BTCUSDT', markPrice: '50200' });
  expect((await push).symbol).toBe('BTCUSDT');
  sub.unsubscribe();
});

test('dead connection: no pong before the deadline → terminate and reconnect', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false });
  let connections = 0;
  wss.on('connection', () => connections++);
  await new Promise((r) => wss.once('listening', r));
  const port = (wss.address() as AddressInfo).port;
  const mute = new PerpClient({ baseUrl: `http://127.0.0.1:${port}` });
  const s = mute.publicStream({ pingIntervalMs: 50, pongTimeoutMs: 100, reconnectBackoff: { baseMs: 10, maxMs: 50 } });
  const notices: StreamNotice[] = [];
  s.notices$.subscribe((n) => notices.push(n));
  await s.start();
  await waitFor(() => notices.some((n) => n.type === 'close' && n.dead) && connections >= 2, 5000, 'dead detection and reconnect');
  s.stop();
  await mute.close();
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => wss.close(r));
});

test('a server that accepts and drops every connection at once is retried with a growing backoff, not every few ms', async () => {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  let connections = 0;
  wss.on('connection', (ws) => {
    connections++;
    // Accepted, then cut before a word: no sign that the connection works.
    if (connections > 1) ws.terminate();
  });
  await new Promise((r) => wss.once('listening', r));
  const port = (wss.address() as AddressInfo).port;
  const flappy = new PerpClient({ baseUrl: `http://127.0.0.1:${port}` });
  const s = flappy.publicStream({ reconnectBackoff: { baseMs: 100, maxMs: 10_000 } });
  const delays: number[] = [];
  s.notices$.subscribe((n) => n.type === 'reconnecting' && delays.push(n.delayMs));
  await s.start();
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => setTimeout(r, 2500));
  s.stop();
  await flappy.close();
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => wss.close(r));
  // Before: the backoff started over at every open, ~100 ms each time: about 20 connections in
  // 2.5 s, for as long as the server kept doing it (5 a second seen against a relay, live).
  expect(connections).toBeLessThanOrEqual(7);
  expect(delays.length).toBeGreaterThanOrEqual(3);
  expect(delays[delays.length - 1]).toBeGreaterThan(delays[0]);
});

test('a refused subscribe is not kept: after a reconnect the topics subscribed before still get their pushes', async () => {
  const s = client.publicStream({ reconnectBackoff: { baseMs: 20, maxMs: 200 } });
  const notices: StreamNotice[] = [];
  s.notices$.subscribe((n) => notices.push(n));
  await s.start();
  try {
    await s.subscribe(['markPrice:ETHUSDT']);
    await expect(s.subscribe(['depth:NOPEUSDT'])).rejects.toMatchObject({ venueCode: 10003 });
    expect([...s.topics]).toEqual(['markPrice:ETHUSDT']);
    s.reconnectNow();
    await waitFor(() => notices.some((n) => n.type === 'open' && n.reconnect), 5000, 'reopen');
    // Nothing subscribes again here: the stream re-subscribes its wanted topics on the new connection.
    const marks: string[] = [];
    s.pushes$.pipe(filter((p) => p.event === 'markPrice' && p.symbol === 'ETHUSDT')).subscribe((p) => marks.push(p.event === 'markPrice' ? p.data.markPrice : ''));
    let price = 3050;
    await waitFor(async () => {
      await env.admin('/market/mark-price', { symbol: 'ETHUSDT', markPrice: String(price++) });
      await new Promise((r) => setTimeout(r, 50));
      return marks.length > 0;
    }, 3000, 'a markPrice push after the reconnect');
    expect(notices.filter((n) => n.type === 'error')).toEqual([]);
  } finally {
    s.stop();
  }
});

test('stop() while start() waits for a connection that never comes: start() rejects with StreamError instead of hanging', async () => {
  const port = await freePort();
  const s = client.publicStream({ wsOrigin: `ws://127.0.0.1:${port}`, reconnectBackoff: { baseMs: 20, maxMs: 50 } });
  const started = s.start();
  const reconnecting = firstValueFrom(s.notices$.pipe(filter((n) => n.type === 'reconnecting')));
  await reconnecting;
  const settled = expect(started).rejects.toBeInstanceOf(StreamError);
  s.stop();
  await settled;
});

// A topic refused (or a connection that fails) was logged at debug only: with the client's logger
// at info, a stream that stayed deaf said nothing (the private stream says its errors at warn).
test("a topic the venue refuses is logged at warn through the client's logger, as the private stream's errors are", async () => {
  const lines: Array<{ level: number; msg: string; notice?: { type: string } }> = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { level: number; msg: string }) });
  const { client: logged } = await env.jwtClient({ logger });
  const s = logged.publicStream({ reconnectBackoff: { baseMs: 20, maxMs: 200 } });
  await s.subscribe(['ticker:NOPEUSDT']);
  try {
    await s.start();
    await waitFor(() => lines.some((l) => l.msg === 'public stream'), 3000, 'the refusal in the log');
    expect(lines.filter((l) => l.msg === 'public stream').map((l) => [l.level, l.notice?.type])).toEqual([[40, 'error']]);
  } finally {
    s.stop();
  }
});

test('a stopped stream refuses to start again (its observables are complete) instead of connecting to deliver nothing', async () => {
  const pub = client.publicStream();
  await pub.start();
  pub.stop();
  await expect(pub.start()).rejects.toThrow(/stopped and cannot be started again; make a new one with client.publicStream\(\)/);
  expect(pub.connected).toBe(false);
  const priv = client.privateStream();
  await priv.start();
  await priv.stop();
  await expect(priv.start()).rejects.toThrow(/stopped and cannot be started again; make a new one with client.privateStream\(\)/);
  expect(priv.connected).toBe(false);
});

describe('refused topics never deafen the others', () => {
  /** Moves the mark price of `symbol` until `got()` says a push arrived. */
  async function markUntil(symbol: string, from: number, got: () => boolean, what: string): Promise<void> {
    let price = from;
    await waitFor(async () => {
      await env.admin('/market/mark-price', { symbol, markPrice: String(price++) });
      await new Promise((r) => setTimeout(r, 50));
      return got();
    }, 3000, what);
  }

  test('a bad topic subscribed before start(): dropped and reported on connect; the good topics get their pushes, after a reconnect too', async () => {
    const s = client.publicStream({ reconnectBackoff: { baseMs: 20, maxMs: 200 } });
    const notices: StreamNotice[] = [];
    s.notices$.subscribe((n) => notices.push(n));
    const marks: string[] = [];
    s.markPrice$('BTCUSDT').subscribe({ next: (p) => marks.push(p.data.markPrice), error: () => undefined });
    let tradeError: unknown;
    s.trades$('NOPEUSDT').subscribe({ error: (e: unknown) => (tradeError = e) });
    // Before start() nothing can be acknowledged: recorded, resolves at once (documented).
    await s.subscribe(['ticker:NOPEUSDT']);
    try {
      await s.start();
      await markUntil('BTCUSDT', 51000, () => marks.length > 0, 'a markPrice push despite the refused topics');
      await waitFor(() => tradeError !== undefined, 3000, 'the refused topic$ observer to error');
      expect(tradeError).toBeInstanceOf(StreamError);
      expect(tradeError).toMatchObject({ venueCode: 10003 });
      expect([...s.topics]).toEqual(['markPrice:BTCUSDT']);
      const errors = notices.filter((n) => n.type === 'error').map((n) => String((n as { error: Error }).error.message));
      expect(errors).toHaveLength(2);
      expect(errors.join('\n')).toMatch(/trade:NOPEUSDT dropped/);
      expect(errors.join('\n')).toMatch(/ticker:NOPEUSDT dropped/);

      s.reconnectNow();
      await waitFor(() => notices.some((n) => n.type === 'open' && n.reconnect), 5000, 'reopen');
      const before = marks.length;
      await markUntil('BTCUSDT', 52000, () => marks.length > before, 'a markPrice push after the reconnect');
      expect(notices.filter((n) => n.type === 'error')).toHaveLength(2);
    } finally {
      s.stop();
    }
  });

  test('subscribe() while reconnecting settles with the acknowledgement of the new connection', async () => {
    const s = client.publicStream({ reconnectBackoff: { baseMs: 50, maxMs: 200 } });
    await s.start();
    try {
      s.reconnectNow();
      expect(s.connected).toBe(false);
      const good = s.subscribe(['markPrice:ETHUSDT']);
      const bad = s.subscribe(['depth:NOPEUSDT']).catch((e: unknown) => e);
      await good;
      expect(s.connected).toBe(true);
      const err = await bad;
      expect(err).toBeInstanceOf(StreamError);
      expect(err).toMatchObject({ venueCode: 10003 });
      expect((err as Error).message).toMatch(/depth:NOPEUSDT/);
      expect([...s.topics]).toEqual(['markPrice:ETHUSDT']);
    } finally {
      s.stop();
    }
  });

  test('a subscribe split over frames with one refused: the venue is left with what the stream wants (nothing added)', async () => {
    for (const [topics, opts] of [
      // The probe's case: 51 topics, the 51st refused (the first frame had been acknowledged and kept by the venue).
      [[...Array<PublicTopic>(50).fill('markPrice:ETHUSDT'), 'trade:NOPEUSDT'], {}],
      // Distinct topics over frames of 2: the first frame is unsubscribed again.
      [['markPrice:ETHUSDT', 'ticker:ETHUSDT', 'trade:NOPEUSDT'], { topicsPerFrame: 2 }],
    ] as Array<[PublicTopic[], { topicsPerFrame?: number }]>) {
      const s = client.publicStream({ ...opts });
      await s.start();
      try {
        await expect(s.subscribe(topics)).rejects.toMatchObject({ venueCode: 10003 });
        expect([...s.topics]).toEqual([]);
        // From here (the refusal, and any roll-back, acknowledged) no ETHUSDT push may come.
        const got: string[] = [];
        s.pushes$.subscribe((p) => got.push(`${p.event}:${p.symbol}`));
        // A topic of the stream's own, to know when pushes of that mark move have arrived.
        await s.subscribe(['markPrice:BTCUSDT']);
        await env.admin('/market/mark-price', { symbol: 'ETHUSDT', markPrice: '3111' });
        await markUntil('BTCUSDT', 53000, () => got.includes('markPrice:BTCUSDT'), 'a BTCUSDT push');
        await env.admin('/market/mark-price', { symbol: 'ETHUSDT', markPrice: '3112' });
        await markUntil('BTCUSDT', 54000, () => got.filter((g) => g === 'markPrice:BTCUSDT').length > 1, 'a second BTCUSDT push');
        expect(got.filter((g) => g.endsWith(':ETHUSDT'))).toEqual([]);
      } finally {
        s.stop();
      }
    }
  });
});
