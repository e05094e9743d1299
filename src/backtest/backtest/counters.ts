/**
 * What a backtest counts per strategy besides its fills: orders, cancels, risk denials and venue
 * rejections by code, and the errors it threw (the first one kept with its stack frame).
 */
export interface StrategyCounters {
  /** Orders the engine accepted (NEW events). */
  ordersAccepted: number;
  /** Orders that ended REJECTED on arrival, never accepted: a makerOnly order that would have taken liquidity. */
  ordersRejected: number;
  /** Orders that ended EXPIRED with nothing filled: a MARKET, IOC or FOK order that found no liquidity, a reduce-only order with nothing to reduce. */
  ordersExpiredUnfilled: number;
  /** Of those, the orders a triggered stop or take-profit placed: the position it was to close stayed open. */
  triggeredExpiredUnfilled: number;
  /** Orders that ended EXPIRED after filling in part: a MARKET or IOC order that took what liquidity there was, the rest expired. */
  ordersExpiredPartial: number;
  rejections: number;
  denials: number;
  cancels: number;
  /** Risk denials by risk code, and venue rejections by venue error code. */
  denialsByCode: Record<string, number>;
  rejectionsByCode: Record<string, number>;
  /** The first venue rejection of each code: what the venue said, so a code's count can be read. */
  firstRejectionByCode: Record<string, RejectionRow>;
  /** The first risk denial of each code: the risk engine's reason, so a code's count can be read. */
  firstDenialByCode: Record<string, RejectionRow>;
  /** Times the strategy threw, the first of them, and whether it was stopped for them. */
  errors: number;
  firstError: StrategyErrorRow | null;
  /** Reads of the wall clock by the strategy's code (`Date.now()`, `new Date()`): its time is the replay's, `ctx.clock`. */
  wallClockReads: number;
  /** The first of them: the hook and the call, as `onMark: Date.now()`. */
  firstWallClockRead: string | null;
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

export interface RejectionRow {
  time: number;
  /** The intent's kind: place, amend, cancel... */
  intent: string;
  /** The venue's message (a rejection), or the risk engine's reason (a denial). */
  message: string;
}

/** A condition order that fired and whose order was refused (REJECTED): when, which, and why when the venue said. */
export interface ConditionRejectionRow {
  time: number;
  symbol: string;
  conditionId: string;
  type: string;
  /** The code and message a request would have got (`0` / `''` when the venue did not say). */
  code: number;
  message: string;
}

/** A strategy order's leg (sub-order) that never stood (REJECTED, or never placed): when, which, and why when the venue said. */
export interface LegRow {
  time: number;
  symbol: string;
  strategyId: string;
  strategyType: string;
  strategySubId: number;
  /** The leg's type (LIMIT, STOP_MARKET, ...). */
  type: string;
  /** As in ConditionRejectionRow: `0` / `''` when the venue did not say. */
  code: number;
  message: string;
}

/**
 * Orders the venue placed itself that never stood, counted with the first of each kind: condition
 * orders that fired and whose order was refused (REJECTED: the position they were to close or open
 * stayed as it was), legs of strategy orders (brackets, OCO, OTO) that ended REJECTED, and legs
 * never placed although the leg that was to place them traded (bot/execution/refusals.ts
 * unplacedAfterFill: a bracket's exits after a partly filled entry). In the result and the summary.
 */
export interface VenuePlacedRefusals {
  conditionsRejected: number;
  firstConditionRejection: ConditionRejectionRow | null;
  legsRejected: number;
  firstLegRejection: LegRow | null;
  legsUnplaced: number;
  firstLegUnplaced: LegRow | null;
}

/** The counts of `r` alone (the summary copies them from the result). */
export function venuePlacedRefusals(r: VenuePlacedRefusals): VenuePlacedRefusals {
  const { conditionsRejected, firstConditionRejection, legsRejected, firstLegRejection, legsUnplaced, firstLegUnplaced } = r;
  return { conditionsRejected, firstConditionRejection, legsRejected, firstLegRejection, legsUnplaced, firstLegUnplaced };
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

export const newCounters = (): StrategyCounters => ({ ordersAccepted: 0, ordersRejected: 0, ordersExpiredUnfilled: 0, triggeredExpiredUnfilled: 0, ordersExpiredPartial: 0, rejections: 0, denials: 0, cancels: 0, denialsByCode: {}, rejectionsByCode: {}, firstRejectionByCode: {}, firstDenialByCode: {}, errors: 0, firstError: null, wallClockReads: 0, firstWallClockRead: null, stopped: null });


/**
 * Times the account was liquidated, from its balance changes: each liquidation is one engine
 * command at one time, which makes LIQUIDATION changes for the book's fills, for the insurance
 * fund's takeover of what the book could not take, and for the fund's cover of a loss beyond the
 * margin, under as many references. Counted by those references, one liquidation was up to three.
 */
export function liquidationCount(changes: Iterable<{ changeType: string; createdAt: number }>): number {
  const times = new Set<number>();
  for (const c of changes) if (c.changeType === 'LIQUIDATION') times.add(c.createdAt);
  return times.size;
}
