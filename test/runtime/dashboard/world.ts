/**
 * A bot daemon with its dashboard against a real local exchange, for the dashboard's tests: the
 * market maker quoting BTCUSDT, another user who can take its quotes (a fill, on demand), and
 * optionally a strategy that is stopped for its errors as soon as it starts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type { StrategySlot } from '../../../src/bot/bot';
import type { AnyStrategyDefinition } from '../../../src/bot/strategy/api';
import { PerpClient } from '../../../src/client';
import { loadBotConfig } from '../../../src/runtime/config';
import { BotDaemon } from '../../../src/runtime/daemon';
import { createRuntimeLogger } from '../../../src/runtime/logger';
import { loadStrategySlots } from '../../../src/runtime/strategy-loader';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';

export const TOKEN = 'dash-Hq4wP9-never-rendered';
const PASSWORD = 'pw-Dash7-never-logged';

export async function until(cond: () => boolean | Promise<boolean>, ms = 8000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Throws in onStart: with strategyErrors.maxErrors 1 it is stopped at once. */
export const failing: AnyStrategyDefinition = {
  name: 'failing',
  symbols: () => ['BTCUSDT'],
  params: (raw) => raw,
  create: () => ({
    onStart: () => {
      throw new Error('broken on purpose');
    },
  }),
};

export interface World {
  ex: TestExchange;
  taker: PerpClient;
  logLines: string[];
  daemons: BotDaemon[];
  /** A daemon on a fresh bot user (earlier ones are stopped); `dashboard` is the config's http.dashboard value. */
  daemon(opts?: { dashboard?: unknown; host?: string; withFailing?: boolean; extra?: Record<string, unknown> }): Promise<{ d: BotDaemon; userId: string; url: string }>;
  /** Sells into the bot's bid (or buys its ask): one fill for the bot. */
  takeQuote(userId: string, side?: 'BUY' | 'SELL'): Promise<void>;
  openOrders(userId: string): Array<{ side: string; price: string }>;
  close(): Promise<void>;
}

export async function startWorld(assetsDir: string | undefined): Promise<World> {
  const ex = await startTestExchange();
  const t = await ex.createUser({ balance: '1000000' });
  const taker = new PerpClient({ baseUrl: ex.url });
  await taker.login(t.username, t.password);
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString());
      cb();
    },
  });
  const logger = createRuntimeLogger({ level: 'info', stream: sink });
  const daemons: BotDaemon[] = [];
  const openOrders = (userId: string) => ex.server.core.engine.currentOrders(userId, { symbol: 'BTCUSDT' }).list;
  return {
    ex,
    taker,
    logLines,
    daemons,
    openOrders,
    async daemon(opts = {}) {
      // One bot quoting at a time: a taker must hit this bot's quote, not an earlier bot's.
      for (const old of daemons) await old.stop('next test');
      const u = await ex.createUser({ password: PASSWORD, balance: '100000' });
      const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-dash-'));
      const file = path.join(dir, 'dash-bot.yaml');
      const doc = {
        venue: { baseUrl: ex.url, auth: { username: u.username, passwordEnv: 'BOT_PASSWORD' } },
        strategies: [{ id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', refreshMs: 200 } }],
        risk: { maxOrderNotional: '10000' },
        pollPositionsMs: 0,
        strategyErrors: { maxErrors: 1, windowMs: 60000 },
        http: { host: opts.host ?? '127.0.0.1', port: 0, dashboard: 'dashboard' in opts ? opts.dashboard : { tokenEnv: 'DASH_TOKEN' } },
        ...opts.extra,
      };
      writeFileSync(file, JSON.stringify(doc));
      const config = loadBotConfig(file);
      const slots: StrategySlot[] = loadStrategySlots(config);
      if (opts.withFailing) slots.push({ id: 'bad', definition: failing, params: {} });
      const d = new BotDaemon({ config, logger, env: { BOT_PASSWORD: PASSWORD, DASH_TOKEN: TOKEN }, defaultMetrics: false, strategies: slots, ...(assetsDir ? { dashboardAssetsDir: assetsDir } : {}) });
      daemons.push(d);
      await d.start();
      await until(() => openOrders(u.userId).length === 2, 8000, 'the market maker quoting');
      return { d, userId: u.userId, url: d.httpUrl as string };
    },
    async takeQuote(userId, side = 'SELL') {
      const quote = openOrders(userId).find((o) => o.side === (side === 'SELL' ? 'BUY' : 'SELL'));
      if (!quote) throw new Error('the bot has no quote to take');
      await taker.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side, price: quote.price, quantity: '0.01', timeInForce: 'IOC' });
    },
    async close() {
      for (const d of daemons) await d.stop('test end');
      await taker.close();
      await ex.stop();
    },
  };
}
