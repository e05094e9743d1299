/**
 * The page's copy of the bot's state: a snapshot, then journal entries and live states from the
 * stream. Entries are applied once each, by id, so a replay after a reconnect that overlaps what
 * was already seen changes nothing.
 */
import type { DashEvent, EquityPoint, FillPoint, LiveState, Snapshot } from '../../src/runtime/dashboard/types';
import type { LinkState } from './stream';

const MAX_EVENTS = 2000;
const MAX_FILLS = 2000;

export interface Model {
  bot: Snapshot['bot'] | undefined;
  live: LiveState | undefined;
  events: DashEvent[];
  equity: EquityPoint[];
  fills: FillPoint[];
  link: LinkState;
  linkDetail: string;
  /** Client clock minus server clock, ms (uptime ticks between live states). */
  skew: number;
  /** Bumped when the chart's data changed. */
  chartVersion: number;
}

function seqOf(id: string): [string, number] {
  const i = id.lastIndexOf(':');
  return [id.slice(0, i), Number(id.slice(i + 1))];
}

export class Store {
  model: Model = { bot: undefined, live: undefined, events: [], equity: [], fills: [], link: 'connecting', linkDetail: '', skew: 0, chartVersion: 0 };
  private epoch = '';
  private seq = 0;
  private readonly listeners = new Set<() => void>();

  subscribe(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  private changed(patch: Partial<Model>): void {
    this.model = { ...this.model, ...patch };
    for (const f of this.listeners) f();
  }

  link(link: LinkState, linkDetail: string): void {
    this.changed({ link, linkDetail });
  }

  message(event: string, data: string): void {
    if (event === 'snapshot') this.snapshot(JSON.parse(data) as Snapshot);
    else if (event === 'ev') this.event(JSON.parse(data) as DashEvent);
    else if (event === 'live') this.setLive(JSON.parse(data) as LiveState);
  }

  private snapshot(s: Snapshot): void {
    [this.epoch, this.seq] = seqOf(s.lastId);
    this.changed({ bot: s.bot, live: s.live, events: s.events.slice(-MAX_EVENTS), equity: s.equity, fills: s.fills, skew: Date.now() - s.live.now, chartVersion: this.model.chartVersion + 1 });
  }

  private setLive(live: LiveState): void {
    this.changed({ live, skew: Date.now() - live.now });
  }

  private event(e: DashEvent): void {
    const [epoch, seq] = seqOf(e.id);
    if (epoch === this.epoch && seq <= this.seq) return;
    this.epoch = epoch;
    this.seq = seq;
    if (e.kind === 'equity' && e.equity) {
      this.changed({ equity: [...this.model.equity, e.equity], chartVersion: this.model.chartVersion + 1 });
      return;
    }
    const events = this.model.events.length >= MAX_EVENTS ? [...this.model.events.slice(1), e] : [...this.model.events, e];
    if (e.kind === 'fill' && e.fill) {
      const fills = this.model.fills.length >= MAX_FILLS ? [...this.model.fills.slice(1), e.fill] : [...this.model.fills, e.fill];
      this.changed({ events, fills, chartVersion: this.model.chartVersion + 1 });
      return;
    }
    this.changed({ events });
  }
}
