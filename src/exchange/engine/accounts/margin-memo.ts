/**
 * Memo of an order's margin arithmetic. What an order freezes is a pure function of its price
 * (ticks), the quantity it opens and its whole quantity (steps), the leverage and the symbol:
 * required = notional / leverage and per step = required / quantity, each a 60-digit quotient
 * (margin-rate.ts), then per step x steps rounded up for what is frozen. Working that out was about
 * a sixth of a placement's cost and a quarter of what it allocated; orders repeat the same prices
 * and sizes (a book's levels, a strategy's lot), so the results are kept in a small direct-mapped
 * table per symbol, and each per-step rate made here carries the frozen amount for its whole
 * quantity.
 * Same inputs, same digits: only the work is saved.
 */
import type { SymbolSpec } from '../symbols';
import { ceilUnits, divide, quotient, times, type MarginRate } from './margin-rate';

/** Entries per symbol (a power of two). */
const SLOTS = 4096;

/**
 * A memoized per-step rate, carrying the frozen money units for the quantity it was made for (a
 * rate object of its own per entry, so the amount is its own). It was kept in a WeakMap beside
 * the rate: a lookup per freeze, and an ephemeron per miss for the collector to trace.
 */
class MemoRate implements MarginRate {
  constructor(
    readonly m: bigint,
    readonly e: number,
    readonly steps: number,
    readonly units: bigint,
  ) {}
}

/** ceil(per step x steps) in money units: what an order with this rate freezes for `steps` still open. */
export function frozenUnits(perStep: MarginRate, steps: number): bigint {
  if (perStep instanceof MemoRate && perStep.steps === steps) return perStep.units;
  return ceilUnits(times(perStep, steps));
}

export class MarginMemo {
  /** Per slot: ticks, opening steps, steps, leverage (one cache line read per lookup). */
  private readonly keys: Float64Array;
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
    this.keys = new Float64Array(slots * 4).fill(NaN);
    this.requiredOf = new Array<MarginRate>(slots);
    this.perStepOf = new Array<MarginRate>(slots);
    this.mask = slots - 1;
  }

  /** Sets `required` and `perStep` for an order at `ticks` opening `opening` of `qty` steps at `leverage`. */
  lookup(ticks: number, opening: number, qty: number, leverage: number): void {
    const slot = (Math.imul(ticks | 0, 0x9e3779b1) ^ Math.imul(qty | 0, 0x85ebca6b) ^ Math.imul(opening | 0, 0xc2b2ae35) ^ leverage) & this.mask;
    const keys = this.keys;
    const k = slot << 2;
    if (keys[k] === ticks && keys[k + 1] === opening && keys[k + 2] === qty && keys[k + 3] === leverage) {
      this.required = this.requiredOf[slot];
      this.perStep = this.perStepOf[slot];
      return;
    }
    const spec = this.spec;
    const required = quotient(spec.notionalUnits(ticks, opening), -spec.notionalScale, BigInt(leverage));
    const perStep = divide(required, qty);
    const own = new MemoRate(perStep.m, perStep.e, qty, ceilUnits(times(perStep, qty)));
    keys[k] = ticks;
    keys[k + 1] = opening;
    keys[k + 2] = qty;
    keys[k + 3] = leverage;
    this.requiredOf[slot] = required;
    this.perStepOf[slot] = own;
    this.required = required;
    this.perStep = own;
  }
}
