/**
 * Shared pieces of the end-to-end bot tests: a real local exchange over HTTP and WebSocket, bots
 * built on LiveVenue exactly as the daemon builds them, and a transport that records every HTTP
 * request the bot's client writes (so "what was sent" is read off the wire, not off a mock).
 */
import { SystemClock, SystemScheduler } from '../../../src/core/clock';
import { Bot, type BotOptions, type StrategySlot } from '../../../src/bot/bot';
import type { BotEvent } from '../../../src/bot/bus/events';
import type { RiskCode } from '../../../src/bot/risk/decision';
import type { RiskLimits } from '../../../src/bot/risk/limits';
import type { StrategyContext } from '../../../src/bot/strategy/api';
import type { Intent } from '../../../src/bot/strategy/intents';
import { LiveVenue } from '../../../src/bot/venue/live-venue';
import { PerpClient, UndiciTransport, type HttpRequest, type HttpResponse, type HttpTransport } from '../../../src/client';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';
import { scripted, silentLogger } from '../harness';

export interface RecordedCall {
  method: string;
  /** Path without the query string, e.g. /v1/private/order/batch-place. */
  path: string;
  body: Record<string, unknown> | undefined;
}

/** Passes every request to the real transport and records it first. */
export class RecordingTransport implements HttpTransport {
  readonly calls: RecordedCall[] = [];

  constructor(private readonly inner: HttpTransport) {}

  request(req: HttpRequest): Promise<HttpResponse> {
    const body = req.body === undefined ? undefined : (JSON.parse(req.body) as Record<string, unknown>);
    this.calls.push({ method: req.method, path: req.target.split('?')[0], body });
    return this.inner.request(req);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Calls whose path ends with `suffix` (e.g. '/batch-place'). */
  of(suffix: string): RecordedCall[] {
    return this.calls.filter((c) => c.path.endsWith(suffix));
  }

  /** The orders of every batch-place body, flattened. */
  placedOrders(): Array<Record<string, unknown>> {
    return this.of('/batch-place').flatMap((c) => (c.body?.orders as Array<Record<string, unknown>> | undefined) ?? []);
  }

  clear(): void {
    this.calls.length = 0;
  }
}

export interface Account {
  userId: string;
  client: PerpClient;
  transport: RecordingTransport;
}

export interface E2EBot {
  bot: Bot;
  venue: LiveVenue;
  events: BotEvent[];
  denials(): Array<{ code: RiskCode; intent: Intent }>;
}

/** A strategy the test steers: it records its events, and `ctx()` lets the test emit intents. */
export function controllable(symbols: string[], onStart?: (ctx: StrategyContext) => Intent[]) {
  let context: StrategyContext | undefined;
  const seen: BotEvent[] = [];
  const definition = scripted(symbols, {
    start: (ctx) => {
      context = ctx;
      return onStart?.(ctx) ?? [];
    },
    event: (e) => {
      seen.push(e);
    },
  });
  return {
    definition,
    seen,
    ctx(): StrategyContext {
      if (context === undefined) throw new Error('the strategy has not started');
      return context;
    },
  };
}

export const bid = (price: string, quantity = '0.01', symbol = 'BTCUSDT'): Intent => ({ kind: 'place', symbol, side: 'BUY', type: 'LIMIT', price, quantity });
export const ask = (price: string, quantity = '0.01', symbol = 'BTCUSDT'): Intent => ({ kind: 'place', symbol, side: 'SELL', type: 'LIMIT', price, quantity });

/** Polls `cond` every 10 ms; fails with `what` after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One local exchange per test file, with the accounts and bots made on it, all stopped in stop(). */
export class World {
  private readonly bots: Bot[] = [];
  private readonly clients: PerpClient[] = [];

  private constructor(readonly ex: TestExchange) {}

  static async start(): Promise<World> {
    // Order rate limits far above what a test sends: the tests count calls, not 429s.
    return new World(await startTestExchange({ rateLimits: { ordersPer10s: 100_000, requestsPerMinute: 1_000_000 } }));
  }

  async account(balance = '100000'): Promise<Account> {
    const u = await this.ex.createUser({ balance });
    return { userId: u.userId, ...(await this.login(u.username, u.password)) };
  }

  /** A second client of the same user (a restarted process has a new client). */
  async login(username: string, password: string): Promise<{ client: PerpClient; transport: RecordingTransport }> {
    const transport = new RecordingTransport(new UndiciTransport(this.ex.url));
    const client = new PerpClient({ baseUrl: this.ex.url, transport });
    await client.login(username, password);
    this.clients.push(client);
    return { client, transport };
  }

  async bot(client: PerpClient, strategies: StrategySlot[], risk: RiskLimits = {}, opts: { silenceTimeoutMs?: number; cancelOnStop?: boolean; logger?: BotOptions['logger'] } = {}): Promise<E2EBot> {
    const { cancelOnStop, logger, ...venueOpts } = opts;
    const venue = new LiveVenue({ client, ...venueOpts });
    const bot = new Bot({ venue, strategies, risk, clock: new SystemClock(), scheduler: new SystemScheduler(), logger: logger ?? silentLogger, cancelOnStop });
    const events: BotEvent[] = [];
    bot.bus.subscribeAll((e) => events.push(e));
    this.bots.push(bot);
    await bot.start();
    await bot.idle();
    return {
      bot,
      venue,
      events,
      denials: () => events.flatMap((e) => (e.type === 'denial' ? [{ code: e.code, intent: e.intent }] : [])),
    };
  }

  /** Admin API (PROTOCOL.md section 7): sets mark and index price and runs triggers at once. */
  async setMark(symbol: string, markPrice: string): Promise<void> {
    const r = await this.ex.call('POST', '/v1/admin/market/mark-price', { headers: { 'x-admin-token': this.ex.adminToken }, body: { symbol, markPrice } });
    if (r.body.code !== 0) throw new Error(`mark-price failed: ${r.body.code} ${r.body.message}`);
  }

  async stop(): Promise<void> {
    for (const b of this.bots) await b.stop();
    for (const c of this.clients) await c.close();
    await this.ex.stop();
  }
}

/** The venue's truth for an account: open order ids and positions, sorted for comparison. */
export async function venueTruth(client: PerpClient): Promise<{ open: string[]; positions: string[] }> {
  const open: string[] = [];
  for await (const o of client.orders.iterateCurrentOrders({})) open.push(o.clientOrderId);
  const positions = (await client.positions.getPositions({})).positions.filter((p) => p.quantity !== '0').map((p) => `${p.symbol}:${p.positionSide}:${p.quantity}`);
  return { open: open.sort(), positions: positions.sort() };
}

/** The bot's view, in the same shape: tracker and cache must each agree with the venue. */
export function botView(bot: Bot): { tracked: string[]; cached: string[]; positions: string[] } {
  return {
    tracked: bot.tracker
      .live()
      .map((o) => o.clientOrderId)
      .sort(),
    cached: bot.cache
      .openOrders()
      .map((o) => o.clientOrderId)
      .sort(),
    positions: bot.cache
      .positions()
      .map((p) => `${p.symbol}:${p.positionSide}:${p.quantity}`)
      .sort(),
  };
}
