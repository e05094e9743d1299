/**
 * A strategy that reads the wall clock (`Date.now()`, `new Date()`, `Date()`) where it should read
 * `ctx.clock` runs fine live and wrongly in a backtest, silently: the replay's hours pass in
 * seconds of wall time, so "at most one order a minute" by `Date.now()` placed one order in two
 * hours of data. The repository's lint forbids it in its own strategies; a user's project has no
 * such lint. A backtest watches instead: while a strategy's code runs, `globalThis.Date` is a
 * proxy that counts those reads (and still answers them with the wall clock), per strategy.
 */

/** Reads of the wall clock by one strategy: how many, and the first (hook and call). */
export interface WallClockReads {
  reads: number;
  first: string;
}

export class WallClockWatch {
  private readonly byStrategy = new Map<string, WallClockReads>();
  private readonly proxy: DateConstructor;
  private strategyId = '';
  private where: () => string = () => '';

  constructor() {
    const note = (call: string): void => {
      const r = this.byStrategy.get(this.strategyId);
      if (r !== undefined) r.reads++;
      else this.byStrategy.set(this.strategyId, { reads: 1, first: `${this.where()}: ${call}` });
    };
    const RealDate = Date;
    const now = (): number => {
      note('Date.now()');
      return RealDate.now();
    };
    this.proxy = new Proxy(RealDate, {
      get: (target, prop, receiver) => (prop === 'now' ? now : Reflect.get(target, prop, receiver) as unknown),
      construct: (target, args: unknown[], newTarget: (...a: unknown[]) => unknown) => {
        if (args.length === 0) note('new Date()');
        return Reflect.construct(target, args, newTarget) as object;
      },
      apply: (target, thisArg, args: unknown[]) => {
        note('Date()');
        return Reflect.apply(target, thisArg, args) as unknown;
      },
    });
  }

  /**
   * From now until `exit`, the code that runs is strategy `strategyId`'s, in `where()` (the hook it
   * is in): its wall-clock reads are counted. Returns what `exit` puts back: the real Date, or
   * undefined when already watching (a hook that runs another strategy's code cannot, but be safe:
   * the outer one counts). No allocation: a backtest enters once per event and strategy.
   */
  enter(strategyId: string, where: () => string): DateConstructor | undefined {
    const g = globalThis as { Date: DateConstructor };
    const real = g.Date;
    if (real === this.proxy) return undefined;
    this.strategyId = strategyId;
    this.where = where;
    g.Date = this.proxy;
    return real;
  }

  /** Ends what `enter` began, with what it returned. */
  exit(real: DateConstructor | undefined): void {
    if (real !== undefined) (globalThis as { Date: DateConstructor }).Date = real;
  }

  /** Runs `fn` between `enter` and `exit`. */
  run<T>(strategyId: string, where: () => string, fn: () => T): T {
    const real = this.enter(strategyId, where);
    try {
      return fn();
    } finally {
      this.exit(real);
    }
  }

  /** The strategies that read the wall clock, by id. */
  reads(): ReadonlyMap<string, WallClockReads> {
    return this.byStrategy;
  }
}
