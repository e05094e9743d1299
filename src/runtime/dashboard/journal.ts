/**
 * The dashboard's event journal: every entry gets the next id, the latest `capacity` are kept, and
 * a page that lost its stream asks for what came after the last id it saw. Ids carry an epoch (the
 * daemon's start time) so a page that outlived a restart of the daemon is recognised and sent a
 * fresh snapshot instead of a wrong catch-up.
 */
import type { DashEvent } from './types';

export type JournalEntry = Omit<DashEvent, 'id'>;

export type Resume = { kind: 'replay'; events: DashEvent[] } | { kind: 'snapshot'; why: string };

export class EventJournal {
  /** A ring: `count` entries from index `start`. */
  private readonly ring: DashEvent[] = [];
  private start = 0;
  private count = 0;
  private seq = 0;
  private readonly listeners = new Set<(e: DashEvent) => void>();

  constructor(
    readonly epoch: string,
    private readonly capacity = 20_000,
  ) {}

  get lastId(): string {
    return `${this.epoch}:${this.seq}`;
  }

  add(entry: JournalEntry): DashEvent {
    const e: DashEvent = { id: `${this.epoch}:${++this.seq}`, ...entry };
    if (this.count < this.capacity) {
      this.ring.push(e);
      this.count++;
    } else {
      this.ring[this.start] = e;
      this.start = (this.start + 1) % this.capacity;
    }
    for (const l of this.listeners) l(e);
    return e;
  }

  subscribe(listener: (e: DashEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The latest entries matching `keep`, oldest first, at most `max`. */
  latest(max: number, keep: (e: DashEvent) => boolean): DashEvent[] {
    const out: DashEvent[] = [];
    for (let i = this.count - 1; i >= 0 && out.length < max; i--) {
      const e = this.at(i);
      if (keep(e)) out.push(e);
    }
    return out.reverse();
  }

  /** What a page that last saw `lastId` needs: the entries after it, or a snapshot when that is impossible. */
  after(lastId: string): Resume {
    const m = /^([^:]+):(\d+)$/.exec(lastId);
    if (!m) return { kind: 'snapshot', why: `unreadable Last-Event-ID '${lastId.slice(0, 40)}'` };
    if (m[1] !== this.epoch) return { kind: 'snapshot', why: 'the daemon restarted since' };
    const seen = Number(m[2]);
    if (seen > this.seq) return { kind: 'snapshot', why: `Last-Event-ID ${seen} is ahead of the journal (${this.seq})` };
    const oldest = this.seq - this.count + 1;
    if (seen < oldest - 1) return { kind: 'snapshot', why: `${oldest - 1 - seen} events were dropped from the journal since` };
    const events: DashEvent[] = [];
    for (let i = this.count - (this.seq - seen); i < this.count; i++) events.push(this.at(i));
    return { kind: 'replay', events };
  }

  private at(i: number): DashEvent {
    return this.ring[(this.start + i) % this.capacity];
  }
}
