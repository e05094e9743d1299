/**
 * Shared pieces of the reliability tests: a local exchange with short heartbeats, the fault
 * switches through its admin API (the way an operator would use them), bots on LiveVenue, the
 * venue's truth versus the bot's view, and the figures file (.results/, git-ignored) that
 * docs/reliability.md quotes. Timing is measured and written down, never asserted beyond
 * generous bounds: the machine is shared.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { SystemClock, SystemScheduler } from '../../../src/core/clock';
import { Dec } from '../../../src/core/decimal';
import { Bot, type StrategySlot } from '../../../src/bot/bot';
import type { BotEvent } from '../../../src/bot/bus/events';
import type { RiskLimits } from '../../../src/bot/risk/limits';
import { LiveVenue } from '../../../src/bot/venue/live-venue';
import { PerpClient, UndiciTransport, type PerpClientOptions } from '../../../src/client';
import type { OrderRecord } from '../../../src/protocol/records';
import type { FaultsResult, SetFaultParams } from '../../../src/protocol/rest/admin';
import { RecordingTransport } from '../../bot/e2e/e2e';
import { silentLogger } from '../../bot/harness';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';

export { RecordingTransport };

/** Heartbeats short enough that a dead connection is found in seconds, not a minute. */
export const STREAM = { pingIntervalMs: 500, pongTimeoutMs: 1000, reconnectBackoff: { baseMs: 100, maxMs: 2000 } };

export async function startReliabilityExchange(): Promise<TestExchange> {
  return startTestExchange({
    rateLimits: { ordersPer10s: 100_000, requestsPerMinute: 1_000_000 },
    ws: { pingIntervalMs: 1000, deadAfterMs: 4000 },
  });
}

export async function setFault(ex: TestExchange, body: SetFaultParams | { fault: string; on: false; userId?: string }): Promise<FaultsResult> {
  const r = await ex.call<FaultsResult>('POST', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken }, body });
  if (r.body.code !== 0) throw new Error(`setting fault ${JSON.stringify(body)} failed: ${r.body.code} ${r.body.message}`);
  return r.body.data;
}

export async function getFaults(ex: TestExchange): Promise<FaultsResult> {
  const r = await ex.call<FaultsResult>('GET', '/v1/admin/faults', { headers: { 'x-admin-token': ex.adminToken } });
  if (r.body.code !== 0) throw new Error(`reading faults failed: ${r.body.code} ${r.body.message}`);
  return r.body.data;
}

export async function clearFaults(ex: TestExchange): Promise<void> {
  await setFault(ex, { fault: 'all', on: false });
}

/** Polls `cond` every 20 ms; fails naming `what` after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string | (() => string), ms = 20000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms: ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- figures

const RESULTS_DIR = path.join(__dirname, '..', '.results');

/** Merges `figures` under `row` into .results/<file>.json and prints them (docs/reliability.md quotes them). */
export function recordFigures(file: string, row: string, figures: Record<string, unknown>): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const p = path.join(RESULTS_DIR, `${file}.json`);
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
  } catch {
    all = {};
  }
  all[row] = { ...figures, at: new Date().toISOString() };
  writeFileSync(p, `${JSON.stringify(all, null, 2)}\n`);
  process.stdout.write(`reliability figures ${file} / ${row}: ${JSON.stringify(figures)}\n`);
}

// ---------------------------------------------------------------- accounts and bots

export interface Account {
  userId: string;
  username: string;
  password: string;
  client: PerpClient;
  transport: RecordingTransport;
}

export async function account(ex: TestExchange, opts: { balance?: string; apiKey?: boolean; client?: Partial<PerpClientOptions> } = {}): Promise<Account> {
  const u = await ex.createUser({ balance: opts.balance ?? '1000000' });
  const transport = new RecordingTransport(new UndiciTransport(ex.url));
  const client = new PerpClient({ baseUrl: ex.url, transport, ...opts.client });
  if (opts.apiKey) client.useApiKey(await ex.createApiKey(u.userId, ['READ', 'TRADE']));
  else await client.login(u.username, u.password);
  return { ...u, client, transport };
}

export interface RelBot {
  bot: Bot;
  venue: LiveVenue;
  events: BotEvent[];
  /** Time of the first bus event matching `pred` at or after `since`, or undefined. */
  firstAt(since: number, pred: (e: BotEvent) => boolean): number | undefined;
}

export async function startBot(client: PerpClient, strategies: StrategySlot[], opts: { risk?: RiskLimits; silenceTimeoutMs?: number; pollPositionsMs?: number; cancelOnStop?: boolean } = {}): Promise<RelBot> {
  const venue = new LiveVenue({ client, privateStream: STREAM, ...(opts.silenceTimeoutMs === undefined ? {} : { silenceTimeoutMs: opts.silenceTimeoutMs }) });
  const bot = new Bot({ venue, strategies, risk: opts.risk ?? {}, clock: new SystemClock(), scheduler: new SystemScheduler(), logger: silentLogger, pollPositionsMs: opts.pollPositionsMs, cancelOnStop: opts.cancelOnStop });
  const events: BotEvent[] = [];
  const times: number[] = [];
  bot.bus.subscribeAll((e) => {
    events.push(e);
    times.push(Date.now());
  });
  await bot.start();
  await bot.idle();
  return {
    bot,
    venue,
    events,
    firstAt: (since, pred) => {
      for (let i = 0; i < events.length; i++) if (times[i] >= since && pred(events[i])) return times[i];
      return undefined;
    },
  };
}

// ---------------------------------------------------------------- truth

/** Every order of the account the venue knows: open ones and the history, by orderId. */
export async function venueOrders(client: PerpClient): Promise<OrderRecord[]> {
  const byId = new Map<string, OrderRecord>();
  for await (const o of client.orders.iterateOrderHistory({})) byId.set(o.orderId, o);
  for await (const o of client.orders.iterateCurrentOrders({})) byId.set(o.orderId, o);
  return [...byId.values()];
}

export interface Comparison {
  venueOpen: string[];
  trackedLive: string[];
  cachedOpen: string[];
  venuePositions: string[];
  cachedPositions: string[];
  /** clientOrderIds the venue holds more than once. */
  duplicateClientOrderIds: string[];
  /**
   * clientOrderIds sent in more than one batch-place request. Not a failure by itself: after a
   * refusal that certainly had no effect (20003, 429) the same request goes again with the same
   * id, which the venue could never double. A new id for the same intent would be one.
   */
  resentClientOrderIds: string[];
  /** Tracked orders whose executedQty differs from the venue's. */
  fillMismatches: string[];
  /** Tracked orders in UNKNOWN state. */
  unknown: string[];
}

/** The venue's truth against the bot's view (tracker and cache), and the duplicate checks. */
export async function compare(a: Account, bot: Bot): Promise<Comparison> {
  const orders = await venueOrders(a.client);
  const venueOpen = orders.filter((o) => o.status === 'NEW' || o.status === 'PARTIALLY_FILLED').map((o) => o.clientOrderId).sort();
  const venuePositions = (await a.client.positions.getPositions({})).positions.filter((p) => !new Dec(p.quantity).isZero()).map((p) => `${p.symbol}:${p.positionSide}:${p.quantity}`).sort();
  const counts = new Map<string, number>();
  for (const o of orders) counts.set(o.clientOrderId, (counts.get(o.clientOrderId) ?? 0) + 1);
  const sent = new Map<string, number>();
  for (const o of a.transport.placedOrders()) {
    const cid = String(o.clientOrderId);
    sent.set(cid, (sent.get(cid) ?? 0) + 1);
  }
  const fillMismatches: string[] = [];
  for (const o of orders) {
    const t = bot.tracker.get(o.clientOrderId);
    if (t !== undefined && !new Dec(t.executedQty).eq(o.executedQty)) fillMismatches.push(`${o.clientOrderId}: bot ${t.executedQty} venue ${o.executedQty}`);
  }
  return {
    venueOpen,
    trackedLive: bot.tracker.live().map((o) => o.clientOrderId).sort(),
    cachedOpen: bot.cache.openOrders().map((o) => o.clientOrderId).sort(),
    venuePositions,
    cachedPositions: bot.cache.positions().filter((p) => !new Dec(p.quantity).isZero()).map((p) => `${p.symbol}:${p.positionSide}:${p.quantity}`).sort(),
    duplicateClientOrderIds: [...counts].filter(([, n]) => n > 1).map(([c]) => c),
    resentClientOrderIds: [...sent].filter(([, n]) => n > 1).map(([c]) => c),
    fillMismatches,
    unknown: bot.tracker.live().filter((o) => o.state === 'UNKNOWN').map((o) => o.clientOrderId),
  };
}

const same = (x: string[], y: string[]): boolean => JSON.stringify(x) === JSON.stringify(y);

/** Whether the bot's view equals the venue's, nothing is duplicated on the venue and nothing is UNKNOWN. */
export function converged(c: Comparison): boolean {
  return (
    same(c.venueOpen, c.trackedLive) &&
    same(c.venueOpen, c.cachedOpen) &&
    same(c.venuePositions, c.cachedPositions) &&
    c.duplicateClientOrderIds.length === 0 &&
    c.fillMismatches.length === 0 &&
    c.unknown.length === 0
  );
}

/** Polls until the bot's view converges on the venue's truth; returns the last comparison. */
export async function expectConverged(a: Account, bot: Bot, ms = 20000): Promise<Comparison> {
  let last: Comparison | undefined;
  await until(
    async () => {
      await bot.idle();
      last = await compare(a, bot);
      return converged(last);
    },
    () => `bot view equals the venue: ${JSON.stringify(last)}`,
    ms,
  );
  return last as Comparison;
}
