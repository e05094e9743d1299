/** What the tape needs to know of a replayed symbol (grid and limits in ticks and steps), and a promise test. */
import { Dec } from '../../../core/decimal';
import { Grid } from '../../../core/values';
import type { SymbolSpec } from '../../../protocol/rest/market';

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

export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

