/**
 * PerpClient: the SDK's entry point. REST resources (`orders`, `positions`, `user`, `public`,
 * `market`) with one typed method per endpoint, authentication (API key or JWT session), and the
 * two streams. Usable alone, without the bot runtime.
 */
import type { Logger } from 'pino';
import type { Clock } from '../core/clock';
import type { ApiKeyCredentials } from './auth/credentials';
import { RECV_WINDOW_MAX } from './auth/signer';
import { JwtSession } from './auth/credentials';
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff';
import { createClientLogger } from './logger';
import { ClientOrderIdGenerator } from './rest/client-order-id';
import { RestCore, type RequestOptions } from './rest/core';
import { MarketApi } from './rest/market';
import { OrdersApi, type AcceptedOrder, type OrderSafetyOptions } from './rest/orders';
import { PositionsApi } from './rest/positions';
import { PublicApi } from './rest/public';
import { UserApi } from './rest/user';
import { PrivateStream, type PrivateStreamOptions } from './streams/private';
import { PublicStream, type PublicStreamOptions } from './streams/public';
import { NODE_TIMERS, SYSTEM_CLOCK, TIMER_MAX_MS, type Timers } from './timers';
import { UndiciTransport, type HttpTransport, type UndiciTransportOptions } from './transport/http';

export interface PerpClientOptions {
  /** REST origin, e.g. http://127.0.0.1:8080 (no path). */
  baseUrl: string;
  /** WebSocket origin; by default baseUrl with http→ws, https→wss. */
  wsUrl?: string;
  /** Sign every private request with this key (PROTOCOL.md section 2). */
  apiKey?: ApiKeyCredentials;
  /** Start with an access token obtained elsewhere (no refresh cookie: it cannot be renewed). */
  accessToken?: { accessToken: string; accessExpire: number };
  /** Default per-request timeout, ms (an integer from 1 to 2^31-1); default 10 s. */
  timeoutMs?: number;
  /** Retries of reads on retryable errors (0 to 1000); default 2. */
  maxRetries?: number;
  retryBackoff?: BackoffOptions;
  /** Renew the access token this long before it expires, ms; default 60 s. */
  refreshAheadMs?: number;
  /** Sync the clock from GET /v1/time before the first signed request and on 20003; default true. */
  autoTimeSync?: boolean;
  /** How lost order answers are settled. */
  orderSafety?: Partial<OrderSafetyOptions>;
  /** Prefix of generated clientOrderIds (≤ 12 of [A-Za-z0-9_-]); default "pk". */
  clientOrderIdPrefix?: string;
  transport?: HttpTransport;
  transportOptions?: UndiciTransportOptions;
  logger?: Logger;
  clock?: Clock;
  timers?: Timers;
}

/**
 * Refuses an origin that is not a URL of one of `protocols`, or that has more than an origin (a
 * path, query, fragment or credentials), naming the option and what it holds: '127.0.0.1:8080'
 * failed at the first request with undici's bare "Invalid URL", 'http://host:8080/v1' with
 * undici's bare "invalid url" (the SDK adds the /v1/... paths itself).
 */
function checkOrigin(option: string, value: unknown, protocols: string[], example: string): void {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || !protocols.includes(url.protocol)) {
    throw new TypeError(`PerpClient: ${option} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}, such as ${example}; got ${JSON.stringify(value)}`);
  }
  const extra = [
    url.pathname !== '/' && url.pathname !== '' ? `path ${JSON.stringify(url.pathname)}` : undefined,
    url.search !== '' ? `query ${JSON.stringify(url.search)}` : undefined,
    url.hash !== '' ? `fragment ${JSON.stringify(url.hash)}` : undefined,
    url.username !== '' || url.password !== '' ? 'credentials' : undefined,
  ].filter((x) => x !== undefined);
  if (extra.length > 0) {
    throw new TypeError(`PerpClient: ${option} must be an origin only (scheme, host and optional port), such as ${example}, without ${extra.join(', ')}; got ${JSON.stringify(value)}`);
  }
}

/** The longest delay a Node timer takes, ms (longer ones fire at once). */

/**
 * Refuses a numeric option outside its rule, naming the option, the rule and the value: a
 * timeoutMs of -1 made every call fail "no answer within -1 ms", a recvWindow of 70000 got every
 * signed call refused by the venue (10001).
 */
function checkInt(option: string, value: number | undefined, min: number, max: number, unit = ''): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const got = typeof value === 'number' ? String(value) : JSON.stringify(value);
    throw new RangeError(`PerpClient: ${option} must be an integer from ${min} to ${max}${unit}; got ${got}`);
  }
}

function checkBackoff(option: string, b: BackoffOptions | undefined): void {
  if (b === undefined) return;
  checkInt(`${option}.baseMs`, b.baseMs, 0, TIMER_MAX_MS, ' (ms)');
  checkInt(`${option}.maxMs`, b.maxMs, 0, TIMER_MAX_MS, ' (ms)');
}

/** The recvWindow the venue takes (PROTOCOL.md section 2: at most 60000 ms). */
function checkApiKey(option: string, creds: ApiKeyCredentials | undefined): void {
  checkInt(`${option}.recvWindow`, creds?.recvWindow, 1, RECV_WINDOW_MAX, ' (ms, PROTOCOL.md section 2)');
}

function checkOptions(opts: PerpClientOptions): void {
  checkInt('timeoutMs', opts.timeoutMs, 1, TIMER_MAX_MS, ' (ms)');
  checkInt('maxRetries', opts.maxRetries, 0, 1000);
  checkBackoff('retryBackoff', opts.retryBackoff);
  checkInt('refreshAheadMs', opts.refreshAheadMs, 0, TIMER_MAX_MS, ' (ms)');
  checkApiKey('apiKey', opts.apiKey);
  checkInt('orderSafety.resolveAttempts', opts.orderSafety?.resolveAttempts, 0, 1000);
  checkBackoff('orderSafety.resolveBackoff', opts.orderSafety?.resolveBackoff);
}

export class PerpClient {
  readonly orders: OrdersApi;
  readonly positions: PositionsApi;
  readonly user: UserApi;
  readonly public: PublicApi;
  readonly market: MarketApi;
  /** The request pipeline; exposed for advanced use and the overhead benchmark. */
  readonly core: RestCore;
  private readonly wsOrigin: string;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly log: Logger;
  private readonly privateStreams = new Set<PrivateStream>();

  constructor(opts: PerpClientOptions) {
    checkOrigin('baseUrl', opts.baseUrl, ['http:', 'https:'], 'http://127.0.0.1:8080');
    if (opts.wsUrl !== undefined) checkOrigin('wsUrl', opts.wsUrl, ['ws:', 'wss:'], 'ws://127.0.0.1:8080');
    checkOptions(opts);
    const base = opts.baseUrl.replace(/\/$/, '');
    this.wsOrigin = opts.wsUrl ?? base.replace(/^http/, 'ws');
    this.clock = opts.clock ?? SYSTEM_CLOCK;
    this.timers = opts.timers ?? NODE_TIMERS;
    this.log = createClientLogger(opts.logger);
    this.core = new RestCore({
      transport: opts.transport ?? new UndiciTransport(base, opts.transportOptions),
      clock: this.clock,
      timers: this.timers,
      logger: this.log,
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxRetries: opts.maxRetries ?? 2,
      retryBackoff: opts.retryBackoff ?? DEFAULT_BACKOFF,
      refreshAheadMs: opts.refreshAheadMs ?? 60_000,
      autoTimeSync: opts.autoTimeSync ?? true,
      defaultRetryAfterMs: 1000,
      userAgent: 'perpkit-client/0.1',
    });
    if (opts.apiKey !== undefined) this.core.useApiKey(opts.apiKey);
    if (opts.accessToken !== undefined) this.core.useSession(new JwtSession(opts.accessToken.accessToken, opts.accessToken.accessExpire));
    const safety: OrderSafetyOptions = {
      resolveAttempts: opts.orderSafety?.resolveAttempts ?? 5,
      resolveBackoff: opts.orderSafety?.resolveBackoff ?? { baseMs: 100, maxMs: 2000 },
    };
    this.orders = new OrdersApi(this.core, new ClientOrderIdGenerator(opts.clientOrderIdPrefix), safety, (o) => this.noteOrders(o));
    this.positions = new PositionsApi(this.core);
    this.user = new UserApi(this.core);
    this.public = new PublicApi(this.core);
    this.market = new MarketApi(this.core);
  }

  // ---------------------------------------------------------------- auth shortcuts

  /**
   * Signs in with a password; the client keeps and renews the session. With `keepSignedIn`, it also
   * keeps the password (in memory) and signs in again when the session can no longer be renewed
   * (the venue answers 20006: the refresh token expired, or a restart of the venue forgot it), then
   * retries the request; a bot left running overnight needs that. A failed sign-in-again is given
   * back to callers for 5 s before another is tried.
   */
  async login(username: string, password: string, extra: { deviceId?: string; deviceName?: string; keepSignedIn?: boolean } = {}, ro?: RequestOptions): Promise<{ accessToken: string; accessExpire: number }> {
    const { keepSignedIn = false, ...device } = extra;
    const params = { username, password, ...device };
    const token = await this.public.login(params, ro);
    if (keepSignedIn) {
      const core = this.core;
      core.relogin = async () => {
        const { data, res } = await core.callRaw('login', params);
        core.adoptSession(data, res);
      };
    }
    return token;
  }

  /** Switches to API-key signing (drops any JWT session). */
  useApiKey(creds: ApiKeyCredentials): void {
    checkApiKey('useApiKey(creds)', creds);
    this.core.useSession(undefined);
    this.core.useApiKey(creds);
  }

  /** Venue time minus local time, learned from GET /v1/time; returns it. */
  syncTime(ro?: RequestOptions): Promise<number> {
    return this.core.syncTime(ro);
  }

  get clockOffsetMs(): number {
    return this.core.offset.offset;
  }

  /** The current access token and its expiry, when signed in with a JWT. */
  get session(): { accessToken: string; accessExpire: number; canRefresh: boolean } | undefined {
    const s = this.core.session;
    return s === undefined ? undefined : { accessToken: s.accessToken, accessExpire: s.accessExpire, canRefresh: s.refreshCookie !== undefined };
  }

  // ---------------------------------------------------------------- streams

  /** A private stream on a listenKey of this client's user; call `start()` on it. */
  privateStream(opts: Omit<PrivateStreamOptions, 'wsOrigin'> & { wsOrigin?: string } = {}): PrivateStream {
    const s = new PrivateStream(this.user, { wsOrigin: this.wsOrigin, ...opts }, this.clock, this.timers, this.log, () => this.core.venueNow());
    this.privateStreams.add(s);
    return s;
  }

  /** A public market-data stream; call `start()`, then subscribe. */
  publicStream(opts: Omit<PublicStreamOptions, 'wsOrigin'> & { wsOrigin?: string } = {}): PublicStream {
    return new PublicStream({ wsOrigin: this.wsOrigin, ...opts }, this.timers, this.log);
  }

  /** Stops private streams made here and closes the connection pool. */
  async close(): Promise<void> {
    for (const s of this.privateStreams) await s.stop();
    this.privateStreams.clear();
    await this.core.opts.transport.close();
  }

  private noteOrders(orders: AcceptedOrder[]): void {
    for (const s of this.privateStreams) s.noteOrders(orders);
  }
}
