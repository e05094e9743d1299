/** What the tape needs to know of a replayed symbol (grid and limits in ticks and steps), a promise test, and how it counts a sink's refusals. */
import { Dec } from '../../../core/decimal';
import { VenueError } from '../../../core/errors';
import { Grid } from '../../../core/values';
import type { SymbolSpec } from '../../../protocol/rest/market';
import { isZeroQty } from '../../../market-data/l2-book';

export interface SpecInfo {
  tick: Grid;
  step: Grid;
  minSteps: number;
  maxSteps: number;
  /** Minimum notional in units of tick * step, rounded up. */
  minNotionalUnits: number;
}

export function specInfo(s: SymbolSpec): SpecInfo | undefined {
  try {
    const tick = new Grid(s.tickSize);
    const step = new Grid(s.stepSize);
    const minSteps = step.toUnits(s.minQty) ?? 1;
    const maxSteps = step.toUnits(s.maxQty) ?? Number.MAX_SAFE_INTEGER;
    const unit = new Dec(s.tickSize).times(s.stepSize);
    const minNotionalUnits = new Dec(s.minNotional).div(unit).ceil().toNumber();
    return { tick, step, minSteps, maxSteps, minNotionalUnits };
  } catch {
    // An unusable spec: fall back to the engine's refusals for this symbol.
    return undefined;
  }
}

/**
 * A recorded level's quantity in steps: 0 for a removed level; a quantity off the step grid (a
 * venue with finer lots) to the nearest whole steps.
 */
export function levelSteps(g: SpecInfo, q: string): number {
  if (isZeroQty(q)) return 0;
  return g.step.toUnits(q) ?? Math.round(Number(q) / Number(g.step.fromUnits(1)));
}

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}


/** Runs a sink call, counting a refusal (thrown or as a rejected promise) in `stats.refusals` instead of failing (`quiet`: not counted). */
export function guard(stats: { refusals: number }, call: () => unknown, quiet = false): void {
  try {
    settle(stats, call(), quiet);
  } catch (err) {
    if (!(err instanceof VenueError)) throw err;
    if (!quiet) stats.refusals++;
  }
}

/** An asynchronous sink reports refusals late: count them when they come. */
export function settle(stats: { refusals: number }, result: unknown, quiet = false): void {
  if (!isThenable(result)) return;
  result.then(undefined, () => {
    if (!quiet) stats.refusals++;
  });
}
