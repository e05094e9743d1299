/**
 * One WebSocket that stays up: connects, pings and watches for the pong (a dead TCP connection
 * sends nothing, it just stops), reconnects with exponential backoff and jitter after any close,
 * and tells its owner what happened through hooks. The private and public streams build on it.
 */
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import type { RawData } from 'ws';
import { backoffDelay, type BackoffOptions } from '../backoff';
import { StreamError } from '../errors';
import type { TimerHandle, Timers } from '../timers';

/** ws, loaded when the first socket connects (see http.ts: a backtest imports the client and never connects). */
function wsModule(): typeof import('ws') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('ws') as typeof import('ws');
}
/** WebSocket.OPEN (the ready state of an open socket), without loading ws for it. */
const OPEN = 1;

export interface SocketOptions {
  /** Client ping period, ms; default 20 s (PROTOCOL.md section 5). */
  pingIntervalMs: number;
  /** No pong (or any frame) this long after a ping: the connection is dead; default 10 s. */
  pongTimeoutMs: number;
  reconnectBackoff: BackoffOptions;
  handshakeTimeoutMs: number;
}

export const DEFAULT_SOCKET_OPTIONS: SocketOptions = {
  pingIntervalMs: 20_000,
  pongTimeoutMs: 10_000,
  reconnectBackoff: { baseMs: 250, maxMs: 30_000 },
  handshakeTimeoutMs: 10_000,
};

export interface SocketHooks {
  /** The URL of the next attempt (the private stream may first renew its listenKey here). */
  url(): Promise<string>;
  onOpen(reconnect: boolean): void;
  onText(text: string): void;
  /**
   * After a close; `status` is the HTTP status when the upgrade itself was refused. True: what
   * closed it is mended by the next `url()` (a fresh listenKey), so reconnect at once rather than
   * after a backoff step (once in a row; a second such close in a row waits its backoff).
   */
  onClose(info: { code: number; reason: string; status: number | undefined; dead: boolean }): boolean | void;
  /** Before a reconnect attempt is scheduled. */
  onReconnectScheduled(attempt: number, delayMs: number): void;
  onUrlError(err: unknown): void;
}

export class ReconnectingSocket {
  private ws: WebSocket | undefined;
  private running = false;
  private everOpened = false;
  private attempt = 0;
  /**
   * The current connection has shown a sign of life (a message, ping or pong): only then does the
   * backoff start over. Reset at open, a server (or proxy) that accepts and drops every connection
   * at once was retried every ~200 ms for as long as it did so, each time a notice and a log line.
   */
  private proven = false;
  private pingTimer: TimerHandle | undefined;
  private pongTimer: TimerHandle | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private lastStatus: number | undefined;
  private dead = false;
  /** The last reconnect went out at once (see SocketHooks.onClose); reset when a connection opens. */
  private retriedAtOnce = false;
  private openWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  constructor(
    private readonly opts: SocketOptions,
    private readonly hooks: SocketHooks,
    private readonly timers: Timers,
    private readonly log: Logger,
  ) {}

  get isOpen(): boolean {
    return this.ws?.readyState === OPEN;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  /**
   * Resolves at the next open (at once when open); rejects with a StreamError when `stop()` comes
   * first, so a `start()` awaiting it never hangs on a stream that was stopped meanwhile.
   */
  whenOpen(): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    if (!this.running) return Promise.reject(new StreamError('the stream is stopped: it will not connect until it is started again', false));
    return new Promise((resolve, reject) => this.openWaiters.push({ resolve, reject }));
  }

  send(text: string): boolean {
    if (!this.isOpen || this.ws === undefined) return false;
    this.ws.send(text);
    return true;
  }

  /** Cuts the current connection now (no close handshake); a reconnect follows if running. */
  terminate(): void {
    this.ws?.terminate();
  }

  stop(): void {
    this.running = false;
    const stopped = new StreamError('the stream was stopped before it connected', false);
    for (const w of this.openWaiters.splice(0)) w.reject(stopped);
    this.clearHeartbeat();
    if (this.reconnectTimer !== undefined) this.timers.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const ws = this.ws;
    this.ws = undefined;
    if (ws !== undefined) {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      if (ws.readyState === OPEN) ws.close(1000, 'client stop');
      else ws.terminate();
    }
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    let url: string;
    try {
      url = await this.hooks.url();
    } catch (err) {
      this.hooks.onUrlError(err);
      this.scheduleReconnect();
      return;
    }
    if (!this.running) return;
    this.lastStatus = undefined;
    this.dead = false;
    const ws = new (wsModule())(url, { handshakeTimeout: this.opts.handshakeTimeoutMs, perMessageDeflate: false });
    this.ws = ws;
    ws.on('open', () => {
      const reconnect = this.everOpened;
      this.everOpened = true;
      this.proven = false;
      this.retriedAtOnce = false;
      this.armPing();
      this.hooks.onOpen(reconnect);
      for (const w of this.openWaiters.splice(0)) w.resolve();
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      this.gotLifeSign();
      if (isBinary) return;
      this.hooks.onText(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8'));
    });
    ws.on('pong', () => this.gotLifeSign());
    ws.on('ping', () => this.gotLifeSign());
    ws.on('error', (err: Error) => {
      const m = /Unexpected server response: (\d+)/.exec(err.message);
      if (m) this.lastStatus = Number(m[1]);
      this.log.debug({ err: err.message }, 'websocket error');
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.clearHeartbeat();
      const mended = this.hooks.onClose({ code, reason: reason.toString('utf8'), status: this.lastStatus, dead: this.dead }) === true;
      this.scheduleReconnect(mended && !this.retriedAtOnce);
      this.retriedAtOnce = mended;
    });
  }

  private scheduleReconnect(atOnce = false): void {
    if (!this.running || this.reconnectTimer !== undefined) return;
    const delay = atOnce ? 0 : backoffDelay(this.attempt, this.opts.reconnectBackoff);
    this.attempt++;
    this.hooks.onReconnectScheduled(this.attempt, delay);
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
    // NODE_TIMERS unrefs its timers, but a started stream between two connections is work under
    // way, as its socket is while connected: unref'd, a process that only listens on the stream
    // ended (exit 0, nothing said) at the first drop or venue restart instead of reconnecting.
    // stop() clears the timer, so a stopped stream holds nothing.
    this.reconnectTimer.ref?.();
  }

  private armPing(): void {
    this.clearHeartbeat();
    this.pingTimer = this.timers.setTimeout(() => {
      this.pingTimer = undefined;
      const ws = this.ws;
      if (ws === undefined || ws.readyState !== OPEN) return;
      try {
        ws.ping();
      } catch {
        // A socket that cannot take a ping is closing; the close handler takes over.
      }
      this.pongTimer = this.timers.setTimeout(() => {
        this.pongTimer = undefined;
        this.dead = true;
        this.log.warn({ pongTimeoutMs: this.opts.pongTimeoutMs }, 'no pong in time: connection is dead, reconnecting');
        ws.terminate();
      }, this.opts.pongTimeoutMs);
    }, this.opts.pingIntervalMs);
  }

  /** Any frame proves the connection lives: cancel the pong deadline and ping again later. */
  private gotLifeSign(): void {
    if (!this.proven) {
      this.proven = true;
      this.attempt = 0;
    }
    if (this.pongTimer !== undefined) {
      this.timers.clearTimeout(this.pongTimer);
      this.pongTimer = undefined;
      this.armPing();
    }
  }

  private clearHeartbeat(): void {
    if (this.pingTimer !== undefined) this.timers.clearTimeout(this.pingTimer);
    if (this.pongTimer !== undefined) this.timers.clearTimeout(this.pongTimer);
    this.pingTimer = undefined;
    this.pongTimer = undefined;
  }
}
