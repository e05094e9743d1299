/**
 * `perpkit exchange`: runs the local exchange until SIGINT/SIGTERM. stdout carries exactly one
 * line, `listening on http://<host>:<port>`, once requests are accepted (tests and scripts wait
 * for it); logs go to stderr through pino.
 */
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { envLogLevel } from './log-level';
import { SystemClock } from '../core/clock';
import type { ReplayServiceOptions } from '../exchange/market/replay-service';
import { QUEUE_MODELS, type QueueModelName } from '../exchange/engine/market/queue';
import { marketServices, type MarketServices } from '../exchange/market/market-services';
import { DEFAULT_CONFIG, type ExchangeConfig, type MarketMode } from '../exchange/service/config';
import { ConfigError } from '../core/config-errors';
import { loadConfigFile } from '../exchange/service/config-file';
import { DataDirInUseError, openDurableCore } from '../exchange/service/durable-core';
import { HeapWatch } from '../exchange/service/heap-watch';
import { ExchangeServer, type ServerService } from '../exchange/transport/server';
import { EXCHANGE_PAGE_PATH, exchangePage, userPositions } from '../runtime/dashboard/exchange-page';
import { argsMessage, usageFailure } from './usage';
import { EXCHANGE_USAGE } from './usage-texts';

/** A usage error: the message goes to stderr and the exit code is 2. */
class UsageError extends Error {}

function intArg(name: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${v}'`);
  return Number(v);
}

function marketArg(v: string): MarketMode {
  if (v === 'off' || v === 'synthetic') return v;
  if (v.startsWith('replay:') && v.length > 'replay:'.length) return v as MarketMode;
  throw new UsageError(`--market must be off, synthetic or replay:<file>, got '${v}'`);
}

/** The config from defaults, the --config file and the flags. Throws UsageError or ConfigError. */
export function exchangeConfigFromArgs(argv: string[]): ExchangeConfig | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'admin-token': { type: 'string' },
        config: { type: 'string' },
        market: { type: 'string' },
        'data-dir': { type: 'string' },
        seed: { type: 'string' },
        fsync: { type: 'boolean' },
        'replay-speed': { type: 'string' },
        'fill-book': { type: 'string' },
        queue: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const o = parsed.values;
  if (o['replay-speed'] !== undefined) replaySpeedArg(o['replay-speed']);
  replayFillArg(o['fill-book'], o.queue);
  if (o.market?.startsWith('replay:') === true && !existsSync(o.market.slice('replay:'.length))) {
    throw new UsageError(`--market ${o.market}: no such recording file`);
  }
  if (o.market?.startsWith('replay:') === true && !statSync(o.market.slice('replay:'.length)).isFile()) {
    throw new UsageError(`--market ${o.market}: a folder, not a recording file`);
  }
  if (o.help) return 'help';
  const base: ExchangeConfig = o.config !== undefined ? loadConfigFile(o.config) : structuredClone(DEFAULT_CONFIG);
  // The file rides along for messages of checks made at start (a fault's unknown userId).
  const cfg: ExchangeConfig = { ...base, ...(o.config !== undefined ? { file: o.config } : {}) };
  if (o.host !== undefined) {
    if (o.host === '') throw new UsageError('--host must not be empty');
    cfg.host = o.host;
  }
  if (o.port !== undefined) cfg.port = intArg('port', o.port, 0, 65535);
  if (o['admin-token'] !== undefined) {
    if (o['admin-token'] === '') throw new UsageError('--admin-token must not be empty');
    cfg.adminToken = o['admin-token'];
  }
  if (o.market !== undefined) cfg.market = marketArg(o.market);
  if (o['data-dir'] !== undefined) {
    if (o['data-dir'] === '') throw new UsageError('--data-dir must not be empty');
    cfg.dataDir = o['data-dir'];
  }
  if (o.seed !== undefined) cfg.seed = intArg('seed', o.seed, 0, 2 ** 32 - 1);
  if (o.fsync) cfg.fsync = true;
  // A flag for a market the exchange will not run would be ignored without a word: refused, judged
  // on the market it runs (the flag's, else the config file's).
  const replay = cfg.market.startsWith('replay:');
  const synthetic = cfg.market === 'synthetic';
  for (const flag of ['fill-book', 'queue', 'replay-speed'] as const) {
    if (o[flag] !== undefined && !replay) throw new UsageError(`--${flag} applies to --market replay:<file> only (the market is ${cfg.market})`);
  }
  if (o.seed !== undefined && !synthetic) throw new UsageError(`--seed applies to --market synthetic only (the market is ${cfg.market})`);
  // The recording a config file names is checked as the flag's is: a one-line error, exit 2.
  if (replay && o.market === undefined && o.config !== undefined) {
    const file = cfg.market.slice('replay:'.length);
    const why = !existsSync(file) ? 'no such file' : !statSync(file).isFile() ? 'a folder, not a file' : undefined;
    if (why !== undefined) throw new ConfigError(o.config, 'market', 'replay:<a recording file>', `${cfg.market}: ${why}`).locate();
  }
  return cfg;
}

function replaySpeedArg(v: string): number | 'max' {
  if (v === 'max') return 'max';
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !(n > 0)) throw new UsageError(`--replay-speed must be a positive number or max, got '${v}'`);
  return n;
}

/** The replay's fill model from --fill-book and --queue. */
function replayFillArg(book: string | undefined, queue: string | undefined): NonNullable<ReplayServiceOptions['fill']> {
  if (book !== undefined && book !== 'top' && book !== 'l2') throw new UsageError(`--fill-book must be top or l2, got '${book}'`);
  if (queue === undefined) return { book: book ?? 'top' };
  if (book !== 'l2') throw new UsageError('--queue needs --fill-book l2 (queue positions are kept on the recorded L2 book)');
  if (!(QUEUE_MODELS as readonly string[]).includes(queue)) throw new UsageError(`--queue must be one of ${QUEUE_MODELS.join(', ')}, got '${queue}'`);
  return { book, queue: { model: queue as QueueModelName } };
}

/** The value of a `--name v` or `--name=v` flag (validated by exchangeConfigFromArgs). */
function flagValue(argv: string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  const a = argv[i];
  return a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1];
}

/** The --replay-speed flag (validated by exchangeConfigFromArgs), default 1. */
function replaySpeedFromArgs(argv: string[]): number | 'max' {
  const i = argv.findIndex((a) => a === '--replay-speed' || a.startsWith('--replay-speed='));
  if (i < 0) return 1;
  const a = argv[i];
  return replaySpeedArg(a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1] ?? '');
}

export async function runExchange(argv: string[]): Promise<number> {
  let config: ExchangeConfig | 'help';
  try {
    config = exchangeConfigFromArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) return usageFailure('exchange', argsMessage(e));
    if (e instanceof ConfigError) {
      process.stderr.write(`perpkit exchange: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (config === 'help') {
    process.stdout.write(EXCHANGE_USAGE);
    return 0;
  }
  const logLevel = envLogLevel();
  if ('error' in logLevel) {
    process.stderr.write(`perpkit exchange: ${logLevel.error}\n`);
    return 2;
  }
  const logger = pino({ level: logLevel.level, base: { name: 'exchange' } }, pino.destination(2));
  const clock = new SystemClock();
  const t0 = performance.now();
  let durable: Awaited<ReturnType<typeof openDurableCore>>;
  try {
    durable = await openDurableCore(config, clock, logger);
  } catch (e) {
    // A data directory that cannot be one (a file, no permission) or that another exchange uses is
    // bad input; anything else (a damaged marker or snapshot) a failure. One line either way, the
    // stack with the log level debug.
    const { code, syscall } = e as { code?: unknown; syscall?: unknown };
    // ENOENT from mkdir: a folder that cannot be made where its parent is (under /proc).
    const bad = code === 'EEXIST' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || (code === 'ENOENT' && syscall === 'mkdir');
    logger.debug({ err: e }, 'could not open the data directory');
    if (e instanceof DataDirInUseError) {
      process.stderr.write(`perpkit exchange: data directory ${config.dataDir ?? ''}: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`perpkit exchange: data directory ${config.dataDir ?? ''}: ${bad ? 'expected a directory this user can write (created if missing), got ' : ''}${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return bad ? 2 : 1;
  }
  const core = durable.core;
  let market: MarketServices;
  try {
    const replay = config.market.startsWith('replay:');
    const replayFill = replay ? replayFillArg(flagValue(argv, '--fill-book'), flagValue(argv, '--queue')) : undefined;
    market = await marketServices({ core, market: config.market, seed: config.seed, logger, replaySpeed: replaySpeedFromArgs(argv), replayFill, fundingWhenOff: true });
  } catch (e) {
    process.stderr.write(`perpkit exchange: --market ${config.market}: ${e instanceof Error ? e.message : String(e)}\n`);
    await core.close({ final: false }).catch(() => undefined);
    return 2;
  }
  const services: ServerService[] = [...market.services];
  // The history grows for the life of the process: the log says so well before the heap is full.
  services.push(new HeapWatch({ logger }));
  // Users' positions for the operator, behind the exchange's own admin token.
  const page = exchangePage(undefined, { token: config.adminToken, positions: () => userPositions(core) });
  if (!page.assets.ready) logger.error({ missing: page.assets.missing }, 'the read-only web page is not built: run npm run build; the API is unaffected');
  const server = new ExchangeServer({ core, logger, services, pages: page.handle });

  const tReplay = performance.now();
  let replayed: number;
  try {
    replayed = await core.recover((events) => server.marketData.onEvents(events));
  } catch (e) {
    // A damaged journal (JournalCorruptError names the file and line) is reported as a damaged
    // marker is: one line, exit 1, the stack with the log level debug. Nothing is written.
    logger.debug({ err: e }, 'could not replay the journal');
    await server.stop().catch(() => undefined);
    process.stderr.write(`perpkit exchange: data directory ${config.dataDir ?? ''}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return 1;
  }
  const replayMs = performance.now() - tReplay;
  logger.info(
    { snapshotSeq: durable.stats.snapshotSeq, snapshotLoadMs: Math.round(durable.stats.snapshotLoadMs), replayed, replayMs: Math.round(replayMs), perSecond: replayMs > 0 ? Math.round((replayed * 1000) / replayMs) : undefined },
    'state recovered',
  );

  // The port before anything is written (the market's own users, the configured ones, a
  // snapshot): a start that cannot listen leaves the data directory as it found it.
  let started: { url: string };
  try {
    await server.listen();
  } catch (e) {
    logger.error({ err: e instanceof Error ? e.message : String(e) }, 'could not start the exchange');
    await server.stop().catch(() => undefined);
    const msg = e instanceof Error ? e.message : String(e);
    const hint = /EADDRINUSE/.test(msg) ? `; another process uses port ${config.port}: pick another with --port <n>, or --port 0 for a free one (the listening line prints it)` : '';
    process.stderr.write(`perpkit exchange: cannot listen on ${config.host}:${config.port}: ${msg}${hint}\n`);
    return 1;
  }
  try {
    await market.init();
  } catch (e) {
    process.stderr.write(`perpkit exchange: --market ${config.market}: ${e instanceof Error ? e.message : String(e)}\n`);
    await server.stop().catch(() => undefined);
    return 2;
  }
  try {
    started = await server.start();
  } catch (e) {
    await server.stop().catch(() => undefined);
    if (e instanceof ConfigError) {
      process.stderr.write(`perpkit exchange: ${e.message}\n`);
      return 2;
    }
    logger.error({ err: e instanceof Error ? e.message : String(e) }, 'could not start the exchange');
    process.stderr.write(`perpkit exchange: could not start: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  // A long tail makes the next start slow too: fold it into a snapshot now.
  if (config.snapshotEvery > 0 && replayed >= config.snapshotEvery) await durable.snapshot();
  logger.info({ url: started.url, page: `${started.url}${EXCHANGE_PAGE_PATH}`, market: config.market, dataDir: config.dataDir, startupMs: Math.round(performance.now() - t0) }, 'exchange started');
  // The signal handlers before the listening line: a SIGTERM sent the moment it is read ended the
  // process without a clean stop (the lock and the final snapshot left behind).
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopping) {
        // A second signal while draining: the operator insists.
        logger.warn({ signal: sig }, 'second signal, exiting without a clean stop');
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal: sig }, 'stopping');
      server.stop().then(
        () => {
          logger.info('stopped cleanly');
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          resolve(0);
        },
        (e: unknown) => {
          logger.error({ err: e instanceof Error ? e.message : String(e) }, 'stop failed');
          resolve(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  process.stdout.write(`listening on ${started.url}\n`);
  return stopped;
}
