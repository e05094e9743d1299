/**
 * The exchange reads plain API requests itself (src/exchange/transport/http/fast-lane.ts) and
 * hands a connection to node:http at its first request that is not plain. Raw sockets, so the
 * test controls how the bytes arrive: pipelined, split, unread.
 */
import { connect, type Socket } from 'node:net';
import { holdCommands, startTestExchange, type TestExchange } from '../../helpers/exchange';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw keep-alive connection that reads the answers in order. */
class Raw {
  private buf = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
  }

  static open(url: string): Promise<Raw> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = connect({ host: u.hostname, port: Number(u.port) }, () => resolve(new Raw(s)));
      s.once('error', reject);
    });
  }

  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  /** The next answer, or undefined when the connection closed first. */
  async next(timeoutMs = 5000): Promise<Answer | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const a = this.take();
      if (a !== undefined) return a;
      if (this.closed) return undefined;
      if (Date.now() > until) throw new Error(`no answer within ${timeoutMs} ms; have ${this.buf.length} bytes`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  private take(): Answer | undefined {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = this.buf.toString('latin1', 0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.buf.length < end + 4 + length) return undefined;
    const body = this.buf.toString('utf8', end + 4, end + 4 + length);
    this.buf = this.buf.subarray(end + 4 + length);
    return { status: Number(lines[0].split(' ')[1]), headers, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Waits for `ok` (a loaded machine may take a while), up to 10 s. */
async function until(ok: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`waited 10 s for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const post = (path: string, body: string, headers: string): string => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const order = (price: string): string => JSON.stringify({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.01', clientOrderId: `at-${price}` });
const placed = (a: { body: string } | undefined): string | undefined => (JSON.parse(a?.body ?? '{}') as { data?: { clientOrderId?: string } }).data?.clientOrderId;

let ex: TestExchange;
let auth: string;
beforeEach(async () => {
  ex = await startTestExchange();
  const u = await ex.createUser({ balance: '1000000' });
  auth = `Authorization: Bearer ${(await ex.login(u.username, u.password)).accessToken}\r\n`;
});
afterEach(async () => {
  await ex.stop();
});

const stats = (): { served: number; handedOff: number } => ({ ...(ex.server.fastLaneStats ?? { served: -1, handedOff: -1 }) });

/** Answers to `requests` (one write) on a new connection, without what differs by run (ids, times). */
async function answers(url: string, requests: string, n: number): Promise<Array<{ status: number; headers: Record<string, string>; body: unknown }>> {
  const c = await Raw.open(url);
  c.write(requests);
  const out = [];
  for (let i = 0; i < n; i++) {
    const a = await c.next();
    if (a === undefined) throw new Error(`connection closed after ${i} answers`);
    const { date, 'x-request-id': requestId, ...headers } = a.headers;
    expect(date).toMatch(/GMT$/);
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    const body = JSON.parse(a.body, (k, v: unknown) => (['requestId', 'orderId', 'time', 'updateTime', 'createTime', 'serverTime', 'timestamp'].includes(k) ? typeof v : v)) as unknown;
    out.push({ status: a.status, headers, body });
  }
  c.close();
  return out;
}

test('pipelined plain requests are served without node:http, answered in order, with the answers and headers node:http gives', async () => {
  const before = stats();
  // Six requests in one write: orders at three prices, an unknown path, a bad body, an order refused.
  const requests = (token: string): string =>
    post('/v1/private/order/place', order('1001'), token) +
    post('/v1/private/order/place', order('1002'), token) +
    get('/v1/no/such/thing') +
    post('/v1/private/order/place', '{"symbol":', token) +
    post('/v1/private/order/place', order('1003'), token) +
    post('/v1/private/order/place', JSON.stringify({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '1', quantity: '0.001' }), token);
  const fast = await answers(ex.url, requests(auth), 6);
  expect(stats()).toEqual({ served: before.served + 6, handedOff: before.handedOff });
  expect(fast.map((a) => a.status)).toEqual([200, 200, 404, 400, 200, 400]);
  expect(fast.map((a) => (a.body as { data: { clientOrderId?: string } | null }).data?.clientOrderId)).toEqual(['at-1001', 'at-1002', undefined, undefined, 'at-1003', undefined]);
  // The same requests to an exchange where node:http reads everything: the same answers and headers.
  const plain = await startTestExchange({}, { fastLane: false });
  try {
    expect(plain.server.fastLaneStats).toBeUndefined();
    const u = await plain.createUser({ balance: '1000000' });
    const token = `Authorization: Bearer ${(await plain.login(u.username, u.password)).accessToken}\r\n`;
    expect(fast).toEqual(await answers(plain.url, requests(token), 6));
  } finally {
    await plain.stop();
  }
});

test('a request the fast lane does not read (chunked body) goes to node:http with the bytes behind it, after the answers before it', async () => {
  const c = await Raw.open(ex.url);
  const before = stats();
  const body = order('1004');
  const chunked = `POST /v1/private/order/place HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${auth}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  c.write(post('/v1/private/order/place', order('1003'), auth) + chunked + get('/v1/time'));
  const a = [await c.next(), await c.next(), await c.next()];
  expect(a.map((x) => (JSON.parse(x?.body ?? 'null') as { code: number }).code)).toEqual([0, 0, 0]);
  expect(placed(a[1])).toBe('at-1004');
  expect((JSON.parse(a[2]?.body ?? '{}') as { data: { serverTime: number } }).data.serverTime).toBeGreaterThan(0);
  expect(stats()).toEqual({ served: before.served + 1, handedOff: before.handedOff + 1 });
  // node:http has the connection now, for good.
  c.write(get('/v1/time'));
  expect((await c.next())?.status).toBe(200);
  expect(stats().served).toBe(before.served + 1);
  c.close();
});

test('a request split across writes is served when the rest comes; one whose rest is slow goes to node:http', async () => {
  const c = await Raw.open(ex.url);
  const before = stats();
  const whole = post('/v1/private/order/place', order('1005'), auth);
  c.write(whole.slice(0, 40));
  await new Promise((r) => setTimeout(r, 100));
  c.write(whole.slice(40, whole.length - 5));
  await new Promise((r) => setTimeout(r, 100));
  c.write(whole.slice(whole.length - 5));
  expect(placed(await c.next())).toBe('at-1005');
  expect(stats()).toEqual({ served: before.served + 1, handedOff: before.handedOff });
  // Half a head, then nothing for over a second: node:http takes it (its headersTimeout applies from then).
  const slow = post('/v1/private/order/place', order('1006'), auth);
  c.write(slow.slice(0, 30));
  const sent = Date.now();
  await until(() => stats().handedOff === before.handedOff + 1, 'node:http to take the connection');
  expect(Date.now() - sent).toBeGreaterThanOrEqual(950);
  c.write(slow.slice(30));
  expect(placed(await c.next())).toBe('at-1006');
  expect(stats().served).toBe(before.served + 1);
  c.close();
});

test('a connection with 64 requests unanswered is not read further until answers go out; then every answer comes, in order', async () => {
  const big = await startTestExchange({ rateLimits: { ordersPer10s: 100_000, requestsPerMinute: 100_000 } });
  try {
    const u = await big.createUser({ balance: '100000000' });
    const token = `Authorization: Bearer ${(await big.login(u.username, u.password)).accessToken}\r\n`;
    // Hold every command: no answer can go out.
    const held = holdCommands(big.server);
    const before = { ...big.server.fastLaneStats };
    const c = await Raw.open(big.url);
    // Fewer than the 200 open orders a user may have on a symbol.
    const n = 180;
    let all = '';
    for (let i = 0; i < n; i++) all += post('/v1/private/order/place', order(String(1000 + i)), token);
    c.write(all);
    await until(() => (big.server.fastLaneStats?.served ?? 0) >= (before.served ?? 0) + 64, '64 requests served');
    await new Promise((r) => setTimeout(r, 300));
    expect(big.server.fastLaneStats?.served).toBe((before.served ?? 0) + 64);
    held.release();
    const ids: Array<string | undefined> = [];
    for (let i = 0; i < n; i++) ids.push(placed(await c.next()));
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => `at-${1000 + i}`));
    expect(big.server.fastLaneStats).toEqual({ served: (before.served ?? 0) + n, handedOff: before.handedOff });
    held.restore();
    c.close();
  } finally {
    await big.stop();
  }
});

test('Connection: close, a WebSocket upgrade and a page go to node:http; stop closes idle connections of either kind', async () => {
  const before = stats();
  const c = await Raw.open(ex.url);
  c.write(get('/v1/time', 'Connection: close\r\n'));
  const a = await c.next();
  expect(a?.status).toBe(200);
  expect(a?.headers.connection).toBe('close');
  expect(await c.next()).toBeUndefined();
  expect(stats().handedOff).toBe(before.handedOff + 1);
  const idleFast = await Raw.open(ex.url);
  idleFast.write(get('/v1/time'));
  expect((await idleFast.next())?.status).toBe(200);
  const idleNode = await Raw.open(ex.url);
  // A header twice: node:http's rules for joining them apply, so node:http reads it.
  idleNode.write(`GET /v1/time HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nX-A: 2\r\n\r\n`);
  expect((await idleNode.next())?.status).toBe(200);
  expect(stats().handedOff).toBe(before.handedOff + 2);
  // Lines ended by bare line feeds: node:http's refusal, at once (not after the grace for a head still arriving).
  const lf = await Raw.open(ex.url);
  const t1 = Date.now();
  lf.write('GET /v1/time HTTP/1.1\nHost: x\n\n');
  const refused = await lf.next();
  expect(refused?.status).toBe(400);
  expect(refused?.body).toMatch(/malformed HTTP request/);
  expect(Date.now() - t1).toBeLessThan(900);
  expect(stats().handedOff).toBe(before.handedOff + 3);
  lf.close();
  const t0 = Date.now();
  await ex.stop();
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(await idleFast.next()).toBeUndefined();
  expect(await idleNode.next()).toBeUndefined();
});

test('stop ends a connection whose client does not read its answers (it waited for it for good)', async () => {
  const c = await Raw.open(ex.url);
  let all = '';
  for (let i = 0; i < 3000; i++) all += get(`/v1/time?i=${i}`);
  c.socket.pause();
  c.write(all);
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  await ex.stop();
  expect(Date.now() - t0).toBeLessThan(5000);
  c.close();
});

test('requests cut at every kind of boundary (random pieces, seeded) are served whole and in order', async () => {
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const before = stats();
  const c = await Raw.open(ex.url);
  const n = 120;
  let all = '';
  for (let i = 0; i < n; i++) all += i % 3 === 2 ? get('/v1/time') : post('/v1/private/order/place', order(String(2000 + i)), auth);
  const bytes = Buffer.from(all);
  // Pieces of 1 to 200 bytes, written a few at a time, so heads, bodies and the blank line between
  // them are split everywhere, and several requests arrive in one read too.
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(rnd() * 200);
    c.write(bytes.subarray(at, at + size));
    at += size;
    if (rnd() < 0.3) await new Promise((r) => setImmediate(r));
  }
  for (let i = 0; i < n; i++) {
    const a = await c.next();
    if (i % 3 === 2) expect((JSON.parse(a?.body ?? '{}') as { data: { serverTime: number } }).data.serverTime).toBeGreaterThan(0);
    else expect(placed(a)).toBe(`at-${2000 + i}`);
  }
  expect(stats()).toEqual({ served: before.served + n, handedOff: before.handedOff });
  c.close();
});
