/**
 * An account's closed positions (the position history endpoint and snapshots), kept like its fills
 * and balance changes (accounts/history.ts): the figures a closed position's record is made of, in
 * columns of numbers, and the record (average entry and close prices, PnL, ROE) made when read,
 * with the same decimal arithmetic, digits and key order as when it was made at the close. Records
 * restored from a snapshot are kept as read.
 */
import { BigIntTable, IntTable, NumberTable, Numbered, RecordLog } from '../../../core/columns';
import { Dec, formatDec } from '../../../core/decimal';
import { MARGIN_MODES, POSITION_SIDES, type MarginMode, type PositionSide } from '../../../core/enums';
import { decOfUnits, formatUnits } from '../../../core/money-units';
import type { PositionHistoryRecord } from '../../../protocol/records';
import { derivedPrice, money } from '../records';
import type { SymbolSpec } from '../symbols';

const ZERO = new Dec(0);

/** What a closed position's record is computed from (money in units, quantities in steps). */
export interface ClosedPosition {
  spec: SymbolSpec;
  positionSide: PositionSide;
  marginMode: MarginMode;
  /** The position was long (its last direction). */
  long: boolean;
  leverage: number;
  triggerMode: number;
  maxAbsQty: number;
  openQuote: bigint;
  openQty: number;
  closeQuote: bigint;
  closeQty: number;
  /** Realized PnL plus funding, money units. */
  pnl: bigint;
  fundingAccum: bigint;
  openedAt: number;
  closedAt: number;
}

export interface PositionHistoryEntry {
  record: PositionHistoryRecord;
  long: boolean;
}

/** Fields: integers (flags, leverage, trigger mode, quantities, the symbol's number), times and money (quotes, PnL, funding). */
const P_FLAGS = 0;
const P_LEVERAGE = 1;
const P_TRIGGER = 2;
const P_MAX_QTY = 3;
const P_OPEN_QTY = 4;
const P_CLOSE_QTY = 5;
/** The symbol's number in the log's list of specs. */
const P_SPEC = 6;
const P_OPENED = 0;
const P_CLOSED = 1;
const P_OPEN_QUOTE = 0;
const P_CLOSE_QUOTE = 1;
const P_PNL = 2;
const P_FUNDING = 3;

export class ClosedPositions extends RecordLog<PositionHistoryRecord> {
  private readonly specs = new Numbered<SymbolSpec>();
  private readonly ints = new IntTable(7);
  private readonly times = new NumberTable(2);
  private readonly money = new BigIntTable(4);
  /** Whether each restored position was long (the record does not say). */
  private readonly restoredLong: readonly boolean[];

  constructor(restored: readonly PositionHistoryEntry[] = []) {
    super(restored.map((e) => e.record));
    this.restoredLong = restored.map((e) => e.long);
  }

  push(c: ClosedPosition): void {
    const i = this.n++;
    // positionSide, marginMode and long, packed.
    this.ints.set(i, P_FLAGS, POSITION_SIDES.indexOf(c.positionSide) | (MARGIN_MODES.indexOf(c.marginMode) << 2) | (c.long ? 8 : 0));
    this.ints.set(i, P_LEVERAGE, c.leverage);
    this.ints.set(i, P_TRIGGER, c.triggerMode);
    this.ints.set(i, P_MAX_QTY, c.maxAbsQty);
    this.ints.set(i, P_OPEN_QTY, c.openQty);
    this.ints.set(i, P_CLOSE_QTY, c.closeQty);
    this.times.set(i, P_OPENED, c.openedAt);
    this.times.set(i, P_CLOSED, c.closedAt);
    this.ints.set(i, P_SPEC, this.specs.of(c.spec));
    this.money.set(i, P_OPEN_QUOTE, c.openQuote);
    this.money.set(i, P_CLOSE_QUOTE, c.closeQuote);
    this.money.set(i, P_PNL, c.pnl);
    this.money.set(i, P_FUNDING, c.fundingAccum);
  }

  symbol(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].symbol : this.specs.values[this.ints.get(i - r, P_SPEC)].name;
  }

  long(i: number): boolean {
    const r = this.restored.length;
    return i < r ? this.restoredLong[i] : (this.ints.get(i - r, P_FLAGS) & 8) !== 0;
  }

  /** PnL of entry `i`, money units (an entry appended since the restore). */
  pnlUnits(i: number): bigint {
    return this.money.get(this.appended(i), P_PNL);
  }

  /**
   * Moves the PnL of entry `i` (appended since the restore) by `units`: the insurance fund's cover
   * of a liquidation's loss beyond the margin, which the account's wallet did not pay.
   */
  addPnl(i: number, units: bigint): void {
    const k = this.appended(i);
    this.money.set(k, P_PNL, this.money.get(k, P_PNL) + units);
  }

  private appended(i: number): number {
    const k = i - this.restored.length;
    if (k < 0 || k >= this.n) throw new RangeError(`closed position ${i} is not one appended since the restore`);
    return k;
  }

  closedAtOf(i: number): number {
    const r = this.restored.length;
    return i < r ? this.restored[i].closedAt : this.times.get(i - r, P_CLOSED);
  }

  protected build(k: number): PositionHistoryRecord {
    const spec = this.specs.values[this.ints.get(k, P_SPEC)];
    const flags = this.ints.get(k, P_FLAGS);
    const leverage = this.ints.get(k, P_LEVERAGE);
    const closeQty = this.ints.get(k, P_CLOSE_QTY);
    const openQty = this.ints.get(k, P_OPEN_QTY);
    const closePrice = closeQty > 0 ? decOfUnits(this.money.get(k, P_CLOSE_QUOTE)).div(spec.step.decOf(closeQty)) : ZERO;
    const avgEntry = openQty > 0 ? decOfUnits(this.money.get(k, P_OPEN_QUOTE)).div(spec.step.decOf(openQty)) : ZERO;
    const maxAbsQty = this.ints.get(k, P_MAX_QTY);
    const im = avgEntry.times(spec.step.decOf(maxAbsQty)).div(leverage);
    const pnl = decOfUnits(this.money.get(k, P_PNL));
    return {
      symbol: spec.name,
      positionSide: POSITION_SIDES[flags & 3],
      leverage,
      maxQuantity: spec.step.fromUnits(maxAbsQty),
      entryPrice: derivedPrice(avgEntry, spec.tick.scale),
      closePrice: derivedPrice(closePrice, spec.tick.scale),
      pnl: money(pnl),
      roe: im.isZero() ? '0' : formatDec(pnl.div(im), 8),
      marginMode: MARGIN_MODES[(flags >> 2) & 1],
      triggerMode: this.ints.get(k, P_TRIGGER),
      fundingFeeAccum: formatUnits(this.money.get(k, P_FUNDING)),
      openedAt: this.times.get(k, P_OPENED),
      closedAt: this.times.get(k, P_CLOSED),
    };
  }

  /** Every entry with its record, oldest first (snapshots). */
  entries(): PositionHistoryEntry[] {
    const out: PositionHistoryEntry[] = [];
    for (let i = 0; i < this.length; i++) out.push({ record: this.at(i), long: this.long(i) });
    return out;
  }
}
