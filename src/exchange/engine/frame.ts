/**
 * Command framing: a command's follow-up work (condition triggers, strategy orders, liquidation
 * checks, queued on `state.work`) and the account updates it is owed run when the outermost
 * command ends, before the command answers. So an answer built from the command's result after
 * `frame` (engine.ts: placeCondition, placeStrategy) is the state the command left, as
 * placeOrder's is.
 */
import type { EngineState } from './state';

export class CommandFrame {
  private nesting = 0;

  constructor(
    private readonly s: EngineState,
    /** Before the outermost command: deferred tape quotes settle (market/quote-orders.ts). */
    private readonly settle: () => void,
    /** After the follow-ups: the account updates of the users the command touched. */
    private readonly flush: () => void,
  ) {}

  /** Runs a command: deferred tape quotes settle first; follow-up work and account updates happen when the outermost one ends. */
  run<T>(fn: () => T): T {
    if (this.nesting === 0) this.settle();
    return this.frame(fn);
  }

  frame<T>(fn: () => T): T {
    this.nesting++;
    let result: T;
    try {
      result = fn();
    } finally {
      this.nesting--;
    }
    if (this.nesting === 0) {
      this.nesting++;
      try {
        const work = this.s.work;
        for (let guard = 0; work.length > 0; guard++) {
          if (guard > 100000) throw new Error('engine follow-up work did not settle');
          (work.shift() as () => void)();
        }
        this.flush();
      } finally {
        this.nesting--;
      }
    }
    return result;
  }
}
