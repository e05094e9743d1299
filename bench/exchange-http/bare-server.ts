/**
 * The limit the local exchange is measured against (`exchange-http`, part `bare-pipelined`): a
 * bare node:http server that reads each request's body, parses it as JSON and answers with an
 * envelope of the exchange's shape and headers, as the exchange answers an order placement, with
 * nothing behind it (no routing, authentication, validation, rate limits, engine or journal).
 * Started as its own process like the exchange; prints the same listening line.
 */
import { createServer } from 'node:http';

let n = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { clientOrderId?: string };
    const id = ++n;
    const requestId = `bare-${id}`;
    const json = JSON.stringify({ code: 0, msg: 'success', data: { orderId: String(id), clientOrderId: body.clientOrderId ?? '', status: 'FILLED', timestamp: Date.now() }, requestId });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json), 'X-Request-Id': requestId, 'Cache-Control': 'no-store' });
    res.end(json);
  });
});
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  if (a !== null && typeof a === 'object') process.stdout.write(`bare node:http server listening on http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
