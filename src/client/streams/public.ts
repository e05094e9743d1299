/**
 * The public stream (PROTOCOL.md section 5): subscribe / unsubscribe with acknowledgements, the
 * wanted topics re-subscribed after every reconnect, and typed trade, markPrice, depth and ticker
 * pushes. `topic$(kind, symbol)` subscribes when the first observer comes and unsubscribes when
 * the last one leaves.
 */
import type { Logger } from 'pino';
import { Observable, Subject, filter, finalize, share } from 'rxjs';
import type { PublicTopicKind } from '../../core/enums';
import {
  PUBLIC_STREAM_PATH,
  PUBLIC_TOPICS_PER_FRAME_MAX,
  isPublicAck,
  topicOf,
  type PublicAck,
  type PublicNack,
  type PublicOp,
  type PublicPush,
  type PublicPushOf,
  type PublicTopic,
} from '../../protocol/ws';
import { StreamError } from '../errors';
import type { Timers } from '../timers';
import { decodePublicMessage } from './events';
import type { StreamNotice } from './private';
import { DEFAULT_SOCKET_OPTIONS, ReconnectingSocket, type SocketOptions } from './socket';

export interface PublicStreamOptions extends Partial<SocketOptions> {
  wsOrigin: string;
  /** How long a subscribe waits for its acknowledgement, ms; default 10 s. */
  ackTimeoutMs?: number;
}

interface PendingAck {
  op: PublicOp;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class PublicStream {
  private readonly pushSubject = new Subject<PublicPush>();
  private readonly noticesSubject = new Subject<StreamNotice>();
  readonly pushes$: Observable<PublicPush> = this.pushSubject.asObservable();
  readonly notices$: Observable<StreamNotice> = this.noticesSubject.asObservable();
  private readonly socket: ReconnectingSocket;
  private readonly wanted = new Set<PublicTopic>();
  private readonly refCounts = new Map<PublicTopic, number>();
  private readonly topicStreams = new Map<PublicTopic, Observable<PublicPush>>();
  private pending: PendingAck[] = [];
  private running = false;
  private readonly ackTimeoutMs: number;

  constructor(
    options: PublicStreamOptions,
    private readonly timers: Timers,
    private readonly log: Logger,
  ) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.socket = new ReconnectingSocket(
      { ...DEFAULT_SOCKET_OPTIONS, ...options },
      {
        url: () => Promise.resolve(`${options.wsOrigin.replace(/\/$/, '')}${PUBLIC_STREAM_PATH}`),
        onOpen: (reconnect) => this.onOpen(reconnect),
        onText: (t) => this.onText(t),
        onClose: (i) => {
          this.failPending(new StreamError(`public stream closed (${i.code}) before the acknowledgement`, true));
          this.notice({ type: 'close', code: i.code, reason: i.reason, dead: i.dead, httpStatus: i.status });
        },
        onReconnectScheduled: (attempt, delayMs) => this.notice({ type: 'reconnecting', attempt, delayMs }),
        onUrlError: (error) => this.notice({ type: 'error', error }),
      },
      timers,
      log,
    );
  }

  private stopped = false;

  get connected(): boolean {
    return this.socket.isOpen;
  }

  get topics(): ReadonlySet<PublicTopic> {
    return this.wanted;
  }

  async start(): Promise<void> {
    // Its observables completed at stop(): a restarted stream would connect and deliver nothing.
    if (this.stopped) throw new StreamError('this public stream was stopped and cannot be started again; make a new one with client.publicStream()', false);
    if (!this.running) {
      this.running = true;
      this.socket.start();
    }
    await this.socket.whenOpen();
  }

  stop(): void {
    this.stopped = true;
    this.running = false;
    this.socket.stop();
    this.failPending(new StreamError('public stream stopped', false));
    this.pushSubject.complete();
    this.noticesSubject.complete();
  }

  /**
   * Adds topics; resolves on the venue's acknowledgement (or at once while disconnected: they go
   * out on connect). A refusal (StreamError with the venue's code) leaves the wanted topics as they
   * were: the venue refuses the whole frame, and a refused topic kept would make every
   * re-subscription after a reconnect refused too, the good topics with it.
   */
  async subscribe(topics: PublicTopic[]): Promise<void> {
    const added = topics.filter((t) => !this.wanted.has(t));
    for (const t of added) this.wanted.add(t);
    try {
      await this.sendOp('subscribe', topics);
    } catch (err) {
      if (err instanceof StreamError && err.venueCode !== undefined) for (const t of added) this.wanted.delete(t);
      throw err;
    }
  }

  unsubscribe(topics: PublicTopic[]): Promise<void> {
    for (const t of topics) this.wanted.delete(t);
    return this.sendOp('unsubscribe', topics);
  }

  /** Pushes of one topic; subscribes on first observer, unsubscribes after the last leaves. */
  topic$<K extends PublicTopicKind>(kind: K, symbol: string): Observable<PublicPushOf<K>> {
    const topic = topicOf(kind, symbol);
    let s = this.topicStreams.get(topic);
    if (s === undefined) {
      s = new Observable<PublicPush>((observer) => {
        const n = (this.refCounts.get(topic) ?? 0) + 1;
        this.refCounts.set(topic, n);
        if (n === 1) this.subscribe([topic]).catch((err: unknown) => observer.error(err));
        const sub = this.pushSubject.pipe(filter((p) => p.event === kind && p.symbol === symbol)).subscribe(observer);
        return () => sub.unsubscribe();
      }).pipe(
        finalize(() => {
          const n = (this.refCounts.get(topic) ?? 1) - 1;
          if (n > 0) {
            this.refCounts.set(topic, n);
            return;
          }
          this.refCounts.delete(topic);
          this.topicStreams.delete(topic);
          if (this.running) this.unsubscribe([topic]).catch(() => undefined);
        }),
        share(),
      );
      this.topicStreams.set(topic, s);
    }
    return s as Observable<PublicPushOf<K>>;
  }

  trades$(symbol: string): Observable<PublicPushOf<'trade'>> {
    return this.topic$('trade', symbol);
  }

  markPrice$(symbol: string): Observable<PublicPushOf<'markPrice'>> {
    return this.topic$('markPrice', symbol);
  }

  depth$(symbol: string): Observable<PublicPushOf<'depth'>> {
    return this.topic$('depth', symbol);
  }

  ticker$(symbol: string): Observable<PublicPushOf<'ticker'>> {
    return this.topic$('ticker', symbol);
  }

  /** Cuts the connection as a network failure would. */
  reconnectNow(): void {
    this.socket.terminate();
  }

  private sendOp(op: PublicOp, topics: PublicTopic[]): Promise<void> {
    if (!this.socket.isOpen) return Promise.resolve();
    const all: Promise<void>[] = [];
    for (let i = 0; i < topics.length; i += PUBLIC_TOPICS_PER_FRAME_MAX) {
      const args = topics.slice(i, i + PUBLIC_TOPICS_PER_FRAME_MAX);
      all.push(
        new Promise<void>((resolve, reject) => {
          const timer = this.timers.setTimeout(() => {
            this.pending = this.pending.filter((p) => p !== entry);
            reject(new StreamError(`no acknowledgement of ${op} ${args.join(',')} within ${this.ackTimeoutMs} ms`, true));
          }, this.ackTimeoutMs);
          const entry: PendingAck = {
            op,
            resolve: () => {
              this.timers.clearTimeout(timer);
              resolve();
            },
            reject: (e) => {
              this.timers.clearTimeout(timer);
              reject(e);
            },
          };
          this.pending.push(entry);
          this.socket.send(JSON.stringify({ op, args }));
        }),
      );
    }
    return Promise.all(all).then(() => undefined);
  }

  private onOpen(reconnect: boolean): void {
    this.notice({ type: 'open', reconnect });
    if (this.wanted.size > 0) {
      this.sendOp('subscribe', [...this.wanted]).catch((error: unknown) => this.notice({ type: 'error', error }));
    }
  }

  private onText(text: string): void {
    const d = decodePublicMessage(text);
    if (!d.ok) {
      this.notice({ type: 'malformed', field: d.field, problem: d.problem });
      return;
    }
    const m = d.value;
    if (isPublicAck(m)) {
      this.settleAck(m);
      return;
    }
    this.pushSubject.next(m);
  }

  /** Acks come back in the order frames were sent; a nack without `op` answers the oldest. */
  private settleAck(m: PublicAck | PublicNack): void {
    const i = m.op === undefined ? 0 : this.pending.findIndex((p) => p.op === m.op);
    const p = i >= 0 ? this.pending.splice(i, 1)[0] : undefined;
    if (p === undefined) return;
    if (m.success) p.resolve();
    else p.reject(new StreamError(`${m.op ?? 'frame'} refused: ${m.code} ${m.message}`, false, { venueCode: m.code }));
  }

  private failPending(e: Error): void {
    for (const p of this.pending.splice(0)) p.reject(e);
  }

  private notice(n: StreamNotice): void {
    this.log.debug({ notice: n }, 'public stream');
    this.noticesSubject.next(n);
  }
}
