/**
 * What a backtest counts per strategy besides its fills: orders, cancels, risk denials and venue
 * rejections by code, and the errors it threw (the first one kept with its stack frame).
 */
export interface StrategyCounters {
  /** Orders the engine accepted (NEW events). */
  ordersAccepted: number;
  rejections: number;
  denials: number;
  cancels: number;
  /** Risk denials by risk code, and venue rejections by venue error code. */
  denialsByCode: Record<string, number>;
  rejectionsByCode: Record<string, number>;
  /** Times the strategy threw, the first of them, and whether it was stopped for them. */
  errors: number;
  firstError: StrategyErrorRow | null;
  stopped: { time: number; reason: string } | null;
}

export interface StrategyErrorRow {
  time: number;
  /** onStart, onEvent(<type>), onStop... */
  where: string;
  message: string;
  /** The first frame of the stack, file paths relative to the config's folder. */
  at: string;
}

/** An unexpected exception of the bot's own pipeline (a `botError`): the run's results are in doubt. */
export interface BotErrorRow {
  time: number;
  /** Where: `handler of markPrice`, `flush`, ... */
  context: string;
  message: string;
  /** The first frame of the stack, file paths relative to the config's folder. */
  at: string;
}

export const newCounters = (): StrategyCounters => ({ ordersAccepted: 0, rejections: 0, denials: 0, cancels: 0, denialsByCode: {}, rejectionsByCode: {}, errors: 0, firstError: null, stopped: null });

