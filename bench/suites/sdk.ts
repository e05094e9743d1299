/**
 * Suite `sdk`: the client (src/client).
 * (a) The client's own overhead per order without a network: build the body, sign (API key),
 *     decode and validate the answer; batch timed and per-op timed. Goal: under 20 µs per order.
 * (b) The same through the async public method `orders.placeOrder` with an in-memory transport
 *     (adds promises and the clientOrderId), batch timed.
 * (c) Against the local exchange on loopback (API-key signed): placeOrder sequential latency
 *     p50/p99 and throughput with 16 requests in flight; batchPlaceOrders of 20 likewise.
 *     Orders are far-from-market IOC limits that expire at once, so no book or open-order limit
 *     grows during the run.
 */
import { PerpClient, decodeResponse, prepareRequest, type HttpRequest, type HttpResponse, type HttpTransport } from '../../src/client';
import type { PlaceOrderParams } from '../../src/protocol/rest/orders';
import { startExchange } from '../../src/exchange/transport/server';
import { LatencyRecorder, latencyResults, round, timerOverhead, type BenchResult } from '../harness';
import { registerSuite } from './registry';

const PLACE_ANSWER: HttpResponse = {
  status: 200,
  headers: { 'x-request-id': 'bench-1', 'content-type': 'application/json' },
  text: JSON.stringify({ code: 0, message: 'success', data: { orderId: '123456', clientOrderId: 'pkabc1', status: 'NEW', timestamp: 1700000000000 }, requestId: 'bench-1' }),
};

class CannedTransport implements HttpTransport {
  request(_req: HttpRequest): Promise<HttpResponse> {
    return Promise.resolve(PLACE_ANSWER);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const ORDER: PlaceOrderParams = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000.5', quantity: '0.015', timeInForce: 'GTC', clientOrderId: 'pkbench000001' };

function overheadParts(): BenchResult[] {
  const client = new PerpClient({ baseUrl: 'http://127.0.0.1:1', transport: new CannedTransport(), apiKey: { apiKey: 'k'.repeat(32), secret: 's'.repeat(64) }, autoTimeSync: false });
  const core = client.core;
  const one = (): number => {
    const p = prepareRequest('placeOrder', ORDER);
    const h = core.headersFor('placeOrder', p);
    const r = decodeResponse('placeOrder', PLACE_ANSWER, 0, 1000);
    return (h['x-signature']?.length ?? 0) + (r.timestamp & 1);
  };
  let sink = 0;
  for (let i = 0; i < 50_000; i++) sink += one();
  const N = 200_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink += one();
  const nsPer = Number(process.hrtime.bigint() - t0) / N;
  const rec = new LatencyRecorder(100_000);
  const now = process.hrtime.bigint;
  for (let i = 0; i < 100_000; i++) {
    const t = now();
    sink += one();
    rec.add(now() - t);
  }
  const parts: Array<[string, () => unknown]> = [
    ['serialize', () => prepareRequest('placeOrder', ORDER)],
    ['sign', () => core.headersFor('placeOrder', { method: 'POST', path: '/v1/private/order/place', rawQuery: '', body: '{"a":1}' })],
    ['parse+validate', () => decodeResponse('placeOrder', PLACE_ANSWER, 0, 1000)],
  ];
  const out: BenchResult[] = [
    { name: 'client overhead per order: serialize+sign+parse+validate (batch timed)', value: round(nsPer / 1000, 3), unit: 'us' },
    ...latencyResults('client overhead per order', rec.stats()),
  ];
  for (const [name, fn] of parts) {
    for (let i = 0; i < 20_000; i++) fn();
    const s = process.hrtime.bigint();
    for (let i = 0; i < 100_000; i++) fn();
    out.push({ name: `  of which ${name} (batch timed)`, value: round(Number(process.hrtime.bigint() - s) / 100_000 / 1000, 3), unit: 'us' });
  }
  if (sink === -1) console.log(sink);
  return out;
}

async function asyncPath(): Promise<BenchResult[]> {
  const client = new PerpClient({ baseUrl: 'http://127.0.0.1:1', transport: new CannedTransport(), apiKey: { apiKey: 'k'.repeat(32), secret: 's'.repeat(64) }, autoTimeSync: false });
  const order: PlaceOrderParams = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000.5', quantity: '0.015' };
  for (let i = 0; i < 20_000; i++) await client.orders.placeOrder(order);
  const N = 100_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await client.orders.placeOrder(order);
  const us = Number(process.hrtime.bigint() - t0) / N / 1000;
  return [{ name: 'orders.placeOrder via in-memory transport, sequential awaits (batch timed)', value: round(us, 3), unit: 'us/op' }];
}

async function loopback(): Promise<BenchResult[]> {
  const server = await startExchange({
    port: 0,
    host: '127.0.0.1',
    adminToken: 'bench',
    rateLimits: { ordersPer10s: 1e9, requestsPerMinute: 1e9 },
    users: [{ username: 'benchuser', password: 'benchpass', balance: '100000000', apiKeys: [{ apiKey: 'benchkey', secret: 'benchsecret', permissions: ['READ', 'TRADE'] }] }],
  });
  const port = (server.httpServer.address() as { port: number }).port;
  const client = new PerpClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: { apiKey: 'benchkey', secret: 'benchsecret' }, transportOptions: { connections: 16 } });
  const ioc: PlaceOrderParams = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01', timeInForce: 'IOC' };
  const out: BenchResult[] = [];
  try {
    await client.syncTime();
    // placeOrder: sequential latency
    for (let i = 0; i < 500; i++) await client.orders.placeOrder(ioc);
    const SEQ = 3000;
    const rec = new LatencyRecorder(SEQ);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < SEQ; i++) {
      const t = process.hrtime.bigint();
      await client.orders.placeOrder(ioc);
      rec.add(process.hrtime.bigint() - t);
    }
    const seqS = Number(process.hrtime.bigint() - t0) / 1e9;
    out.push({ name: 'placeOrder loopback, 1 in flight (batch timed)', value: Math.round(SEQ / seqS), unit: 'req/s' });
    out.push(...latencyResults('placeOrder loopback, 1 in flight', rec.stats()).slice(0, 2));
    // placeOrder: 16 in flight
    const PAR = 16;
    const TOTAL = 8000;
    const recP = new LatencyRecorder(TOTAL);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next++ < TOTAL) {
        const t = process.hrtime.bigint();
        await client.orders.placeOrder(ioc);
        recP.add(process.hrtime.bigint() - t);
      }
    };
    const tp = process.hrtime.bigint();
    await Promise.all(Array.from({ length: PAR }, worker));
    const parS = Number(process.hrtime.bigint() - tp) / 1e9;
    out.push({ name: `placeOrder loopback, ${PAR} in flight (batch timed)`, value: Math.round(TOTAL / parS), unit: 'req/s' });
    out.push(...latencyResults(`placeOrder loopback, ${PAR} in flight`, recP.stats()).slice(0, 2));
    // batchPlaceOrders of 20
    const batch = { orders: Array.from({ length: 20 }, () => ({ ...ioc })) };
    for (let i = 0; i < 50; i++) await client.orders.batchPlaceOrders(batch);
    const B = 500;
    const recB = new LatencyRecorder(B);
    const tb = process.hrtime.bigint();
    for (let i = 0; i < B; i++) {
      const t = process.hrtime.bigint();
      await client.orders.batchPlaceOrders(batch);
      recB.add(process.hrtime.bigint() - t);
    }
    const bS = Number(process.hrtime.bigint() - tb) / 1e9;
    out.push({ name: 'batchPlaceOrders(20) loopback, 1 in flight (batch timed)', value: Math.round(B / bS), unit: 'req/s' });
    out.push({ name: 'batchPlaceOrders(20) loopback, orders placed per second (batch timed)', value: Math.round((B * 20) / bS), unit: 'orders/s' });
    out.push(...latencyResults('batchPlaceOrders(20) loopback, 1 in flight', recB.stats()).slice(0, 2));
  } finally {
    await client.close();
    await server.stop();
  }
  return out;
}

registerSuite({
  name: 'sdk',
  description: 'client overhead per order without network; placeOrder and batchPlaceOrders against the local exchange on loopback',
  async run() {
    const timer = timerOverhead();
    return [
      { name: 'timer overhead p50 (per-op timed)', value: round(timer.p50 / 1000, 3), unit: 'us' },
      ...overheadParts(),
      ...(await asyncPath()),
      ...(await loopback()),
    ];
  },
});
