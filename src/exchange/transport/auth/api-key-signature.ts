/**
 * API-key request signing (PROTOCOL.md section 2):
 * `X-SIGNATURE = hex(HMAC-SHA256(secret, timestamp + METHOD + path + ("?" + rawQuery if any) + rawBody))`.
 * The path and query are taken exactly as sent (not decoded or re-encoded), and the body as the raw
 * bytes, so client and server hash the very same string.
 */
import { createHmac } from 'node:crypto';

export const RECV_WINDOW_DEFAULT = 5000;
export const RECV_WINDOW_MAX = 60000;

export interface SignedParts {
  timestamp: string;
  method: string;
  path: string;
  rawQuery: string;
  rawBody: Buffer;
}

export function signaturePayload(p: SignedParts): Buffer {
  const head = `${p.timestamp}${p.method.toUpperCase()}${p.path}${p.rawQuery.length > 0 ? `?${p.rawQuery}` : ''}`;
  return Buffer.concat([Buffer.from(head, 'utf8'), p.rawBody]);
}

export function sign(secret: string, p: SignedParts): string {
  return createHmac('sha256', secret).update(signaturePayload(p)).digest('hex');
}
