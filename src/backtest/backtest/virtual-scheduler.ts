/**
 * The backtest's Scheduler: timers on virtual time, in a binary heap ordered by (due time,
 * creation order). The core ManualScheduler filters and sorts its whole list on every advance,
 * which is fine for tests and far too slow when the replay asks "anything due?" a million times a
 * second. Cancelled timers are marked and skipped rather than removed, so cancelling is O(1).
 *
 * The driver, not this class, runs timers: it takes them one at a time (`runNext`) so it can let
 * the bot's promises settle between two timers, exactly as it does between two recorded events.
 */
import type { ManualClock, Scheduler } from '../../core/clock';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class VirtualScheduler implements Scheduler {
  private heap: Timer[] = [];
  private seq = 0;
  private live = 0;

  constructor(readonly clock: ManualClock) {}

  after(ms: number, fn: () => void): () => void {
    const t: Timer = { at: this.clock.now() + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.push(t);
    this.live++;
    return () => {
      if (t.cancelled) return;
      t.cancelled = true;
      this.live--;
    };
  }

  /** Due time of the earliest live timer, or +Infinity. */
  nextAt(): number {
    this.dropCancelled();
    return this.heap.length === 0 ? Infinity : this.heap[0].at;
  }

  /** Runs the earliest live timer if it is due at or before `until`; false when none is. */
  runNext(until: number): boolean {
    this.dropCancelled();
    const top = this.heap[0];
    if (top === undefined || top.at > until) return false;
    this.pop();
    top.cancelled = true;
    this.live--;
    if (top.at > this.clock.now()) this.clock.set(top.at);
    top.fn();
    return true;
  }

  get pending(): number {
    return this.live;
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0].cancelled) this.pop();
  }

  private less(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(t: Timer): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop() as Timer;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l], h[m])) m = l;
      if (r < h.length && this.less(h[r], h[m])) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
