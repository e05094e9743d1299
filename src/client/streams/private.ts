/**
 * The private stream (PROTOCOL.md section 5): creates a listenKey, keeps it alive well before it
 * expires, renews it on LISTEN_KEY_EXPIRED / 20008 / a refused upgrade, reconnects with backoff,
 * detects dead connections (ping/pong), silent ones (no events while orders are working) and seq
 * gaps, and says so on `notices$` / `resync$`, so the caller can reconcile over REST. When the
 * venue refuses the credentials themselves (a session it forgot and that cannot be refreshed, an
 * API key it no longer knows), whether for a new listenKey at a reconnect or for the keepalive of
 * the one in use, it says so once, at error and as an `unauthenticated` notice, and keeps trying
 * (reconnects at the capped backoff, keepalives every few seconds): fixed credentials (a new login
 * on the client) recover it.
 */
import type { Logger } from 'pino';
import { Observable, Subject, filter, share } from '../../core/rx';
import type { Clock } from '../../core/clock';
import { FINAL_ORDER_STATUSES, type OrderStatus } from '../../core/enums';
import { PRIVATE_STREAM_PATH, type PrivateEvent, type PrivateEventDataMap, type PrivateEventOf } from '../../protocol/ws';
import { AuthenticationError, NotFoundError, PerpkitError, PermissionDeniedError, StreamError } from '../errors';
import type { UserApi } from '../rest/user';
import type { TimerHandle, Timers } from '../timers';
import { decodePrivateEvent } from './events';
import { DEFAULT_SOCKET_OPTIONS, ReconnectingSocket, type SocketOptions } from './socket';
import { SeqTracker, type SeqGap } from './seq';

export type ResyncReason = 'reconnect' | 'gap' | 'silence' | 'listenKeyRenewed';

/** Something the caller may need to know; `resync` ones mean local state may be stale. */
export type StreamNotice =
  | { type: 'open'; reconnect: boolean }
  | { type: 'close'; code: number; reason: string; dead: boolean; httpStatus: number | undefined }
  | { type: 'reconnecting'; attempt: number; delayMs: number }
  | { type: 'gap'; expected: number; received: number }
  | { type: 'silence'; silentForMs: number }
  | { type: 'listenKeyRenewed'; why: string }
  | { type: 'keepAlive'; expireAt: number }
  | { type: 'malformed'; field: string; problem: string }
  /**
   * The venue refused the credentials a reconnect needs (a listenKey cannot be made: the session
   * is gone and cannot be refreshed, the API key is unknown or lacks the permission), or those of
   * the keepalive of the listenKey in use (that key expires, and with it the connection), not a
   * network failure: nothing reaches the stream until they are fixed. Once per such spell; it ends
   * when a listenKey is had again (a `listenKeyRenewed` resync, then `open`) or, on a connection
   * that stayed open, when a keepalive goes through (`authenticated`). The failed attempts
   * meanwhile are `error` notices, as any failed attempt.
   */
  | { type: 'unauthenticated'; error: unknown }
  /** An `unauthenticated` spell ended on a connection that stayed open: a keepalive of its listenKey went through. */
  | { type: 'authenticated' }
  | { type: 'error'; error: unknown };

export interface ResyncRequest {
  reason: ResyncReason;
  /** The notice that caused it. */
  notice: StreamNotice;
}

export interface PrivateStreamOptions extends Partial<SocketOptions> {
  /** ws:// or wss:// origin of the venue, e.g. ws://127.0.0.1:8080. */
  wsOrigin: string;
  /** Fixed keepalive period, ms; by default half the key's remaining life, at most 30 min. A failed keepalive is tried again within 1-5 s (a quarter of the key's remaining life), or this period if shorter. */
  keepAliveIntervalMs?: number;
  /** No event for this long while orders are working is reported as silence; default 60 s. */
  silenceTimeoutMs?: number;
  /** Overrides the stream's own view (orders seen working on the stream or placed by the client). */
  hasWorkingOrders?: () => boolean;
  /**
   * How long a skipped `seq` may take to arrive before it is reported as a gap (a resync), ms;
   * default 250. One that arrives meanwhile was reordered, not lost; a repeated `seq` is dropped.
   * 0: every skip is a gap at once.
   */
  gapGraceMs?: number;
  /**
   * A listenKey an earlier run of the program created (saved by the caller): extended and used
   * if the venue still knows it, else a new one is created. A venue caps the live keys of a user
   * (10 on the local exchange, each living 60 min): a program that crashed and restarted ten times
   * within the hour could not open its private stream at all.
   */
  listenKey?: string;
}

const KEEPALIVE_MAX_MS = 30 * 60 * 1000;
const KEEPALIVE_MIN_MS = 1000;

export class PrivateStream {
  private readonly eventsSubject = new Subject<PrivateEvent>();
  private readonly noticesSubject = new Subject<StreamNotice>();
  private readonly resyncSubject = new Subject<ResyncRequest>();
  /** Every validated event, in order. */
  readonly events$: Observable<PrivateEvent> = this.eventsSubject.asObservable();
  readonly notices$: Observable<StreamNotice> = this.noticesSubject.asObservable();
  /** Reconnects, gaps, silences and listenKey renewals: reconcile over REST on each. */
  readonly resync$: Observable<ResyncRequest> = this.resyncSubject.asObservable();

  private readonly socket: ReconnectingSocket;
  private readonly seq = new SeqTracker();
  private readonly working = new Set<string>();
  private listenKey: string | undefined;
  private expireAt = 0;
  private keyInvalid = false;
  private keepAliveTimer: TimerHandle | undefined;
  private silenceTimer: TimerHandle | undefined;
  private gapTimer: TimerHandle | undefined;
  /** The first skip of the holes the gap timer waits for. */
  private pendingGap: SeqGap | undefined;
  private lastEventAt = 0;
  private silenceReported = false;
  private running = false;
  /** The venue's refusal of the credentials, from the first reconnect or keepalive it refused until a connection opens or a keepalive goes through. */
  private refusedBy: unknown;
  private readonly opts: Required<Omit<PrivateStreamOptions, 'keepAliveIntervalMs' | 'hasWorkingOrders' | 'listenKey'>> & PrivateStreamOptions;

  constructor(
    private readonly user: UserApi,
    options: PrivateStreamOptions,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly log: Logger,
    private readonly venueNow: () => number,
  ) {
    this.opts = { ...DEFAULT_SOCKET_OPTIONS, silenceTimeoutMs: 60_000, gapGraceMs: 250, ...options };
    this.socket = new ReconnectingSocket(
      this.opts,
      {
        url: () => this.nextUrl(),
        onOpen: (reconnect) => this.onOpen(reconnect),
        onText: (t) => this.onText(t),
        onClose: (i) => this.onClose(i),
        onReconnectScheduled: (attempt, delayMs) => this.notice({ type: 'reconnecting', attempt, delayMs }),
        onUrlError: (error) => this.urlFailed(error),
      },
      timers,
      log,
    );
  }

  /** Events of one kind, typed. */
  on<K extends keyof PrivateEventDataMap>(kind: K): Observable<PrivateEventOf<K>> {
    return this.events$.pipe(
      filter((e): e is PrivateEventOf<K> & PrivateEvent => e.event === kind),
      share(),
    ) as Observable<PrivateEventOf<K>>;
  }

  /** Plain callback for users who do not want RxJS; returns the unsubscribe function. */
  onEvent(handler: (e: PrivateEvent) => void): () => void {
    const sub = this.events$.subscribe(handler);
    return () => sub.unsubscribe();
  }

  get currentListenKey(): string | undefined {
    return this.listenKey;
  }

  private stopped = false;

  get connected(): boolean {
    return this.socket.isOpen;
  }

  /** Creates the listenKey and connects; resolves once the first connection is open. */
  async start(): Promise<void> {
    // Its observables completed at stop(): a restarted stream would connect and deliver nothing.
    if (this.stopped) throw new StreamError('this private stream was stopped and cannot be started again; make a new one with client.privateStream()', false);
    if (this.running) return this.socket.whenOpen();
    this.running = true;
    try {
      await this.ensureListenKey();
    } catch (err) {
      // Not started: a later start() (after login, say) must try again, not wait on a socket
      // that was never started.
      this.running = false;
      throw err;
    }
    this.socket.start();
    this.armSilence();
    await this.socket.whenOpen();
  }

  /** Disconnects, stops the timers and closes the listenKey (best effort). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    this.socket.stop();
    if (this.keepAliveTimer !== undefined) this.timers.clearTimeout(this.keepAliveTimer);
    if (this.silenceTimer !== undefined) this.timers.clearTimeout(this.silenceTimer);
    this.keepAliveTimer = undefined;
    this.silenceTimer = undefined;
    this.clearGap();
    const key = this.listenKey;
    this.listenKey = undefined;
    if (key !== undefined) {
      try {
        await this.user.closeListenKey({ listenKey: key });
      } catch (err) {
        this.log.debug({ err: (err as Error).message }, 'closing the listenKey failed');
      }
    }
    this.eventsSubject.complete();
    this.noticesSubject.complete();
    this.resyncSubject.complete();
  }

  /** Orders the client placed over REST, so silence is judged with them counted. */
  noteOrders(orders: ReadonlyArray<{ orderId: string; status: string }>): void {
    for (const o of orders) {
      if (FINAL_ORDER_STATUSES.has(o.status as OrderStatus)) this.working.delete(o.orderId);
      else this.working.add(o.orderId);
    }
  }

  /** Forget tracked working orders (after a REST reconcile, say). */
  resetWorkingOrders(ids: Iterable<string> = []): void {
    this.working.clear();
    for (const id of ids) this.working.add(id);
  }

  /** Cuts the connection as a network failure would (tests, manual recovery). */
  reconnectNow(): void {
    this.socket.terminate();
  }

  // ---------------------------------------------------------------- listenKey

  private async ensureListenKey(): Promise<string> {
    if (this.listenKey !== undefined && !this.keyInvalid) return this.listenKey;
    const saved = this.opts.listenKey;
    if (this.listenKey === undefined && saved !== undefined) {
      // Once: a key that turns out dead is not tried again.
      this.opts.listenKey = undefined;
      try {
        const r = await this.user.extendListenKey({ listenKey: saved });
        this.listenKey = saved;
        this.expireAt = r.expireAt;
        this.keyInvalid = false;
        this.scheduleKeepAlive();
        this.log.debug('private stream: the saved listenKey is still live; using it');
        return saved;
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
    }
    const renewing = this.listenKey !== undefined;
    const r = await this.user.createListenKey();
    this.listenKey = r.listenKey;
    this.expireAt = r.expireAt;
    this.keyInvalid = false;
    this.scheduleKeepAlive();
    if (renewing) this.resync('listenKeyRenewed', { type: 'listenKeyRenewed', why: 'the previous listenKey expired or was refused' });
    return r.listenKey;
  }

  private async nextUrl(): Promise<string> {
    const key = await this.ensureListenKey();
    if (this.refusedBy !== undefined) {
      this.refusedBy = undefined;
      this.log.info('private stream: the venue accepts the credentials again; reconnecting');
    }
    return `${this.opts.wsOrigin.replace(/\/$/, '')}${PRIVATE_STREAM_PATH}?listenKey=${encodeURIComponent(key)}`;
  }

  private keepAliveDelay(): number {
    if (this.opts.keepAliveIntervalMs !== undefined) return this.opts.keepAliveIntervalMs;
    const left = this.expireAt - this.venueNow();
    return Math.max(KEEPALIVE_MIN_MS, Math.min(KEEPALIVE_MAX_MS, Math.floor(left / 2)));
  }

  /**
   * The next try after a failed keepalive: within a quarter of the key's remaining life, 1 to 5 s,
   * and never later than the next regular one of a fixed period (`keepAliveIntervalMs`).
   */
  private keepAliveRetryDelay(): number {
    const retry = Math.max(KEEPALIVE_MIN_MS, Math.min(5000, (this.expireAt - this.venueNow()) / 4));
    return this.opts.keepAliveIntervalMs === undefined ? retry : Math.min(retry, this.opts.keepAliveIntervalMs);
  }

  private scheduleKeepAlive(delay = this.keepAliveDelay()): void {
    if (this.keepAliveTimer !== undefined) this.timers.clearTimeout(this.keepAliveTimer);
    if (!this.running) return;
    this.keepAliveTimer = this.timers.setTimeout(() => {
      this.keepAliveTimer = undefined;
      void this.keepAlive();
    }, delay);
  }

  private async keepAlive(): Promise<void> {
    const key = this.listenKey;
    if (key === undefined || !this.running) return;
    try {
      const r = await this.user.extendListenKey({ listenKey: key });
      if (this.listenKey !== key) return;
      this.expireAt = r.expireAt;
      this.notice({ type: 'keepAlive', expireAt: r.expireAt });
      if (this.refusedBy !== undefined && this.socket.isOpen) {
        this.refusedBy = undefined;
        this.log.info('private stream: the venue accepts the credentials again (the listenKey keepalive went through)');
        this.notice({ type: 'authenticated' });
      }
      this.scheduleKeepAlive();
    } catch (err) {
      // The stream moved to another key while this one's keepalive was in flight (a reconnect that
      // renewed it): what the venue says of the old key is no news of the new one, whose own
      // keepalives are scheduled. Its 20008 ended the new connection too.
      if (this.listenKey !== key || !this.running) return;
      if (err instanceof NotFoundError) {
        // 20008: the key is gone. A new one, and a new connection on it.
        this.keyInvalid = true;
        this.socket.terminate();
        return;
      }
      if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
        // Not the network: the key cannot be kept alive until the credentials are fixed. Tried
        // again every few seconds, so that fixed credentials extend it before it expires.
        this.credentialsRefused(err, 'keepalive');
        this.scheduleKeepAlive(this.keepAliveRetryDelay());
        return;
      }
      this.notice({ type: 'error', error: err });
      const retryable = err instanceof PerpkitError ? err.retryable : true;
      this.scheduleKeepAlive(retryable ? this.keepAliveRetryDelay() : this.keepAliveDelay());
    }
  }

  // ---------------------------------------------------------------- socket hooks

  /** A reconnect that could not get its URL (a listenKey). */
  private urlFailed(error: unknown): void {
    if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) this.credentialsRefused(error, 'reconnect');
    else this.notice({ type: 'error', error });
  }

  /**
   * The venue refused the credentials of a reconnect (a new listenKey) or of the keepalive of the
   * key in use: said once per spell at error and as an `unauthenticated` notice, as the one thing
   * that will not mend by itself; the attempts that follow (reconnects at the socket's capped
   * backoff, keepalives) at debug, as `error` notices.
   */
  private credentialsRefused(error: AuthenticationError | PermissionDeniedError, during: 'reconnect' | 'keepalive'): void {
    if (this.refusedBy !== undefined) {
      this.log.debug({ code: error.venueCode, err: error.message, during }, 'private stream: the venue still refuses the credentials; retrying');
      this.noticesSubject.next({ type: 'error', error });
      return;
    }
    this.refusedBy = error;
    const what =
      during === 'keepalive'
        ? ` for the keepalive of the listenKey in use, not a network failure: once the key expires (${Math.max(0, Math.round((this.expireAt - this.venueNow()) / 1000))} s) no order updates or fills reach this client until they are fixed (sign in again, or an API key the venue knows); retrying the keepalive every few seconds`
        : ', not a network failure: no order updates or fills reach this client until they are fixed (sign in again, or an API key the venue knows); retrying at the capped backoff';
    this.log.error({ code: error.venueCode, endpoint: error.endpoint, err: error.message, during }, `private stream: the venue refuses the credentials (${error.venueCode ?? error.code}: ${error.message})${what}`);
    this.noticesSubject.next({ type: 'unauthenticated', error });
  }

  private onOpen(reconnect: boolean): void {
    this.seq.reset();
    this.clearGap();
    this.lastEventAt = this.clock.now();
    this.silenceReported = false;
    if (reconnect) this.resync('reconnect', { type: 'open', reconnect });
    else this.notice({ type: 'open', reconnect });
  }

  private onText(text: string): void {
    this.lastEventAt = this.clock.now();
    this.silenceReported = false;
    const d = decodePrivateEvent(text);
    if (!d.ok) {
      this.notice({ type: 'malformed', field: d.field, problem: d.problem });
      return;
    }
    const e = d.value;
    const v = this.seq.check(e.seq);
    if (v.kind === 'duplicate') {
      // Already delivered: nothing was lost, and handlers need not see it twice.
      this.log.debug({ seq: e.seq, event: e.event }, 'private stream: a repeated event dropped');
      return;
    }
    if (v.kind === 'ahead') this.armGap(v.gap);
    else if (v.kind === 'late' && !this.seq.hasHoles) this.clearGap();
    if (e.event === 'ORDER_TRADE_UPDATE') this.noteOrders([e.data]);
    else if (e.event === 'LISTEN_KEY_EXPIRED') this.keyInvalid = true;
    this.eventsSubject.next(e);
  }

  /** True when the close was the key's (the socket reconnects at once with a new one). */
  private onClose(i: { code: number; reason: string; status: number | undefined; dead: boolean }): boolean {
    this.notice({ type: 'close', code: i.code, reason: i.reason, dead: i.dead, httpStatus: i.status });
    // 4001: the key expired (after LISTEN_KEY_EXPIRED); 401: the upgrade refused an unknown key
    // (the venue restarted and forgot it, say): a new key mends it, no need to wait.
    if (i.code === 4001 || i.status === 401 || i.status === 404) this.keyInvalid = true;
    return this.keyInvalid;
  }

  // ---------------------------------------------------------------- gaps

  /**
   * A skipped `seq`: reported as a gap (a resync) only if it has not arrived within gapGraceMs.
   * Reordered events (a frame held back behind the next) used to cost a resync and a warning
   * each, two per swap, and a duplicated frame one; a bot reconciled dozens of times in seconds.
   */
  private armGap(gap: SeqGap): void {
    this.pendingGap ??= gap;
    if (this.opts.gapGraceMs <= 0) {
      this.reportGap();
      return;
    }
    if (this.gapTimer !== undefined) return;
    this.gapTimer = this.timers.setTimeout(() => {
      this.gapTimer = undefined;
      if (this.seq.hasHoles) this.reportGap();
      else this.pendingGap = undefined;
    }, this.opts.gapGraceMs);
  }

  private reportGap(): void {
    const gap = this.pendingGap;
    this.pendingGap = undefined;
    this.seq.markReported();
    if (gap !== undefined) this.resync('gap', { type: 'gap', ...gap });
  }

  private clearGap(): void {
    if (this.gapTimer !== undefined) this.timers.clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
    this.pendingGap = undefined;
  }

  // ---------------------------------------------------------------- silence

  private hasWorkingOrders(): boolean {
    return this.opts.hasWorkingOrders !== undefined ? this.opts.hasWorkingOrders() : this.working.size > 0;
  }

  private armSilence(delay = this.opts.silenceTimeoutMs): void {
    if (!this.running) return;
    this.silenceTimer = this.timers.setTimeout(() => {
      this.silenceTimer = undefined;
      const quietFor = this.clock.now() - this.lastEventAt;
      if (quietFor < this.opts.silenceTimeoutMs) {
        this.armSilence(this.opts.silenceTimeoutMs - quietFor);
        return;
      }
      if (this.socket.isOpen && !this.silenceReported && this.hasWorkingOrders()) {
        this.silenceReported = true;
        this.resync('silence', { type: 'silence', silentForMs: quietFor });
      }
      this.armSilence();
    }, Math.max(1, delay));
  }

  // ---------------------------------------------------------------- output

  private notice(n: StreamNotice): void {
    if (n.type === 'error' || n.type === 'malformed' || n.type === 'gap' || n.type === 'silence') this.log.warn({ notice: n }, 'private stream');
    else this.log.debug({ notice: n }, 'private stream');
    this.noticesSubject.next(n);
  }

  private resync(reason: ResyncReason, n: StreamNotice): void {
    this.notice(n);
    this.resyncSubject.next({ reason, notice: n });
  }
}
