import { randomBytes } from 'node:crypto';
import { latencyResults, percentile, round } from '../harness';
import type { BenchResult, LatencyStats } from '../harness';
import { ExchangeClient, type BenchUser } from '../exchange-http/client';
import { Fanout } from '../exchange-http/fanout';
import { PipelinedClient } from '../exchange-http/pipelined';
import { batchLoad, crossingLoad, restingLoad, SYMBOL, type LoadOptions, type LoadStats } from '../exchange-http/load';
import { ExchangeProcess } from '../exchange-http/server-process';
import { registerSuite } from './registry';

/**
 * Suite `exchange-http`: the local exchange end to end over loopback, server and client in
 * separate processes (the real `perpkit exchange` CLI as a child process, a fresh one per part; the
 * load generator and the WebSocket subscribers in the bench process). The load generator stays in the bench process
 * rather than a worker thread: the machine has 2 cores, one for the server and one for the
 * client, and the WebSocket latency needs send and arrival stamped by the same process.
 *
 * Parts: (a) resting limit orders placed and cancelled (128 in flight; `lowconc`: the same with 8
 * in flight, for latency that is mostly service time); `batch`: resting orders placed 20 per
 * batch-place request and cancelled 20 per batch-cancel request (orders/s, per-request latency;
 * labelled BATCH, not comparable with single-order figures); (b) crossing orders (maker + IOC taker);
 * (c) the crossing load again with private and public WebSocket subscribers, measuring events
 * delivered per second and send-to-arrival latency. Those use undici, as an SDK user does; undici
 * never pipelines a POST, so each connection carries one order request at a time. The
 * `*-pipelined` parts run the resting and crossing loads over raw sockets that pipeline several
 * requests per connection (pipelined.ts), as wrk or autocannon would.
 *
 * Environment: BENCH_EXCHANGE_CPU_PROF=<dir> runs the server under `node --cpu-prof` (profile
 * written into <dir> on exit; summarise it with `node dist/bench/exchange-http/profile-top.js`);
 * BENCH_EXCHANGE_HTTP_PARTS=resting,lowconc,batch,crossing,fanout,resting-pipelined,lowconc-pipelined,
 * crossing-pipelined runs only the listed parts (for profiling one workload at a time).
 */

const USERS = 16;
const CONCURRENCY = 128;
const CONNECTIONS = 16;
const PIPELINING = 8;
/** Rate limits written into the --config file: high enough never to refuse the benchmark. */
const ORDERS_PER_10S = 10_000_000;
const REQUESTS_PER_MINUTE = 100_000_000;
const BALANCE = '100000000';
/** Resting orders kept per worker (16 users x 8 workers each x 9 < 200 open orders per user). */
const RESTING_DEPTH = 8;
const WARMUP_MS = 2000;
const DURATION_MS = 8000;
const FANOUT_CONCURRENCY = 32;
/** Low-concurrency latency part: few enough in flight that latency is mostly service time, not queueing. */
const LOW_CONCURRENCY = 8;
/** Batch part: requests in flight and orders per batch-place / batch-cancel request (the protocol maximum). */
const BATCH_CONCURRENCY = 32;
const BATCH_SIZE = 20;
/**
 * Pipelined parts (pipelined.ts): raw keep-alive sockets, each carrying `depth` workers' requests
 * at once. `resting-pipelined` has as many in flight as the undici parts (128); `lowconc-pipelined`
 * and `crossing-pipelined` have 32, few enough that latency is mostly service time (the server is
 * CPU-bound at either, so the throughput is the same). BENCH_EXCHANGE_PIPELINE=<connections>x<depth>
 * and BENCH_EXCHANGE_PIPELINE_LOW override the two shapes (for trying others).
 */
const PIPE_SHAPE = pipelineShape(process.env.BENCH_EXCHANGE_PIPELINE ?? '16x8');
const PIPE_LOW_SHAPE = pipelineShape(process.env.BENCH_EXCHANGE_PIPELINE_LOW ?? '4x8');
const PRIVATE_CONNS_PER_USER = 2;
const PUBLIC_CONNS = 32;
const SEED = 0x5eed;

function pipelineShape(spec: string): { connections: number; depth: number } {
  const m = /^(\d+)x(\d+)$/.exec(spec.trim());
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`pipeline shape must be <connections>x<depth>, e.g. 16x8; got '${spec}'`);
  return { connections: Number(m[1]), depth: Number(m[2]) };
}

function statsOf(samples: Float64Array): LatencyStats {
  if (samples.length === 0) throw new Error('no latency samples were recorded');
  const s = samples.slice().sort();
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s[i];
  return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), p999: percentile(s, 0.999), max: s[s.length - 1], mean: sum / s.length };
}

function loadResults(label: string, s: LoadStats, extra: BenchResult[] = []): BenchResult[] {
  const out: BenchResult[] = [
    { name: `${label}: order requests/s (timed window)`, value: Math.round(s.requests / s.windowSec), unit: 'req/s' },
    { name: `${label}: placements/s (timed window)`, value: Math.round(s.placements / s.windowSec), unit: 'orders/s' },
    ...latencyResults(`${label}: HTTP request latency, all requests,`, s.latency.stats()),
    ...extra,
    { name: `${label}: server CPU per 1,000 order requests`, value: round((s.serverCpuSec * 1000) / Math.max(1, s.requests), 5), unit: 'cpu-s' },
    { name: `${label}: server process CPU use (of one core)`, value: round((100 * s.serverCpuSec) / s.windowSec, 1), unit: '%' },
    { name: `${label}: client (bench) process CPU use (of one core)`, value: round((100 * s.clientCpuSec) / s.windowSec, 1), unit: '%' },
    { name: `${label}: other processes' CPU use on this machine (contention)`, value: round((100 * s.otherCpuSec) / s.windowSec, 1), unit: '%' },
    { name: `${label}: errors (must be 0)`, value: s.errors, unit: 'requests' },
  ];
  return out;
}

function check(label: string, s: LoadStats): void {
  if (s.errors > 0) throw new Error(`${label}: ${s.errors} requests failed, e.g. ${s.errorSamples.join(' | ')}`);
  if (s.takerNotFilled > 0) throw new Error(`${label}: ${s.takerNotFilled} taker orders did not fill completely`);
}

type Part = 'resting' | 'lowconc' | 'batch' | 'crossing' | 'fanout' | 'resting-pipelined' | 'lowconc-pipelined' | 'bare-pipelined' | 'crossing-pipelined';
const PARTS: readonly Part[] = ['resting', 'lowconc', 'batch', 'crossing', 'fanout', 'resting-pipelined', 'lowconc-pipelined', 'bare-pipelined', 'crossing-pipelined'];
/** Issue 13's goal for `crossing-pipelined`. */
const CROSSING_GOAL = 35_000;
const BARE_LABEL = 'bare node:http server answering JSON';

function selectedParts(): Set<Part> {
  const env = process.env.BENCH_EXCHANGE_HTTP_PARTS;
  if (env === undefined || env === '') return new Set(PARTS);
  const out = new Set<Part>();
  for (const p of env.split(',')) {
    const part = PARTS.find((x) => x === p.trim());
    if (part === undefined) throw new Error(`BENCH_EXCHANGE_HTTP_PARTS: unknown part '${p}'; expected some of ${PARTS.join(', ')}`);
    out.add(part);
  }
  return out;
}

type Base = Omit<LoadOptions, 'concurrency' | 'seed'> & { client: ExchangeClient };

async function restingPart(base: Base): Promise<BenchResult[]> {
  console.error('exchange-http: resting place+cancel ...');
  const resting = await restingLoad({ ...base, concurrency: CONCURRENCY, depth: RESTING_DEPTH, seed: SEED });
  check('resting', resting);
  return loadResults('resting place+cancel', resting, latencyResults('resting place+cancel: HTTP latency, placements only,', resting.placeLatency.stats()));
}

async function lowConcurrencyPart(base: Base): Promise<BenchResult[]> {
  console.error(`exchange-http: resting place+cancel, ${LOW_CONCURRENCY} in flight ...`);
  const s = await restingLoad({ ...base, concurrency: LOW_CONCURRENCY, depth: RESTING_DEPTH, seed: SEED + 3 });
  check('resting, low concurrency', s);
  return loadResults(`resting place+cancel, ${LOW_CONCURRENCY} in flight (single orders)`, s, latencyResults(`resting place+cancel, ${LOW_CONCURRENCY} in flight (single orders): HTTP latency, placements only,`, s.placeLatency.stats()));
}

async function batchPart(base: Base): Promise<BenchResult[]> {
  console.error(`exchange-http: BATCH resting place+cancel (${BATCH_SIZE} orders per request) ...`);
  const s = await batchLoad({ ...base, concurrency: BATCH_CONCURRENCY, batchSize: BATCH_SIZE, seed: SEED + 4 });
  check('batch', s);
  const label = `BATCH resting place+cancel (${BATCH_SIZE} orders per batch-place / batch-cancel request, ${BATCH_CONCURRENCY} requests in flight)`;
  return [
    { name: `${label}: HTTP requests/s (timed window)`, value: Math.round(s.requests / s.windowSec), unit: 'req/s' },
    { name: `${label}: orders placed/s (timed window)`, value: Math.round(s.placements / s.windowSec), unit: 'orders/s' },
    { name: `${label}: orders cancelled/s (timed window)`, value: Math.round(s.cancels / s.windowSec), unit: 'orders/s' },
    ...latencyResults(`${label}: per-request latency, batch-place requests,`, s.placeLatency.stats()),
    ...latencyResults(`${label}: per-request latency, batch-cancel requests,`, s.cancelLatency.stats()),
    { name: `${label}: server CPU per 1,000 orders (placed + cancelled)`, value: round((s.serverCpuSec * 1000) / Math.max(1, s.placements + s.cancels), 4), unit: 'cpu-s' },
    { name: `${label}: server process CPU use (of one core)`, value: round((100 * s.serverCpuSec) / s.windowSec, 1), unit: '%' },
    { name: `${label}: client (bench) process CPU use (of one core)`, value: round((100 * s.clientCpuSec) / s.windowSec, 1), unit: '%' },
    { name: `${label}: other processes' CPU use on this machine (contention)`, value: round((100 * s.otherCpuSec) / s.windowSec, 1), unit: '%' },
    { name: `${label}: errors (must be 0)`, value: s.errors, unit: 'requests' },
  ];
}

async function crossingPart(base: Base): Promise<BenchResult[]> {
  console.error('exchange-http: crossing ...');
  const crossing = await crossingLoad({ ...base, concurrency: CONCURRENCY, seed: SEED + 1 });
  check('crossing', crossing);
  return loadResults('crossing maker+IOC taker', crossing, [
    { name: 'crossing maker+IOC taker: trades/s (timed window)', value: Math.round(crossing.placements / 2 / crossing.windowSec), unit: 'trades/s' },
  ]);
}

/**
 * The resting or crossing workload over pipelined raw sockets: `connections` x `depth` workers,
 * worker w on connection w % connections, so each connection has `depth` requests in flight.
 */
async function pipelinedPart(base: Base, kind: 'resting' | 'crossing', shape: { connections: number; depth: number }, seed: number, server?: string): Promise<BenchResult[]> {
  const { connections, depth } = shape;
  const concurrency = connections * depth;
  const what = server ?? (kind === 'resting' ? 'resting place+cancel' : 'crossing maker+IOC taker');
  const label = `${what} PIPELINED (raw sockets, ${connections} connections x ${depth} in flight = ${concurrency})`;
  console.error(`exchange-http: ${label} ...`);
  const transport = await PipelinedClient.open(base.server.url, connections);
  try {
    const opts = { ...base, transport, concurrency, seed };
    const s = kind === 'resting' ? await restingLoad({ ...opts, depth: RESTING_DEPTH }) : await crossingLoad(opts);
    check(label, s);
    const extra =
      kind === 'resting'
        ? latencyResults(`${label}: HTTP latency, placements only,`, s.placeLatency.stats())
        : [{ name: `${label}: trades/s (timed window)`, value: Math.round(s.placements / 2 / s.windowSec), unit: 'trades/s' }];
    return loadResults(label, s, extra);
  } finally {
    transport.close();
  }
}

async function fanoutPart(base: Base, fanout: Fanout): Promise<BenchResult[]> {
  console.error('exchange-http: websocket fan-out ...');
  for (const u of base.users) {
    const key = await base.client.listenKey(u);
    for (let i = 0; i < PRIVATE_CONNS_PER_USER; i++) await fanout.addPrivate(key);
  }
  for (let i = 0; i < PUBLIC_CONNS; i++) await fanout.addPublic([`trade:${SYMBOL}`, `depth:${SYMBOL}`]);
  let recording = false;
  const fan = await crossingLoad({
    ...base,
    concurrency: FANOUT_CONCURRENCY,
    seed: SEED + 2,
    timeBase: fanout.timeBase,
    onSend: (cid, ns) => {
      if (recording) fanout.sentAt.set(cid, ns);
    },
    onWindow: (edge) => {
      recording = edge === 'start';
      if (edge === 'start') {
        fanout.setSampling(true);
        fanout.startCounting();
      } else {
        fanout.stopCounting();
      }
    },
  });
  // Events of the last orders of the window are still on their way.
  await new Promise((r) => setTimeout(r, 500));
  fanout.setSampling(false);
  check('fan-out', fan);
  const c = fanout.counters;
  const sec = fan.windowSec;
  const priv = statsOf(fanout.privateLatencies());
  const pub = fanout.publicTradeLatencies();
  const label = `ws fan-out (${base.users.length * PRIVATE_CONNS_PER_USER} private + ${PUBLIC_CONNS} public trade+depth subscribers, ${FANOUT_CONCURRENCY} orders in flight)`;
  return [
    { name: `${label}: placements/s driving it (timed window)`, value: Math.round(fan.placements / sec), unit: 'orders/s' },
    { name: `${label}: trades/s (timed window)`, value: Math.round(fan.placements / 2 / sec), unit: 'trades/s' },
    { name: `${label}: events delivered/s, all (timed window)`, value: Math.round((c.privateFrames + c.publicTradeFrames + c.publicDepthFrames + c.publicOtherFrames) / sec), unit: 'events/s' },
    { name: `${label}: private events delivered/s`, value: Math.round(c.privateFrames / sec), unit: 'events/s' },
    { name: `${label}: public trade events delivered/s`, value: Math.round(c.publicTradeFrames / sec), unit: 'events/s' },
    { name: `${label}: public depth events delivered/s (coalesced, 100 ms)`, value: Math.round(c.publicDepthFrames / sec), unit: 'events/s' },
    ...latencyResults(`${label}: private own-order event latency, send to arrival,`, priv),
    ...latencyResults(`${label}: public trade event latency, taker send to arrival,`, statsOf(pub.samples)),
    { name: `${label}: public trade events not matched to a taker`, value: pub.unmatched, unit: 'events' },
    ...latencyResults(`${label}: HTTP request latency,`, fan.latency.stats()),
    { name: `${label}: server process CPU use (of one core)`, value: round((100 * fan.serverCpuSec) / sec, 1), unit: '%' },
    { name: `${label}: client (bench) process CPU use (of one core)`, value: round((100 * fan.clientCpuSec) / sec, 1), unit: '%' },
    { name: `${label}: other processes' CPU use on this machine (contention)`, value: round((100 * fan.otherCpuSec) / sec, 1), unit: '%' },
    { name: `${label}: errors (must be 0)`, value: fan.errors, unit: 'requests' },
  ];
}

const PART_RUNNERS: Record<Part, (base: Base, fanout: Fanout) => Promise<BenchResult[]>> = {
  resting: restingPart,
  lowconc: lowConcurrencyPart,
  batch: batchPart,
  crossing: crossingPart,
  fanout: fanoutPart,
  'resting-pipelined': (base) => pipelinedPart(base, 'resting', PIPE_SHAPE, SEED + 5),
  'lowconc-pipelined': (base) => pipelinedPart(base, 'resting', PIPE_LOW_SHAPE, SEED + 6),
  'bare-pipelined': (base) => pipelinedPart(base, 'crossing', PIPE_LOW_SHAPE, SEED + 8, BARE_LABEL),
  'crossing-pipelined': (base) => pipelinedPart(base, 'crossing', PIPE_LOW_SHAPE, SEED + 7),
};

/**
 * One part against its own exchange process (started, 16 users created and logged in, stopped
 * after). The exchange keeps every order and trade in memory, and its heap grows by well over
 * 100 MB per crossing part; with one process for all parts, each part's figures depended on which
 * parts ran before it.
 */
async function runPart(part: Part): Promise<BenchResult[]> {
  const adminToken = `bench-${randomBytes(8).toString('hex')}`;
  const bare = part === 'bare-pipelined';
  const server = await ExchangeProcess.start({ adminToken, ordersPer10s: ORDERS_PER_10S, requestsPerMinute: REQUESTS_PER_MINUTE, cpuProfDir: process.env.BENCH_EXCHANGE_CPU_PROF, bare });
  const client = new ExchangeClient(server.url, { connections: CONNECTIONS, pipelining: PIPELINING });
  const fanout = new Fanout(server.url.replace(/^http/, 'ws'), process.hrtime.bigint());
  try {
    // The bare server has no accounts: the same requests, with headers it ignores.
    const users = bare
      ? Array.from({ length: USERS }, (_, i): BenchUser => ({ index: i, userId: `bare-${i}`, username: `bare-${i}`, headers: { authorization: 'Bearer bench', 'content-type': 'application/json' } }))
      : await client.createUsers(adminToken, USERS, BALANCE);
    const base = { client, transport: client, server, users, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
    const out = await PART_RUNNERS[part](base, fanout);
    if (!server.alive) throw new Error(`the exchange process died during the run; stderr: ${server.stderr}`);
    return out;
  } finally {
    fanout.close();
    await client.close();
    await server.stop();
  }
}

async function run(): Promise<BenchResult[]> {
  const parts = selectedParts();
  const results: BenchResult[] = [
    { name: 'setup: a fresh exchange process per part', value: 1, unit: 'process' },
    { name: 'setup: users (JWT, logged in once each)', value: USERS, unit: 'users' },
    { name: 'setup: requests in flight (closed loop, one per worker)', value: CONCURRENCY, unit: 'requests' },
    { name: 'setup: undici Pool keep-alive connections', value: CONNECTIONS, unit: 'connections' },
    { name: 'setup: undici pipelining per connection', value: PIPELINING, unit: 'requests' },
    { name: 'setup: order rate limit per user (raised via --config)', value: ORDERS_PER_10S, unit: 'orders/10s' },
    { name: 'setup: timed window per part (after warm-up)', value: DURATION_MS / 1000, unit: 's' },
  ];
  try {
    for (const part of PARTS) if (parts.has(part)) results.push(...(await runPart(part)));
    // The crossing placements against the limit of the same run (a bare node:http server, same client and shape) and the goal.
    const rate = (what: string): number | undefined => results.find((r) => r.name === `${what} PIPELINED (raw sockets, ${PIPE_LOW_SHAPE.connections} connections x ${PIPE_LOW_SHAPE.depth} in flight = ${PIPE_LOW_SHAPE.connections * PIPE_LOW_SHAPE.depth}): order requests/s (timed window)`)?.value;
    const crossing = rate('crossing maker+IOC taker');
    const limit = rate(BARE_LABEL);
    if (crossing !== undefined && limit !== undefined) results.push({ name: `crossing-pipelined / ${BARE_LABEL} (same run, same client)`, value: round(crossing / limit, 3), unit: 'ratio' });
    if (crossing !== undefined) results.push({ name: `crossing-pipelined / goal ${CROSSING_GOAL.toLocaleString('en-US')} placements/s`, value: round(crossing / CROSSING_GOAL, 3), unit: 'ratio' });
    return results;
  } catch (e) {
    if (results.length > 0) console.error('exchange-http: partial results before the failure:', JSON.stringify(results, null, 1));
    throw e;
  }
}

registerSuite({
  name: 'exchange-http',
  description: 'Local exchange over loopback HTTP from a separate process: order placements/s and latency, resting and crossing; WebSocket event fan-out rate and latency',
  run,
});
