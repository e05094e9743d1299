/**
 * Time is injected everywhere below the runtime (DESIGN.md): the engine, the bus and the backtest
 * read time only through a Clock, so that a backtest can drive a virtual clock.
 */
export interface Clock {
  /** Unix epoch milliseconds. */
  now(): number;
}

/** Wall-clock time. Only the runtime and the servers construct this. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/** A clock that moves only when told to; it never goes backwards. */
export class ManualClock implements Clock {
  private t: number;

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  set(t: number): void {
    if (t < this.t) throw new RangeError(`clock cannot go backwards: ${t} < ${this.t}`);
    this.t = t;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`clock advance must be a non-negative number of ms, got ${ms}`);
    this.t += ms;
  }
}

/**
 * Deferred work, injected like the Clock: real timers live, virtual ones in a backtest. Returns
 * a function that cancels the timer.
 */
export interface Scheduler {
  after(ms: number, fn: () => void): () => void;
}

/** Scheduler on Node's timers; the runtime constructs it. Timers do not keep the process alive. */
export class SystemScheduler implements Scheduler {
  after(ms: number, fn: () => void): () => void {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  }
}

/** Scheduler driven by a ManualClock: `advance` runs the timers that fall due, in time order. */
export class ManualScheduler implements Scheduler {
  private timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  private seq = 0;

  constructor(readonly clock: ManualClock) {}

  after(ms: number, fn: () => void): () => void {
    const t = { at: this.clock.now() + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(t);
    return () => {
      this.timers = this.timers.filter((x) => x !== t);
    };
  }

  /** Moves time forward by `ms`, running due timers at their own times. */
  advance(ms: number): void {
    const end = this.clock.now() + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.clock.set(Math.max(this.clock.now(), due.at));
      due.fn();
    }
    this.clock.set(end);
  }

  get pending(): number {
    return this.timers.length;
  }
}
