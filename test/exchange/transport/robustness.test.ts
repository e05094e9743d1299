/**
 * Hostile and careless input over real sockets: every answer is an envelope with a 4xx, nothing
 * hangs, nothing crashes, nothing pollutes Object.prototype. Also rate limits, the envelope on
 * every kind of answer, internal errors without stack traces, and graceful stop.
 */
import { connect } from 'node:net';
import { request } from 'undici';
import { TestClock, holdCommands, startTestExchange, type TestExchange } from '../../helpers/exchange';
import { parseJsonBody } from '../../../src/exchange/transport/http/json-body';
import { VenueError } from '../../../src/core/errors';

type Rec = Record<string, unknown>;

/** Raw HTTP over a socket, for requests undici would refuse to send; resolves with the raw answer. */
function rawHttp(url: string, payload: string | Buffer, endAfterWrite = true): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let out = '';
    s.on('data', (d) => (out += d.toString()));
    s.on('end', () => resolve(out));
    s.on('close', () => resolve(out));
    s.on('error', (e) => (out ? resolve(out) : reject(e)));
    s.write(payload, () => {
      if (endAfterWrite) s.end();
    });
    setTimeout(() => {
      s.destroy();
      resolve(out);
    }, 5000).unref();
  });
}

const envelopeOf = (raw: string): Rec => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Rec;

describe('bad input never 5xx and never hangs', () => {
  let ex: TestExchange;
  let token: string;
  beforeAll(async () => {
    ex = await startTestExchange({ limits: { bodyBytes: 4096 } });
    const u = await ex.createUser();
    token = (await ex.login(u.username, u.password)).accessToken;
  });
  afterAll(() => ex.stop());

  const place = (body: unknown) => ex.call<Rec>('POST', '/v1/private/order/place', { token, body });

  it('unknown routes, wrong methods and trailing slashes: 404 / 10006 in the envelope with X-Request-Id', async () => {
    for (const [m, p] of [['GET', '/'], ['GET', '/v1/private/order/place'], ['POST', '/v1/time'], ['GET', '/v1/time/'], ['OPTIONS', '/v1/time'], ['GET', '/v2/time']]) {
      const r = await ex.call(m, p);
      expect([r.status, r.body.code, r.body.data]).toEqual([404, 10006, null]);
      expect(r.headers['x-request-id']).toBe(r.body.requestId);
    }
  });

  it('request ids are unique', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => ex.call('GET', '/v1/time').then((r) => r.body.requestId)));
    expect(new Set(ids).size).toBe(20);
  });

  it('invalid JSON, non-object bodies, wrong content type, bad UTF-8: 10005', async () => {
    for (const body of ['{', '{"symbol":', 'null', '[]', '"x"', '42', 'true', '{"a":1}{']) {
      const r = await place(body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 400, code: 10005 });
    }
    const empty = await ex.call('POST', '/v1/private/order/place', { token });
    expect(empty.body.code).toBe(10005);
    const form = await ex.call('POST', '/v1/private/order/place', { token, body: 'symbol=BTCUSDT', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.body.code).toBe(10005);
    const badUtf8 = await ex.call('POST', '/v1/private/order/place', { token, body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) });
    expect(badUtf8.body.code).toBe(10005);
  });

  it('deep nesting is refused, not a stack overflow', async () => {
    const r = await place(`${'['.repeat(2000)}${']'.repeat(2000)}`);
    expect(r.body.code).toBe(10005);
    const deepObj = await place(`{"symbol":${'{"a":'.repeat(600)}1${'}'.repeat(600)}}`);
    expect(deepObj.status).toBe(400);
  });

  it('prototype-pollution keys are refused at any depth and pollute nothing', async () => {
    const bodies = [
      '{"__proto__":{"polluted":1},"symbol":"BTCUSDT"}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '{"orders":[{"__proto__":{"polluted":1}}]}',
    ];
    for (const b of bodies) {
      const r = await place(b);
      expect({ b, code: r.body.code }).toEqual({ b, code: 10001 });
    }
    const batch = await ex.call<Rec>('POST', '/v1/private/order/batch-place', { token, body: '{"orders":[{"symbol":"BTCUSDT","__proto__":{"polluted":1}}]}' });
    expect(batch.body.code).toBe(10001);
    const q = await ex.call('GET', '/v1/private/order/current', { token, query: '__proto__=1' });
    expect(q.body.code).toBe(10001);
    expect(({} as Rec).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('a key given twice in one object is refused (10001, naming it) and nothing is placed; the same key in two objects is not a repeat', async () => {
    const order = (side: string): string => `"symbol":"BTCUSDT","type":"LIMIT","side":"${side}","price":"40000","quantity":"0.01"`;
    const cases: Array<[string, string]> = [
      [`{${order('BUY')},"side":"SELL"}`, 'side'],
      // Written with an escape, still the same key; a ':' inside a value does not hide it.
      [`{${order('BUY')},"clientOrderId":"a:b","s\u0069de":"SELL"}`, 'side'],
      [`{"orders":[{${order('BUY')},"price":"39000"}]}`, 'price'],
    ];
    for (const [body, key] of cases) {
      const r = await ex.call<Rec>('POST', body.startsWith('{"orders"') ? '/v1/private/order/batch-place' : '/v1/private/order/place', { token, body });
      expect({ body, code: r.body.code, message: r.body.message }).toEqual({ body, code: 10001, message: `field '${key}' is given more than once in one object; give it once` });
    }
    const open = await ex.call<{ total: number }>('GET', '/v1/private/order/current', { token });
    expect(open.body.data.total).toBe(0);
    // A body nested as deep as JSON.parse takes is walked without recursion: the key count once
    // overflowed the stack on 100,000 nested arrays, a 500 (this server's bodyBytes is 4096: the
    // parser is asked directly).
    for (const deep of [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)},"b":1}`]) {
      let parsed: unknown;
      try {
        parsed = parseJsonBody(Buffer.from(deep), 'application/json');
      } catch (e) {
        // JSON.parse itself may refuse it as nested too deeply: a 10005, never a RangeError.
        expect(e).toBeInstanceOf(VenueError);
      }
      void parsed;
    }
    // Each order of a batch has its own keys: accepted.
    const batch = await ex.call<Rec>('POST', '/v1/private/order/batch-place', { token, body: `{"orders":[{${order('BUY')}},{${order('BUY')}}]}` });
    expect(batch.body.code).toBe(0);
    await ex.call('POST', '/v1/private/order/cancel-all', { token, body: '{"symbol":"BTCUSDT"}' });
  });

  it('unknown fields, huge and negative numbers, exponents, wrong types: 4xx with a message naming the field', async () => {
    const base = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' };
    const cases: Rec[] = [
      { ...base, foo: 1 },
      { ...base, quantity: '-1' },
      { ...base, price: '-40000' },
      { ...base, quantity: '1'.repeat(70) },
      { ...base, price: '9'.repeat(60) },
      { ...base, quantity: '99999999999999999999' },
      { ...base, price: '1e5' },
      { ...base, price: 40000 },
      { ...base, priceType: 1e308 },
      { ...base, priceType: -1 },
      { ...base, reduceOnly: 'true' },
      { ...base, clientOrderId: 'x'.repeat(100) },
      { ...base, symbol: 'B'.repeat(10_000 / 4) },
    ];
    for (const body of cases) {
      const r = await place(body);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body.data).toBeNull();
      expect(r.body.message.length).toBeGreaterThan(0);
    }
    const lev = await ex.call('POST', '/v1/private/position/leverage', { token, body: '{"symbol":"BTCUSDT","leverage":1e999}' });
    expect(lev.body.code).toBe(10001);
    const q = await ex.call('GET', '/v1/private/order/history', { token, query: { page: '99999999999999999999' } });
    expect(q.body.code).toBe(10001);
  });

  it('repeated query keys and stray query or body parameters: 10001', async () => {
    expect((await ex.call('GET', '/v1/private/order/current', { token, query: 'symbol=BTCUSDT&symbol=ETHUSDT' })).body.code).toBe(10001);
    expect((await ex.call('POST', '/v1/private/order/batch-cancel-all', { token, query: { symbol: 'BTCUSDT' } })).body.code).toBe(10001);
    const getWithBody = await request(`${ex.url}/v1/time`, { method: 'POST', body: '{}' });
    expect(getWithBody.statusCode).toBe(404);
    await getWithBody.body.text();
  });

  it('a body over the limit is refused with 10001 (declared length or streamed), the connection closed', async () => {
    const big = await place({ symbol: 'x'.repeat(5000) });
    expect([big.status, big.body.code]).toEqual([400, 10001]);
    expect(big.body.message).toContain('4096');
    // Streamed without Content-Length: refused once the limit is passed, without reading it all.
    const chunked = `POST /v1/private/order/place HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const piece = 'a'.repeat(1000);
    let payload = chunked;
    for (let i = 0; i < 10; i++) payload += `${piece.length.toString(16)}\r\n${piece}\r\n`;
    const raw = await rawHttp(ex.url, payload, false);
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw.toLowerCase()).toContain('connection: close');
    expect(envelopeOf(raw)).toMatchObject({ code: 10001, data: null });
    // The server still answers.
    expect((await ex.call('GET', '/v1/time')).body.code).toBe(0);
  });

  it('a declared huge Content-Length is answered at once', async () => {
    const raw = await rawHttp(ex.url, `POST /v1/public/user/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{`, false);
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(envelopeOf(raw)).toMatchObject({ code: 10001 });
  });

  it('a malformed request line gets an envelope too', async () => {
    const raw = await rawHttp(ex.url, 'BLAH\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(envelopeOf(raw)).toMatchObject({ code: 10001, data: null, message: expect.stringMatching(/^malformed HTTP request \(HPE_\w+\)$/) });
  });

  it('a request line over the header limit (a 100 KB query) is said as such, not as "malformed"', async () => {
    const raw = await rawHttp(ex.url, `GET /v1/public/market/symbols?x=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(envelopeOf(raw)).toMatchObject({ code: 10001, message: expect.stringMatching(/^request line and headers over \d+ bytes/) });
  });

  it('an unexpected exception is 50001 without internals in the message', async () => {
    const spy = jest.spyOn(ex.server.core.engine, 'asset').mockImplementation(() => {
      throw new Error('secret internals at /srv/engine.ts:42');
    });
    try {
      const r = await ex.call('GET', '/v1/private/user/asset', { token });
      expect([r.status, r.body.code, r.body.data]).toEqual([500, 50001, null]);
      expect(r.body.message).not.toContain('secret');
      expect(r.body.message).not.toContain('.ts');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('rate limits', () => {
  it('order requests per 10 s and requests per minute: 429 / 40001 with Retry-After; headers on every authenticated answer', async () => {
    // Frozen 1 s into a minute (and a 10 s window): the fixed windows cannot roll over mid-test.
    const clock = new TestClock();
    clock.freeze(Math.floor(Date.now() / 60_000) * 60_000 + 1000);
    const ex = await startTestExchange({ rateLimits: { ordersPer10s: 3, requestsPerMinute: 8 } }, { clock });
    try {
      const u = await ex.createUser();
      const token = (await ex.login(u.username, u.password)).accessToken;
      const order = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' };
      const codes: number[] = [];
      let last: Awaited<ReturnType<TestExchange['call']>> | undefined;
      for (let i = 0; i < 4; i++) {
        last = await ex.call('POST', '/v1/private/order/place', { token, body: order });
        codes.push(last.body.code);
        expect(last.headers['x-ratelimit-limit']).toBe('8');
      }
      expect(codes).toEqual([0, 0, 0, 40001]);
      expect(last?.status).toBe(429);
      expect(last?.headers['retry-after']).toBe('9');
      // Reads still pass until the minute budget (8) is used: 3 orders counted, the refusal not.
      const reads: number[] = [];
      for (let i = 0; i < 6; i++) reads.push((await ex.call('GET', '/v1/private/user/asset', { token })).body.code);
      expect(reads).toEqual([0, 0, 0, 0, 0, 40001]);
      const r = await ex.call('GET', '/v1/private/user/asset', { token });
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
      expect(r.headers['retry-after']).toBe('59');
      // Another user has a budget of their own; public endpoints are not limited per user.
      const v = await ex.createUser();
      const t2 = (await ex.login(v.username, v.password)).accessToken;
      const other = await ex.call('GET', '/v1/private/user/asset', { token: t2 });
      expect([other.body.code, other.headers['x-ratelimit-remaining']]).toEqual([0, '7']);
      expect((await ex.call('GET', '/v1/time')).headers['x-ratelimit-limit']).toBeUndefined();
      // The next minute brings the budget back.
      clock.advance(59_000);
      const after = await ex.call('GET', '/v1/private/user/asset', { token });
      expect([after.body.code, after.headers['x-ratelimit-remaining']]).toEqual([0, '7']);
    } finally {
      await ex.stop();
    }
  });
});

describe('lifecycle', () => {
  it('configured users (and keys) are created at start; stop lets in-flight requests finish and is idempotent', async () => {
    const ex = await startTestExchange({
      users: [{ username: 'preset', password: 'pw-preset', balance: '123', apiKeys: [{ apiKey: 'preset-key', secret: 'preset-secret', permissions: ['READ', 'TRADE'] }] }],
    });
    const asset = await ex.call<{ userAsset: Rec }>('GET', '/v1/private/user/asset', { apiKey: 'preset-key', secret: 'preset-secret' });
    expect(asset.body.data.userAsset.walletBalance).toBe('123');
    const { accessToken } = await ex.login('preset', 'pw-preset');
    // Hold the next command until stop() has begun.
    const held = holdCommands(ex.server);
    const inFlight = ex.call('POST', '/v1/private/order/place', { token: accessToken, body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '1000', quantity: '0.01' } });
    await new Promise((r) => setTimeout(r, 50));
    const stopping = ex.stop();
    const again = ex.stop();
    setTimeout(held.release, 50);
    const answered = await inFlight;
    expect(answered.body.code).toBe(0);
    await Promise.all([stopping, again]);
    held.restore();
    await expect(request(`${ex.url}/v1/time`)).rejects.toThrow();
    await ex.stop();
  });

  it('a client that goes away in the middle of its body leaves nothing in flight: stop does not wait for it', async () => {
    const ex = await startTestExchange();
    const { port } = new URL(ex.url);
    const s = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => s.once('connect', () => resolve()));
    s.write('POST /v1/public/user/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"username":');
    await new Promise((r) => setTimeout(r, 100));
    s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    // The server still answers, and its stop finds nothing in flight (it would wait out its 5 s drain).
    expect((await ex.call('GET', '/v1/time')).body.code).toBe(0);
    const t0 = Date.now();
    await ex.stop();
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

