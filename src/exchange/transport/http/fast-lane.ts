/**
 * The plain API requests of a keep-alive connection, read and answered without node:http.
 *
 * node:http spends ~20 us of CPU on each request on the machines this runs on (parser callbacks,
 * an IncomingMessage and a ServerResponse stream each, header objects, events): a bare node:http
 * server answering JSON did ~36,000 requests/s under the pipelined load of `npm run bench --
 * exchange-http`, the same server on node:net with this reading ~128,000. So the exchange reads
 * its connections itself, as long as they carry only what this reader knows completely:
 * HTTP/1.1 requests to /v1/ with GET, POST, PUT or DELETE, a Host, a body by Content-Length
 * within the body limit, each header once, and no Upgrade, Expect, Transfer-Encoding or
 * Connection other than keep-alive. Anything else (a WebSocket upgrade, the web page, a chunked
 * or oversized body, a malformed or unusual request, a request whose head is still arriving a
 * second later) hands the connection to node:http at that request, with the bytes not yet used,
 * and node:http serves it from there on exactly as it serves every connection without this: its
 * rules, limits, timeouts and error answers apply unchanged.
 *
 * Responses go out in the order of the requests (pipelining), one socket write per connection for
 * the answers ended together: written once the callback that read them and its promise jobs are
 * done (process.nextTick), not at the end of the event loop's turn (setImmediate, as node:http's
 * writes are coalesced), which held a connection's answers while the other connections' requests
 * were read: median latency 570-783 -> 483-550 us on crossing-pipelined, three alternations.
 * Reading stops while a connection has `MAX_IN_FLIGHT` requests unanswered or its answers are not
 * being read (back-pressure).
 */
import { STATUS_CODES, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { parseHead } from './request-head';

/** The request as the API's pipeline reads it: node:http's IncomingMessage has these too. */
export interface ApiRequest {
  readonly method?: string;
  readonly url?: string;
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
}

/** The response as the API's pipeline writes it: node:http's ServerResponse has these too. */
export interface ApiResponse {
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  appendHeader(name: string, value: string | readonly string[]): unknown;
  writeHead(status: number, headers?: OutgoingHttpHeaders): unknown;
  end(body?: string): unknown;
  destroy(): unknown;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly statusCode: number;
}

export interface FastLaneOptions {
  /** Serves a request this reader took whole; `body` is its bytes. */
  serve: (req: ApiRequest, res: ApiResponse, body: Buffer) => void;
  /** Takes over a connection from here on (node:http's connection listener). */
  handOff: (socket: Socket) => void;
  /** A larger Content-Length goes to node:http, which refuses it. */
  maxBodyBytes: number;
  /** An idle connection is closed after this long (node:http's keepAliveTimeout). */
  keepAliveTimeoutMs: number;
}

/** Requests of one connection served and not yet answered, beyond which reading waits. */
const MAX_IN_FLIGHT = 64;
/** node:http's default limit on a request line and headers. */
const MAX_HEAD_BYTES = 16 * 1024;
/** How long a request's head or body may take to arrive whole before node:http takes over. */
const PARTIAL_GRACE_MS = 1000;

const HEAD_END = Buffer.from('\r\n\r\n');
const LF_END = Buffer.from('\n\n');
const EMPTY = Buffer.alloc(0);
let dateSecond = -1;
let dateText = '';
/** The Date header's value, made once a second. */
function httpDate(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** One request's answer; written to the socket in request order once ended. */
class FastResponse implements ApiResponse {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  /** Set by the pipeline before writeHead (lower-case name -> name and value). */
  private set: Map<string, [string, string | number | readonly string[]]> | undefined;
  private appended: Array<[string, string]> | undefined;
  private head: OutgoingHttpHeaders | undefined;
  /** The whole answer, once ended. */
  text: string | undefined;
  /** Connection: close was set: the connection ends after this answer. */
  closes = false;

  constructor(private readonly conn: FastConnection) {}

  setHeader(name: string, value: string | number | readonly string[]): this {
    (this.set ??= new Map()).set(name.toLowerCase(), [name, value]);
    return this;
  }

  appendHeader(name: string, value: string | readonly string[]): this {
    for (const v of typeof value === 'string' ? [value] : value) (this.appended ??= []).push([name, v]);
    return this;
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    if (this.headersSent) return this;
    this.statusCode = status;
    this.head = headers;
    this.headersSent = true;
    return this;
  }

  end(body = ''): this {
    if (this.writableEnded) return this;
    this.headersSent = true;
    this.writableEnded = true;
    let out = `HTTP/1.1 ${this.statusCode} ${STATUS_CODES[this.statusCode] ?? 'Unknown'}\r\n`;
    let length = false;
    const line = (name: string, value: string | number | readonly string[]): void => {
      const lower = name.toLowerCase();
      if (lower === 'connection') {
        this.closes = String(value).toLowerCase() === 'close';
        return;
      }
      if (lower === 'content-length') length = true;
      if (typeof value === 'object') for (const v of value) out += `${name}: ${v}\r\n`;
      else out += `${name}: ${value}\r\n`;
    };
    // As node:http: writeHead's headers win over setHeader's of the same name.
    if (this.set !== undefined) for (const [lower, [name, value]] of this.set) if (this.head === undefined || !hasHeader(this.head, lower)) line(name, value);
    if (this.head !== undefined)
      for (const name in this.head) {
        const value = this.head[name];
        if (value !== undefined) line(name, value);
      }
    if (this.appended !== undefined) for (const [name, value] of this.appended) line(name, value);
    if (!length) out += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
    out += `Date: ${httpDate()}\r\n`;
    out += this.closes ? 'Connection: close\r\n\r\n' : `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(this.conn.keepAliveTimeoutMs / 1000)}\r\n\r\n`;
    this.text = out + body;
    this.conn.answered();
    return this;
  }

  destroy(): this {
    this.conn.socket.destroy();
    return this;
  }
}

function hasHeader(h: OutgoingHttpHeaders, lower: string): boolean {
  for (const name in h) if (name.toLowerCase() === lower) return true;
  return false;
}

let dirty: FastConnection[] = [];
let flushScheduled = false;
function flushAll(): void {
  flushScheduled = false;
  const list = dirty;
  dirty = [];
  for (const c of list) c.flush();
}

/** One connection while this reader serves it. */
class FastConnection {
  /** Bytes received and not yet used: a request still arriving. */
  private rest: Buffer | undefined;
  /** Answers in request order; the first ones written as soon as they are ended. */
  private readonly queue: FastResponse[] = [];
  private out = '';
  private queued = false;
  private reading = true;
  private gone = false;
  /** The connection goes to node:http once its answers are out (the next request is not ours). */
  private handOffPending = false;
  /** An answer said Connection: close: nothing more is read, and the connection ends once it is out. */
  private ending = false;
  private partialTimer: NodeJS.Timeout | undefined;
  readonly keepAliveTimeoutMs: number;
  private readonly onData = (chunk: Buffer): void => this.read(chunk);
  private readonly onDrain = (): void => this.resume();

  constructor(
    readonly socket: Socket,
    private readonly lane: FastLane,
  ) {
    this.keepAliveTimeoutMs = lane.opts.keepAliveTimeoutMs;
    socket.setNoDelay(true);
    socket.setTimeout(this.keepAliveTimeoutMs, () => {
      if (this.queue.length === 0 && !this.gone) socket.destroy();
    });
    socket.on('data', this.onData);
    socket.on('drain', this.onDrain);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  private readonly onError = (): void => {
    this.socket.destroy();
  };
  private readonly onClose = (): void => this.close();

  get idle(): boolean {
    return this.queue.length === 0 && this.rest === undefined;
  }

  /** Ends the connection now if no request is in flight on it (the server is stopping). */
  closeIfIdle(): void {
    if (!this.idle || this.gone) return;
    this.flush();
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    if (this.gone) return;
    if (this.handOffPending) {
      this.rest = this.rest === undefined ? chunk : Buffer.concat([this.rest, chunk]);
      return;
    }
    this.stopWaitingForRest();
    const data = this.rest === undefined ? chunk : Buffer.concat([this.rest, chunk]);
    this.rest = undefined;
    this.parse(data);
  }

  private parse(data: Buffer): void {
    let off = 0;
    const { maxBodyBytes } = this.lane.opts;
    while (off < data.length) {
      if (this.ending) {
        // After a Connection: close answer nothing more is read (as node:http).
        off = data.length;
        break;
      }
      if (this.queue.length >= MAX_IN_FLIGHT || this.socket.writableNeedDrain) {
        this.pause();
        break;
      }
      const end = data.indexOf(HEAD_END, off);
      if (end < 0) {
        // Too long, or a head ended by bare line feeds (node:http reads those): not ours.
        if (data.length - off > MAX_HEAD_BYTES || data.indexOf(LF_END, off) >= 0) return this.handOff(data.subarray(off));
        break;
      }
      if (end - off > MAX_HEAD_BYTES) return this.handOff(data.subarray(off));
      const p = parseHead(data, off, end, maxBodyBytes);
      if (p === undefined) return this.handOff(data.subarray(off));
      const next = p.bodyStart + p.bodyLength;
      if (next > data.length) break;
      const body = p.bodyLength === 0 ? EMPTY : data.subarray(p.bodyStart, next);
      off = next;
      const res = new FastResponse(this);
      this.queue.push(res);
      this.lane.stats.served++;
      this.lane.opts.serve({ method: p.method, url: p.url, headers: p.headers, socket: this.socket }, res, body);
    }
    if (off < data.length) {
      this.rest = data.subarray(off);
      if (this.reading && this.queue.length === 0) this.waitForRest();
    }
  }

  /** A request partly here with nothing else to do: node:http takes the connection if the rest is slow to come. */
  private waitForRest(): void {
    if (this.partialTimer !== undefined) return;
    this.partialTimer = setTimeout(() => {
      this.partialTimer = undefined;
      if (this.queue.length === 0 && this.rest !== undefined && !this.gone) this.handOff(this.rest);
    }, PARTIAL_GRACE_MS);
    this.partialTimer.unref();
  }

  private stopWaitingForRest(): void {
    if (this.partialTimer !== undefined) clearTimeout(this.partialTimer);
    this.partialTimer = undefined;
  }

  private handOff(rest: Buffer): void {
    this.rest = rest;
    if (this.queue.length > 0) {
      // node:http's answers would go out before ours: it takes over once ours are written, and
      // what comes meanwhile waits in the socket.
      this.handOffPending = true;
      this.socket.pause();
      return;
    }
    this.detach();
    const socket = this.socket;
    socket.pause();
    if (this.rest !== undefined && this.rest.length > 0) socket.unshift(this.rest);
    this.rest = undefined;
    this.lane.handOff(socket);
    socket.resume();
  }

  private detach(): void {
    this.gone = true;
    this.stopWaitingForRest();
    this.socket.removeListener('data', this.onData);
    this.socket.removeListener('drain', this.onDrain);
    this.socket.removeListener('error', this.onError);
    this.socket.removeListener('close', this.onClose);
    this.socket.setTimeout(0);
    this.lane.forget(this);
  }

  /** An answer was ended: the ones at the front of the queue go out. */
  answered(): void {
    if (this.gone && !this.handOffPending) return;
    let closes = false;
    while (this.queue.length > 0 && this.queue[0].text !== undefined) {
      const r = this.queue.shift() as FastResponse;
      this.out += r.text;
      if (r.closes) {
        closes = true;
        this.ending = true;
        this.queue.length = 0;
        break;
      }
    }
    if (this.out !== '' && !this.queued) {
      this.queued = true;
      dirty.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        process.nextTick(flushAll);
      }
    }
    if (this.queue.length > 0) return;
    if (closes || this.ending) return this.flushThen(() => this.finish());
    if (this.handOffPending) return this.flushThen(() => this.handOff(this.rest ?? EMPTY));
    if (!this.reading) this.resume();
    else if (this.rest !== undefined) this.waitForRest();
  }

  flush(): void {
    this.queued = false;
    const out = this.out;
    this.out = '';
    if (out !== '' && !this.socket.destroyed) this.socket.write(out);
    const then = this.afterFlush;
    this.afterFlush = undefined;
    then?.();
  }

  private afterFlush: (() => void) | undefined;
  private flushThen(f: () => void): void {
    if (!this.queued) return f();
    this.afterFlush = f;
  }

  /** After a Connection: close answer: nothing more is read, the socket ends once the answers are out. */
  private finish(): void {
    this.flush();
    this.stopWaitingForRest();
    this.socket.removeListener('data', this.onData);
    // Until it is closed it stays listed: a stop still ends it when its peer does not read.
    this.socket.end();
  }

  private pause(): void {
    this.reading = false;
    this.socket.pause();
  }

  private resume(): void {
    if (this.reading || this.gone) return;
    if (this.queue.length >= MAX_IN_FLIGHT || this.socket.writableNeedDrain) return;
    this.reading = true;
    const rest = this.rest;
    this.rest = undefined;
    if (rest !== undefined) this.parse(rest);
    if (this.reading) this.socket.resume();
  }

  private close(): void {
    if (this.gone) return;
    this.gone = true;
    this.queue.length = 0;
    this.stopWaitingForRest();
    this.lane.forget(this);
  }
}


/** What the fast lane did since the server started. */
export interface FastLaneStats {
  /** Requests it read and served. */
  served: number;
  /** Connections it handed to node:http (at their first request it does not read). */
  handedOff: number;
}

/** The connections this reader serves, for the server's stop. */
export class FastLane {
  private readonly connections = new Set<FastConnection>();
  readonly stats: FastLaneStats = { served: 0, handedOff: 0 };

  constructor(readonly opts: FastLaneOptions) {}

  /** A new connection (the listening server's `connection` event). */
  accept(socket: Socket): void {
    this.connections.add(new FastConnection(socket, this));
  }

  handOff(socket: Socket): void {
    this.stats.handedOff++;
    this.opts.handOff(socket);
  }

  forget(c: FastConnection): void {
    this.connections.delete(c);
  }

  /** Closes the connections with no request in flight (the server is stopping; as node:http's closeIdleConnections). */
  closeIdle(): void {
    for (const c of [...this.connections]) c.closeIfIdle();
  }

  /** Ends the remaining connections at once, after the answers already ended (as node:http's closeAllConnections). */
  closeAll(): void {
    for (const c of [...this.connections]) {
      c.flush();
      c.socket.destroy();
    }
  }
}
