/**
 * HTTP/1.1 pipelining: many requests written on one keep-alive socket before any answer is read
 * get one answer each, in the order they were sent, each correct for its own request (the server
 * coalesces the writes of one event-loop turn, http/coalesce-writes.ts). Also the bench's
 * pipelining client (bench/exchange-http/pipelined.ts) against the same server.
 */
import { connect, type Socket } from 'node:net';
import { PipelinedClient } from '../../../bench/exchange-http/pipelined';
import type { BenchUser } from '../../../bench/exchange-http/client';
import { startTestExchange, type TestExchange } from '../../helpers/exchange';

let ex: TestExchange;
let token: string;
let userId: string;

beforeAll(async () => {
  ex = await startTestExchange();
  const u = await ex.createUser({ balance: '1000000' });
  userId = u.userId;
  token = (await ex.login(u.username, u.password)).accessToken;
});
afterAll(() => ex.stop());

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { code: number; message: string; data: Record<string, unknown> | null; requestId: string };
}

/** Writes `requests` in one socket write and reads exactly that many answers (cut by Content-Length). */
function pipeline(requests: string[]): Promise<Answer[]> {
  const { port } = new URL(ex.url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: '127.0.0.1', port: Number(port) });
    const answers: Answer[] = [];
    let buf = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(requests.join('')));
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) break;
        const [statusLine, ...lines] = buf.toString('latin1', 0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
        const len = Number(headers['content-length']);
        if (buf.length < end + 4 + len) break;
        answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(buf.toString('utf8', end + 4, end + 4 + len)) as Answer['body'] });
        buf = buf.subarray(end + 4 + len);
      }
      if (answers.length === requests.length) {
        socket.destroy();
        resolve(answers);
      }
    });
  });
}

const post = (path: string, body: string): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const place = (cid: string, price: string): string => post('/v1/private/order/place', `{"symbol":"BTCUSDT","type":"LIMIT","side":"BUY","price":"${price}","quantity":"0.001","timeInForce":"GTC","clientOrderId":"${cid}"}`);

describe('pipelined requests on one connection', () => {
  it('answers every request, in order, each with its own result and request id', async () => {
    const reqs: string[] = [];
    const expected: Array<{ status: number; code: number; cid?: string }> = [];
    for (let i = 0; i < 40; i++) {
      reqs.push(place(`pl-${i}`, (40000 + i).toFixed(1)));
      expected.push({ status: 200, code: 0, cid: `pl-${i}` });
      if (i % 10 === 9) {
        // A duplicate clientOrderId (409 / 30002), a GET between the POSTs, and a cancel.
        reqs.push(place(`pl-${i}`, '40000.0'));
        expected.push({ status: 409, code: 30002 });
        reqs.push(`GET /v1/time HTTP/1.1\r\nHost: x\r\n\r\n`);
        expected.push({ status: 200, code: 0 });
        reqs.push(post('/v1/private/order/cancel', `{"symbol":"BTCUSDT","clientOrderId":"pl-${i - 1}"}`));
        expected.push({ status: 200, code: 0, cid: `pl-${i - 1}` });
      }
    }
    const answers = await pipeline(reqs);
    expect(answers.map((a) => ({ status: a.status, code: a.body.code, ...(a.body.data && 'clientOrderId' in a.body.data ? { cid: a.body.data.clientOrderId } : {}) }))).toEqual(expected);
    const ids = answers.map((a) => a.body.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const a of answers) expect(a.headers['x-request-id']).toBe(a.body.requestId);
    // The server's state agrees: 40 placed, 4 of them cancelled.
    const open = await ex.call<{ list: unknown[] }>('GET', '/v1/private/order/current?symbol=BTCUSDT&limit=100', { token });
    expect(open.body.data.list).toHaveLength(36);
  });

  it('the bench pipelining client matches each answer to its request', async () => {
    const client = await PipelinedClient.open(ex.url, 2);
    try {
      const user: BenchUser = { index: 0, userId, username: 'u', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } };
      const body = (cid: string): string => `{"symbol":"BTCUSDT","type":"LIMIT","side":"SELL","price":"60000.0","quantity":"0.001","timeInForce":"GTC","clientOrderId":"${cid}"}`;
      // 30 requests on 2 connections handed over in one turn: 15 in flight on each.
      const answers = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => client.post(user, '/v1/private/order/place', body(i === 29 ? 'bc-0' : `bc-${i}`), i)));
      for (let i = 0; i < 29; i++) {
        const a = answers[i];
        expect(a.status === 'fulfilled' && (JSON.parse(a.value) as { data: { clientOrderId: string } }).data.clientOrderId).toBe(`bc-${i}`);
      }
      // The duplicate of bc-0 (sent last) is refused: a rejection carrying its code.
      const last = answers[29];
      expect(last.status === 'rejected' && (last.reason as { code: number }).code).toBe(30002);
    } finally {
      client.close();
    }
  });
});
