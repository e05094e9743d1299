/**
 * The request pipeline every REST method goes through: build (query or JSON body from the
 * endpoint registry), authenticate (JWT or API-key signature with the synced clock), send, decode
 * the envelope, map errors to classes, validate `data` against the endpoint's schema. Retries:
 * reads on retryable errors with backoff; anything after a 429 (the venue did nothing) once the
 * client-wide gate opens; anything, orders too, after a connection that was never made (nothing
 * was sent), with backoff; once after a token refresh on 20001 and after a time sync on 20003.
 * Order-creating requests are never resent here on other network errors, timeouts or 5xx: their
 * outcome is unknown and the orders resource settles it by clientOrderId.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import { ErrorCodes } from '../../core/errors';
import { ENDPOINTS, type EndpointName, type ParamsOf, type ResponseOf } from '../../protocol/endpoints';
import { isEnvelope } from '../../protocol/envelope';
import { JwtSession, refreshCookieFrom, type ApiKeyCredentials } from '../auth/credentials';
import { ClockOffset, RECV_WINDOW_DEFAULT, signPayload } from '../auth/signer';
import { backoffDelay, type BackoffOptions } from '../backoff';
import {
  AuthenticationError,
  MalformedResponseError,
  NetworkError,
  PerpkitError,
  RateLimitError,
  RequestAbortedError,
  ServiceUnavailableError,
  errorFromVenue,
} from '../errors';
import { RateGate } from '../rate-gate';
import { sleep, TIMER_MAX_MS, type Timers } from '../timers';
import type { HttpResponse, HttpTransport } from '../transport/http';
import { RESPONSE_SCHEMAS } from '../validate/responses';
import { SchemaError, type Schema } from '../validate/schema';

/** Endpoints of the venue a client calls (the local exchange's admin API is not one). */
export type ClientEndpoint = Exclude<EndpointName, `admin${string}`>;

export interface RequestOptions {
  /** Per-request timeout, ms; defaults to the client's. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface CoreOptions {
  transport: HttpTransport;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  timeoutMs: number;
  /** Retries of reads (and of requests the venue certainly did not act on). */
  maxRetries: number;
  retryBackoff: BackoffOptions;
  /** Renew the access token when it has less than this left, ms. */
  refreshAheadMs: number;
  /** Sync the clock from GET /v1/time before the first signed request, and again on 20003. */
  autoTimeSync: boolean;
  /** 429 without Retry-After: wait this long, ms. */
  defaultRetryAfterMs: number;
  userAgent: string;
}

/** Requests whose effect cannot be learned by asking again blindly: they create orders. */
export const ORDER_CREATING: ReadonlySet<ClientEndpoint> = new Set<ClientEndpoint>([
  'placeOrder',
  'batchPlaceOrders',
  'placeConditionOrder',
  'placeStrategyOrder',
]);

/** Requests that take risk off: when the client is throttled they go out first (rate-gate.ts). */
export const CANCELLING: ReadonlySet<ClientEndpoint> = new Set<ClientEndpoint>(['cancelOrder', 'batchCancelOrders', 'cancelAllOrders', 'cancelConditionOrder']);

export interface Prepared {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  rawQuery: string;
  body: string | undefined;
}

/** Query string in the caller's key order, undefined values skipped; the exact bytes signed. */
export function buildQuery(params: object | undefined): string {
  if (params === undefined) return '';
  let q = '';
  for (const k of Object.keys(params)) {
    const v = (params as Record<string, unknown>)[k];
    if (v === undefined) continue;
    q += `${q.length > 0 ? '&' : ''}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return q;
}

export function prepareRequest(name: ClientEndpoint, params: object | undefined): Prepared {
  const ep = ENDPOINTS[name];
  if (ep.input === 'query') return { method: ep.method, path: ep.path, rawQuery: buildQuery(params), body: undefined };
  if (ep.input === 'body') return { method: ep.method, path: ep.path, rawQuery: '', body: JSON.stringify(params ?? {}) };
  return { method: ep.method, path: ep.path, rawQuery: '', body: undefined };
}

function header(h: HttpResponse['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Retry-After in seconds (or an HTTP date) to ms. */
export function retryAfterMs(value: string | undefined, fallbackMs: number, nowMs: number): number {
  if (value === undefined) return fallbackMs;
  const s = Number(value);
  if (Number.isFinite(s) && s >= 0) return Math.ceil(s * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : fallbackMs;
}

/**
 * Decodes one HTTP answer of endpoint `name`: the envelope, the error class for a non-zero code,
 * and the `data` schema for a success. Pure, so the benchmark can time it without a network.
 */
export function decodeResponse<K extends ClientEndpoint>(name: K, res: HttpResponse, nowMs: number, defaultRetryAfterMs: number): ResponseOf<K> {
  const requestId = header(res.headers, 'x-request-id');
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  if (!isEnvelope(body)) {
    if (res.status === 429 || res.status >= 500) {
      throw errorFromVenue(undefined, res.text.slice(0, 200) || 'no body', res.status, {
        endpoint: name,
        requestId,
        retryAfterMs: retryAfterMs(header(res.headers, 'retry-after'), defaultRetryAfterMs, nowMs),
      });
    }
    const what = body === undefined ? 'is not JSON' : 'is not the {code, message, data, requestId} envelope';
    throw new MalformedResponseError(name, 'body', `${what} (HTTP ${res.status})`, { requestId, httpStatus: res.status });
  }
  if (body.code !== 0) {
    throw errorFromVenue(body.code, body.message, res.status, {
      endpoint: name,
      requestId: body.requestId,
      retryAfterMs: retryAfterMs(header(res.headers, 'retry-after'), defaultRetryAfterMs, nowMs),
    });
  }
  const schema = RESPONSE_SCHEMAS[name] as Schema<ResponseOf<K>>;
  try {
    return schema(body.data, 'data');
  } catch (err) {
    if (err instanceof SchemaError) throw new MalformedResponseError(name, err.path, err.problem, { requestId: body.requestId, httpStatus: res.status });
    throw err;
  }
}

/** How long a failed sign-in-again is given back to callers before another is tried, ms. */
export const RELOGIN_RETRY_MS = 5_000;

export class RestCore {
  readonly offset = new ClockOffset();
  readonly gate: RateGate;
  private apiKey: ApiKeyCredentials | undefined;
  session: JwtSession | undefined;
  /**
   * Signs in again with the password of the last `PerpClient.login(..., { keepSignedIn: true })`,
   * for when the session cannot be renewed (20006: the refresh token expired, or the venue forgot
   * it in a restart). Undefined otherwise: every other sign-in, SSO exchange or API key clears it.
   */
  relogin: (() => Promise<void>) | undefined;
  /** The last failed `relogin` and when: within RELOGIN_RETRY_MS it is given again without a request. */
  private reloginFailure: { at: number; err: unknown } | undefined;
  private refreshing: Promise<void> | undefined;
  private syncing: Promise<number> | undefined;

  constructor(readonly opts: CoreOptions) {
    this.gate = new RateGate(opts.clock, opts.timers);
  }

  get log(): Logger {
    return this.opts.logger;
  }

  useApiKey(creds: ApiKeyCredentials | undefined): void {
    this.apiKey = creds;
    if (creds !== undefined) this.relogin = undefined;
  }

  useSession(session: JwtSession | undefined): void {
    this.session = session;
  }

  venueNow(): number {
    return this.offset.venueNow(this.opts.clock.now());
  }

  /** One request of endpoint `name`: typed params in, validated `data` out. */
  async call<K extends ClientEndpoint>(name: K, params?: ParamsOf<K>, ro: RequestOptions = {}): Promise<ResponseOf<K>> {
    return (await this.callRaw(name, params, ro)).data;
  }

  async callRaw<K extends ClientEndpoint>(name: K, params: ParamsOf<K> | undefined, ro: RequestOptions = {}): Promise<{ data: ResponseOf<K>; res: HttpResponse }> {
    // As the client's own timeoutMs is checked when it is made: -1 or 0 failed every call as a timeout.
    const t = ro.timeoutMs;
    if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > TIMER_MAX_MS)) throw new RangeError(`${name}: timeoutMs must be an integer from 1 to ${TIMER_MAX_MS} (ms); got ${String(t)}`);
    const ep = ENDPOINTS[name];
    const prepared = prepareRequest(name, params as object | undefined);
    const readOnly = ep.method === 'GET';
    const creating = ORDER_CREATING.has(name);
    let attempt = 0;
    let refreshedOnce = false;
    let syncedOnce = false;
    for (;;) {
      await this.pause(this.gate.wait(ro.signal, CANCELLING.has(name)), name, ro.signal, () => `while it waited for the venue's rate limit to lift (a 429's Retry-After; ${this.gate.remainingMs()} ms were left)`);
      try {
        await this.beforeSend(name);
        const res = await this.send(name, prepared, ro);
        const data = decodeResponse(name, res, this.opts.clock.now(), this.opts.defaultRetryAfterMs);
        return { data, res };
      } catch (err) {
        if (!(err instanceof PerpkitError)) throw err;
        if (err instanceof RateLimitError) this.gate.block(err.retryAfterMs);
        if (err.venueCode === ErrorCodes.NOT_AUTHENTICATED && !refreshedOnce && this.canRefresh() && ep.auth !== 'none') {
          refreshedOnce = true;
          this.log.debug({ endpoint: name }, 'access token refused (20001); refreshing once and retrying');
          await this.refreshSession(true);
          continue;
        }
        if (err.venueCode === ErrorCodes.TIMESTAMP_OUTSIDE_RECV_WINDOW && !syncedOnce && this.apiKey !== undefined && this.opts.autoTimeSync) {
          syncedOnce = true;
          this.log.info({ endpoint: name }, 'timestamp outside recvWindow (20003); syncing the clock once and retrying');
          await this.syncTime(ro);
          continue;
        }
        const mayRetry =
          attempt < this.opts.maxRetries &&
          err.retryable &&
          (err instanceof RateLimitError ||
            (err instanceof NetworkError && !err.requestMayHaveBeenSent) ||
            (!creating && (readOnly || (err instanceof ServiceUnavailableError && err.venueCode !== undefined))));
        if (!mayRetry) throw err;
        const delay = err instanceof RateLimitError ? 0 : backoffDelay(attempt, this.opts.retryBackoff);
        attempt++;
        this.log.debug({ endpoint: name, attempt, delay, code: err.code, err: err.message }, 'retrying request');
        await this.pause(sleep(this.opts.timers, delay, ro.signal), name, ro.signal, () => `while it waited to retry after ${err.code} (attempt ${attempt} of ${this.opts.maxRetries})`);
      }
    }
  }

  /**
   * A wait between attempts (the 429 gate, a retry's backoff): the caller's signal ends it with
   * RequestAbortedError, as it ends a request in flight, not with the signal's bare reason.
   */
  private async pause(wait: Promise<void>, name: ClientEndpoint, signal: AbortSignal | undefined, during: () => string): Promise<void> {
    try {
      await wait;
    } catch (err) {
      if (signal?.aborted === true) throw new RequestAbortedError({ endpoint: name, cause: err }, during());
      throw err;
    }
  }

  private canRefresh(): boolean {
    return this.session?.refreshCookie !== undefined && this.apiKey === undefined;
  }

  private async beforeSend(name: ClientEndpoint): Promise<void> {
    const auth = ENDPOINTS[name].auth;
    if (auth === 'none') return;
    if (this.apiKey !== undefined) {
      if (this.opts.autoTimeSync && !this.offset.synced) await this.syncTime();
      return;
    }
    const s = this.session;
    if (s !== undefined && s.refreshCookie !== undefined && s.accessExpire - this.venueNow() < this.opts.refreshAheadMs) {
      await this.refreshSession(false);
    }
  }

  private authHeaders(name: ClientEndpoint, p: Prepared, headers: Record<string, string>): void {
    const auth = ENDPOINTS[name].auth;
    if (auth === 'none') return;
    if (this.apiKey !== undefined) {
      const ts = this.venueNow();
      headers['x-api-key'] = this.apiKey.apiKey;
      headers['x-timestamp'] = String(ts);
      headers['x-recv-window'] = String(this.apiKey.recvWindow ?? RECV_WINDOW_DEFAULT);
      headers['x-signature'] = signPayload(this.apiKey.secret, ts, p.method, p.path, p.rawQuery, p.body ?? '');
      return;
    }
    if (this.session !== undefined) headers.authorization = `Bearer ${this.session.accessToken}`;
  }

  /** Request headers of a prepared request, signed now. Public for the overhead benchmark. */
  headersFor(name: ClientEndpoint, p: Prepared): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent };
    if (p.body !== undefined) headers['content-type'] = 'application/json';
    if (name === 'refreshToken' && this.session?.refreshCookie !== undefined) headers.cookie = this.session.refreshCookie;
    this.authHeaders(name, p, headers);
    return headers;
  }

  private send(name: ClientEndpoint, p: Prepared, ro: RequestOptions): Promise<HttpResponse> {
    return this.opts.transport.request({
      method: p.method,
      target: p.rawQuery.length > 0 ? `${p.path}?${p.rawQuery}` : p.path,
      headers: this.headersFor(name, p),
      body: p.body,
      timeoutMs: ro.timeoutMs ?? this.opts.timeoutMs,
      signal: ro.signal,
      endpoint: name,
    });
  }

  // ---------------------------------------------------------------- session and clock

  /** Takes the access token and refresh cookie of a login, refresh or SSO answer. */
  adoptSession(token: { accessToken: string; accessExpire: number }, res: HttpResponse): JwtSession {
    const cookie = refreshCookieFrom(res.headers['set-cookie']) ?? this.session?.refreshCookie;
    this.session = new JwtSession(token.accessToken, token.accessExpire, cookie);
    return this.session;
  }

  /**
   * Renews the access token with the refresh cookie; concurrent callers share one request (the
   * cookie rotates, so two refreshes in parallel would make one of them fail). `timeoutMs` bounds
   * that request when this call starts it (a refresh already under way keeps its own).
   */
  refreshSession(force: boolean, timeoutMs?: number): Promise<void> {
    if (!force && this.session !== undefined && this.session.accessExpire - this.venueNow() >= this.opts.refreshAheadMs) return Promise.resolve();
    this.refreshing ??= (async () => {
      try {
        if (this.session?.refreshCookie === undefined) {
          throw new AuthenticationError('no refresh cookie: log in first (login() or an agent-SSO exchange)', { endpoint: 'refreshToken' });
        }
        try {
          const { data, res } = await this.callRaw('refreshToken', undefined, { timeoutMs });
          this.adoptSession(data, res);
          this.log.debug({ accessExpire: data.accessExpire }, 'access token renewed');
        } catch (err) {
          if (!(err instanceof PerpkitError) || err.venueCode !== ErrorCodes.REFRESH_TOKEN_INVALID || this.relogin === undefined) throw err;
          await this.signInAgain();
        }
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /**
   * The session cannot be renewed: sign in again with the kept password. A failed sign-in is given
   * again to every caller for RELOGIN_RETRY_MS, so a bot whose password stopped working does not
   * send a login per request.
   */
  private async signInAgain(): Promise<void> {
    const relogin = this.relogin as () => Promise<void>;
    const failed = this.reloginFailure;
    if (failed !== undefined && this.opts.clock.now() - failed.at < RELOGIN_RETRY_MS) throw failed.err;
    this.log.warn({ code: ErrorCodes.REFRESH_TOKEN_INVALID }, 'the session cannot be renewed (20006: the refresh token expired or the venue forgot it); signing in again');
    try {
      await relogin();
      this.reloginFailure = undefined;
      this.log.info('signed in again');
    } catch (err) {
      this.reloginFailure = { at: this.opts.clock.now(), err };
      this.log.error({ err: err instanceof Error ? err.message : String(err), retryInMs: RELOGIN_RETRY_MS }, 'signing in again failed');
      throw err;
    }
  }

  /** GET /v1/time and keep the offset; returns it (ms, venue minus local). */
  syncTime(ro: RequestOptions = {}): Promise<number> {
    this.syncing ??= (async () => {
      try {
        const sent = this.opts.clock.now();
        const { serverTime } = await this.call('getTime', undefined, ro);
        const offset = this.offset.update(sent, serverTime, this.opts.clock.now());
        this.log.debug({ offset }, 'clock offset synced from GET /v1/time');
        return offset;
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }
}
