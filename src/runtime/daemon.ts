/**
 * Runs one bot as a long-lived process: connect, reconcile, trade; serve /healthz, /metrics,
 * /status and POST /kill; save state periodically; stop gracefully on SIGINT/SIGTERM (strategies
 * stop, their orders are cancelled when the config says so, state is flushed) within a bound;
 * SIGUSR2 is the kill switch.
 *
 * The daemon takes an already validated config and, for tests and the demo, an injected venue;
 * otherwise it signs in to the configured venue itself. Signals are installed by the caller
 * (`installSignalHandlers`), so a test can run several daemons in one process.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SystemClock, SystemScheduler, type Clock, type Scheduler } from '../core/clock';
import { errMessage } from '../core/errors';
import type { Bot, StrategySlot } from '../bot/bot';
import type { LeftOnStop } from '../bot/stop';
import type { StrategyAction, StrategyActionResult } from '../bot/strategy/controls';
import type { Venue } from '../bot/venue/venue';
import type { PerpClient } from '../client';
import * as path from 'node:path';
import { resolveCredentials, resolveDashboardToken, resolveKillToken, resolveNotifyTargets, type BotConfig } from './config';
import { sameToken } from './dashboard/auth';
import { createDashboard } from './dashboard/dashboard';
import type { DashboardServer } from './dashboard/server';
import { Notifier } from './notify';
import { BotMetrics } from './metrics';
import { StateFileLock } from './state-lock';
import { StaleMarketData } from './stale-market-data';
import { FileStateStore } from './state-store';
import { StatusTracker, type BotStatus } from './status';
import { loadStrategySlots } from './strategy-loader';
import { connectLiveVenue, settingsFromConfig, wireBot } from './wiring';
import { LiveVenue } from '../bot/venue/live-venue';
import { VENUE_UNREACHABLE_MS, VenueReachability } from './venue-reachability';
import { componentLogger } from '../core/log';

export interface DaemonOptions {
  config: BotConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Inject a venue (paper trading, tests); by default the live venue of the config. */
  venue?: Venue;
  /** Strategy slots already loaded; by default loaded from the config. */
  strategies?: StrategySlot[];
  clock?: Clock;
  scheduler?: Scheduler;
  /** Process metrics (event loop, memory) on /metrics; default true. */
  defaultMetrics?: boolean;
  /** Where the dashboard's built page is (default: dist/web/dashboard of the package). */
  dashboardAssetsDir?: string;
  /**
   * How long every venue call must fail before /healthz says the venue is unreachable; default
   * `notify.venueUnreachableMs`, else 30 s.
   */
  venueUnreachableMs?: number;
  /** How long the public stream may be down before /healthz says the market data is stale; default 10 s. */
  publicStreamDownMs?: number;
  /** Start without the kill switch an earlier run saved in the state file (`perpkit run --clear-kill`). */
  clearKill?: boolean;
}

/** Default of DaemonOptions.publicStreamDownMs. */
const PUBLIC_STREAM_DOWN_MS = 10_000;

export type DaemonPhase = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

/** A stop was asked for while the daemon was starting: the start ends at its next step (not an error). */
class StoppedWhileStarting extends Error {
  constructor() {
    super('stopped while starting');
    this.name = 'StoppedWhileStarting';
  }
}

/** What `p` settles to, or 'timeout' when it has not in `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const first = await Promise.race([p, timeout]);
  if (timer) clearTimeout(timer);
  return first;
}

/** The most a stop waits beyond stopTimeoutMs for a venue that throttles the account (see doStop). */
const MAX_THROTTLE_WAIT_MS = 60_000;

export class BotDaemon {
  readonly metrics: BotMetrics;
  private readonly log: Logger;
  private readonly config: BotConfig;
  private readonly env: NodeJS.ProcessEnv;
  private phase: DaemonPhase = 'idle';
  private botRef: Bot | undefined;
  private statusRef: StatusTracker | undefined;
  private client: PerpClient | undefined;
  private server: http.Server | undefined;
  private saveTimer: NodeJS.Timeout | undefined;
  private staleTimer: NodeJS.Timeout | undefined;
  /** Symbols whose market data went stale (marketDataStaleMs): /healthz and the log. */
  private staleWatch: StaleMarketData | undefined;
  private stopPromise: Promise<number> | undefined;
  /** The start under way (or done); a stop during it waits for it. */
  private starting: Promise<void> | undefined;
  /** One bot per state file (state-lock.ts): taken before the bot starts, given up when it stops. */
  private stateLock: StateFileLock | undefined;
  private killToken: string | undefined;
  private url: string | undefined;
  private reachability: VenueReachability | undefined;
  private clockRef: Clock | undefined;
  /** The dashboard, when the config has `http.dashboard`. */
  dashboard: DashboardServer | undefined;

  constructor(private readonly opts: DaemonOptions) {
    this.config = opts.config;
    this.log = opts.logger;
    this.env = opts.env ?? process.env;
    this.metrics = new BotMetrics({ defaultMetrics: opts.defaultMetrics ?? true });
  }

  get bot(): Bot {
    if (!this.botRef) throw new Error('the daemon has not started a bot yet');
    return this.botRef;
  }

  get state(): DaemonPhase {
    return this.phase;
  }

  /** The bot's stop gave up at stopTimeoutMs: its venue calls may still be under way. */
  get stopTimedOut(): boolean {
    return this.timedOut;
  }
  private timedOut = false;
  /** The time the last stop allowed the bot, ms: stopTimeoutMs, and more while the venue throttled the account. */
  stopWaitedMs = 0;

  /** URL of the health/metrics server, once listening. */
  get httpUrl(): string | undefined {
    return this.url;
  }

  status(): BotStatus & { phase: DaemonPhase } {
    if (!this.statusRef) throw new Error('the daemon has not started a bot yet');
    return { phase: this.phase, ...this.statusRef.snapshot() };
  }

  /**
   * Connects, starts the bot (reconciling first), then the HTTP server and periodic saves. A stop
   * asked for meanwhile (a SIGTERM a moment after the start) ends the start at its next step, or
   * waits for the bot to be up and stops it: start() then resolves, and stop() says how it went.
   */
  start(): Promise<void> {
    if (this.phase !== 'idle') return Promise.reject(new Error(`daemon already ${this.phase}`));
    this.phase = 'starting';
    this.starting = this.doStart().catch((e: unknown) => {
      if (!(e instanceof StoppedWhileStarting)) throw e;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const c = this.config;
    this.killToken = resolveKillToken(c, this.env);
    const dashboardToken = resolveDashboardToken(c, this.env);
    const strategies = this.opts.strategies ?? loadStrategySlots(c);
    const clock = this.opts.clock ?? new SystemClock();
    // The port first: a start that cannot listen (a second instance of this config) fails before it
    // signs in, so it never adopts, then cancels, the running bot's orders. Until the bot is up the
    // server answers 503 (phase starting).
    if (c.http) await this.listen(c.http.host, c.http.port);
    try {
      await this.startBot(dashboardToken, strategies, clock);
    } catch (e) {
      // Whatever failed, the port is given back (stop() closes it too when the bot had started).
      await this.closeServer();
      throw e;
    }
  }

  private async startBot(dashboardToken: string | undefined, strategies: StrategySlot[], clock: Clock): Promise<void> {
    const c = this.config;
    let venue = this.opts.venue;
    if (!venue) {
      const creds = resolveCredentials(c, this.env);
      this.log.info({ baseUrl: c.venue.baseUrl, auth: c.venue.auth.kind }, 'connecting to the venue');
      const live = await connectLiveVenue(c, creds, this.log, clock);
      this.client = live.client;
      venue = live.venue;
      this.stopIfAsked('signed in');
    }
    const store = c.stateFile ? new FileStateStore(c.stateFile) : undefined;
    if (store && this.opts.venue === undefined && venue instanceof LiveVenue) {
      // The listenKey of the last run, reused while the venue still knows it: a bot that crashed
      // and restarted (systemd) would otherwise add a key each time, and a venue caps them.
      const live = venue;
      live.resumeListenKey = (await store.read())?.listenKey;
      store.trackListenKey(() => live.listenKey);
    }
    const notifier = c.notify === undefined ? undefined : new Notifier({ ...c.notify, targets: resolveNotifyTargets(c, this.env), botName: path.basename(c.file).replace(/\.ya?ml$/, '') }, componentLogger(this.log, 'notify'));
    this.notifier = notifier;
    const reachability = new VenueReachability(clock, this.opts.venueUnreachableMs ?? c.notify?.venueUnreachableMs ?? VENUE_UNREACHABLE_MS);
    this.reachability = reachability;
    const wired = wireBot({ ...settingsFromConfig(c, strategies), clearKill: this.opts.clearKill === true }, {
      venue,
      clock,
      scheduler: this.opts.scheduler ?? new SystemScheduler(),
      logger: componentLogger(this.log, 'bot'),
      observeVenueCall: (method, seconds, ok, error) => {
        this.metrics.observeVenueCall(method, seconds, ok);
        reachability.observe(method, ok, error);
        notifier?.observeVenueCall(ok);
      },
      ...(store ? { store } : {}),
    });
    const bot = wired.bot;
    this.botRef = bot;
    const status = new StatusTracker(bot);
    this.statusRef = status;
    this.metrics.attach(bot, status);
    if (c.http?.dashboard) {
      this.dashboard = createDashboard({
        bot,
        status,
        strategies,
        clock,
        log: componentLogger(this.log, 'dashboard'),
        token: dashboardToken,
        name: c.file === '' ? 'bot' : path.basename(c.file).replace(/\.ya?ml$/, ''),
        venue: c.venue.baseUrl,
        phase: () => this.phase,
        kill: (reason) => this.kill(reason),
        control: (id, action, reason) => this.control(id, action, reason),
        ...(this.opts.dashboardAssetsDir === undefined ? {} : { assetsDir: this.opts.dashboardAssetsDir }),
      });
    }
    if (notifier) {
      notifier.watch(bot);
      this.metrics.attachNotifier(notifier.stats);
    }
    bot.bus.subscribe('riskState', (e) => this.log.warn({ state: e.state, reason: e.reason }, 'trading state changed'));
    // A stream lost is what an operator looks for (the bot is blind to fills or market data until it is back): warn; back: info.
    bot.bus.subscribe('stream', (e) => (e.status === 'connected' || e.status === 'reconnected' ? this.log.info : this.log.warn).call(this.log, { stream: e.stream, status: e.status, detail: e.detail }, 'stream status'));
    this.clockRef = clock;
    bot.bus.subscribe('reconciled', (e) => {
      if (e.revived === undefined) this.log.info({ reason: e.reason, adopted: e.adopted, corrected: e.corrected }, 'reconciled with the venue');
      else this.log.warn({ reason: e.reason, adopted: e.adopted, corrected: e.corrected, revived: e.revived, cancelled: e.cancelled }, 'reconciled with the venue: orders the bot had seen end were working at the venue again (restored from an older state?), and were cancelled');
    });

    if (c.stateFile !== undefined) {
      // Before anything is sent: a second bot must not adopt, amend or cancel the first one's orders.
      const lock = new StateFileLock(c.stateFile);
      const got = await lock.acquire(clock.now());
      this.stateLock = lock;
      if (!got.held) this.log.warn({ stateFile: c.stateFile, lockFile: lock.file, err: got.why }, 'the state file could not be locked: nothing stops a second bot from using it');
      else if (got.tookOverFrom !== undefined) {
        // An unreadable lock: its bot died while writing it, so a pid of 0 would only mislead.
        const t = got.tookOverFrom;
        const who = t === 'unreadable' ? 'an unreadable lock' : `pid ${t.pid}`;
        this.log.warn({ stateFile: c.stateFile, ...(t === 'unreadable' ? {} : { pid: t.pid, host: t.host, since: t.since }) }, `the state file's lock was left by a bot that is no longer running (${who}): the last run did not stop cleanly; taken over`);
      }
    }
    this.stopIfAsked('took the state file lock');
    try {
      const { restoredOrders, keptKill, clearedKill } = await wired.start();
      if (keptKill !== undefined) {
        this.log.warn(
          { reason: keptKill.reason, at: new Date(keptKill.at).toISOString(), stateFile: c.stateFile },
          'trading is HALTED: the kill switch pulled in an earlier run is kept across restarts (state file); every order was cancelled again. To trade again: stop the bot and start it with perpkit run --clear-kill',
        );
      }
      if (clearedKill !== undefined) this.log.warn({ reason: clearedKill.reason, at: new Date(clearedKill.at).toISOString() }, 'the kill switch pulled in an earlier run is cleared (--clear-kill): trading resumes');
      // Started, but a stop was asked for meanwhile: it stops the bot now; no timers, no 'running'.
      if (this.stopPromise !== undefined) return;
      status.running = true;
      status.pnl(); // the PnL baseline: equity as the bot found it
      this.logDashboard();
      this.warnPaused(bot, c);
      if (store) {
        // At once: the listenKey just made must be on disk if the process dies before the first
        // periodic save.
        await this.saveState('state save after start failed');
        this.saveTimer = setInterval(() => void this.saveState('periodic state save failed'), c.stateSaveMs);
        this.saveTimer.unref();
      }
      if (c.marketDataStaleMs > 0) {
        const watch = new StaleMarketData(bot, clock, c.marketDataStaleMs, this.log);
        this.staleWatch = watch;
        this.staleTimer = setInterval(() => this.phase === 'running' && watch.check(), Math.min(1000, c.marketDataStaleMs));
        this.staleTimer.unref();
      }
      this.phase = 'running';
      // Said once everything is up (health answers 'ok' from here): the state file written too.
      this.log.info({ strategies: strategies.map((s) => ({ id: s.id, strategy: s.definition.name })), restoredOrders, state: bot.risk.state }, 'bot started');
    } catch (e) {
      // A stop asked for during the start stops what the start had made (it waits for this).
      if (this.stopPromise !== undefined) throw e;
      this.phase = 'running';
      await this.stop('start failed').catch(() => undefined);
      throw e;
    }
  }

  /** Ends the start at this step when a stop was asked for meanwhile (nothing more is signed in, adopted or sent). */
  private stopIfAsked(step: string): void {
    if (this.stopPromise === undefined) return;
    this.log.info({ step }, 'a stop was asked for while starting: the start ends here');
    throw new StoppedWhileStarting();
  }

  /**
   * Strategies that start paused (an operator paused them before the restart; the state file kept
   * it): one warn line each, saying how to resume, since nothing else tells the operator who finds
   * a quiet bot after a restart why it does not trade.
   */
  private warnPaused(bot: Bot, c: BotConfig): void {
    for (const h of bot.strategyHealth()) {
      if (h.paused === undefined || h.stopped !== undefined) continue;
      const how =
        this.dashboard !== undefined && this.url !== undefined
          ? `resume it on the dashboard (${this.url}/, Resume) or with POST ${this.url}/api/strategies/${h.id}/resume`
          : `this config serves no dashboard to resume it from: add http.dashboard (docs/running.md, "Dashboard") and press Resume, or stop the bot and delete "${h.id}" under "paused" in ${c.stateFile ?? 'the state file'}`;
      this.log.warn({ strategy: h.id, pausedBy: h.paused, stateFile: c.stateFile }, `strategy ${h.id} is paused (restored from the state file): only its cancels go out until it is resumed; ${how}`);
    }
  }

  /** Pauses, resumes or cancels the orders of one strategy (the dashboard's buttons); a pause or resume is saved at once. */
  async control(strategyId: string, action: StrategyAction, reason: string): Promise<StrategyActionResult> {
    const r = await this.bot.control(strategyId, action, reason);
    // On disk before the answer: a crash a second later must not lose the pause (a restart would trade again).
    if (action !== 'cancelOrders' && this.config.stateFile) await this.saveState(`state save after ${action} failed`);
    return r;
  }

  /** Kill switch: HALTED, every order cancelled. The bot keeps running (watching, not trading). */
  async kill(reason: string): Promise<void> {
    const bot = this.bot;
    this.log.warn({ reason }, 'kill switch: halting and cancelling every order');
    await bot.kill(reason);
    await this.saveState('state save after kill failed');
  }

  /** Why the last save of the state file failed; undefined once one succeeds (/healthz says degraded meanwhile). */
  stateSaveError: string | undefined;

  /** Saves the bot's state; a failure is logged at error with `what` and kept for /healthz. */
  private async saveState(what: string): Promise<void> {
    try {
      await this.bot.saveState();
      this.stateSaveError = undefined;
    } catch (e) {
      this.stateSaveError = errMessage(e);
      this.log.error({ err: this.stateSaveError }, what);
    }
  }

  /**
   * Graceful stop, bounded by `stopTimeoutMs`: strategies stop (their onStop intents and, with
   * cancelOnStop, a cancel of their orders are sent), state is saved, streams close. Resolves
   * with the exit code: 0 when everything finished in time, 1 otherwise.
   */
  /** Alerts to a human, when the config has a notify section. */
  notifier: Notifier | undefined;

  /** What the last stop left on the venue (logged as `left on the venue at stop`). */
  leftAtStop: LeftOnStop | undefined;

  /** Why the last stop failed (it finished in time, with an error). */
  stopError: string | undefined;

  stop(reason: string): Promise<number> {
    this.stopPromise ??= this.doStop(reason);
    return this.stopPromise;
  }

  private async doStop(reason: string): Promise<number> {
    const starting = this.phase === 'starting' ? this.starting : undefined;
    this.phase = 'stopping';
    this.log.info({ reason, cancelOnStop: this.config.cancelOnStop }, 'stopping');
    if (starting !== undefined) {
      // The start ends at its next step (or the bot it started is stopped below); within stopTimeoutMs.
      const ended = await within(
        starting.then(
          () => 'ended',
          () => 'ended',
        ),
        this.config.stopTimeoutMs,
      );
      if (ended === 'timeout') {
        this.timedOut = true;
        this.stopWaitedMs = this.config.stopTimeoutMs;
        this.log.error({ stopTimeoutMs: this.config.stopTimeoutMs }, 'the start did not end in time for the stop; orders may be open');
      }
    }
    if (this.saveTimer) clearInterval(this.saveTimer);
    if (this.staleTimer) clearInterval(this.staleTimer);
    let code = this.timedOut ? 1 : 0;
    const bot = this.botRef;
    if (bot) {
      if (this.statusRef) this.statusRef.running = false;
      const stopped = bot.stop().then(
        (left) => {
          this.leftAtStop = left;
          return left.stateNotSaved === undefined ? ('ok' as const) : new Error(`the state could not be saved: ${left.stateNotSaved}`);
        },
        (e: unknown) => e,
      );
      let outcome = await within(stopped, this.config.stopTimeoutMs);
      // Out of time while the venue throttles the account (a 429's Retry-After): the cancels are
      // waiting for it, and they go out first once it lifts. Wait for that, and then as long again
      // as a stop may take, rather than leave the orders behind; at most MAX_THROTTLE_WAIT_MS more.
      let waitedExtra = 0;
      while (outcome === 'timeout') {
        const throttled = bot.venueThrottledMs;
        if (throttled <= 0 || waitedExtra + throttled > MAX_THROTTLE_WAIT_MS) break;
        waitedExtra += throttled + this.config.stopTimeoutMs;
        this.log.warn({ throttledMs: throttled, stopTimeoutMs: this.config.stopTimeoutMs }, 'the venue throttles this account: the stop waits for it to take the cancels');
        outcome = await within(stopped, throttled + this.config.stopTimeoutMs);
      }
      this.stopWaitedMs = this.config.stopTimeoutMs + waitedExtra;
      if (outcome === 'timeout') {
        code = 1;
        this.timedOut = true;
        this.log.error({ stopTimeoutMs: this.config.stopTimeoutMs, waitedMs: this.stopWaitedMs }, 'the bot did not stop in time; orders may still be open');
      } else if (outcome !== 'ok') {
        code = 1;
        this.stopError = errMessage(outcome);
        this.log.error({ err: this.stopError }, 'the bot failed to stop cleanly');
      }
    }
    if (this.notifier) {
      // The last alerts (the stop's own risk changes) get a bounded chance to go out.
      this.notifier.close();
      await Promise.race([this.notifier.idle(), new Promise((r) => setTimeout(r, 3000).unref())]);
    }
    // A pool's close waits for its requests: after a stop that gave up, that is the very wait the
    // timeout was for (a hung cancel would hold the stop for the request timeout and its retries).
    const closing = this.client?.close().catch(() => undefined);
    if (!this.timedOut) await closing;
    this.dashboard?.close();
    await this.closeServer();
    await this.stateLock?.release().catch((e: unknown) => this.log.warn({ err: errMessage(e) }, 'the state file lock could not be removed'));
    this.phase = 'stopped';
    // After a failed start the process fails whatever the stop did: do not say "cleanly" before the fatal line.
    if (reason === 'start failed') this.log.info('stopped after a failed start');
    else this.log.info({ code }, code === 0 ? 'stopped cleanly' : 'stopped with errors');
    return code;
  }

  // ------------------------------------------------------------------ HTTP: health, metrics, kill

  private async listen(host: string, port: number): Promise<void> {
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        this.log.error({ err: errMessage(e), path: req.url }, 'health server request failed');
        if (!res.headersSent) this.json(res, 500, { error: 'internal error' });
      });
    });
    // Scrapers keep connections open; they must not hold the stop up.
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const a = server.address() as AddressInfo;
    this.url = `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
    this.log.info({ url: this.url }, 'health and metrics server listening');
  }

  private logDashboard(): void {
    if (!this.dashboard || this.url === undefined) return;
    // `token` only when the dashboard has one, and never its value: the logger shows it as
    // [redacted] (a secret's name), which says a token is needed without saying which.
    const tokenEnv = this.config.http?.dashboard?.tokenEnv;
    this.log.info({ url: `${this.url}/`, ...(tokenEnv === undefined ? {} : { token: true }) }, 'dashboard served');
  }

  private closeServer(): Promise<void> {
    const s = this.server;
    if (!s) return Promise.resolve();
    return new Promise((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(text);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${req.method ?? 'GET'} ${url.pathname}`;
    req.resume(); // bodies are not used; drain them so the connection can be reused
    if (this.botRef === undefined) {
      // Listening before the bot is up (start): nothing to show or act on yet.
      this.json(res, 503, { status: 'unhealthy', phase: this.phase, reasons: [`phase ${this.phase}`] });
      return;
    }
    if (this.dashboard && (await this.dashboard.handle(req, res, url))) return;
    switch (route) {
      case 'GET /healthz': {
        const s = this.statusRef?.snapshot();
        // Every venue call failing for a while: the stream may still be up, but the bot can
        // neither place, cancel nor reconcile.
        const failing = this.reachability?.failing();
        const healthy = this.phase === 'running' && s !== undefined && s.running && s.privateStream === 'connected' && failing === undefined;
        // Up and connected, but not everything works: a strategy stopped for its errors, errors
        // of one (throws, refused intents), or exceptions of the bot's own pipeline (a bug). 200,
        // so the process is not restarted for it; the reasons say why.
        // Unhealthy: what is down comes first (starting, stopping, the private stream).
        const down = [
          ...(this.phase !== 'running' ? [`phase ${this.phase}`] : []),
          ...(s !== undefined && !s.running ? ['the bot is not running'] : []),
          ...(s !== undefined && s.privateStream !== 'connected' ? [this.statusRef?.privateStreamReason ?? `private stream ${s.privateStream}`] : []),
          ...(failing !== undefined ? [`venue unreachable: every call has failed for ${Math.round(failing.forMs / 1000)} s (${failing.failures} calls; last: ${failing.lastMethod}: ${failing.lastError})`] : []),
        ];
        const health = this.bot.strategyHealth();
        const reasons = [...down, ...health.flatMap((h) => [
          ...(h.stopped !== undefined ? [`strategy ${h.id} stopped: ${h.stopped}`] : h.errors > 0 ? [`strategy ${h.id} threw ${h.errors} times; last: ${h.lastError ?? ''}`] : []),
          // A strategy that said it stopped trading for good (ctx.halt): the process works, the strategy does not trade.
          ...(h.halted !== undefined ? [`strategy ${h.id} halted: ${h.halted}`] : []),
          // Every order it asked for denied (a quantity the grid rounds to nothing): it trades nothing.
          ...(h.blocked !== undefined ? [`strategy ${h.id} trades nothing: ${h.blocked}`] : []),
        ])];
        // Without the public stream the strategies see no marks, trades or book: a market maker's
        // quotes stay where the market was. The process works (orders can be cancelled): degraded.
        const downSince = this.statusRef?.publicDownSince;
        const publicDownMs = downSince === undefined || this.clockRef === undefined ? 0 : this.clockRef.now() - downSince;
        if (publicDownMs >= (this.opts.publicStreamDownMs ?? PUBLIC_STREAM_DOWN_MS)) reasons.push(`public stream disconnected for ${Math.round(publicDownMs / 1000)} s: marks, trades and book are stale`);
        // Connected, yet nothing comes for a symbol (a replay at its end, a silent stream): degraded too.
        for (const x of this.staleWatch?.stale() ?? []) reasons.push(`no market data for ${x.symbol} for ${Math.round(x.forMs / 1000)} s (marketDataStaleMs ${this.config.marketDataStaleMs}): marks, trades and book are stale`);
        if (this.stateSaveError !== undefined) reasons.push(`the state file is not being saved: ${this.stateSaveError}`);
        if (this.bot.stats.pipelineErrors > 0) reasons.push(`the bot's own pipeline threw ${this.bot.stats.pipelineErrors} times; last: ${this.bot.lastPipelineError ?? ''}`);
        const status = !healthy ? 'unhealthy' : reasons.length > 0 ? 'degraded' : 'ok';
        // Paused by an operator is healthy (as HALTED is), but a probe can see it: strategy id -> why.
        const paused = Object.fromEntries(health.flatMap((h) => (h.paused !== undefined ? [[h.id, h.paused]] : [])));
        this.json(res, healthy ? 200 : 503, { status, phase: this.phase, privateStream: s?.privateStream ?? 'unknown', state: s?.state, reasons, ...(Object.keys(paused).length > 0 ? { paused } : {}) });
        return;
      }
      case 'GET /metrics': {
        const text = await this.metrics.metrics();
        res.writeHead(200, { 'content-type': this.metrics.contentType });
        res.end(text);
        return;
      }
      case 'GET /status':
        this.json(res, 200, this.status());
        return;
      case 'POST /kill': {
        if (this.killToken !== undefined) {
          const auth = req.headers.authorization ?? '';
          const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
          if (!sameToken(given, this.killToken)) {
            this.log.warn({ remote: req.socket.remoteAddress }, 'kill request refused: wrong or missing token');
            this.json(res, 401, { error: 'a valid token is required: Authorization: Bearer <token from the killTokenEnv variable>' });
            return;
          }
        }
        if (this.phase !== 'running') {
          this.json(res, 409, { error: `the bot is ${this.phase}` });
          return;
        }
        await this.kill(`HTTP POST /kill from ${req.socket.remoteAddress ?? 'unknown'}`);
        this.json(res, 200, { state: this.bot.risk.state, openOrders: this.bot.tracker.live().length });
        return;
      }
      default:
        this.json(res, 404, { error: `no route ${route}; routes: GET /healthz, GET /metrics, GET /status, POST /kill${this.dashboard ? ', GET / (dashboard), /api/...' : ''}` });
    }
  }
}
