/** Writing the envelope (PROTOCOL.md section 1): every response, success or error, goes through here. */
import type { ApiResponse } from './fast-lane';
import type { Envelope } from '../../../protocol/envelope';

/** The rate-limit counters of an admitted request (rate-limit.ts), sent as X-RateLimit-* headers. */
export interface RateHeaders {
  limit: number;
  remaining: number;
  orders?: { limit: number; remaining: number };
}

/**
 * One writeHead with every header is measurably cheaper than a setHeader call per header, so the
 * rate-limit headers of an admitted request come in here too (a refused one sets its own).
 */
export function sendEnvelope(res: ApiResponse, status: number, body: Envelope<unknown>, rate?: RateHeaders): void {
  if (res.headersSent || res.writableEnded) return;
  const json = JSON.stringify(body);
  if (rate === undefined) {
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'X-Request-Id': body.requestId,
      'Cache-Control': 'no-store',
    });
  } else if (rate.orders === undefined) {
    res.writeHead(status, {
      'X-RateLimit-Limit': rate.limit,
      'X-RateLimit-Remaining': rate.remaining,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'X-Request-Id': body.requestId,
      'Cache-Control': 'no-store',
    });
  } else {
    res.writeHead(status, {
      'X-RateLimit-Limit': rate.limit,
      'X-RateLimit-Remaining': rate.remaining,
      'X-RateLimit-Order-Limit': rate.orders.limit,
      'X-RateLimit-Order-Remaining': rate.orders.remaining,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'X-Request-Id': body.requestId,
      'Cache-Control': 'no-store',
    });
  }
  res.end(json);
}
