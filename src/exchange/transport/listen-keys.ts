/**
 * listenKeys of the private WebSocket stream (PROTOCOL.md section 5): 60 minutes from the last
 * keepalive, at most 10 live per user. Another user's key behaves as a missing one (20008).
 * Keys are not journaled: after a restart clients create new ones, as after any expiry.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock';
import { ErrorCodes, VenueError } from '../../core/errors';

export interface ListenKeyInfo {
  listenKey: string;
  userId: string;
  expireAt: number;
}

export class ListenKeyStore {
  private readonly keys = new Map<string, ListenKeyInfo>();
  private readonly expiredListeners: Array<(info: ListenKeyInfo) => void> = [];
  /** Fault injection (faults.ts, expireListenKeys with ttlMs): lifetime of keys created or extended while set. */
  ttlOverrideMs: number | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxPerUser: number,
  ) {}

  /** Called once per key that expires or is closed, so streams on it can be ended. */
  onEnd(listener: (info: ListenKeyInfo) => void): void {
    this.expiredListeners.push(listener);
  }

  create(userId: string): ListenKeyInfo {
    this.sweep();
    const live = [...this.keys.values()].filter((k) => k.userId === userId);
    if (live.length >= this.maxPerUser) {
      throw new VenueError(ErrorCodes.INVALID_PARAMETER, `at most ${this.maxPerUser} live listenKeys per user; close one first`, 'listenKey');
    }
    const info: ListenKeyInfo = { listenKey: randomBytes(24).toString('base64url'), userId, expireAt: this.clock.now() + (this.ttlOverrideMs ?? this.ttlMs) };
    this.keys.set(info.listenKey, info);
    return { ...info };
  }

  /** The live key of this user, or a 20008 refusal. */
  private own(userId: string, listenKey: string): ListenKeyInfo {
    this.sweep();
    const k = this.keys.get(listenKey);
    if (!k || k.userId !== userId) throw new VenueError(ErrorCodes.LISTEN_KEY_NOT_FOUND, 'listenKey not found or expired', 'listenKey');
    return k;
  }

  extend(userId: string, listenKey: string): ListenKeyInfo {
    const k = this.own(userId, listenKey);
    k.expireAt = this.clock.now() + (this.ttlOverrideMs ?? this.ttlMs);
    return { ...k };
  }

  close(userId: string, listenKey: string): void {
    const k = this.own(userId, listenKey);
    this.keys.delete(listenKey);
    for (const l of this.expiredListeners) l(k);
  }

  /** The key's owner if it is live, for the WebSocket upgrade. */
  lookup(listenKey: string): ListenKeyInfo | undefined {
    this.sweep();
    const k = this.keys.get(listenKey);
    return k ? { ...k } : undefined;
  }

  /** Ends every key whose time is up; the server calls this on a timer too. */
  sweep(): void {
    const now = this.clock.now();
    for (const k of [...this.keys.values()]) {
      if (k.expireAt <= now) {
        this.keys.delete(k.listenKey);
        for (const l of this.expiredListeners) l(k);
      }
    }
  }

  /** Test and fault-injection hook: expire a key now. */
  expireNow(listenKey: string): boolean {
    const k = this.keys.get(listenKey);
    if (!k) return false;
    k.expireAt = this.clock.now();
    this.sweep();
    return true;
  }

  /** Fault injection hook: expire every key of a user (every key when undefined) now; returns how many. */
  expireAll(userId?: string): number {
    const now = this.clock.now();
    let n = 0;
    for (const k of this.keys.values()) {
      if (userId !== undefined && k.userId !== userId) continue;
      k.expireAt = now;
      n++;
    }
    this.sweep();
    return n;
  }
}
