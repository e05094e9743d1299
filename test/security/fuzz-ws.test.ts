/**
 * Property-based fuzzing of the WebSocket gateway (issue 8, "Hostile input"): random frames on the
 * public and the private stream, and random upgrade targets.
 *
 * Properties:
 * - public stream: every text frame that is UTF-8 and within the size limit gets exactly one
 *   answer (an ack, or a nack with a known code) within ANSWER_BOUND_MS, and the connection stays
 *   open; a binary frame gets a 10005 nack;
 * - private stream: client frames are ignored; the connection stays open and answers pings;
 * - only two things close a connection: a frame over the stream's size limit (1009) and a text
 *   frame that is not UTF-8 (1007, which RFC 6455 section 8.1 requires);
 * - witness connections opened before the fuzzing keep receiving their pushes;
 * - afterwards the gateway's indexes, the listener counts and (loosely) the heap are back where
 *   they started, and Object.prototype is untouched.
 */
import fc from 'fast-check';
import WebSocket, { type RawData } from 'ws';
import { ErrorCodes } from '../../src/core/errors';
import { PUBLIC_FRAME_MAX_BYTES } from '../../src/protocol/ws';
import { startTestExchange, type TestExchange } from '../helpers/exchange';
import { fuzzRuns, fuzzSeed, ORDER, seedUser, type Rec } from './support';

const SEED = fuzzSeed();
const ANSWER_BOUND_MS = 2000;
/** The gateway's limit for client frames on the private stream (gateway.ts). */
const PRIVATE_FRAME_MAX_BYTES = 4096;
const KNOWN_CODES: ReadonlySet<number> = new Set<number>(Object.values(ErrorCodes));

/** A client connection that queues what it receives, so a test can wait for the next match. */
class Conn {
  readonly messages: Rec[] = [];
  closed: { code: number; reason: string } | undefined;
  private readonly waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: RawData) => {
      this.messages.push(JSON.parse(data.toString()) as Rec);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    // A refused or cut connection also emits 'error'; 'close' carries what the tests look at.
    ws.on('error', () => undefined);
  }

  static open(url: string): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      const c = new Conn(ws);
      ws.once('open', () => resolve(c));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when `ready()` returns a value, or rejects after `ms`. */
  async until<T>(ms: number, what: string, ready: () => T | undefined): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = ready();
      if (v !== undefined) return v;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Removes and returns the first queued message matching `pred`. */
  take(pred: (m: Rec) => boolean): Rec | undefined {
    const i = this.messages.findIndex(pred);
    return i < 0 ? undefined : this.messages.splice(i, 1)[0];
  }

  /** A pong for our ping: the connection is open and the server reads it. */
  async alive(ms: number): Promise<void> {
    let ponged = false;
    const onPong = (): void => {
      ponged = true;
      this.wake();
    };
    this.ws.once('pong', onPong);
    this.ws.ping();
    try {
      await this.until(ms, 'a pong', () => {
        if (this.closed) throw new Error(`connection closed (${this.closed.code} ${this.closed.reason})`);
        return ponged ? true : undefined;
      });
    } finally {
      this.ws.off('pong', onPong);
    }
  }
}

// ---------------------------------------------------------------- frames

type Frame = { kind: 'text'; text: string } | { kind: 'binary'; bytes: Buffer } | { kind: 'badUtf8'; bytes: Buffer } | { kind: 'huge'; bytes: number; binary: boolean };

const KINDS = ['trade', 'markPrice', 'depth', 'ticker'];
const SYMBOLS = ['BTCUSDT', 'ETHUSDT'];

const topicArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...KINDS), fc.constantFrom(...SYMBOLS)).map(([k, s]) => `${k}:${s}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...KINDS, 'candles', 'TRADE', ''), fc.string({ maxLength: 12 })).map(([k, s]) => `${k}:${s}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', ':', 'trade:', ':BTCUSDT', 'trade:BTCUSDT:x', 'trade::BTCUSDT', 'trade: BTCUSDT', 'trade:btcusdt', '__proto__', 'constructor', 'trade:__proto__', 'depth:constructor', 'x'.repeat(300)),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.constant({}), fc.constant([]), fc.constant({ __proto__: null, polluted: 'yes' })) },
);

/** Subscribe-like frames, built as text so `__proto__` keys reach the server as written. */
const opFrameArb: fc.Arbitrary<string> = fc
  .record({
    op: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('subscribe', 'unsubscribe') }, { weight: 1, arbitrary: fc.constantFrom('SUBSCRIBE', 'sub', '', 'ping', '__proto__') }, { weight: 1, arbitrary: fc.integer() }),
    args: fc.oneof({ weight: 5, arbitrary: fc.array(topicArb, { maxLength: 60 }) }, { weight: 1, arbitrary: topicArb }),
    extra: fc.option(fc.constantFrom('"__proto__":{"polluted":"yes"}', '"constructor":{"prototype":{"polluted":"yes"}}', '"id":1', '"op":"unsubscribe"', '"args":[]'), { nil: undefined }),
    omit: fc.constantFrom<'none' | 'op' | 'args'>('none', 'none', 'none', 'op', 'args'),
  })
  .map(({ op, args, extra, omit }) => {
    const parts: string[] = [];
    if (omit !== 'op') parts.push(`"op":${JSON.stringify(op)}`);
    if (omit !== 'args') parts.push(`"args":${JSON.stringify(args)}`);
    if (extra !== undefined) parts.push(extra);
    return `{${parts.join(',')}}`;
  });

function frameArb(limit: number): fc.Arbitrary<Frame> {
  return fc.oneof(
    { weight: 6, arbitrary: opFrameArb.map((text): Frame => ({ kind: 'text', text })) },
    { weight: 2, arbitrary: fc.json({ maxDepth: 3 }).map((text): Frame => ({ kind: 'text', text })) },
    { weight: 2, arbitrary: fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', ' ', '{', 'null', '[]', '{"op":', `${'['.repeat(4000)}`)).map((text): Frame => ({ kind: 'text', text })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b): Frame => ({ kind: 'binary', bytes: Buffer.from(b) })) },
    { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0xff, 0xfe]), Buffer.from([0xc3, 0x28]), Buffer.from('{"op":"subscribe","args":["trade:\xff"]}', 'latin1')).map((bytes): Frame => ({ kind: 'badUtf8', bytes })) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: limit + 1, max: limit * 8 }), fc.boolean()).map(([bytes, binary]): Frame => ({ kind: 'huge', bytes, binary })) },
  );
}

function sendFrame(c: Conn, f: Frame): void {
  switch (f.kind) {
    case 'text':
      c.ws.send(f.text);
      break;
    case 'binary':
      c.ws.send(f.bytes, { binary: true });
      break;
    case 'badUtf8':
      // A Buffer sent with binary: false goes out as a text frame, bytes unchanged.
      c.ws.send(f.bytes, { binary: false });
      break;
    case 'huge':
      c.ws.send(f.binary ? Buffer.alloc(f.bytes, 0x41) : 'x'.repeat(f.bytes), { binary: f.binary });
      break;
  }
}

const describeFrame = (f: Frame): string =>
  f.kind === 'text' ? `text ${JSON.stringify(f.text.slice(0, 200))}` : f.kind === 'huge' ? `huge ${f.bytes} bytes` : `${f.kind} ${f.bytes.toString('hex').slice(0, 64)}`;

/** Closes caused by the frame itself: 1009 for oversized frames, 1007 for text that is not UTF-8. */
const expectedClose = (f: Frame): number | undefined => (f.kind === 'huge' ? 1009 : f.kind === 'badUtf8' ? 1007 : undefined);

// ---------------------------------------------------------------- the run

describe('WebSocket fuzzing', () => {
  let ex: TestExchange;
  let alice: Awaited<ReturnType<typeof seedUser>>;
  let bob: Awaited<ReturnType<typeof seedUser>>;
  let publicUrl: string;
  let privateUrl: string;
  let publicWitness: Conn;
  let privateWitness: Conn;
  let baseline: { stats: ReturnType<TestExchange['server']['ws']['stats']>; events: number; upgrade: number; heap: number };

  beforeAll(async () => {
    ex = await startTestExchange({ rateLimits: { ordersPer10s: 1_000_000, requestsPerMinute: 1_000_000 } });
    alice = await seedUser(ex, 'wf-alice');
    bob = await seedUser(ex, 'wf-bob');
    const wsOrigin = ex.url.replace(/^http/, 'ws');
    publicUrl = `${wsOrigin}/v1/ws/public`;
    privateUrl = `${wsOrigin}/v1/ws/private?listenKey=${encodeURIComponent(alice.listenKey)}`;
    // Witnesses: connections that behave, whose service must survive whatever the others send.
    publicWitness = await Conn.open(publicUrl);
    publicWitness.ws.send(JSON.stringify({ op: 'subscribe', args: ['trade:BTCUSDT'] }));
    await publicWitness.until(ANSWER_BOUND_MS, 'the witness ack', () => publicWitness.take((m) => m.success === true));
    privateWitness = await Conn.open(`${wsOrigin}/v1/ws/private?listenKey=${encodeURIComponent(bob.listenKey)}`);
    baseline = {
      stats: ex.server.ws.stats(),
      events: ex.server.core.emitter.listenerCount('events'),
      upgrade: ex.server.httpServer.listenerCount('upgrade'),
      heap: process.memoryUsage().heapUsed,
    };
  });
  afterAll(async () => {
    publicWitness.ws.terminate();
    privateWitness.ws.terminate();
    await ex.stop();
  });

  /** For a frame the server must close on (oversized, non-UTF-8): waits for that close code. */
  async function closedAsExpected(conn: Conn, f: Parameters<typeof expectedClose>[0], what: string): Promise<boolean> {
    const close = expectedClose(f);
    if (close === undefined) return false;
    const closed = await conn.until(ANSWER_BOUND_MS, `close ${close} after ${what}`, () => conn.closed);
    expect({ what, code: closed.code }).toEqual({ what, code: close });
    return true;
  }

  it('public stream: one ack or nack per frame, closes only for oversized or non-UTF-8 frames', async () => {
    let conn = await Conn.open(publicUrl);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(frameArb(PUBLIC_FRAME_MAX_BYTES), { minLength: 1, maxLength: 8 }), async (frames) => {
          for (const f of frames) {
            if (conn.closed) conn = await Conn.open(publicUrl);
            sendFrame(conn, f);
            const what = describeFrame(f);
            if (await closedAsExpected(conn, f, what)) continue;
            const reply = await conn.until(ANSWER_BOUND_MS, `an answer to ${what}`, () => {
              if (conn.closed) throw new Error(`connection closed (${conn.closed.code} ${conn.closed.reason}) after ${what}`);
              return conn.take((m) => 'success' in m);
            });
            if (reply.success !== true) {
              expect({ what, known: KNOWN_CODES.has(Number(reply.code)), message: typeof reply.message }).toEqual({ what, known: true, message: 'string' });
              if (f.kind === 'binary') expect(reply.code).toBe(ErrorCodes.BODY_NOT_OBJECT);
            }
          }
          // Pushes of topics the fuzzer subscribed to pile up; they are not under test here.
          conn.messages.length = 0;
        }),
        { numRuns: fuzzRuns(60), seed: SEED },
      );
    } finally {
      conn.ws.terminate();
    }
  });

  it('private stream: client frames are ignored; the connection stays and answers pings', async () => {
    let conn = await Conn.open(privateUrl);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(frameArb(PRIVATE_FRAME_MAX_BYTES), { minLength: 1, maxLength: 8 }), async (frames) => {
          for (const f of frames) {
            if (conn.closed) conn = await Conn.open(privateUrl);
            sendFrame(conn, f);
            const what = describeFrame(f);
            if (await closedAsExpected(conn, f, what)) continue;
            await conn.alive(ANSWER_BOUND_MS);
            // The private stream answers nothing: anything here would be a reply to a client frame.
            expect({ what, messages: conn.messages }).toEqual({ what, messages: [] });
          }
        }),
        { numRuns: fuzzRuns(40), seed: SEED },
      );
    } finally {
      conn.ws.terminate();
    }
  });

  it('random upgrade targets are refused with an HTTP answer (401 / 404) or opened, never crash', async () => {
    const origin = ex.url.replace(/^http/, 'ws');
    const targetArb = fc.oneof(
      fc.string({ maxLength: 40 }).map((k) => `/v1/ws/private?listenKey=${encodeURIComponent(k)}`),
      fc.constantFrom(
        '/v1/ws/private',
        '/v1/ws/private?',
        '/v1/ws/private?listenKey=',
        `/v1/ws/private?listenKey=${alice.listenKey}&listenKey=${alice.listenKey}`,
        `/v1/ws/private?listenKey=${alice.listenKey}&x=1`,
        `/v1/ws/private?__proto__=${alice.listenKey}`,
        '/v1/ws/private?listenKey=%zz',
        `/v1/ws/private?listenKey=${'a'.repeat(5000)}`,
        '/v1/ws/public?x=1',
        '/v1/ws/public/',
        '/v1/ws',
        '/v1/ws/privat',
        '/',
        '/v1/time',
      ),
    );
    await fc.assert(
      fc.asyncProperty(targetArb, async (target) => {
        const outcome = await new Promise<string>((resolve) => {
          const ws = new WebSocket(`${origin}${target}`, { perMessageDeflate: false });
          ws.on('error', () => undefined);
          ws.once('open', () => {
            ws.terminate();
            resolve('open');
          });
          ws.once('unexpected-response', (_req, res) => {
            res.resume();
            ws.terminate();
            resolve(String(res.statusCode));
          });
          setTimeout(() => resolve('hang'), ANSWER_BOUND_MS).unref();
        });
        const publicPath = target.startsWith('/v1/ws/public?') || target === '/v1/ws/public';
        expect({ target, outcome }).toEqual({ target, outcome: publicPath ? 'open' : target.startsWith('/v1/ws/private') ? '401' : '404' });
      }),
      { numRuns: fuzzRuns(40), seed: SEED },
    );
  });

  it('the witnesses kept working, and indexes, listeners and heap are back to baseline', async () => {
    expect(publicWitness.closed).toBeUndefined();
    expect(privateWitness.closed).toBeUndefined();
    // A trade between alice and bob reaches both witnesses.
    expect((await ex.call('POST', '/v1/private/order/place', { token: alice.token, body: { ...ORDER, side: 'SELL', price: '60000', quantity: '0.001' } })).body.code).toBe(0);
    expect((await ex.call('POST', '/v1/private/order/place', { token: bob.token, body: { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.001' } })).body.code).toBe(0);
    await publicWitness.until(ANSWER_BOUND_MS, 'a trade push', () => publicWitness.take((m) => m.event === 'trade'));
    await privateWitness.until(ANSWER_BOUND_MS, 'an ORDER_TRADE_UPDATE', () => privateWitness.take((m) => m.event === 'ORDER_TRADE_UPDATE'));

    const until = Date.now() + ANSWER_BOUND_MS;
    while (ex.server.ws.connectionCount > 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(ex.server.ws.stats()).toEqual(baseline.stats);
    expect(ex.server.core.emitter.listenerCount('events')).toBe(baseline.events);
    expect(ex.server.httpServer.listenerCount('upgrade')).toBe(baseline.upgrade);
    // Loose on purpose (no forced GC here): it catches a gross leak only; the index sizes above
    // are the precise check.
    expect(process.memoryUsage().heapUsed - baseline.heap).toBeLessThan(128 * 1024 * 1024);
    expect(({} as Rec).polluted).toBeUndefined();
  });
});
