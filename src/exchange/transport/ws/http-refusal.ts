/**
 * Refusing a WebSocket upgrade with a real HTTP response. The socket has left the HTTP server's
 * hands when 'upgrade' fires, so the response is written by hand; the body is the usual envelope
 * so a client decodes a refused stream exactly like a refused REST call.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../../core/errors';
import { errorEnvelope } from '../../../protocol/envelope';

export function refuseUpgrade(socket: Duplex, status: number, code: ErrorCode, message: string): void {
  const requestId = randomUUID();
  const body = JSON.stringify(errorEnvelope({ code, message }, requestId));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  // A peer that resets mid-write must not become an unhandled 'error' on the server.
  socket.on('error', () => socket.destroy());
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  socket.end(head + body);
}
