/** Writing the envelope (PROTOCOL.md section 1): every response, success or error, goes through here. */
import type { ServerResponse } from 'node:http';
import type { Envelope } from '../../../protocol/envelope';

export function sendEnvelope(res: ServerResponse, status: number, body: Envelope<unknown>): void {
  if (res.headersSent || res.writableEnded) return;
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.setHeader('X-Request-Id', body.requestId);
  res.setHeader('Cache-Control', 'no-store');
  res.end(json);
}
