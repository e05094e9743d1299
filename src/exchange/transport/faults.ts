/**
 * Fault injection of the local exchange (docs/reliability.md "Fault injection"): switches that
 * make the exchange misbehave the way a real venue and network do, so that the SDK and the bot
 * can be tested against the failures they must survive. Set from the config (`faults:`) and the
 * admin API (`POST /v1/admin/faults`, `GET /v1/admin/faults`).
 *
 * Switches, each optionally scoped (userId, HTTP method and path prefix, probability, count of
 * hits, duration):
 * - HTTP, in this order before the handler: `delayMs` (answer later), `rejectDropResponse` (cut
 *   the socket, the command is NOT applied), `rateLimit` (429 / 40001 with Retry-After),
 *   `http5xx` (500 / 50001 or 503 / 50002, no effect); after the handler `acceptDropResponse`
 *   (the command IS applied and journaled, then the socket is cut without an answer). The admin
 *   API itself is never faulted, so a switch can always be turned off.
 * - WebSocket (private stream): `dropWs` (halfOpen: the server stops reading, so it answers no
 *   pings, and stops sending, with the socket left open; terminate: cut, the client sees 1006;
 *   close: close frame 1001), `silence` (events withheld but numbered, pings answered),
 *   `duplicateEvents` (a frame sent twice), `reorderEvents` (a frame held back until the next one
 *   went out, at most `windowMs`).
 * - `expireListenKeys`: expire the keys now (those of `userId`, or all), or with `ttlMs` give keys
 *   created or extended meanwhile that lifetime.
 * - `clockSkewMs`: server time moves by `ms` for API-key recvWindow checks and GET /v1/time.
 *
 * Cost when nothing is on: the HTTP pipeline and the private-stream send each test one boolean.
 */
import { mulberry32 } from '../../core/random';
import type { Clock } from '../../core/clock';
import { ErrorCodes, VenueError } from '../../core/errors';
import type { ActiveFault, DropWsMode, FaultName, FaultSetting, FaultsResult } from '../../protocol/rest/admin';

/** What the switches need of the WebSocket gateway. */
export interface WsFaultTarget {
  /** Applies a drop to the private connections of a user (all users when undefined); returns how many. */
  dropPrivate(userId: string | undefined, mode: DropWsMode): number;
  silence(userId: string, on: boolean): void;
  /** Users with a private connection now. */
  privateUserIds(): string[];
}

/** What the switches need of the listenKey store. */
export interface ListenKeyFaultTarget {
  expireAll(userId?: string): number;
  ttlOverrideMs: number | undefined;
}

/** Thrown in the HTTP pipeline to cut the connection without an answer. */
export class DroppedByFault extends Error {
  constructor(readonly applied: boolean) {
    super(applied ? 'fault injection: command applied, answer dropped' : 'fault injection: connection cut before the command was applied');
    this.name = 'DroppedByFault';
  }
}

const HTTP_FAULTS: ReadonlySet<FaultName> = new Set<FaultName>(['delayMs', 'http5xx', 'acceptDropResponse', 'rejectDropResponse', 'rateLimit']);
const WS_FRAME_FAULTS: ReadonlySet<FaultName> = new Set<FaultName>(['duplicateEvents', 'reorderEvents', 'dropWs']);

interface Entry {
  view: ActiveFault;
  timer: NodeJS.Timeout | undefined;
  /** silence: the users it silenced, to turn it off for the same ones. */
  silenced: string[];
}

interface Held {
  text: string;
  timer: NodeJS.Timeout;
  send: (text: string) => void;
}


export class FaultSwitches {
  /** Some HTTP switch is on: the pipeline calls `beforeHandler`. */
  httpActive = false;
  /** Some private-stream switch is on: frames go through `privateFrame`, new connections through `dropOnOpen`. */
  wsActive = false;
  /** Sum of the clockSkewMs switches that are on. */
  clockSkewMs = 0;
  private readonly entries: Entry[] = [];
  private readonly totals: Partial<Record<FaultName, number>> = {};
  private readonly held = new Map<object, Held>();
  private readonly rng: () => number;
  private nextId = 1;
  private ws: WsFaultTarget | undefined;
  private listenKeys: ListenKeyFaultTarget | undefined;

  constructor(
    private readonly clock: Clock,
    seed = 1,
  ) {
    this.rng = mulberry32(seed);
  }

  attach(targets: { ws: WsFaultTarget; listenKeys: ListenKeyFaultTarget }): void {
    this.ws = targets.ws;
    this.listenKeys = targets.listenKeys;
  }

  /** A clock `clockSkewMs` ahead of `base` (behind when negative). */
  skewed(base: Clock): Clock {
    return { now: () => base.now() + this.clockSkewMs };
  }

  // ---------------------------------------------------------------- setting and clearing

  /**
   * Turns a switch on. `dropWs` and `expireListenKeys` without a lasting scope (no durationMs,
   * count or ttlMs) are actions done now; the answer still lists them once with their hits.
   */
  set(s: FaultSetting): ActiveFault {
    const view: ActiveFault = { ...s, id: this.nextId++, hits: 0 };
    if (s.durationMs !== undefined) view.until = this.clock.now() + s.durationMs;
    if (s.count !== undefined) view.remaining = s.count;
    const e: Entry = { view, timer: undefined, silenced: [] };
    const lasting = s.durationMs !== undefined || s.count !== undefined;
    switch (s.fault) {
      case 'dropWs': {
        const n = this.ws?.dropPrivate(s.userId, s.mode ?? 'halfOpen') ?? 0;
        this.hit(e, n);
        if (!lasting) return { ...view };
        break;
      }
      case 'expireListenKeys': {
        if (s.ttlMs === undefined) {
          this.hit(e, this.listenKeys?.expireAll(s.userId) ?? 0);
          return { ...view };
        }
        if (s.userId !== undefined) throw new VenueError(ErrorCodes.INVALID_PARAMETER, 'expireListenKeys with ttlMs applies to every user; leave userId out', 'userId');
        if (this.listenKeys) this.listenKeys.ttlOverrideMs = s.ttlMs;
        break;
      }
      case 'silence': {
        e.silenced = s.userId !== undefined ? [s.userId] : (this.ws?.privateUserIds() ?? []);
        for (const u of e.silenced) this.ws?.silence(u, true);
        this.hit(e, e.silenced.length);
        break;
      }
      default:
        break;
    }
    this.entries.push(e);
    if (s.durationMs !== undefined) {
      e.timer = setTimeout(() => this.remove(e), s.durationMs);
      e.timer.unref();
    }
    this.recompute();
    return { ...view };
  }

  /** Turns off the named switch (every entry of it, or those scoped to `userId`), or all. */
  clear(fault: FaultName | 'all', userId?: string): number {
    const gone = this.entries.filter((e) => (fault === 'all' || e.view.fault === fault) && (userId === undefined || e.view.userId === userId));
    for (const e of gone) this.remove(e);
    return gone.length;
  }

  list(): FaultsResult {
    const now = this.clock.now();
    for (const e of [...this.entries]) if (e.view.until !== undefined && e.view.until <= now) this.remove(e);
    return { active: this.entries.map((e) => ({ ...e.view })), hits: { ...this.totals } };
  }

  private remove(e: Entry): void {
    const i = this.entries.indexOf(e);
    if (i < 0) return;
    this.entries.splice(i, 1);
    if (e.timer !== undefined) clearTimeout(e.timer);
    if (e.view.fault === 'silence') {
      // Another silence entry may still hold the same user.
      const still = new Set(this.entries.filter((x) => x.view.fault === 'silence').flatMap((x) => x.silenced));
      for (const u of e.silenced) if (!still.has(u)) this.ws?.silence(u, false);
    }
    if (e.view.fault === 'expireListenKeys' && this.listenKeys) {
      const other = this.entries.find((x) => x.view.fault === 'expireListenKeys');
      this.listenKeys.ttlOverrideMs = other?.view.ttlMs;
    }
    if (e.view.fault === 'reorderEvents' && !this.entries.some((x) => x.view.fault === 'reorderEvents')) this.flushHeld();
    this.recompute();
  }

  private recompute(): void {
    this.httpActive = this.entries.some((e) => HTTP_FAULTS.has(e.view.fault));
    this.wsActive = this.entries.some((e) => WS_FRAME_FAULTS.has(e.view.fault));
    this.clockSkewMs = this.entries.reduce((sum, e) => sum + (e.view.fault === 'clockSkewMs' ? (e.view.ms ?? 0) : 0), 0);
  }

  private hit(e: Entry, n = 1): void {
    e.view.hits += n;
    this.totals[e.view.fault] = (this.totals[e.view.fault] ?? 0) + n;
  }

  /**
   * The first entry of `fault` whose scope matches and whose dice roll hits; counts the hit and
   * retires the entry when its count is used up.
   */
  private take(fault: FaultName, userId: string | undefined, method?: string, path?: string): Entry | undefined {
    const now = this.clock.now();
    for (const e of this.entries) {
      const v = e.view;
      if (v.fault !== fault) continue;
      if (v.until !== undefined && v.until <= now) continue;
      if (v.userId !== undefined && v.userId !== userId) continue;
      if (v.method !== undefined && v.method !== method) continue;
      if (v.pathPrefix !== undefined && (path === undefined || !path.startsWith(v.pathPrefix))) continue;
      if (v.probability !== undefined && this.rng() >= v.probability) continue;
      this.hit(e);
      if (v.remaining !== undefined && --v.remaining <= 0) this.remove(e);
      return e;
    }
    return undefined;
  }

  // ---------------------------------------------------------------- HTTP

  /**
   * Runs the HTTP switches for one request before its handler: waits, cuts the connection
   * (DroppedByFault), or refuses (VenueError). Returns true when the answer must be dropped after
   * the handler ran (acceptDropResponse).
   */
  async beforeHandler(userId: string | undefined, method: string, path: string, setHeader: (name: string, value: string) => void): Promise<boolean> {
    const delay = this.take('delayMs', userId, method, path);
    if (delay !== undefined) await new Promise((r) => setTimeout(r, delay.view.ms ?? 0));
    if (this.take('rejectDropResponse', userId, method, path)) throw new DroppedByFault(false);
    const limited = this.take('rateLimit', userId, method, path);
    if (limited !== undefined) {
      const sec = limited.view.retryAfterSec ?? 1;
      setHeader('Retry-After', String(sec));
      throw new VenueError(ErrorCodes.RATE_LIMITED, `rate limit reached (fault injection); retry after ${sec} s`);
    }
    const failed = this.take('http5xx', userId, method, path);
    if (failed !== undefined) {
      if (failed.view.status === 500) throw new VenueError(ErrorCodes.INTERNAL, 'internal error (fault injection); the request had no effect');
      throw new VenueError(ErrorCodes.BUSY, 'service busy (fault injection); the request had no effect');
    }
    return this.take('acceptDropResponse', userId, method, path) !== undefined;
  }

  // ---------------------------------------------------------------- private stream

  /** How a private connection that just opened must be dropped, if a lasting dropWs covers it. */
  dropOnOpen(userId: string): DropWsMode | undefined {
    const e = this.take('dropWs', userId);
    return e === undefined ? undefined : (e.view.mode ?? 'halfOpen');
  }

  /**
   * One private frame of connection `conn` (already numbered): sent twice, held back behind the
   * next one, or sent as is. A held frame goes out after the next frame or after `windowMs`.
   */
  privateFrame(conn: object, userId: string, text: string, send: (text: string) => void): void {
    const held = this.held.get(conn);
    const dup = this.take('duplicateEvents', userId) !== undefined;
    const reorder = held === undefined ? this.take('reorderEvents', userId) : undefined;
    if (reorder !== undefined) {
      const timer = setTimeout(() => this.release(conn), reorder.view.windowMs ?? 50);
      timer.unref();
      this.held.set(conn, { text, timer, send });
      if (dup) send(text);
      return;
    }
    send(text);
    if (dup) send(text);
    if (held !== undefined) this.release(conn);
  }

  private release(conn: object): void {
    const h = this.held.get(conn);
    if (h === undefined) return;
    this.held.delete(conn);
    clearTimeout(h.timer);
    h.send(h.text);
  }

  private flushHeld(): void {
    for (const conn of [...this.held.keys()]) this.release(conn);
  }

  /** Timers off (the gateway is closing). */
  close(): void {
    for (const e of [...this.entries]) this.remove(e);
    this.flushHeld();
  }
}
