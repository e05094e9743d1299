/**
 * Memo of an order's margin arithmetic. What an order freezes is a pure function of its price
 * (ticks), the quantity it opens and its whole quantity (steps), the leverage and the symbol:
 * required = notional / leverage and per step = required / quantity, each a 60-digit quotient
 * (margin-rate.ts), then per step x steps rounded up for what is frozen. Working that out was about
 * a sixth of a placement's cost and a quarter of what it allocated; orders repeat the same prices
 * and sizes (a book's levels, a strategy's lot), so the results are kept in a small direct-mapped
 * table per symbol and the frozen amount of a per-step rate for the whole quantity beside it.
 * Same inputs, same digits: only the work is saved.
 */
import type { SymbolSpec } from '../symbols';
import { ceilUnits, divide, quotient, times, type MarginRate } from './margin-rate';

/** Entries per symbol (a power of two). */
const SLOTS = 4096;

/** Frozen money units of a memoized per-step rate for the quantity it was made for. */
const FULL = new WeakMap<MarginRate, { steps: number; units: bigint }>();

/** ceil(per step x steps) in money units: what an order with this rate freezes for `steps` still open. */
export function frozenUnits(perStep: MarginRate, steps: number): bigint {
  const f = FULL.get(perStep);
  if (f !== undefined && f.steps === steps) return f.units;
  return ceilUnits(times(perStep, steps));
}

export class MarginMemo {
  private readonly ticks: Float64Array;
  private readonly opening: Float64Array;
  private readonly qty: Float64Array;
  private readonly leverage: Float64Array;
  private readonly requiredOf: MarginRate[];
  private readonly perStepOf: MarginRate[];
  private readonly mask: number;
  /** The last lookup's results. */
  required!: MarginRate;
  perStep!: MarginRate;

  /** `slots`: a power of two (tests use tiny tables, where every key collides). */
  constructor(
    private readonly spec: SymbolSpec,
    slots = SLOTS,
  ) {
    if (!(slots > 0 && (slots & (slots - 1)) === 0)) throw new RangeError(`slots must be a power of two, got ${slots}`);
    this.ticks = new Float64Array(slots).fill(NaN);
    this.opening = new Float64Array(slots);
    this.qty = new Float64Array(slots);
    this.leverage = new Float64Array(slots);
    this.requiredOf = new Array<MarginRate>(slots);
    this.perStepOf = new Array<MarginRate>(slots);
    this.mask = slots - 1;
  }

  /** Sets `required` and `perStep` for an order at `ticks` opening `opening` of `qty` steps at `leverage`. */
  lookup(ticks: number, opening: number, qty: number, leverage: number): void {
    const slot = (Math.imul(ticks | 0, 0x9e3779b1) ^ Math.imul(qty | 0, 0x85ebca6b) ^ Math.imul(opening | 0, 0xc2b2ae35) ^ leverage) & this.mask;
    if (this.ticks[slot] === ticks && this.qty[slot] === qty && this.opening[slot] === opening && this.leverage[slot] === leverage) {
      this.required = this.requiredOf[slot];
      this.perStep = this.perStepOf[slot];
      return;
    }
    const spec = this.spec;
    const required = quotient(spec.notionalUnits(ticks, opening), -spec.notionalScale, BigInt(leverage));
    const perStep = divide(required, qty);
    // A rate object of its own per entry, so the frozen amount found for it is its own.
    const own: MarginRate = { m: perStep.m, e: perStep.e };
    FULL.set(own, { steps: qty, units: ceilUnits(times(own, qty)) });
    this.ticks[slot] = ticks;
    this.opening[slot] = opening;
    this.qty[slot] = qty;
    this.leverage[slot] = leverage;
    this.requiredOf[slot] = required;
    this.perStepOf[slot] = own;
    this.required = required;
    this.perStep = own;
  }
}
