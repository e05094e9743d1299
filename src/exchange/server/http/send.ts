/** Writing the envelope (PROTOCOL.md section 1): every response, success or error, goes through here. */
import type { ServerResponse } from 'node:http';
import type { Envelope } from '../../../protocol/envelope';

export function sendEnvelope(res: ServerResponse, status: number, body: Envelope<unknown>): void {
  if (res.headersSent || res.writableEnded) return;
  const json = JSON.stringify(body);
  // One writeHead with every header is measurably cheaper than a setHeader call per header.
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'X-Request-Id': body.requestId,
    'Cache-Control': 'no-store',
  });
  res.end(json);
}
