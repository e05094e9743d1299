/**
 * API-key signing of PROTOCOL.md section 2: lowercase hex HMAC-SHA256 over
 * timestamp + METHOD + path + ("?" + rawQuery if any) + rawBody, with the exact bytes sent.
 */
import { createHmac } from 'node:crypto';

export function signPayload(secret: string, timestamp: number, method: string, path: string, rawQuery: string, rawBody: string): string {
  const target = rawQuery.length > 0 ? `${path}?${rawQuery}` : path;
  return createHmac('sha256', secret).update(`${timestamp}${method}${target}${rawBody}`).digest('hex');
}

export const RECV_WINDOW_DEFAULT = 5000;
export const RECV_WINDOW_MAX = 60000;

/**
 * Venue time as the client believes it: local clock plus an offset learned from GET /v1/time,
 * halving the round trip (the server read its clock somewhere in the middle of it).
 */
export class ClockOffset {
  private offsetMs = 0;
  private syncedAt: number | undefined;

  get offset(): number {
    return this.offsetMs;
  }

  get synced(): boolean {
    return this.syncedAt !== undefined;
  }

  /** `sentAt` and `receivedAt` are local times around the request; `serverTime` is its answer. */
  update(sentAt: number, serverTime: number, receivedAt: number): number {
    this.offsetMs = Math.round(serverTime - (sentAt + receivedAt) / 2);
    this.syncedAt = receivedAt;
    return this.offsetMs;
  }

  venueNow(localNow: number): number {
    return localNow + this.offsetMs;
  }
}
