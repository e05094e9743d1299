/**
 * Suite `latency`: internal tick-to-order latency of a bot. From a public WebSocket frame (the text
 * the socket hands over) to the order request being handed to the HTTP transport, through the
 * real code path: PublicStream frame decoding and validation, LiveVenue event mapping, Bot cache
 * and bus, a strategy, every risk check, the executor's batching, OrdersApi and RestCore
 * (serialize, API-key signature). Goal: p50 under 20 µs, p99 under 100 µs.
 *
 * Set-up is real: a local exchange in this process, a bot started on it with LiveVenue (symbols,
 * reconciliation, account, mark price and the streams all over loopback). For the measured part
 * the transport stops forwarding batch-place requests: it records the time `request()` is called
 * and answers at once with a success envelope (each order EXPIRED, as a far IOC would be, so the
 * tracker retires them and state stays flat). Frames are fed to the PublicStream's own message
 * handler, as its socket would, so no real network sits in the figure.
 *
 * Two figures:
 * - sequential: one frame at a time, the next after the bot is idle again (answer processed);
 *   per-frame latency percentiles over 100,000 frames, and the throughput of that loop;
 * - burst: frames fed back to back in bursts of 1,000 (the executor batches a burst's intents);
 *   throughput only.
 */
import { SystemClock, SystemScheduler } from '../../src/core/clock';
import { Bot } from '../../src/bot/bot';
import { defineStrategy } from '../../src/bot/strategy/api';
import type { Intent } from '../../src/bot/strategy/intents';
import { LiveVenue } from '../../src/bot/venue/live-venue';
import { PerpClient, PublicStream, UndiciTransport, type HttpRequest, type HttpResponse, type HttpTransport, type PublicStreamOptions } from '../../src/client';
import { startExchange } from '../../src/exchange/transport/server';
import { LatencyRecorder, latencyResults, mulberry32, round, timerOverhead, type BenchResult } from '../harness';
import { registerSuite } from './registry';

/** LATENCY_EVENTS overrides the count, for quick profiling runs (`node --cpu-prof`). */
const EVENTS = Number(process.env.LATENCY_EVENTS ?? 100_000);
const WARMUP = 20_000;
const BURST = 1_000;
const BURST_ROUNDS = 50;

/**
 * Forwards to the real transport until `canned` is set; then batch-place requests are answered
 * in memory and the time of each hand-over is kept (the end of the measured path).
 */
class SwitchTransport implements HttpTransport {
  canned = false;
  lastWrite = 0n;
  writes = 0;

  constructor(private readonly inner: HttpTransport) {}

  request(req: HttpRequest): Promise<HttpResponse> {
    if (!this.canned || !req.target.startsWith('/v1/private/order/batch-place')) return this.inner.request(req);
    this.lastWrite = process.hrtime.bigint();
    this.writes++;
    return Promise.resolve(batchAnswer(req.body ?? '{"orders":[]}'));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

let nextOrderId = 1_000_000;

function batchAnswer(body: string): HttpResponse {
  const { orders } = JSON.parse(body) as { orders: Array<{ clientOrderId: string }> };
  const results = orders.map((o, index) => ({ index, success: true, code: 0, message: 'success', orderId: String(nextOrderId++), clientOrderId: o.clientOrderId, status: 'EXPIRED' }));
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': 'bench' },
    text: JSON.stringify({ code: 0, message: 'success', data: { successCount: results.length, failedCount: 0, results }, requestId: 'bench' }),
  };
}

/** A PerpClient whose public stream is real but never connects: the bench feeds its frames. */
class FedClient extends PerpClient {
  fed: PublicStream | undefined;

  override publicStream(opts: Omit<PublicStreamOptions, 'wsOrigin'> & { wsOrigin?: string } = {}): PublicStream {
    const s = super.publicStream(opts);
    // The socket is never opened: start and subscribe answer at once, stop only completes.
    s.start = () => Promise.resolve();
    s.subscribe = () => Promise.resolve();
    this.fed = s;
    return s;
  }

  /** The stream's own message handler, exactly what its socket calls for each text frame. */
  feeder(): (text: string) => void {
    const s = this.fed as unknown as { onText(text: string): void } | undefined;
    if (s === undefined) throw new Error('the bot has not opened its public stream');
    return (text) => s.onText(text);
  }
}

/** Recorded-looking public frames: alternating markPrice and trade, a seeded walk around 50000. */
function frames(n: number, seed: number): string[] {
  const rnd = mulberry32(seed);
  let ticks = 500_000; // 50000.0 at tick 0.1
  let t = 1_700_000_000_000;
  const out: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    ticks += Math.floor(rnd() * 5) - 2;
    t += 1 + Math.floor(rnd() * 3);
    const price = (ticks / 10).toFixed(1);
    out[i] =
      i % 2 === 0
        ? `{"event":"markPrice","symbol":"BTCUSDT","eventTime":${t},"data":{"markPrice":"${price}","indexPrice":"${price}","fundingRate":"0.0001","nextFundingTime":1700028800000}}`
        : `{"event":"trade","symbol":"BTCUSDT","eventTime":${t},"data":{"tradeId":"${9_000_000 + i}","price":"${price}","quantity":"0.013","side":"${rnd() < 0.5 ? 'BUY' : 'SELL'}","time":${t}}}`;
  }
  return out;
}

/** On every mark or trade: one IOC bid at that price (a taker that reacts to each tick). */
const everyTick = defineStrategy<Record<string, unknown>>({
  name: 'every-tick',
  symbols: () => ['BTCUSDT'],
  params: (raw) => raw,
  create: () => ({
    onEvent: (e): Intent[] | void => {
      const price = e.type === 'markPrice' ? e.mark.markPrice : e.type === 'trade' ? e.trade.price : undefined;
      if (price === undefined) return;
      return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, quantity: '0.001', timeInForce: 'IOC' }];
    },
  }),
});

async function run(): Promise<BenchResult[]> {
  const server = await startExchange({
    port: 0,
    host: '127.0.0.1',
    adminToken: 'bench',
    users: [{ username: 'latency', password: 'latency-pass', balance: '100000000', apiKeys: [{ apiKey: 'latkey', secret: 'latsecret', permissions: ['READ', 'TRADE'] }] }],
  });
  const base = `http://127.0.0.1:${(server.httpServer.address() as { port: number }).port}`;
  const transport = new SwitchTransport(new UndiciTransport(base));
  const client = new FedClient({ baseUrl: base, transport, apiKey: { apiKey: 'latkey', secret: 'latsecret' } });
  const bot = new Bot({
    venue: new LiveVenue({ client }),
    strategies: [{ id: 'tick', definition: everyTick, params: {} }],
    // Every check on, with limits the workload stays within, so each intent runs all of them.
    risk: { priceBand: '0.05', maxOrderNotional: '1000000', maxPositionNotional: '10000000', maxTotalExposure: '100000000', maxOpenOrders: 1000, maxOrdersPerSecond: 1_000_000_000 },
    clock: new SystemClock(),
    scheduler: new SystemScheduler(),
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (o) => console.error('bot error', o) },
  });
  const out: BenchResult[] = [];
  try {
    await bot.start();
    await bot.idle();
    transport.canned = true;
    const feed = client.feeder();
    const now = process.hrtime.bigint;

    // Sequential: one frame, wait until idle, next. Warm-up first so the JIT has settled.
    const warm = frames(WARMUP, 7);
    for (const f of warm) {
      feed(f);
      await bot.idle();
    }
    const measured = frames(EVENTS, 42);
    const rec = new LatencyRecorder(EVENTS);
    const w0 = transport.writes;
    const s0 = now();
    for (let i = 0; i < EVENTS; i++) {
      const before = transport.writes;
      const t = now();
      feed(measured[i]);
      await bot.idle();
      if (transport.writes !== before + 1) throw new Error(`frame ${i} produced ${transport.writes - before} order requests, expected 1`);
      rec.add(transport.lastWrite - t);
    }
    const seqS = Number(now() - s0) / 1e9;
    if (transport.writes - w0 !== EVENTS) throw new Error('not every frame became an order request');
    if (bot.stats.denials !== 0 || bot.stats.errors !== 0) throw new Error(`denials ${bot.stats.denials}, errors ${bot.stats.errors}: the workload must pass every check`);
    const timer = timerOverhead();
    out.push({ name: 'timer overhead p50 (per-op timed)', value: round(timer.p50 / 1000, 3), unit: 'us' });
    out.push(...latencyResults(`tick-to-order, frame -> transport.request, ${EVENTS} frames`, rec.stats()));
    out.push({ name: 'tick-to-order max (per-op timed)', value: round(rec.stats().max / 1000, 3), unit: 'us' });
    out.push({ name: 'sequential frames incl. answer processing (batch timed)', value: Math.round(EVENTS / seqS), unit: 'events/s' });

    // Burst: frames back to back; one tick's intents go out in batches of 20.
    const burst = frames(BURST * BURST_ROUNDS, 99);
    const b0 = now();
    const writes0 = transport.writes;
    for (let r = 0; r < BURST_ROUNDS; r++) {
      for (let i = 0; i < BURST; i++) feed(burst[r * BURST + i]);
      await bot.idle();
    }
    const burstS = Number(now() - b0) / 1e9;
    out.push({ name: `burst of ${BURST} frames, intents batched (batch timed)`, value: Math.round((BURST * BURST_ROUNDS) / burstS), unit: 'events/s' });
    out.push({ name: `burst of ${BURST} frames: batch-place requests per burst`, value: round((transport.writes - writes0) / BURST_ROUNDS, 1), unit: 'requests' });
  } finally {
    transport.canned = false;
    await bot.stop();
    await client.close();
    await server.stop();
  }
  return out;
}

registerSuite({
  name: 'latency',
  description: 'bot tick-to-order latency: public WS frame -> decode -> LiveVenue -> bus -> strategy -> risk -> executor -> transport.request',
  run,
});
