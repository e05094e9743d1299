/**
 * Closed-loop order load: `concurrency` workers, each with one request in flight at a time,
 * share one transport: the keep-alive undici Pool (client.ts) or pipelined raw sockets
 * (pipelined.ts), where worker w uses connection w % connections. A run has a warm-up (not counted) and a timed window;
 * a request counts toward throughput when it completes inside the window and toward latency
 * when it was sent inside it. Each request's latency is send to last body byte, per-op timed
 * with process.hrtime.bigint().
 */
import { LatencyRecorder, mulberry32 } from '../harness';
import { machineBusySeconds, type ExchangeProcess } from './server-process';
import { ApiError, type BenchUser, type OrderTransport } from './client';

export const SYMBOL = 'BTCUSDT';
const PLACE = '/v1/private/order/place';
const CANCEL = '/v1/private/order/cancel';
const BATCH_PLACE = '/v1/private/order/batch-place';
const BATCH_CANCEL = '/v1/private/order/batch-cancel';
/** Stop the run once this many requests failed: the figures are meaningless by then. */
const MAX_ERRORS = 200;

export interface LoadOptions {
  transport: OrderTransport;
  server: ExchangeProcess;
  users: BenchUser[];
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  seed: number;
  /** Called with the clientOrderId and the send time (ns since `timeBase`) of every placement. */
  onSend?: (clientOrderId: string, sentNs: number) => void;
  timeBase?: bigint;
  /** Called when the timed window opens and when it closes. */
  onWindow?: (edge: 'start' | 'end') => void;
}

export interface LoadStats {
  /** Requests (placements and cancels) completed inside the timed window. */
  requests: number;
  /** Orders placed (one per single placement, one per item of a batch) inside the window. */
  placements: number;
  /** Orders cancelled (likewise). */
  cancels: number;
  windowSec: number;
  errors: number;
  errorSamples: string[];
  /** Every request sent inside the window, ns. */
  latency: LatencyRecorder;
  placeLatency: LatencyRecorder;
  cancelLatency: LatencyRecorder;
  serverCpuSec: number;
  clientCpuSec: number;
  /** CPU seconds that other processes on the machine used during the window (all cores). */
  otherCpuSec: number;
  /** Crossing runs: taker orders that did not fill completely (should be 0). */
  takerNotFilled: number;
}

interface RunState {
  readonly opts: LoadOptions;
  readonly stats: LoadStats;
  /** performance.now() bounds of the window. */
  windowStart: number;
  windowEnd: number;
  stop: boolean;
  readonly now: () => bigint;
}

function newStats(): LoadStats {
  return {
    requests: 0,
    placements: 0,
    cancels: 0,
    windowSec: 0,
    errors: 0,
    errorSamples: [],
    latency: new LatencyRecorder(4_000_000),
    placeLatency: new LatencyRecorder(4_000_000),
    cancelLatency: new LatencyRecorder(4_000_000),
    serverCpuSec: 0,
    clientCpuSec: 0,
    otherCpuSec: 0,
    takerNotFilled: 0,
  };
}

function placeBody(side: 'BUY' | 'SELL', price: string, tif: 'GTC' | 'IOC', clientOrderId: string): string {
  return `{"symbol":"${SYMBOL}","type":"LIMIT","side":"${side}","price":"${price}","quantity":"0.001","timeInForce":"${tif}","clientOrderId":"${clientOrderId}"}`;
}

/**
 * One request of worker `w`, timed and counted. Returns the response body (envelope code 0), or
 * undefined after an error (counted, and the run is stopped once there are too many).
 */
async function timed(st: RunState, w: number, user: BenchUser, path: string, body: string, kind: 'place' | 'cancel', clientOrderId?: string, orders = 1): Promise<string | undefined> {
  const t0 = st.now();
  const sentAt = performance.now();
  if (clientOrderId !== undefined && st.opts.onSend) st.opts.onSend(clientOrderId, Number(t0 - (st.opts.timeBase ?? 0n)));
  let text: string;
  try {
    text = await st.opts.transport.post(user, path, body, w);
  } catch (e) {
    const s = st.stats;
    s.errors++;
    if (s.errorSamples.length < 5) s.errorSamples.push(e instanceof ApiError ? e.message : String(e));
    if (s.errors >= MAX_ERRORS) st.stop = true;
    return undefined;
  }
  const dt = st.now() - t0;
  const doneAt = performance.now();
  const s = st.stats;
  if (sentAt >= st.windowStart && sentAt < st.windowEnd) {
    s.latency.add(dt);
    if (kind === 'place') s.placeLatency.add(dt);
    else s.cancelLatency.add(dt);
  }
  if (doneAt >= st.windowStart && doneAt < st.windowEnd) {
    s.requests++;
    if (kind === 'place') s.placements += orders;
    else s.cancels += orders;
  }
  return text;
}

function dataOf<T>(text: string | undefined): T | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as { data: T }).data;
}

/** Runs `workers` until the window ends, reading server and client CPU at the window's edges. */
async function drive(opts: LoadOptions, worker: (st: RunState, w: number) => Promise<void>): Promise<LoadStats> {
  const t = performance.now();
  const st: RunState = { opts, stats: newStats(), windowStart: t + opts.warmupMs, windowEnd: t + opts.warmupMs + opts.durationMs, stop: false, now: process.hrtime.bigint };
  let cpu0 = 0;
  let machine0 = 0;
  let client0 = process.cpuUsage();
  let wall0 = 0;
  let endTimer: NodeJS.Timeout | undefined;
  let started = false;
  let ended = false;
  const onEnd = (): void => {
    ended = true;
    st.stats.serverCpuSec = opts.server.cpuSeconds() - cpu0;
    const c = process.cpuUsage(client0);
    st.stats.clientCpuSec = (c.user + c.system) / 1e6;
    st.stats.windowSec = (performance.now() - wall0) / 1000;
    st.stats.otherCpuSec = Math.max(0, machineBusySeconds() - machine0 - st.stats.serverCpuSec - st.stats.clientCpuSec);
    opts.onWindow?.('end');
  };
  // The window opens when this timer actually fires (late under load), and lasts durationMs from then.
  const startTimer = setTimeout(() => {
    started = true;
    wall0 = performance.now();
    st.windowStart = wall0;
    st.windowEnd = wall0 + opts.durationMs;
    cpu0 = opts.server.cpuSeconds();
    client0 = process.cpuUsage();
    machine0 = machineBusySeconds();
    opts.onWindow?.('start');
    endTimer = setTimeout(onEnd, opts.durationMs);
  }, opts.warmupMs);
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(st, w)));
    // The workers stop sending at the window's end; when the last answers came in before the
    // end timer fired, close the window now (a few ms late at most).
    if (started && !ended) onEnd();
  } finally {
    clearTimeout(startTimer);
    clearTimeout(endTimer);
  }
  if (!started) throw new Error(`the load stopped before its timed window opened: ${st.stats.errors} errors, e.g. ${st.stats.errorSamples.join(' | ')}`);
  return st.stats;
}

/**
 * Limit orders that rest (bids 49,000.0-49,099.9, asks 50,900.0-50,999.9 around the 50,000 mark,
 * never crossing), each worker keeping at most `depth` of its own resting and cancelling the
 * oldest (by clientOrderId) after each placement once it has more: in the steady state one
 * placement and one cancel per cycle. Leftovers are cancelled after the window, untimed.
 */
export function restingLoad(opts: LoadOptions & { depth: number }): Promise<LoadStats> {
  return drive(opts, async (st, w) => {
    const user = opts.users[w % opts.users.length];
    const rnd = mulberry32(opts.seed + w * 7919);
    const live: string[] = [];
    let seq = 0;
    while (!st.stop && performance.now() < st.windowEnd) {
      const buy = rnd() < 0.5;
      const price = ((buy ? 490_000 : 509_000) + Math.floor(rnd() * 1000)) / 10;
      const id = `r${w}x${seq++}`;
      const placed = await timed(st, w, user, PLACE, placeBody(buy ? 'BUY' : 'SELL', price.toFixed(1), 'GTC', id), 'place');
      if (placed !== undefined) live.push(id);
      if (live.length > opts.depth) {
        const old = live.shift() ?? '';
        await timed(st, w, user, CANCEL, `{"symbol":"${SYMBOL}","clientOrderId":"${old}"}`, 'cancel');
      }
    }
    for (const id of live) {
      await opts.transport.post(user, CANCEL, `{"symbol":"${SYMBOL}","clientOrderId":"${id}"}`, w).catch(() => undefined);
    }
  });
}

interface BatchAnswer {
  successCount: number;
  failedCount: number;
  results: Array<{ success: boolean; code: number; message: string }>;
}

/** A batch answered 200 whose items did not all succeed counts as one error. */
function checkBatch(st: RunState, what: string, r: BatchAnswer | undefined, n: number): boolean {
  if (r === undefined) return false;
  if (r.successCount === n) return true;
  const s = st.stats;
  s.errors++;
  const bad = r.results.find((x) => !x.success);
  if (s.errorSamples.length < 5) s.errorSamples.push(`${what}: ${r.successCount}/${n} items succeeded${bad ? `, e.g. ${bad.code} ${bad.message}` : ''}`);
  if (s.errors >= MAX_ERRORS) st.stop = true;
  return false;
}

/**
 * Batch variant of the resting load: each worker places `batchSize` resting limit orders in one
 * `POST /v1/private/order/batch-place` (same price bands as restingLoad, never crossing), then
 * cancels those same orders by clientOrderId in one `POST /v1/private/order/batch-cancel`. So
 * a worker has at most `batchSize` orders resting. `placements` and `cancels` count orders (items),
 * `requests` counts HTTP requests; latencies are per request (a whole batch).
 */
export function batchLoad(opts: LoadOptions & { batchSize: number }): Promise<LoadStats> {
  return drive(opts, async (st, w) => {
    const user = opts.users[w % opts.users.length];
    const rnd = mulberry32(opts.seed + w * 7919);
    let seq = 0;
    while (!st.stop && performance.now() < st.windowEnd) {
      const ids: string[] = [];
      const orders: string[] = [];
      for (let i = 0; i < opts.batchSize; i++) {
        const buy = rnd() < 0.5;
        const price = ((buy ? 490_000 : 509_000) + Math.floor(rnd() * 1000)) / 10;
        const id = `b${w}x${seq++}`;
        ids.push(id);
        orders.push(placeBody(buy ? 'BUY' : 'SELL', price.toFixed(1), 'GTC', id));
      }
      const placed = dataOf<BatchAnswer>(await timed(st, w, user, BATCH_PLACE, `{"orders":[${orders.join(',')}]}`, 'place', undefined, opts.batchSize));
      if (placed === undefined) continue;
      checkBatch(st, 'batch-place', placed, opts.batchSize);
      // Cancel every id that was placed (a failed item's cancel would fail too; skip those).
      const refs: string[] = [];
      placed.results.forEach((r, i) => {
        if (r.success) refs.push(`{"symbol":"${SYMBOL}","clientOrderId":"${ids[i]}"}`);
      });
      if (refs.length === 0) continue;
      const cancelled = dataOf<BatchAnswer>(await timed(st, w, user, BATCH_CANCEL, `{"orders":[${refs.join(',')}]}`, 'cancel', undefined, refs.length));
      checkBatch(st, 'batch-cancel', cancelled, refs.length);
    }
  });
}

/**
 * Crossing orders: makers (the first half of the users) and takers (the second half) in pairs.
 * Each worker cycles maker SELL GTC @ 50,000.0, taker BUY IOC @ 50,000.0, maker BUY GTC @
 * 49,999.0, taker SELL IOC @ 49,999.0, all 0.001 BTC: every request is a placement, every second
 * one trades (one maker fill), positions swing back to flat, and the book holds at most one
 * resting order per worker. A worker's taker follows its own maker, so liquidity never runs out;
 * a taker that still does not fill is counted in `takerNotFilled`.
 */
export function crossingLoad(opts: LoadOptions): Promise<LoadStats> {
  const half = Math.floor(opts.users.length / 2);
  if (half < 1) throw new Error('crossing load needs at least 2 users');
  return drive(opts, async (st, w) => {
    const maker = opts.users[w % half];
    const taker = opts.users[half + (w % half)];
    let seq = 0;
    while (!st.stop && performance.now() < st.windowEnd) {
      for (const [side, price] of [['SELL', '50000.0'], ['BUY', '49999.0']] as const) {
        const n = seq++;
        const mid = `m${w}x${n}`;
        await timed(st, w, maker, PLACE, placeBody(side, price, 'GTC', mid), 'place', mid);
        const tid = `t${w}x${n}`;
        const r = await timed(st, w, taker, PLACE, placeBody(side === 'SELL' ? 'BUY' : 'SELL', price, 'IOC', tid), 'place', tid);
        // The answer's data is {orderId, clientOrderId, status, timestamp}: no other "status" key.
        if (r !== undefined && !r.includes('"status":"FILLED"')) st.stats.takerNotFilled++;
      }
    }
  });
}
