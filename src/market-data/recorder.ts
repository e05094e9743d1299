/**
 * Records a venue (the real one or the local exchange) through the SDK into a recording
 * (format v1): public trades, marks, depth and tickers of the configured symbols and, with
 * credentials, the private stream verbatim and positions polled over REST.
 *
 * - Times: `t` is the venue's eventTime for pushes; polls and gaps are stamped in the venue's time
 *   too, as this clock plus the venue's lead over it at the last push, and never before the line
 *   before them. Stamped by this clock alone, a local clock 5 s ahead of the venue wrote a gap
 *   line 5 s after the events that followed it, and every reader refused the file. A push that
 *   arrives stamped earlier than the line before it (a poll line was stamped while it was in
 *   flight, or the other stream's push came first) is written at that line's time with the
 *   venue's stamp in `et`, and counted (stats.late).
 * - Reconnects: the SDK reconnects and re-subscribes by itself; every reconnect of the public
 *   stream and every resync of the private one (reconnect, seq gap, silence, new listenKey)
 *   writes a `gap` line from the last event before the loss, so a consumer knows data may be
 *   missing there.
 * - Funding: the public stream has no funding event. When a mark push shows `nextFundingTime`
 *   moved forward, a settlement happened (funding-times.ts, as the importers read it): a `funding`
 *   line is written with the rate the previous pushes announced for it and the mark of this push,
 *   stamped with this push's time (so lines stay in time order; the settlement itself was at the
 *   previous nextFundingTime). The venue moves nextFundingTime only by settling (its admin may
 *   settle ahead of time), so every move forward is a settlement, however early.
 */
import type { Observable, Subscription } from 'rxjs';
import type { Clock, Scheduler } from '../core/clock';
import type { PublicTopicKind } from '../core/enums';
import type { PositionRecord } from '../protocol/records';
import type { SymbolSpec } from '../protocol/rest/market';
import type { PrivateEvent, PublicPush, PublicTopic } from '../protocol/ws';
import type { RecordedEvent } from './format';
import { AnnouncedFunding } from './funding-times';
import { RecordingWriter } from './writer';

/** A configured symbol the venue does not list: the config is wrong (the CLI's exit 2), not the venue. */
/** How often a lost public stream is said again while it stays lost. */
const LOST_REMINDER_MS = 30_000;

export class UnknownSymbolError extends Error {
  override name = 'UnknownSymbolError';
}

export interface RecorderLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error?(obj: object, msg: string): void;
}

/** The public stream as the recorder uses it (the SDK's PublicStream fits). */
export interface RecorderPublicStream {
  readonly pushes$: Observable<PublicPush>;
  /** Connection notices: `close`/`reconnecting` when lost, `open` with reconnect=true when back. */
  readonly notices$: Observable<{ type: string; reconnect?: boolean }>;
  start(): Promise<void>;
  subscribe(topics: PublicTopic[]): Promise<void>;
  stop(): void;
  /** Cuts the connection as a network failure would (tests). */
  reconnectNow(): void;
}

/** The private stream as the recorder uses it (the SDK's PrivateStream fits). */
export interface RecorderPrivateStream {
  readonly resync$: Observable<{ reason: string }>;
  onEvent(handler: (e: PrivateEvent) => void): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What the recorder needs from a venue. src/market-data may not import the SDK (src/client), so
 * the CLI adapts a PerpClient to this (src/cli/record.ts).
 */
export interface RecorderVenue {
  getSymbols(): Promise<SymbolSpec[]>;
  getPositions(): Promise<PositionRecord[]>;
  publicStream(): RecorderPublicStream;
  privateStream(): RecorderPrivateStream;
}

export interface RecorderOptions {
  venue: RecorderVenue;
  /** Where the venue is, for the header's `source`. */
  source: string;
  symbols: string[];
  /** Public topics to record; default all four. */
  kinds?: PublicTopicKind[];
  /** Record the private stream and poll positions (the client must hold credentials). */
  private?: boolean;
  /** Positions poll interval, ms; default 5000 (0: no polling). */
  pollPositionsMs?: number;
  out: string;
  rotateBytes?: number;
  rotateMs?: number;
  /** How often queued lines are flushed through gzip to disk, ms; default 1000. */
  flushMs?: number;
  clock: Clock;
  /** Timers for polling and flushing: injected, like the clock (the CLI passes real ones). */
  scheduler: Scheduler;
  logger?: RecorderLogger;
  /**
   * The file cannot be written (disk full, a folder in its place, ...): the recording cannot go
   * on. Called once; nothing more is written, and the caller should stop the recorder.
   */
  onFailure?: (e: Error) => void;
}

export interface RecorderStats {
  events: number;
  gaps: number;
  fundings: number;
  files: string[];
  dropped: number;
  /**
   * Pushes that arrived stamped earlier than the line before them (another stream's push, or a
   * poll or gap line stamped while they were in flight): written at that line's time, with the
   * venue's stamp kept in `et` (private lines keep it in the event), so the file stays in time
   * order. `lateMaxMs` is the largest step back.
   */
  late: number;
  lateMaxMs: number;
}

const ALL_KINDS: PublicTopicKind[] = ['trade', 'markPrice', 'depth', 'ticker'];

export class Recorder {
  private writer: RecordingWriter | undefined;
  private pub: RecorderPublicStream | undefined;
  private priv: RecorderPrivateStream | undefined;
  private readonly subs: Subscription[] = [];
  private offPrivate: (() => void) | undefined;
  /** Cancellers of the repeating timers. */
  private timers: Array<() => void> = [];
  private lastPublicT = 0;
  private lastPrivateT = 0;
  /** The venue's clock minus this one at the last push (ms), and the time of the last line written. */
  private venueLead = 0;
  private lastT = 0;
  private publicLostAt: number | undefined;
  /** Cancels the warn repeated while the public stream stays lost. */
  private lostReminder: (() => void) | undefined;
  private readonly funding = new Map<string, AnnouncedFunding>();
  private events = 0;
  private gaps = 0;
  private fundings = 0;
  private late = 0;
  private lateMaxMs = 0;
  private stopped = false;
  private polling = false;
  private failure: Error | undefined;

  constructor(private readonly o: RecorderOptions) {}

  /** The public stream in use (tests force reconnects through it). */
  get publicStream(): RecorderPublicStream | undefined {
    return this.pub;
  }

  get stats(): RecorderStats {
    return { events: this.events, gaps: this.gaps, fundings: this.fundings, files: [...(this.writer?.files ?? [])], dropped: this.writer?.dropped ?? 0, late: this.late, lateMaxMs: this.lateMaxMs };
  }

  /** Fetches the specs, opens the file and subscribes. Throws when a symbol is unknown to the venue. */
  async start(): Promise<void> {
    const { venue, clock } = this.o;
    const all = await venue.getSymbols();
    const specs = this.o.symbols.map((s) => {
      const spec = all.find((x) => x.symbol === s);
      if (!spec) throw new UnknownSymbolError(`the venue does not list symbol ${s}; it has ${all.map((x) => x.symbol).join(', ')}`);
      return spec;
    });
    this.writer = new RecordingWriter({
      path: this.o.out,
      source: this.o.source,
      symbols: specs,
      startTime: clock.now(),
      rotateBytes: this.o.rotateBytes,
      rotateMs: this.o.rotateMs,
      meta: { recorder: 'perpkit record', private: this.o.private === true },
    });
    const pub = venue.publicStream();
    this.pub = pub;
    this.subs.push(pub.pushes$.subscribe((p) => this.onPush(p)));
    this.subs.push(
      pub.notices$.subscribe((n) => {
        if (n.type === 'close' || n.type === 'reconnecting') {
          if (this.publicLostAt === undefined) {
            this.publicLostAt = this.lastPublicT || this.venueNow();
            // Said at once, and every 30 s while it lasts: the recording was silent for a whole outage.
            this.o.logger?.warn({ stream: 'public', from: this.publicLostAt }, 'public stream lost: nothing is recorded until it is back (a gap line will mark the time)');
            this.lostReminder = this.every(LOST_REMINDER_MS, () => {
              if (this.publicLostAt !== undefined) this.o.logger?.warn({ stream: 'public', from: this.publicLostAt, lostForS: Math.round((this.venueNow() - this.publicLostAt) / 1000) }, 'public stream still lost: nothing recorded since');
            });
          }
        } else if (n.type === 'open' && n.reconnect) {
          this.lostReminder?.();
          this.lostReminder = undefined;
          this.gap('public', this.publicLostAt ?? (this.lastPublicT || this.venueNow()), 'reconnect');
          this.publicLostAt = undefined;
        }
      }),
    );
    await pub.start();
    const topics: PublicTopic[] = [];
    for (const s of this.o.symbols) for (const k of this.o.kinds ?? ALL_KINDS) topics.push(`${k}:${s}`);
    await pub.subscribe(topics);

    if (this.o.private === true) {
      const priv = venue.privateStream();
      this.priv = priv;
      this.offPrivate = priv.onEvent((e) => {
        this.lastPrivateT = e.eventTime;
        this.heard(e.eventTime);
        this.write({ t: e.eventTime, k: 'private', e });
      });
      this.subs.push(priv.resync$.subscribe((r) => this.gap('private', this.lastPrivateT || this.venueNow(), r.reason)));
      await priv.start();
      const every = this.o.pollPositionsMs ?? 5000;
      if (every > 0) {
        await this.pollPositions();
        this.timers.push(this.every(every, () => void this.pollPositions()));
      }
    }
    const flushMs = this.o.flushMs ?? 1000;
    // Without a periodic sync flush a crash would lose everything still inside gzip.
    if (flushMs > 0) this.timers.push(this.every(flushMs, () => void this.writer?.flush().catch((e: unknown) => this.fail(e))));
    this.o.logger?.info({ out: this.o.out, symbols: this.o.symbols, private: this.o.private === true }, 'recording');
  }

  /** Runs `fn` every `ms` on the injected scheduler until the returned function is called. */
  private every(ms: number, fn: () => void): () => void {
    let cancel = (): void => undefined;
    const tick = (): void => {
      cancel = this.o.scheduler.after(ms, tick);
      fn();
    };
    cancel = this.o.scheduler.after(ms, tick);
    return () => cancel();
  }

  private warn(e: unknown, msg: string): void {
    this.o.logger?.warn({ err: e instanceof Error ? e.message : String(e) }, msg);
  }

  /** The venue's time now, as far as this process can tell: see "Times" above. */
  private venueNow(): number {
    return Math.max(this.lastT, this.o.clock.now() + this.venueLead);
  }

  /** A push arrived stamped `eventTime`: the venue's lead over this clock. */
  private heard(eventTime: number): void {
    this.venueLead = eventTime - this.o.clock.now();
  }

  private write(e: RecordedEvent): void {
    if (this.stopped || this.failure !== undefined || !this.writer) return;
    if (e.t < this.lastT) {
      this.late++;
      this.lateMaxMs = Math.max(this.lateMaxMs, this.lastT - e.t);
      e = e.k === 'private' || e.k === 'positions' || e.k === 'gap' ? { ...e, t: this.lastT } : { ...e, t: this.lastT, et: e.t };
    } else this.lastT = e.t;
    const dropped = this.writer.dropped;
    try {
      this.writer.write(e);
    } catch (err) {
      // Thrown here it would reach the stream's subscriber and end the process with a stack.
      this.fail(err);
      return;
    }
    // Recorded, not dropped by a writer the disk fell behind (counted there: stats.dropped).
    if (this.writer.dropped === dropped) this.events++;
  }

  /** Writing failed: said once, to the log and the caller; nothing more is written. */
  private fail(e: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = e instanceof Error ? e : new Error(String(e));
    this.o.logger?.error?.({ err: this.failure.message, events: this.events }, 'writing the recording failed');
    this.o.onFailure?.(this.failure);
  }

  private gap(stream: 'public' | 'private', from: number, reason: string): void {
    this.gaps++;
    this.o.logger?.warn({ stream, from, reason }, 'stream gap recorded');
    this.write({ t: this.venueNow(), k: 'gap', stream, from, reason });
  }

  private onPush(p: PublicPush): void {
    const t = p.eventTime;
    this.lastPublicT = t;
    this.heard(t);
    switch (p.event) {
      case 'trade':
        this.write({ t, k: 'trade', s: p.symbol, id: p.data.tradeId, p: p.data.price, q: p.data.quantity, side: p.data.side });
        return;
      case 'markPrice': {
        const d = p.data;
        let f = this.funding.get(p.symbol);
        if (f === undefined) this.funding.set(p.symbol, (f = new AnnouncedFunding()));
        // No exchange time: every move is a settlement (see the file comment).
        const settled = f.see(d.nextFundingTime, d.fundingRate, undefined);
        if (settled !== undefined && settled !== 'early') {
          this.fundings++;
          this.write({ t, k: 'funding', s: p.symbol, r: settled.rate, p: d.markPrice });
        }
        this.write({ t, k: 'mark', s: p.symbol, p: d.markPrice, i: d.indexPrice, r: d.fundingRate, n: d.nextFundingTime });
        return;
      }
      case 'depth':
        this.write({ t, k: 'depth', s: p.symbol, b: p.data.bids, a: p.data.asks });
        return;
      case 'ticker': {
        const d = p.data;
        this.write({ t, k: 'ticker', s: p.symbol, last: d.lastPrice, high: d.high, low: d.low, vol: d.volume, qvol: d.quoteVolume });
        return;
      }
    }
  }

  private async pollPositions(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const list = await this.o.venue.getPositions();
      this.write({ t: this.venueNow(), k: 'positions', list });
    } catch (e) {
      // A failed poll is a hole in the positions series, nothing more: the next one fills it.
      this.warn(e, 'positions poll failed');
    } finally {
      this.polling = false;
    }
  }

  /** Unsubscribes, stops the streams and closes the file (everything written so far is kept). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    // Stopped while the public stream is lost: the file ends with the gap that is still open (it
    // said "0 gaps" for a recording that covered 4.6 s of a 50 s session).
    if (this.publicLostAt !== undefined) this.gap('public', this.publicLostAt, 'stopped while the stream was lost');
    this.stopped = true;
    for (const cancel of this.timers) cancel();
    this.timers = [];
    this.lostReminder?.();
    for (const s of this.subs.splice(0)) s.unsubscribe();
    this.offPrivate?.();
    this.pub?.stop();
    await this.priv?.stop();
    await this.writer?.close();
    this.o.logger?.info({ ...this.stats }, 'recording closed');
  }
}
