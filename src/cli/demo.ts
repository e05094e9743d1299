/**
 * `perpkit demo` (what `npm start` runs): the local exchange in this process with its synthetic
 * market, and a bot running the example market maker against it over real HTTP and WebSocket,
 * exactly as `perpkit run` would against a remote venue (same daemon, same config validation,
 * password from an environment-style map, health and metrics server). stdout carries a first line
 * saying what is happening and then one status line every couple of seconds; logs go to stderr,
 * as text lines (pino-pretty, one line each) whether or not it is a terminal.
 *
 * The market maker's parameters are tuned so that its quotes sit inside the simulated makers'
 * ladder (one basis point from mark): the simulated takers then hit the bot first, and a newcomer
 * sees fills within seconds.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { SystemClock } from '../core/clock';
import { Dec } from '../core/decimal';
import { marketServices } from '../exchange/market/market-services';
import { ExchangeCore } from '../exchange/service/exchange-core';
import { ExchangeServer, mergeConfig } from '../exchange/transport/server';
import { parseBotConfig } from '../runtime/config';
import { LOG_LEVELS, type LogLevel } from '../core/log';
import { BotDaemon } from '../runtime/daemon';
import { installSignalHandlers } from '../runtime/signals';
import { errMessage } from '../core/errors';
import { leftText } from './left-on-stop';
import { runOutcome } from './run';
import { createRuntimeLogger } from '../runtime/logger';
import { EXCHANGE_PAGE_PATH, exchangePage } from '../runtime/dashboard/exchange-page';
import { componentLogger } from '../core/log';
import { argsMessage, usageFailure } from './usage';
import { DEMO_USAGE } from './usage-texts';

class UsageError extends Error {}

function intArg(name: string, v: string | undefined, min: number, max: number, fallback: number): number {
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${v}'`);
  return Number(v);
}

interface DemoArgs {
  durationS: number | undefined;
  seed: number;
  everyS: number;
  port: number;
  level: LogLevel;
}

function parseDemoArgs(argv: string[]): DemoArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: { duration: { type: 'string' }, seed: { type: 'string' }, every: { type: 'string' }, port: { type: 'string' }, 'log-level': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    throw new UsageError(errMessage(e));
  }
  const o = parsed.values;
  if (o.help) return 'help';
  const level = o['log-level'] ?? 'warn';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got '${level}'`);
  return {
    durationS: o.duration === undefined ? undefined : intArg('duration', o.duration, 1, 7 * 24 * 3600, 0),
    seed: intArg('seed', o.seed, 0, 2 ** 32 - 1, 1),
    everyS: intArg('every', o.every, 1, 5, 2),
    port: intArg('port', o.port, 0, 65535, 0),
    level: level as LogLevel,
  };
}

const SYMBOL = 'BTCUSDT';

const signed = (d: Dec, dp: number): string => `${d.isNegative() ? '' : '+'}${d.toFixed(dp)}`;

export async function runDemo(argv: string[]): Promise<number> {
  let args: DemoArgs | 'help';
  try {
    args = parseDemoArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      return usageFailure('demo', argsMessage(e));
    }
    throw e;
  }
  if (args === 'help') {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const t0 = Date.now();
  // Text for a person wherever it goes: a terminal, a pipe, a file (`npm start > demo.log 2>&1`).
  // The log's format followed whether stderr was a terminal, and the status lines are text
  // anyway: stderr into the same pipe or file put JSON lines among them. Colour only on a terminal.
  const logger = createRuntimeLogger({ level: args.level, fd: 2, pretty: true, singleLine: true, base: { name: 'perpkit-demo' } });

  // The exchange: in memory, synthetic market, one demo user created by the server at start.
  const password = randomBytes(12).toString('hex');
  const exConfig = mergeConfig({
    host: '127.0.0.1',
    port: 0,
    market: 'synthetic',
    seed: args.seed,
    users: [{ username: 'demo', password, balance: '100000' }],
  });
  const core = new ExchangeCore({ config: exConfig, wallClock: new SystemClock() });
  const exLog = componentLogger(logger, 'exchange');
  const market = await marketServices({ core, market: 'synthetic', seed: args.seed, logger: exLog, simulator: { takerRate: 3 } });
  const exchange = new ExchangeServer({ core, logger: exLog, services: market.services, drainTimeoutMs: 1000, pages: exchangePage().handle });
  let exUrl: string;
  try {
    await market.init();
    exUrl = (await exchange.start()).url;
  } catch (e) {
    process.stderr.write(`perpkit demo: could not start the local exchange: ${errMessage(e)}\n`);
    await exchange.stop().catch(() => undefined);
    return 1;
  }

  // The bot: the same config and daemon `perpkit run` uses, built in code instead of from a file.
  const config = parseBotConfig(
    {
      venue: { baseUrl: exUrl, auth: { username: 'demo', passwordEnv: 'PERPKIT_DEMO_PASSWORD' } },
      strategies: [
        {
          id: 'mm',
          module: 'market-maker',
          params: { symbol: SYMBOL, quantity: '0.01', minSpreadBps: '1', volMultiplier: '0.5', maxInventory: '0.05', skewBps: '2', refreshMs: 1000, bookAware: true },
        },
      ],
      risk: { maxOrderNotional: '5000', maxPositionNotional: '10000', maxOpenOrders: 10, maxOrdersPerSecond: 20, priceBand: '0.02' },
      pollPositionsMs: 5000,
      cancelOnStop: true,
      stopTimeoutMs: 3000,
      marketDataStaleMs: 60_000,
      http: { host: '127.0.0.1', port: args.port, dashboard: true },
      logging: { level: args.level },
    },
    '(perpkit demo)',
  );
  const daemon = new BotDaemon({ config, logger, env: { PERPKIT_DEMO_PASSWORD: password } });

  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const removeSignals = installSignalHandlers(daemon, logger, (code) => finish(code));
  try {
    await daemon.start();
  } catch (e) {
    removeSignals();
    process.stderr.write(`perpkit demo: the bot could not start: ${errMessage(e)}\n`);
    await exchange.stop().catch(() => undefined);
    return 1;
  }

  process.stdout.write(
    `perpkit demo: local exchange at ${exUrl} with a synthetic ${SYMBOL} market; bot 'mm' runs the market-maker strategy against it over HTTP + WebSocket. ` +
      `Status every ${args.everyS}s; metrics at ${daemon.httpUrl ?? '(off)'}/metrics. Press Ctrl+C to stop.\n`,
  );
  if (daemon.httpUrl !== undefined) process.stdout.write(`dashboard at ${daemon.httpUrl}/\n`);
  process.stdout.write(`exchange page at ${exUrl}${EXCHANGE_PAGE_PATH}\n`);
  const base = SYMBOL.replace(/USDT$/, '');
  const statusLine = (): void => {
    const s = daemon.status();
    const pos = s.positions.find((p) => p.symbol === SYMBOL)?.quantity ?? '0';
    const pnl = s.pnl === undefined ? 'n/a' : signed(new Dec(s.pnl), 2);
    const t = Math.round((Date.now() - t0) / 1000);
    process.stdout.write(`t=${t}s fills=${s.fills} pos=${pos} ${base} pnl=${pnl} USDT open=${s.openOrders} state=${s.state}\n`);
  };
  const ticker = setInterval(statusLine, args.everyS * 1000);
  const stopper = args.durationS === undefined ? undefined : setTimeout(() => void daemon.stop(`--duration ${args.durationS}s elapsed`).then(finish, () => finish(1)), args.durationS * 1000);

  // The exit code of `perpkit run` after the same stop: 3 when the strategy threw during the run.
  const outcome = runOutcome(daemon, await finished);
  let code = outcome.code;
  clearInterval(ticker);
  if (stopper) clearTimeout(stopper);
  removeSignals();
  statusLine();
  const left = daemon.leftAtStop;
  if (left !== undefined) process.stdout.write(`${leftText(left)}\n`);
  if (outcome.why !== undefined) process.stdout.write(`perpkit demo: ${outcome.why}\n`);
  try {
    await exchange.stop();
  } catch (e) {
    logger.error({ err: errMessage(e) }, 'the local exchange did not stop cleanly');
    code = 1;
  }
  process.stdout.write(`perpkit demo: stopped (exit ${code})\n`);
  return code;
}
