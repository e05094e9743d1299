/**
 * WebSocket gateway of the local exchange (PROTOCOL.md section 5, docs/websocket.md): private
 * streams per listenKey on /v1/ws/private and the subscribe protocol on /v1/ws/public, both on the
 * HTTP server's port through its 'upgrade' event.
 *
 * One listener on the core's event emitter serves every connection: the core publishes each
 * command's events after the command is on the journal, and the gateway routes them through
 * indexes (user, listenKey, symbol and topic), never by scanning connections.
 *
 * Close codes (what a client sees):
 * - 1001 the gateway is shutting down;
 * - 4001 the listenKey expired or was deleted (after one LISTEN_KEY_EXPIRED event);
 * - 1009 a client frame larger than the stream's limit (sent by the ws library);
 * - 1006 (no close frame) heartbeat timeout, slow consumer, or the `dropUser` fault hook.
 *
 * Fault injection (../faults.ts) reaches in at three points, each behind one boolean when off:
 * private frames (`sendPrivate`), new private connections (`acceptPrivate`), and half-open
 * connections (`send`, `heartbeat`).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Clock } from '../../../core/clock';
import { ErrorCodes, VenueError } from '../../../core/errors';
import { PRIVATE_STREAM_PATH, PUBLIC_FRAME_MAX_BYTES, PUBLIC_STREAM_PATH, validatePrivateStreamQuery } from '../../../protocol/ws';
import type { EngineEvent } from '../../engine/events';
import type { ExchangeConfig } from '../../service/config';
import type { ExchangeCore } from '../../service/exchange-core';
import type { FaultSwitches, WsFaultTarget } from '../faults';
import type { DropWsMode } from '../../../protocol/rest/admin';
import type { ListenKeyInfo, ListenKeyStore } from '../listen-keys';
import type { MarketDataStore } from '../../service/market-data';
import { refuseUpgrade } from './http-refusal';
import { PrivateStreams, type PrivateConnection } from './private-streams';
import { PublicStreams, type PublicConnection } from './public-streams';
import { NODE_TIMERS, type GatewayTimers, type TimerHandle } from './timers';

export const CLOSE_SHUTDOWN = 1001;
export const CLOSE_LISTEN_KEY_EXPIRED = 4001;

/** Clients send nothing meaningful on the private stream; anything bigger is abuse. */
const PRIVATE_FRAME_MAX_BYTES = 4096;

export interface WsGatewayOptions {
  core: ExchangeCore;
  listenKeys: ListenKeyStore;
  marketData: MarketDataStore;
  httpServer: Server;
  config: ExchangeConfig['ws'];
  logger?: Logger;
  /** Defaults to Node's timers (unref'd). */
  timers?: GatewayTimers;
  /** For eventTime of snapshots, liveness and coalescing; defaults to the core's wall clock. */
  clock?: Clock;
  /** Least time between two depth pushes of one symbol; default 100 ms. */
  depthIntervalMs?: number;
  /** Least time between two ticker pushes of one symbol; default 1000 ms. */
  tickerIntervalMs?: number;
  /**
   * A connection whose unsent output passes this many bytes is cut (a client that does not read
   * would otherwise grow the server's memory without bound); default 8 MiB.
   */
  maxBufferedBytes?: number;
  /** How long `close()` waits for clients to answer the close frame before cutting them; default 1000 ms. */
  closeGraceMs?: number;
  /** Fault-injection switches (docs/reliability.md); none when absent. */
  faults?: FaultSwitches;
}

type Connection = PrivateConnection | PublicConnection;

export interface WsGatewayStats {
  connections: number;
  privateUsers: number;
  privateListenKeys: number;
  privateConnections: number;
  silencedUsers: number;
  publicSubscriptions: number;
  pendingSnapshots: number;
}

export class WsGateway implements WsFaultTarget {
  private readonly core: ExchangeCore;
  private readonly listenKeys: ListenKeyStore;
  private readonly httpServer: Server;
  private readonly timers: GatewayTimers;
  private readonly clock: Clock;
  private readonly log: Logger | undefined;
  private readonly pingIntervalMs: number;
  private readonly deadAfterMs: number;
  private readonly maxBufferedBytes: number;
  private readonly closeGraceMs: number;
  private readonly privateWss: WebSocketServer;
  private readonly publicWss: WebSocketServer;
  private readonly privateStreams: PrivateStreams;
  private readonly publicStreams: PublicStreams;
  /** Open connections: the only place that lists them all (heartbeat and shutdown only). */
  private readonly connections = new Set<Connection>();
  private readonly pingTimer: TimerHandle;
  private nextId = 1;
  private closing: Promise<void> | undefined;
  private readonly faults: FaultSwitches | undefined;
  /** Connections the dropWs fault left half-open: nothing sent, no pings, nothing read. */
  private readonly halfOpen = new Set<Connection>();

  constructor(opts: WsGatewayOptions) {
    this.core = opts.core;
    this.listenKeys = opts.listenKeys;
    this.httpServer = opts.httpServer;
    this.timers = opts.timers ?? NODE_TIMERS;
    this.clock = opts.clock ?? opts.core.wallClock;
    this.log = opts.logger;
    this.pingIntervalMs = opts.config.pingIntervalMs;
    this.deadAfterMs = opts.config.deadAfterMs;
    this.maxBufferedBytes = opts.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.closeGraceMs = opts.closeGraceMs ?? 1000;
    this.faults = opts.faults;
    if (!(this.pingIntervalMs > 0) || !(this.deadAfterMs > 0)) {
      throw new RangeError(`ws.pingIntervalMs and ws.deadAfterMs must be positive, got ${this.pingIntervalMs} and ${this.deadAfterMs}`);
    }

    // noServer: the HTTP server's 'upgrade' event is routed here by path, and refusals get a real
    // HTTP response. Compression stays off: frames are small and deflate costs CPU per client.
    this.privateWss = new WebSocketServer({ noServer: true, maxPayload: PRIVATE_FRAME_MAX_BYTES, perMessageDeflate: false, clientTracking: false });
    this.publicWss = new WebSocketServer({ noServer: true, maxPayload: PUBLIC_FRAME_MAX_BYTES, perMessageDeflate: false, clientTracking: false });
    for (const wss of [this.privateWss, this.publicWss]) wss.on('error', (err) => this.log?.warn({ err }, 'websocket server error'));

    this.privateStreams = new PrivateStreams((conn, text) => this.sendPrivate(conn, text));
    this.publicStreams = new PublicStreams({
      core: opts.core,
      marketData: opts.marketData,
      timers: this.timers,
      clock: this.clock,
      depthIntervalMs: opts.depthIntervalMs ?? 100,
      tickerIntervalMs: opts.tickerIntervalMs ?? 1000,
      send: (conn, frame) => this.send(conn, frame),
      onError: (err) => this.log?.error({ err }, 'public snapshot failed'),
    });

    this.core.emitter.on('events', this.onEvents);
    // Account, condition and strategy events of users with no private stream open would only be
    // dropped by the router: the engine does not build them at all.
    this.core.engine.setPrivateEventFilter((userId) => this.privateStreams.hasUser(userId));
    // ListenKeyStore has no way to remove a listener; after close() this one does nothing.
    this.listenKeys.onEnd(this.onListenKeyEnd);
    this.httpServer.on('upgrade', this.onUpgrade);
    this.pingTimer = this.timers.setInterval(this.heartbeat, this.pingIntervalMs);
  }

  /** Number of open WebSocket connections (for metrics and tests). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Sizes of the internal indexes, for leak tests and metrics. */
  stats(): WsGatewayStats {
    const p = this.privateStreams.stats();
    const q = this.publicStreams.stats();
    return {
      connections: this.connections.size,
      privateUsers: p.users,
      privateListenKeys: p.listenKeys,
      privateConnections: p.connections,
      silencedUsers: p.silencedUsers,
      publicSubscriptions: q.subscriptions,
      pendingSnapshots: q.pendingSnapshots,
    };
  }

  // ---------------------------------------------------------------- fault hooks

  /**
   * Fault hook: cuts every private connection of a user. Without a code the TCP connection is
   * destroyed with no close frame (the client sees 1006, as after a network failure); with one,
   * a normal close handshake with that code. Returns how many connections were cut.
   */
  dropUser(userId: string, close?: { code: number; reason?: string }): number {
    const conns = this.privateStreams.connectionsOfUser(userId);
    for (const c of conns) {
      if (close) this.closeConnection(c, close.code, close.reason ?? 'dropped');
      else this.terminate(c);
    }
    return conns.length;
  }

  /**
   * Fault hook: while on, the user's private events are not delivered (they are still numbered,
   * so a `seq` gap shows after it is turned off); pings and pongs go on, so the connection looks
   * healthy. Applies to the user's current and future connections until turned off.
   */
  silence(userId: string, on: boolean): void {
    this.privateStreams.silence(userId, on);
  }

  /**
   * Fault hook (dropWs): halfOpen stops reading (so no pongs go back), sending and pinging, and
   * leaves the socket open, as a dead NAT entry or a hung peer would; terminate cuts (1006);
   * close sends a close frame (1001). For one user, or every private connection.
   */
  dropPrivate(userId: string | undefined, mode: DropWsMode): number {
    const conns = userId !== undefined ? this.privateStreams.connectionsOfUser(userId) : [...this.connections].filter((c): c is PrivateConnection => c.kind === 'private');
    for (const c of conns) this.dropConnection(c, mode);
    return conns.length;
  }

  private dropConnection(c: PrivateConnection, mode: DropWsMode): void {
    if (mode === 'terminate') this.terminate(c);
    else if (mode === 'close') this.closeConnection(c, CLOSE_SHUTDOWN, 'dropped (fault injection)');
    else {
      this.halfOpen.add(c);
      c.ws.pause();
    }
  }

  /** Users with a private connection now (fault injection). */
  privateUserIds(): string[] {
    const ids = new Set<string>();
    for (const c of this.connections) if (c.kind === 'private') ids.add(c.userId);
    return [...ids];
  }

  // ---------------------------------------------------------------- upgrade

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    try {
      this.upgrade(req, socket, head);
    } catch (err) {
      this.log?.error({ err }, 'websocket upgrade failed');
      refuseUpgrade(socket, 500, ErrorCodes.INTERNAL, 'internal error');
    }
  };

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing) {
      refuseUpgrade(socket, 503, ErrorCodes.BUSY, 'the exchange is shutting down');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === PUBLIC_STREAM_PATH) {
      this.publicWss.handleUpgrade(req, socket, head, (ws) => this.acceptPublic(ws));
      return;
    }
    if (url.pathname !== PRIVATE_STREAM_PATH) {
      refuseUpgrade(socket, 404, ErrorCodes.NO_SUCH_ENDPOINT, `no WebSocket endpoint ${url.pathname}; use ${PRIVATE_STREAM_PATH} or ${PUBLIC_STREAM_PATH}`);
      return;
    }
    const key = listenKeyOf(url);
    const info = typeof key === 'string' ? this.listenKeys.lookup(key) : undefined;
    if (!info) {
      // PROTOCOL.md section 5 fixes the status (401) for a stream; the code is the listenKey one.
      // A query that holds no usable key says what is wrong with it rather than "not found".
      const message = typeof key === 'string'
        ? 'listenKey not found or expired'
        : `${key.problem}: connect to ${PRIVATE_STREAM_PATH}?listenKey=<key>, with a key from POST /v1/private/user/listen-key`;
      refuseUpgrade(socket, 401, ErrorCodes.LISTEN_KEY_NOT_FOUND, message);
      return;
    }
    this.privateWss.handleUpgrade(req, socket, head, (ws) => this.acceptPrivate(ws, info));
  }

  private acceptPrivate(ws: WebSocket, info: ListenKeyInfo): void {
    const conn: PrivateConnection = { kind: 'private', id: this.nextId++, ws, lastSeen: this.clock.now(), deadTimer: undefined, attached: true, userId: info.userId, listenKey: info.listenKey, seq: 0 };
    if (!this.attach(conn)) return;
    this.privateStreams.add(conn);
    // The key may have ended while the handshake ran; its end event would have found no one.
    if (!this.listenKeys.lookup(info.listenKey)) this.expire(conn);
    else if (this.faults?.wsActive) {
      const drop = this.faults.dropOnOpen(conn.userId);
      if (drop !== undefined) this.dropConnection(conn, drop);
    }
  }

  private acceptPublic(ws: WebSocket): void {
    const conn: PublicConnection = { kind: 'public', id: this.nextId++, ws, lastSeen: this.clock.now(), deadTimer: undefined, attached: true, topics: new Set() };
    this.attach(conn);
  }

  /** Common wiring of a new connection; false when the gateway closed during the handshake. */
  private attach(conn: Connection): boolean {
    const ws = conn.ws;
    ws.on('error', (err) => this.log?.debug({ err, conn: conn.id }, 'websocket connection error'));
    ws.on('close', () => this.detach(conn));
    if (this.closing) {
      conn.attached = false;
      ws.close(CLOSE_SHUTDOWN, 'server shutting down');
      return false;
    }
    this.connections.add(conn);
    ws.on('pong', () => {
      conn.lastSeen = this.clock.now();
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      conn.lastSeen = this.clock.now();
      // Private streams take no requests: whatever a client sends there is ignored.
      if (conn.kind === 'public' && conn.attached) this.publicStreams.onFrame(conn, toBuffer(data), isBinary);
    });
    conn.deadTimer = this.timers.setTimeout(() => this.checkAlive(conn), this.deadAfterMs);
    return true;
  }

  /** Removes a connection from every index and timer; safe to call more than once. */
  private detach(conn: Connection): void {
    this.halfOpen.delete(conn);
    if (conn.deadTimer !== undefined) {
      this.timers.clearTimeout(conn.deadTimer);
      conn.deadTimer = undefined;
    }
    if (!this.connections.delete(conn) && !conn.attached) return;
    conn.attached = false;
    if (conn.kind === 'private') this.privateStreams.remove(conn);
    else this.publicStreams.remove(conn);
  }

  private closeConnection(conn: Connection, code: number, reason: string): void {
    // A half-open connection (dropWs fault) reads nothing, so it would never see the peer's
    // close frame: ws would hold the socket for its 30 s closing timeout, and the HTTP server's
    // close (stop) with it. It is cut instead.
    const paused = this.halfOpen.has(conn);
    this.detach(conn);
    if (paused) conn.ws.terminate();
    else conn.ws.close(code, reason);
  }

  private terminate(conn: Connection): void {
    this.detach(conn);
    conn.ws.terminate();
  }

  // ---------------------------------------------------------------- sending

  /** Private frames pass the duplicate/reorder switches when one is on. */
  private sendPrivate(conn: PrivateConnection, text: string): void {
    if (this.faults?.wsActive) this.faults.privateFrame(conn, conn.userId, text, (t) => this.send(conn, t));
    else this.send(conn, text);
  }

  private send(conn: Connection, frame: string | Buffer): void {
    if (!conn.attached || conn.ws.readyState !== WebSocket.OPEN) return;
    if (this.halfOpen.size > 0 && this.halfOpen.has(conn)) return;
    if (conn.ws.bufferedAmount > this.maxBufferedBytes) {
      this.log?.warn({ conn: conn.id, buffered: conn.ws.bufferedAmount }, 'cutting a websocket client that does not read');
      this.terminate(conn);
      return;
    }
    // A Buffer goes out as the same bytes to every subscriber; `binary: false` keeps it a text frame.
    conn.ws.send(frame, { binary: false });
  }

  // ---------------------------------------------------------------- events

  private readonly onEvents = (events: EngineEvent[]): void => {
    // This runs inside core.execute: a failure here must not turn an accepted, journaled command
    // into a failed request.
    try {
      for (const e of events) {
        // Each side ignores the kinds it does not serve; order events feed both (user and book).
        this.privateStreams.route(e);
        this.publicStreams.route(e);
      }
    } catch (err) {
      this.log?.error({ err }, 'websocket fan-out failed');
    }
  };

  private readonly onListenKeyEnd = (info: ListenKeyInfo): void => {
    if (this.closing) return;
    for (const conn of this.privateStreams.connectionsOfKey(info.listenKey)) this.expire(conn);
  };

  private expire(conn: PrivateConnection): void {
    this.privateStreams.sendOne(conn, 'LISTEN_KEY_EXPIRED', this.clock.now(), { listenKey: conn.listenKey });
    this.closeConnection(conn, CLOSE_LISTEN_KEY_EXPIRED, 'listenKey expired');
  }

  // ---------------------------------------------------------------- heartbeat

  private readonly heartbeat = (): void => {
    // Keys that ran out with nobody asking are noticed here, so their streams end on time.
    this.listenKeys.sweep();
    for (const conn of this.connections) {
      if (conn.ws.readyState === WebSocket.OPEN && !this.halfOpen.has(conn)) conn.ws.ping();
    }
  };

  /**
   * Armed for `deadAfterMs` after the last sign of life. Pongs only move `lastSeen`; the timer is
   * re-armed for the remainder when it fires, so a healthy connection costs one timer per period
   * rather than one per pong.
   */
  private checkAlive(conn: Connection): void {
    conn.deadTimer = undefined;
    if (!conn.attached) return;
    const left = conn.lastSeen + this.deadAfterMs - this.clock.now();
    if (left > 0) {
      conn.deadTimer = this.timers.setTimeout(() => this.checkAlive(conn), left);
      return;
    }
    this.log?.info({ conn: conn.id, kind: conn.kind }, 'websocket client stopped answering pings; terminating');
    this.terminate(conn);
  }

  // ---------------------------------------------------------------- shutdown

  /** Closes every connection (code 1001) and stops timers. */
  close(): Promise<void> {
    if (!this.closing) this.closing = this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.core.emitter.off('events', this.onEvents);
    this.timers.clearInterval(this.pingTimer);
    this.publicStreams.close();
    const conns = [...this.connections];
    const closed = conns.map((c) => whenClosed(c.ws));
    for (const c of conns) this.closeConnection(c, CLOSE_SHUTDOWN, 'server shutting down');
    let grace: TimerHandle | undefined;
    const timeout = new Promise<void>((resolve) => {
      grace = this.timers.setTimeout(resolve, this.closeGraceMs);
    });
    await Promise.race([Promise.all(closed), timeout]);
    this.timers.clearTimeout(grace);
    // Clients that did not answer the close frame in time are cut.
    for (const c of conns) if (c.ws.readyState !== WebSocket.CLOSED) c.ws.terminate();
    await Promise.all(closed);
    this.privateWss.close();
    this.publicWss.close();
    // The 'upgrade' listener stays: until the HTTP server itself closes, late upgrades get a 503
    // rather than a socket nobody answers.
  }
}

/**
 * The listenKey of a private-stream URL, or what is wrong with the query when it is not exactly
 * one well-formed key (the validator's words: missing, repeated, unknown parameter, too long).
 */
function listenKeyOf(url: URL): string | { problem: string } {
  const seen = new Map<string, string>();
  for (const [k, v] of url.searchParams) {
    if (seen.has(k)) return { problem: `query parameter '${k.slice(0, 64)}' is given more than once` };
    seen.set(k, v);
  }
  try {
    // fromEntries defines own properties, so a parameter named __proto__ stays a plain key.
    return validatePrivateStreamQuery(Object.fromEntries(seen)).listenKey;
  } catch (err) {
    if (err instanceof VenueError) return { problem: err.message };
    throw err;
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function whenClosed(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => ws.once('close', () => resolve()));
}
