/**
 * HTTP transport: an undici Pool per origin with keep-alive connections, a per-request timeout and
 * the caller's AbortSignal. It speaks bytes and statuses only; envelopes are the client's job.
 * The interface lets a benchmark or a test put an in-memory transport in its place.
 */
import type { Pool } from 'undici';
import { NetworkError, RequestAbortedError, RequestTimeoutError, type ErrorContext } from '../errors';

/**
 * undici, loaded when the first transport is made (or the first notification sent). The public
 * API exports the client, and every strategy imports the public API: loaded with it, undici's ~110
 * modules cost every backtest, sweep job and test ~60 ms at start for a network it never uses.
 */
export function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('undici') as typeof import('undici');
}

/**
 * Error codes of a connection that was never established, so no byte of the request was sent:
 * Node's connect and DNS errors (which undici passes through) and undici's connect timeout. A
 * connection lost after it was made (ECONNRESET, UND_ERR_SOCKET "other side closed", EPIPE,
 * ETIMEDOUT, which can also come from an open socket) may have carried the request and is not
 * listed. TLS handshake failures are not listed either: they need a fix, not a retry.
 */
export const NOT_CONNECTED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path with the query string, as signed. */
  target: string;
  headers: Record<string, string>;
  /** Exact bytes to send; undefined sends none. */
  body: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal;
  /** For error messages. */
  endpoint: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface HttpTransport {
  request(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface UndiciTransportOptions {
  /** Connections kept to the origin; default 8. */
  connections?: number;
  /** How long an idle connection is kept, ms; default 30 s (below the server's keep-alive). */
  keepAliveTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export class UndiciTransport implements HttpTransport {
  private readonly pool: Pool;

  constructor(origin: string, opts: UndiciTransportOptions = {}) {
    this.pool = new (undici().Pool)(origin, {
      connections: opts.connections ?? 8,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? 25_000,
      keepAliveMaxTimeout: 60_000,
      connectTimeout: opts.connectTimeoutMs ?? 10_000,
      pipelining: 1,
    });
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const ctx: ErrorContext = { endpoint: req.endpoint };
    if (req.signal?.aborted) throw new RequestAbortedError(ctx);
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, req.timeoutMs);
    const onAbort = (): void => ac.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.pool.request({
        method: req.method,
        path: req.target,
        headers: req.headers,
        body: req.body,
        signal: ac.signal,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      if (timedOut) throw new RequestTimeoutError(req.timeoutMs, { ...ctx, cause: err });
      if (req.signal?.aborted) throw new RequestAbortedError({ ...ctx, cause: err });
      const code = (err as { code?: unknown }).code;
      const msg = err instanceof Error ? err.message : String(err);
      const notConnected = typeof code === 'string' && NOT_CONNECTED_CODES.has(code);
      const what = `${req.method} ${req.target.split('?')[0]} failed: ${typeof code === 'string' ? `${code} ` : ''}${msg}`;
      throw new NetworkError(notConnected ? `${what} (no connection was made: the request was not sent)` : what, { ...ctx, cause: err }, !notConnected);
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
