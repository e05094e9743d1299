/**
 * Private streams (PROTOCOL.md section 5): connections indexed by user and by listenKey, so an
 * engine event reaches exactly its user's connections without looking at anyone else's, and a
 * key that ends finds its connections directly.
 *
 * Each event is serialized once: the frame differs between connections only in `seq`, so the
 * JSON is built as a head and a tail around the number.
 */
import { orderUpdateOf, type PrivateEventDataMap } from '../../../protocol/ws';
import type { EngineEvent } from '../../engine/events';
import type { ConnectionBase } from './connection';

export interface PrivateConnection extends ConnectionBase {
  readonly kind: 'private';
  readonly userId: string;
  readonly listenKey: string;
  /** Number of the last event this connection was given (sent, or dropped while silenced). */
  seq: number;
}

export type PrivateKind = keyof PrivateEventDataMap;

export class PrivateStreams {
  private readonly byUser = new Map<string, Set<PrivateConnection>>();
  private readonly byKey = new Map<string, Set<PrivateConnection>>();
  private readonly silenced = new Set<string>();

  constructor(private readonly send: (conn: PrivateConnection, text: string) => void) {}

  add(conn: PrivateConnection): void {
    addTo(this.byUser, conn.userId, conn);
    addTo(this.byKey, conn.listenKey, conn);
  }

  remove(conn: PrivateConnection): void {
    removeFrom(this.byUser, conn.userId, conn);
    removeFrom(this.byKey, conn.listenKey, conn);
  }

  /** A copy: callers close connections while iterating, which removes them from the index. */
  connectionsOfKey(listenKey: string): PrivateConnection[] {
    const s = this.byKey.get(listenKey);
    return s ? [...s] : [];
  }

  /** Whether the user has a private stream open (anyone to send its events to). */
  hasUser(userId: string): boolean {
    return this.byUser.has(userId);
  }

  connectionsOfUser(userId: string): PrivateConnection[] {
    const s = this.byUser.get(userId);
    return s ? [...s] : [];
  }

  /**
   * Fault hook: while on, the user's events are not delivered but still numbered, so when
   * delivery resumes the client sees a `seq` gap, as after a real loss. Pings go on meanwhile.
   */
  silence(userId: string, on: boolean): void {
    if (on) this.silenced.add(userId);
    else this.silenced.delete(userId);
  }

  isSilenced(userId: string): boolean {
    return this.silenced.has(userId);
  }

  /** Sends the engine event to its user's connections; other kinds are not for this side. */
  route(e: EngineEvent): void {
    switch (e.kind) {
      case 'order': {
        if (!this.byUser.has(e.userId)) return;
        this.publish(e.userId, 'ORDER_TRADE_UPDATE', e.time, orderUpdateOf(e.order, e.executionType, e.fill));
        return;
      }
      case 'condition':
        this.publish(e.userId, 'CONDITION_ORDER_UPDATE', e.time, e.record);
        return;
      case 'strategy':
        this.publish(e.userId, 'STRATEGY_ORDER_UPDATE', e.time, e.record);
        return;
      case 'account': {
        if (!this.byUser.has(e.userId)) return;
        const data: PrivateEventDataMap['ACCOUNT_UPDATE'] = { reason: e.reason, userAsset: e.asset, positions: e.positions };
        this.publish(e.userId, 'ACCOUNT_UPDATE', e.time, data);
        return;
      }
      default:
        return;
    }
  }

  publish<K extends PrivateKind>(userId: string, kind: K, eventTime: number, data: PrivateEventDataMap[K]): void {
    const conns = this.byUser.get(userId);
    if (!conns) return;
    if (this.silenced.has(userId)) {
      for (const c of conns) c.seq++;
      return;
    }
    const head = `{"event":"${kind}","eventTime":${eventTime},"seq":`;
    const tail = `,"data":${JSON.stringify(data)}}`;
    for (const c of conns) {
      c.seq++;
      this.send(c, head + c.seq + tail);
    }
  }

  /** One event to one connection (LISTEN_KEY_EXPIRED), delivered even while silenced. */
  sendOne<K extends PrivateKind>(conn: PrivateConnection, kind: K, eventTime: number, data: PrivateEventDataMap[K]): void {
    conn.seq++;
    this.send(conn, JSON.stringify({ event: kind, eventTime, seq: conn.seq, data }));
  }

  stats(): { users: number; listenKeys: number; connections: number; silencedUsers: number } {
    let connections = 0;
    for (const s of this.byUser.values()) connections += s.size;
    return { users: this.byUser.size, listenKeys: this.byKey.size, connections, silencedUsers: this.silenced.size };
  }
}

function addTo<T>(m: Map<string, Set<T>>, k: string, v: T): void {
  let s = m.get(k);
  if (!s) {
    s = new Set();
    m.set(k, s);
  }
  s.add(v);
}

/** Drops the set when it empties, so the maps shrink back as connections go. */
function removeFrom<T>(m: Map<string, Set<T>>, k: string, v: T): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}
