/**
 * The public stream (PROTOCOL.md section 5): subscribe / unsubscribe with acknowledgements, the
 * wanted topics re-subscribed after every reconnect, and typed trade, markPrice, depth and ticker
 * pushes. `topic$(kind, symbol)` subscribes when the first observer comes and unsubscribes when
 * the last one leaves.
 */
import type { Logger } from 'pino';
import { Observable, Subject, filter, finalize, share } from '../../core/rx';
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
  /** Topics per subscribe/unsubscribe frame; default and most PUBLIC_TOPICS_PER_FRAME_MAX (50). */
  topicsPerFrame?: number;
}

interface PendingAck {
  op: PublicOp;
  resolve: () => void;
  reject: (e: Error) => void;
}

/** A refused frame: the venue's StreamError, with the topics its nack named (`args`), if any. */
class FrameRefused extends StreamError {
  constructor(
    message: string,
    venueCode: number,
    readonly named: string[] | undefined,
  ) {
    super(message, false, { venueCode });
  }
}

/** A subscribe() made while the started stream was not connected: settled by the next connection's acknowledgements. */
interface WaitingSubscribe {
  topics: PublicTopic[];
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
  private waiting: WaitingSubscribe[] = [];
  /** Topics dropped because the venue refused them on a (re)connect: their topic$ observers error. */
  private readonly refusedSubject = new Subject<{ topic: PublicTopic; error: StreamError }>();
  private running = false;
  private readonly ackTimeoutMs: number;
  private readonly perFrame: number;

  constructor(
    options: PublicStreamOptions,
    private readonly timers: Timers,
    private readonly log: Logger,
  ) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.perFrame = Math.max(1, Math.min(PUBLIC_TOPICS_PER_FRAME_MAX, Math.floor(options.topicsPerFrame ?? PUBLIC_TOPICS_PER_FRAME_MAX)));
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
    const stopped = new StreamError('public stream stopped', false);
    this.failPending(stopped);
    for (const w of this.waiting.splice(0)) w.reject(stopped);
    this.pushSubject.complete();
    this.noticesSubject.complete();
  }

  /**
   * Adds topics; resolves on the venue's acknowledgement. A refusal (StreamError with the venue's
   * code) leaves the wanted topics as they were: the venue refuses a whole frame, and a refused
   * topic kept would make every re-subscription after a reconnect refused too. More topics than
   * fit a frame go out frame after frame; when a later frame is refused, the topics the earlier
   * frames added are unsubscribed again, so what the venue has stays what `topics` says.
   *
   * While the started stream is not connected (connecting, reconnecting), the call settles with the
   * acknowledgements of the next connection: a refused topic rejects it and is dropped, the others
   * are kept. Before start() nothing can be acknowledged: the topics are recorded and the call
   * resolves at once; start() sends them, and a topic the venue refuses then is dropped and
   * reported (a notice of type 'error', and an error to its topic$ observers) without deafening
   * the other topics.
   */
  async subscribe(topics: PublicTopic[]): Promise<void> {
    const unique = [...new Set(topics)];
    const added = unique.filter((t) => !this.wanted.has(t));
    for (const t of added) this.wanted.add(t);
    if (!this.socket.isOpen) {
      if (!this.running) return;
      await new Promise<void>((resolve, reject) => this.waiting.push({ topics: unique, resolve, reject }));
      return;
    }
    const acked: PublicTopic[] = [];
    try {
      for (let i = 0; i < unique.length; i += this.perFrame) {
        const frame = unique.slice(i, i + this.perFrame);
        await this.sendFrame('subscribe', frame);
        acked.push(...frame);
      }
    } catch (err) {
      if (err instanceof StreamError && err.venueCode !== undefined) {
        for (const t of added) this.wanted.delete(t);
        await this.rollBack(acked.filter((t) => added.includes(t)));
      }
      throw err;
    }
  }

  unsubscribe(topics: PublicTopic[]): Promise<void> {
    for (const t of topics) this.wanted.delete(t);
    return this.sendOp('unsubscribe', topics);
  }

  /** Unsubscribes topics an earlier frame of a refused subscribe added; kept as wanted if that fails, as the venue then still has them. */
  private async rollBack(topics: PublicTopic[]): Promise<void> {
    if (topics.length === 0) return;
    try {
      await this.sendOp('unsubscribe', topics);
    } catch (error) {
      for (const t of topics) this.wanted.add(t);
      this.notice({ type: 'error', error });
    }
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
        const refused = this.refusedSubject.pipe(filter((r) => r.topic === topic)).subscribe((r) => observer.error(r.error));
        return () => {
          sub.unsubscribe();
          refused.unsubscribe();
        };
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

  /** Sends `topics` in frames of at most `topicsPerFrame`; nothing while disconnected. */
  private sendOp(op: PublicOp, topics: PublicTopic[]): Promise<void> {
    if (!this.socket.isOpen) return Promise.resolve();
    const all: Promise<void>[] = [];
    for (let i = 0; i < topics.length; i += this.perFrame) all.push(this.sendFrame(op, topics.slice(i, i + this.perFrame)));
    return Promise.all(all).then(() => undefined);
  }

  /** One frame and its acknowledgement; a refusal is a FrameRefused. */
  private sendFrame(op: PublicOp, args: PublicTopic[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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
    });
  }

  /**
   * Subscribes `topics` so that a refused topic costs only itself: a refused frame is sent again
   * without the topics its nack names, or topic by topic when it names none. Returns the topics
   * refused, each with its error; throws only what is not a refusal (a timeout, a close).
   */
  private async subscribeEach(topics: PublicTopic[]): Promise<Map<PublicTopic, StreamError>> {
    const refused = new Map<PublicTopic, StreamError>();
    const queue: PublicTopic[][] = [];
    for (let i = 0; i < topics.length; i += this.perFrame) queue.push(topics.slice(i, i + this.perFrame));
    for (let frame = queue.shift(); frame !== undefined; frame = queue.shift()) {
      try {
        await this.sendFrame('subscribe', frame);
      } catch (err) {
        if (!(err instanceof FrameRefused)) throw err;
        const named = frame.filter((t) => err.named?.includes(t) === true);
        if (frame.length === 1) refused.set(frame[0] as PublicTopic, err);
        else if (named.length > 0) {
          for (const t of named) refused.set(t, err);
          const rest = frame.filter((t) => !named.includes(t));
          if (rest.length > 0) queue.unshift(rest);
        } else queue.unshift(...frame.map((t) => [t]));
      }
    }
    return refused;
  }

  /**
   * A (re)connect: every wanted topic is subscribed again. A topic refused is dropped from the
   * wanted set and reported (notice, its topic$ observers), the others stay subscribed; the
   * subscribe() calls that waited for this connection settle.
   */
  private onOpen(reconnect: boolean): void {
    this.notice({ type: 'open', reconnect });
    const waiting = this.waiting.splice(0);
    const topics = [...this.wanted];
    if (topics.length === 0) {
      for (const w of waiting) w.resolve();
      return;
    }
    this.subscribeEach(topics).then(
      (refused) => {
        for (const [topic, error] of refused) {
          this.wanted.delete(topic);
          const e = new StreamError(`subscribe refused on ${reconnect ? 'reconnect' : 'connect'}: ${topic} dropped (${error.message})`, false, { venueCode: error.venueCode, cause: error });
          this.notice({ type: 'error', error: e });
          this.refusedSubject.next({ topic, error: e });
        }
        for (const w of waiting) {
          const bad = w.topics.filter((t) => refused.has(t));
          const first = bad.length > 0 ? refused.get(bad[0] as PublicTopic) : undefined;
          if (first === undefined) w.resolve();
          else w.reject(new StreamError(`subscribe refused: ${bad.join(', ')} (${first.message})`, false, { venueCode: first.venueCode, cause: first }));
        }
      },
      (error: unknown) => {
        this.notice({ type: 'error', error });
        // Lost again before the answers: the next connection settles them. Otherwise (no answer in time), this error does.
        if (!this.socket.isOpen && this.running) this.waiting.unshift(...waiting);
        else for (const w of waiting) w.reject(error instanceof Error ? error : new StreamError(String(error), true));
      },
    );
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
    else p.reject(new FrameRefused(`${m.op ?? 'frame'} refused: ${m.code} ${m.message}`, m.code, m.args));
  }

  private failPending(e: Error): void {
    for (const p of this.pending.splice(0)) p.reject(e);
  }

  private notice(n: StreamNotice): void {
    // As the private stream: an error (a connection or a topic refused) or a malformed push at warn.
    if (n.type === 'error' || n.type === 'malformed') this.log.warn({ notice: n }, 'public stream');
    else this.log.debug({ notice: n }, 'public stream');
    this.noticesSubject.next(n);
  }
}
