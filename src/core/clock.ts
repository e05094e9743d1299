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
