/**
 * An account's closed positions (the position history endpoint and snapshots), kept like its fills
 * and balance changes (accounts/history.ts): the figures a closed position's record is made of, in
 * columns of numbers, and the record (average entry and close prices, PnL, ROE) made when read,
 * with the same decimal arithmetic, digits and key order as when it was made at the close. Records
 * restored from a snapshot are kept as read.
 */
import { BigIntColumn, NumberColumn } from '../../../core/columns';
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

export class ClosedPositions {
  private n = 0;
  private readonly specs: SymbolSpec[] = [];
  /** positionSide, marginMode and long, packed. */
  private readonly flags = new NumberColumn();
  private readonly leverage = new NumberColumn();
  private readonly triggerMode = new NumberColumn();
  private readonly maxAbsQty = new NumberColumn();
  private readonly openQuote = new BigIntColumn();
  private readonly openQty = new NumberColumn();
  private readonly closeQuote = new BigIntColumn();
  private readonly closeQty = new NumberColumn();
  private readonly pnl = new BigIntColumn();
  private readonly funding = new BigIntColumn();
  private readonly openedAt = new NumberColumn();
  private readonly closedAt = new NumberColumn();

  constructor(private readonly restored: readonly PositionHistoryEntry[] = []) {}

  get length(): number {
    return this.restored.length + this.n;
  }

  push(c: ClosedPosition): void {
    const i = this.n++;
    this.specs.push(c.spec);
    this.flags.set(i, POSITION_SIDES.indexOf(c.positionSide) | (MARGIN_MODES.indexOf(c.marginMode) << 2) | (c.long ? 8 : 0));
    this.leverage.set(i, c.leverage);
    this.triggerMode.set(i, c.triggerMode);
    this.maxAbsQty.set(i, c.maxAbsQty);
    this.openQuote.set(i, c.openQuote);
    this.openQty.set(i, c.openQty);
    this.closeQuote.set(i, c.closeQuote);
    this.closeQty.set(i, c.closeQty);
    this.pnl.set(i, c.pnl);
    this.funding.set(i, c.fundingAccum);
    this.openedAt.set(i, c.openedAt);
    this.closedAt.set(i, c.closedAt);
  }

  symbol(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].record.symbol : this.specs[i - r].name;
  }

  long(i: number): boolean {
    const r = this.restored.length;
    return i < r ? this.restored[i].long : (this.flags.get(i - r) & 8) !== 0;
  }

  closedAtOf(i: number): number {
    const r = this.restored.length;
    return i < r ? this.restored[i].record.closedAt : this.closedAt.get(i - r);
  }

  at(i: number): PositionHistoryRecord {
    const r = this.restored.length;
    if (i < r) return { ...this.restored[i].record };
    const k = i - r;
    const spec = this.specs[k];
    const flags = this.flags.get(k);
    const leverage = this.leverage.get(k);
    const closeQty = this.closeQty.get(k);
    const openQty = this.openQty.get(k);
    const closePrice = closeQty > 0 ? decOfUnits(this.closeQuote.get(k)).div(spec.step.decOf(closeQty)) : ZERO;
    const avgEntry = openQty > 0 ? decOfUnits(this.openQuote.get(k)).div(spec.step.decOf(openQty)) : ZERO;
    const maxAbsQty = this.maxAbsQty.get(k);
    const im = avgEntry.times(spec.step.decOf(maxAbsQty)).div(leverage);
    const pnl = decOfUnits(this.pnl.get(k));
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
      triggerMode: this.triggerMode.get(k),
      fundingFeeAccum: formatUnits(this.funding.get(k)),
      openedAt: this.openedAt.get(k),
      closedAt: this.closedAt.get(k),
    };
  }

  /** Every entry with its record, oldest first (snapshots). */
  entries(): PositionHistoryEntry[] {
    const out: PositionHistoryEntry[] = [];
    for (let i = 0; i < this.length; i++) out.push({ record: this.at(i), long: this.long(i) });
    return out;
  }
}
