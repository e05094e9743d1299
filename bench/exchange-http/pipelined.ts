/**
 * A second load generator: HTTP/1.1 keep-alive over raw `node:net` sockets with pipelining, as
 * wrk and autocannon do. undici never pipelines a POST (not idempotent), so with it a connection
 * carries one order request at a time; here several requests are written on a connection before
 * their answers come back, and the answers are matched to the requests in order (HTTP/1.1
 * answers pipelined requests in the order they were sent).
 *
 * Requests handed to a connection during one turn of the event loop (e.g. by the workers whose
 * answers arrived in the same chunk) go out in one socket write, flushed from process.nextTick
 * after the promise continuations of that turn have run. Responses are cut by status line and
 * Content-Length (the exchange always sends one; no chunked bodies), and a response counts as a
 * success only with HTTP 200 and a body that starts with `{"code":0,` (the envelope's first key:
 * the server writes the envelope with `code` first).
 */
import { connect, type Socket } from 'node:net';
import { ApiError, type BenchUser, type OrderTransport } from './client';

interface Waiter {
  resolve(text: string): void;
  reject(err: Error): void;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const SUCCESS_PREFIX = '{"code":0,';
const CONTENT_LENGTH_RE = /\r\ncontent-length:[ \t]*(\d+)/i;

/** One keep-alive connection with any number of requests in flight, answered in order. */
export class PipelinedConnection {
  private readonly waiters: Waiter[] = [];
  private head = 0;
  private out: string[] = [];
  private flushScheduled = false;
  /** Bytes received and not yet cut into responses. */
  private buf: Buffer = Buffer.alloc(0);
  private failed: Error | undefined;
  /** Requests sent on this connection (for tests: proves they shared one socket). */
  sent = 0;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static open(host: string, port: number): Promise<PipelinedConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new PipelinedConnection(socket));
      });
    });
  }

  get inFlight(): number {
    return this.waiters.length - this.head;
  }

  /** Sends a complete request (head and body); resolves with the body of its answer. */
  send(request: string): Promise<string> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.sent++;
      this.out.push(request);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        process.nextTick(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    const out = this.out;
    this.out = [];
    if (this.failed || out.length === 0) return;
    this.socket.write(out.length === 1 ? out[0] : out.join(''));
  };

  private onData(chunk: Buffer): void {
    let buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    let at = 0;
    for (;;) {
      const end = buf.indexOf(HEADER_END, at);
      if (end < 0) break;
      const head = buf.toString('latin1', at, end);
      const m = CONTENT_LENGTH_RE.exec(head);
      if (m === null) {
        this.fail(new Error(`answer without Content-Length: ${head.slice(0, 200)}`));
        return;
      }
      const bodyStart = end + 4;
      const bodyEnd = bodyStart + Number(m[1]);
      if (bodyEnd > buf.length) break;
      const body = buf.toString('utf8', bodyStart, bodyEnd);
      at = bodyEnd;
      this.answer(Number(head.slice(9, 12)), body);
    }
    if (at === buf.length) buf = Buffer.alloc(0);
    else if (at > 0) buf = buf.subarray(at);
    this.buf = buf;
  }

  private answer(status: number, body: string): void {
    if (this.head >= this.waiters.length) {
      this.fail(new Error(`an answer came without a request waiting for it: ${body.slice(0, 200)}`));
      return;
    }
    const w = this.waiters[this.head++];
    if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters.splice(0, this.head);
      this.head = 0;
    }
    if (status === 200 && body.startsWith(SUCCESS_PREFIX)) {
      w.resolve(body);
      return;
    }
    const code = /^\{"code":(-?\d+)/.exec(body);
    w.reject(new ApiError(status, code ? Number(code[1]) : -1, `HTTP ${status}: ${body.slice(0, 200)}`));
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    const waiting = this.waiters.slice(this.head);
    this.waiters.length = 0;
    this.head = 0;
    for (const w of waiting) w.reject(err);
    this.socket.destroy();
  }

  close(): void {
    this.fail(new Error('connection closed by the client'));
  }
}

/**
 * `connections` pipelined connections; a worker (lane) always uses connection `lane %
 * connections`, so a connection carries as many requests at once as it has workers.
 */
export class PipelinedClient implements OrderTransport {
  /** The request head of each user (request line and path excluded), built once. */
  private readonly heads = new Map<BenchUser, string>();

  private constructor(
    private readonly conns: PipelinedConnection[],
    private readonly hostHeader: string,
  ) {}

  static async open(url: string, connections: number): Promise<PipelinedClient> {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const conns: PipelinedConnection[] = [];
    for (let i = 0; i < connections; i++) conns.push(await PipelinedConnection.open(host, Number(u.port)));
    return new PipelinedClient(conns, u.host);
  }

  post(user: BenchUser, path: string, body: string, lane: number): Promise<string> {
    let head = this.heads.get(user);
    if (head === undefined) {
      head = ` HTTP/1.1\r\nHost: ${this.hostHeader}\r\n${Object.entries(user.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}`;
      this.heads.set(user, head);
    }
    const conn = this.conns[lane % this.conns.length];
    return conn.send(`POST ${path}${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  close(): void {
    for (const c of this.conns) c.close();
  }
}
