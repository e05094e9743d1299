/**
 * The HTTP side of the local exchange.
 *
 * node:http (its fast lane reading the plain requests, http/fast-lane.ts) and the endpoint
 * registry, no framework: the registry already holds what a framework
 * would be configured with (route, auth kind, permission, input source, validator), routing is one
 * Map lookup (`findEndpoint`), and owning the pipeline lets us guarantee what the protocol demands
 * of every response (the envelope on 404s and oversized bodies too, raw bytes kept for API-key
 * signatures, no framework-made error pages).
 *
 * Pipeline per request: route (10006) → read body under the size limit → authenticate by the
 * endpoint's auth kind → rate limit → decode JSON / query → validate → handler → envelope.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { SystemClock, type Clock } from '../../core/clock';
import type { EngineEvent } from '../engine/events';
import { ErrorCodes, VenueError, httpStatusOf } from '../../core/errors';
import { ENDPOINTS, findEndpoint, isKnownPath, type AnyEndpoint, type EndpointName } from '../../protocol/endpoints';
import { errorEnvelope, successEnvelope } from '../../protocol/envelope';
import { decoyHash, hashPassword } from './auth/password';
import { Authenticator, checkAdminToken } from './auth/authenticator';
import { JwtSigner } from './auth/jwt';
import type { Principal } from './auth/principal';
import { SessionStore } from './auth/sessions';
import type { ExchangeConfig, ExchangeConfigOverrides } from '../service/config';
import { configFromValue } from '../service/config-file';
import { ConfigError } from '../../core/config-errors';
import { ExchangeCore } from '../service/exchange-core';
import { openDurableCore } from '../service/durable-core';
import { DroppedByFault, FaultSwitches } from './faults';
import { HANDLERS } from './handlers';
import type { Handler, RequestContext, ServerDeps } from './handlers/context';
import { coalesceWrites } from './http/coalesce-writes';
import { parseJsonBody } from './http/json-body';
import { parseQuery, splitTarget } from './http/query';
import { BodyTooLarge, RequestAborted, readBody } from './http/request-body';
import { FastLane, type ApiRequest, type ApiResponse, type FastLaneStats } from './http/fast-lane';
import { sendEnvelope, type RateHeaders } from './http/send';
import { ListenKeyStore } from './listen-keys';
import { loggableUrl, serverLogger } from './logger';
import { MarketDataStore } from '../service/market-data';
import { RateLimiter, type RateDecision } from './rate-limit';
import { WsGateway } from './ws/gateway';
import { marketServices, type MarketServices } from '../market/market-services';

export interface ServerService {
  start(): void;
  stop(): Promise<void> | void;
}

export interface ExchangeServerOptions {
  core: ExchangeCore;
  logger?: Logger;
  services?: ServerService[];
  /** How long stop() waits for in-flight requests before cutting connections. */
  drainTimeoutMs?: number;
  /**
   * A store already fed with the events replayed by `core.recover()`, so recent trades and klines
   * survive a restart; a fresh one otherwise.
   */
  marketData?: MarketDataStore;
  /**
   * Serves a GET outside the API (/v1/...), such as the read-only web page the CLI mounts; returns
   * false to leave the request to the API (which answers unknown paths in the envelope).
   */
  pages?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  /**
   * false: node:http reads every request; by default the plain API requests are read without it
   * (http/fast-lane.ts), some 3x cheaper.
   */
  fastLane?: boolean;
}

const SWEEP_INTERVAL_MS = 1000;
/** Slow or stalled clients are cut off rather than holding a socket forever. */
const REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 30_000;

/** Order requests for the 10 s order limit: every state-changing order endpoint. */
const isOrderRequest = (ep: AnyEndpoint): boolean => ep.group === 'orders' && ep.method !== 'GET';

let requestSeq = 0;
const requestPrefix = randomBytes(4).toString('hex');
// Unique per process start (random prefix) and per request (counter); nothing needs them unguessable.
const newRequestId = (): string => `${requestPrefix}-${(++requestSeq).toString(36)}`;

export class ExchangeServer {
  readonly core: ExchangeCore;
  readonly listenKeys: ListenKeyStore;
  readonly marketData: MarketDataStore;
  readonly httpServer: http.Server;
  readonly ws: WsGateway;
  readonly sessions: SessionStore;
  /** Fault-injection switches (faults.ts); all off unless the config or the admin API turns one on. */
  readonly faults: FaultSwitches;
  private readonly jwt: JwtSigner;
  private readonly auth: Authenticator;
  private readonly rateLimiter: RateLimiter;
  private readonly log: Logger;
  private readonly services: ServerService[];
  private readonly pages: ExchangeServerOptions['pages'];
  private readonly deps: ServerDeps;
  private readonly drainTimeoutMs: number;
  private sweepTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private readonly idleWaiters: Array<() => void> = [];
  private stopping = false;
  private stopPromise: Promise<void> | undefined;
  private started: { host: string; port: number; url: string } | undefined;
  /** Set once the port is bound (`listen()`); `started` once `start()` completed. */
  private bound: { host: string; port: number; url: string } | undefined;
  private readonly onCoreEvents: (events: EngineEvent[]) => void;
  /** Undefined when node:http reads every request (`fastLane: false`). */
  private readonly fastLane: FastLane | undefined;

  /** What the fast lane served and handed to node:http (http/fast-lane.ts); undefined when it is off. */
  get fastLaneStats(): Readonly<FastLaneStats> | undefined {
    return this.fastLane?.stats;
  }

  constructor(opts: ExchangeServerOptions) {
    this.core = opts.core;
    const config = this.core.config;
    const clock = this.core.wallClock;
    this.log = serverLogger(opts.logger);
    this.services = opts.services ?? [];
    this.drainTimeoutMs = opts.drainTimeoutMs ?? 5000;
    this.pages = opts.pages;
    this.listenKeys = new ListenKeyStore(clock, config.listenKey.ttlMs, config.listenKey.maxPerUser);
    this.marketData = opts.marketData ?? new MarketDataStore(config.symbols.map((s) => s.symbol));
    this.onCoreEvents = (events) => {
      this.marketData.onEvents(events);
      logRefusals(this.log, events);
    };
    this.core.emitter.on('events', this.onCoreEvents);
    // Without a configured secret, tokens die with the process, like the in-memory refresh tokens.
    this.jwt = new JwtSigner(config.auth.jwtSecret !== undefined ? Buffer.from(config.auth.jwtSecret, 'utf8') : randomBytes(32));
    this.sessions = new SessionStore(clock, config.auth.refreshTokenTtlMs);
    this.faults = new FaultSwitches(clock, config.seed);
    // recvWindow checks read the server clock through the clock-skew switch (0 when off).
    this.auth = new Authenticator(this.faults.skewed(clock), this.core.accounts, this.jwt);
    this.rateLimiter = new RateLimiter(clock, config.rateLimits);
    this.deps = { core: this.core, listenKeys: this.listenKeys, marketData: this.marketData, sessions: this.sessions, jwt: this.jwt, faults: this.faults };
    this.httpServer = http.createServer({ keepAlive: true, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => {
      if (this.pages !== undefined && req.method === 'GET') {
        const { path } = splitTarget(req.url ?? '/');
        if (!path.startsWith('/v1/') && this.pages(req, res, path)) return;
      }
      void this.handle(req, res, req);
    });
    this.httpServer.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // The plain API requests of a connection are read without node:http (http/fast-lane.ts), which
    // takes the connection at the first request that is not: node:http's own connection listener
    // runs then, and its writes are coalesced per event-loop turn (http/coalesce-writes.ts).
    const [nodeListener, ...others] = this.httpServer.listeners('connection') as Array<(socket: Socket) => void>;
    if (nodeListener !== undefined && others.length === 0 && opts.fastLane !== false) {
      this.httpServer.removeListener('connection', nodeListener);
      const lane = new FastLane({
        serve: (req, res, body) => void this.handle(req, res, body),
        handOff: (socket) => {
          nodeListener.call(this.httpServer, socket);
          coalesceWrites(socket);
        },
        maxBodyBytes: config.limits.bodyBytes,
        keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      });
      this.fastLane = lane;
      this.httpServer.on('connection', (socket: Socket) => lane.accept(socket));
    } else {
      this.httpServer.on('connection', coalesceWrites);
    }
    // A malformed request line or headers: node answers nothing by default, so answer in the envelope.
    this.httpServer.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.onClientError(err, socket));
    // The gateway gets the redacting logger too: without one, upgrade and fan-out failures, slow
    // consumers cut and dead clients were never logged anywhere.
    this.ws = new WsGateway({ core: this.core, listenKeys: this.listenKeys, marketData: this.marketData, httpServer: this.httpServer, config: config.ws, faults: this.faults, logger: serverLogger(opts.logger, 'ws-gateway') });
    this.faults.attach({ ws: this.ws, listenKeys: this.listenKeys });
    for (const f of config.faults) this.faults.set(f);
  }

  /**
   * Binds the port, and nothing else: a start that cannot listen (EADDRINUSE) fails here, before
   * anything is written to the data directory. Requests before `start()` completes are answered
   * BUSY. Safe to call twice.
   */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    if (this.bound) return this.bound;
    const { host, port } = this.core.config;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.httpServer.once('error', onError);
      this.httpServer.listen(port, host, () => {
        this.httpServer.off('error', onError);
        resolve();
      });
    });
    const addr = this.httpServer.address() as AddressInfo;
    const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    this.bound = { host: addr.address, port: addr.port, url: `http://${urlHost}:${addr.port}` };
    return this.bound;
  }

  /** Listens (when `listen()` was not called yet), creates the configured users, starts services and the sweep timer. */
  async start(): Promise<{ host: string; port: number; url: string }> {
    if (this.started) return this.started;
    // Computed now so the first login of an unknown user costs no more than any other.
    void decoyHash();
    const bound = await this.listen();
    await this.createConfiguredUsers();
    this.checkFaultUsers();
    this.started = bound;
    for (const s of this.services) s.start();
    this.sweepTimer = setInterval(() => {
      this.listenKeys.sweep();
      this.sessions.sweep();
      this.rateLimiter.sweep();
    }, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    this.log.info({ url: bound.url }, 'exchange HTTP server listening');
    return bound;
  }

  /**
   * A configured fault for a user the exchange does not have would never fire: refused (a
   * ConfigError), as the admin API refuses the same body.
   */
  private checkFaultUsers(): void {
    const { faults, file } = this.core.config;
    faults.forEach((f, i) => {
      if (f.userId === undefined || this.core.accounts.users.has(f.userId)) return;
      const users = [...this.core.accounts.byUsername.values()].map((u) => `${u.username} ${u.userId}`);
      throw new ConfigError(file ?? '', `faults[${i}].userId`, `the userId of a user of this exchange (${users.length === 0 ? 'it has none' : users.join(', ')})`, `"${f.userId}"`).locate();
    });
  }

  /** Users of the config that the journal does not already hold (a restart must not duplicate them). */
  private async createConfiguredUsers(): Promise<void> {
    for (const u of this.core.config.users) {
      let user = this.core.accounts.byUsername.get(u.username);
      if (!user) {
        const passwordHash = await hashPassword(u.password);
        const userId = this.core.accounts.nextUserId();
        await this.core.execute({ k: 'createUser', userId, username: u.username, passwordHash, balance: u.balance, positionMode: u.positionMode ?? 'ONE_WAY' });
        user = this.core.accounts.byUsername.get(u.username);
      }
      if (!user) continue;
      for (const k of u.apiKeys ?? []) {
        if (this.core.accounts.apiKeys.has(k.apiKey)) continue;
        await this.core.execute({ k: 'createApiKey', userId: user.userId, apiKey: k.apiKey, secret: k.secret, permissions: k.permissions });
      }
    }
  }

  /**
   * Graceful stop: no new connections, in-flight requests get `drainTimeoutMs` to finish, then
   * services, the WebSocket gateway and the core (flushing the journal). Safe to call twice.
   * After a start that did not complete, the core is closed without its final snapshot: a failed
   * start writes nothing more into the data directory.
   */
  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const closed = new Promise<void>((resolve) => {
      if (!this.httpServer.listening) return resolve();
      this.httpServer.close(() => resolve());
    });
    this.httpServer.closeIdleConnections();
    this.fastLane?.closeIdle();
    await this.waitIdle(this.drainTimeoutMs);
    this.httpServer.closeAllConnections();
    this.fastLane?.closeAll();
    for (const s of this.services) {
      try {
        await s.stop();
      } catch (err) {
        this.log.error({ err }, 'service failed to stop');
      }
    }
    this.faults.close();
    await this.ws.close();
    await closed;
    this.core.emitter.off('events', this.onCoreEvents);
    await this.core.close({ final: this.started !== undefined });
    this.log.info('exchange HTTP server stopped');
  }

  private waitIdle(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    // Say which rule: a request line and headers over node's limit (a 100 KB query) is not "malformed".
    const message = err.code === 'HPE_HEADER_OVERFLOW' ? `request line and headers over ${http.maxHeaderSize} bytes (a query string that long: send fewer or shorter parameters)` : `malformed HTTP request${err.code !== undefined ? ` (${err.code})` : ''}`;
    const json = JSON.stringify(errorEnvelope({ code: ErrorCodes.INVALID_PARAMETER, message }, requestId));
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${json}`);
  }

  // ---------------------------------------------------------------- the pipeline

  /** `body`: the bytes when the fast lane read them, else the request to read them from. */
  private async handle(req: ApiRequest, res: ApiResponse, body: Buffer | IncomingMessage): Promise<void> {
    const requestId = newRequestId();
    // Only the debug record reads it.
    const started = this.log.isLevelEnabled('debug') ? process.hrtime.bigint() : 0n;
    const method = req.method ?? 'GET';
    const { path, rawQuery } = splitTarget(req.url ?? '/');
    this.inFlight++;
    let principal: Principal | undefined;
    let endpointName: EndpointName | undefined;
    let rate: RateHeaders | undefined;
    let code: number = ErrorCodes.SUCCESS;
    try {
      if (this.stopping) {
        res.setHeader('Connection', 'close');
        throw new VenueError(ErrorCodes.BUSY, 'server is shutting down; retry against another instance or later');
      }
      if (this.started === undefined) throw new VenueError(ErrorCodes.BUSY, 'server is starting; retry in a moment');
      endpointName = this.route(method, path);
      const ep: AnyEndpoint = ENDPOINTS[endpointName];
      let rawBody: Buffer;
      try {
        rawBody = Buffer.isBuffer(body) ? body : await readBody(body, this.core.config.limits.bodyBytes);
      } catch (err) {
        // The rest of the body is never read: close the connection after answering.
        if (err instanceof BodyTooLarge) res.setHeader('Connection', 'close');
        throw err;
      }
      principal = this.authenticate(ep, req, method, path, rawQuery, rawBody);
      // Fault injection (faults.ts): one boolean when no switch is on; never on the admin API.
      const dropAnswer = this.faults.httpActive && ep.group !== 'admin' && (await this.faults.beforeHandler(principal?.userId, method, path, (n, v) => res.setHeader(n, v)));
      if (principal) {
        rate = this.applyRateLimit(principal.userId, ep, res);
        this.checkPermission(ep, principal);
      }
      const input = this.decodeInput(ep, req, method, rawQuery, rawBody);
      const request: unknown = ep.validate(input);
      const ctx: RequestContext = {
        deps: this.deps,
        principal,
        ip: req.socket.remoteAddress ?? '',
        headers: req.headers,
        setCookie: (v) => res.appendHeader('Set-Cookie', v),
      };
      // The registry and the handler map are keyed alike; the name ties request and handler types.
      const handler = HANDLERS[endpointName] as Handler<EndpointName>;
      const data = await handler(ctx, request as never);
      if (dropAnswer) throw new DroppedByFault(true);
      sendEnvelope(res, 200, successEnvelope(data, requestId), rate);
    } catch (err) {
      code = this.answerError(err, res, requestId, method, path, rate);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
      // Built only when it is written: the record (and the loggable URL) cost a little per request.
      if (this.log.isLevelEnabled('debug')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        this.log.debug({ requestId, method, url: loggableUrl(path, rawQuery), endpoint: endpointName, userId: principal?.userId, via: principal?.via, code, status: res.statusCode, ms }, 'request');
      }
    }
  }

  private route(method: string, path: string): EndpointName {
    const name = findEndpoint(method, path);
    if (name === undefined) {
      const why = isKnownPath(path) ? ` (${path} exists but does not take ${method})` : '';
      throw new VenueError(ErrorCodes.NO_SUCH_ENDPOINT, `no such endpoint: ${method} ${path.slice(0, 200)}${why}`);
    }
    // Without a configured token the admin API does not exist (PROTOCOL.md section 7).
    if (ENDPOINTS[name].auth === 'admin' && this.core.config.adminToken === undefined) {
      throw new VenueError(ErrorCodes.NO_SUCH_ENDPOINT, `no such endpoint: ${method} ${path} (the admin API is off: no admin token configured)`);
    }
    return name;
  }

  private authenticate(ep: AnyEndpoint, req: ApiRequest, method: string, path: string, rawQuery: string, rawBody: Buffer): Principal | undefined {
    switch (ep.auth) {
      case 'none':
        return undefined;
      case 'admin':
        checkAdminToken(this.core.config.adminToken ?? '', req.headers);
        return undefined;
      case 'optional':
        if (!Authenticator.hasCredentials(req.headers)) return undefined;
        break;
      case 'private':
        break;
    }
    let p: Principal;
    try {
      p = this.auth.authenticate({ method, path, rawQuery, rawBody, headers: req.headers }, req.socket);
    } catch (err) {
      // A public endpoint answers a caller its credentials do not authenticate (an expired token
      // above all, which a page signed in long ago keeps sending) as it answers one without any:
      // anonymously (SERVICE_SPEC: the leaderboard's myRank is 0 for an unauthenticated caller).
      if (ep.auth === 'optional' && err instanceof VenueError) return undefined;
      throw err;
    }
    return p;
  }

  /** After the rate limit (a refused request of a known user counts, and its answer carries the X-RateLimit-* headers). */
  private checkPermission(ep: AnyEndpoint, p: Principal): void {
    if (ep.permission !== undefined && !p.permissions.has(ep.permission)) {
      throw new VenueError(ErrorCodes.PERMISSION_DENIED, `this API key lacks the ${ep.permission} permission that ${ep.method} ${ep.path} needs`);
    }
  }

  /** The counters for the X-RateLimit-* headers (sendEnvelope writes them), or throws 40001 with them set. */
  private applyRateLimit(userId: string, ep: AnyEndpoint, res: ApiResponse): RateHeaders {
    const d: RateDecision = this.rateLimiter.take(userId, isOrderRequest(ep));
    if (!d.allowed) {
      res.setHeader('X-RateLimit-Limit', String(d.limit));
      res.setHeader('X-RateLimit-Remaining', String(d.remaining));
      if (d.orders) {
        res.setHeader('X-RateLimit-Order-Limit', String(d.orders.limit));
        res.setHeader('X-RateLimit-Order-Remaining', String(d.orders.remaining));
      }
      res.setHeader('Retry-After', String(d.retryAfterSec));
      throw new VenueError(ErrorCodes.RATE_LIMITED, `${rateLimitWhich(d)}; retry after ${d.retryAfterSec} s`);
    }
    return d;
  }

  /**
   * The validator's input: the JSON body for body endpoints, the query record for query endpoints.
   * Input in the place an endpoint does not read it from is refused, not ignored.
   */
  private decodeInput(ep: AnyEndpoint, req: ApiRequest, method: string, rawQuery: string, rawBody: Buffer): unknown {
    const bodyEndpoint = ep.input === 'body' || (ep.input === 'none' && method !== 'GET');
    if (bodyEndpoint) {
      // Nearly every body request has no query string: nothing to parse then.
      const extra = rawQuery.length === 0 ? [] : Object.keys(parseQuery(rawQuery));
      if (extra.length > 0) throw new VenueError(ErrorCodes.INVALID_PARAMETER, `unknown query parameter '${extra[0]}'; ${ep.method} ${ep.path} takes its input in the JSON body`, extra[0]);
      return parseJsonBody(rawBody, req.headers['content-type']);
    }
    const query = parseQuery(rawQuery);
    if (rawBody.length > 0) throw new VenueError(ErrorCodes.INVALID_PARAMETER, `${ep.method} ${ep.path} takes no request body; send parameters in the query string`, 'body');
    return query;
  }

  private answerError(err: unknown, res: ApiResponse, requestId: string, method: string, path: string, rate: RateHeaders | undefined): number {
    if (err instanceof RequestAborted || err instanceof DroppedByFault) {
      res.destroy();
      return ErrorCodes.INTERNAL;
    }
    if (err instanceof VenueError) {
      sendEnvelope(res, err.httpStatus, errorEnvelope(err, requestId), rate);
      return err.code;
    }
    // Unexpected: logged with the stack, answered without it.
    this.log.error({ err, requestId, method, path }, 'unhandled error while serving a request');
    sendEnvelope(res, httpStatusOf(ErrorCodes.INTERNAL), errorEnvelope({ code: ErrorCodes.INTERNAL, message: `internal error (requestId ${requestId})` }, requestId), rate);
    return ErrorCodes.INTERNAL;
  }
}

/**
 * Which limit refused a request, with its size: two windows can refuse, and a client that knows
 * which one can tell a burst of orders from its overall request rate.
 */
function rateLimitWhich(d: RateDecision): string {
  const parts: string[] = [];
  if (d.orders !== undefined && d.orders.remaining === 0) parts.push(`${d.orders.limit} order requests per 10 s`);
  if (d.remaining === 0) parts.push(`${d.limit} requests per minute`);
  return `rate limit reached (${parts.join(' and ')}, per user)`;
}

/**
 * DEFAULT_CONFIG with the overrides merged over it and checked, by the rules of a config file
 * (config-file.ts): a ConfigError naming `source`, the key path, the rule and what was found
 * (`startExchange config: seed: expected an integer from 0 to 4294967295, got number -1`).
 */
export function mergeConfig(overrides: ExchangeConfigOverrides = {}, source = 'exchange config'): ExchangeConfig {
  return configFromValue(overrides, source);
}

/**
 * Builds an exchange (SystemClock unless a test passes its own) from DEFAULT_CONFIG with `config`
 * merged over it, and starts it, as `perpkit exchange` runs it: with `dataDir`, journaled there
 * and restored from it (in memory without); with the market `config.market` names, `synthetic` the
 * simulator and its funding schedule, `replay:<file>` the recording at recorded speed (top-of-book
 * fills). Both used to be ignored without a word: no journal, and a market that stood still.
 * The config is checked and merged as a config file is, before anything starts: unknown keys,
 * out-of-range numbers and numbers for decimal strings used to start without a word, and a
 * default symbol changed by one field failed with a RangeError naming neither.
 */
export async function startExchange(config: ExchangeConfigOverrides = {}, opts: Omit<ExchangeServerOptions, 'core'> & { wallClock?: Clock } = {}): Promise<ExchangeServer> {
  const merged = mergeConfig(config, 'startExchange config');
  const { wallClock, ...serverOpts } = opts;
  const logger = serverOpts.logger;
  const { core } = await openDurableCore(merged, wallClock ?? new SystemClock(), logger);
  let market: MarketServices;
  try {
    market = await marketServices({ core, market: merged.market, seed: merged.seed, logger });
  } catch (e) {
    await core.close().catch(() => undefined);
    throw e;
  }
  const services = [...(serverOpts.services ?? []), ...market.services];
  const server = new ExchangeServer({ ...serverOpts, core, services });
  try {
    await core.recover((events) => server.marketData.onEvents(events));
    // The port first: a start that cannot listen writes nothing into the data directory.
    await server.listen();
    await market.init();
    await server.start();
  } catch (e) {
    await server.stop().catch(() => undefined);
    throw e;
  }
  return server;
}

/**
 * Why an order the engine placed itself was refused (a fired condition's, a strategy sub-order's):
 * the records and streams say only REJECTED (or EXPIRED); the code and message are logged here
 * (docs/local-exchange.md, "Logs").
 */
function logRefusals(log: Logger, events: readonly EngineEvent[]): void {
  for (const e of events) {
    if (e.kind !== 'refused') continue;
    const { userId, symbol, conditionId, strategyId, strategySubId, status, code, message } = e;
    log.info({ userId, symbol, conditionId, strategyId, strategySubId, status, code, reason: message }, conditionId !== '' ? 'condition order fired, its order refused' : 'strategy sub-order refused when its driver fired');
  }
}
