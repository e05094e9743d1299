/**
 * An account's fills and balance changes, kept for the history queries, the statistics and
 * snapshots for the life of the exchange. Each entry is held in columns of numbers (src/core/
 * columns.ts), not as a record of decimal strings: the records were the largest part of what a
 * trade left on the heap (about 1.1 KB per order under the crossing load, with the orders), and
 * the young-generation collections that copied them took a sixth of the local exchange's time and
 * set its p99 latency. A record is built, with the same fields, digits and key order as before,
 * when it is read.
 *
 * Records restored from a snapshot stay records (`restored`, before the compact entries): their
 * digits are whatever the snapshot holds, so they are handed back exactly as read.
 *
 * The statistics read the figures they sum (amounts, balances, trade values, fees) and the times
 * entry by entry, in money units, without a record being built (src/exchange/service/stats.ts).
 */
import { BigIntColumn, NumberColumn } from '../../../core/columns';
import { CHANGE_TYPES, POSITION_SIDES, SIDES, type ChangeType, type PositionSide, type RoleType, type Side } from '../../../core/enums';
import { Dec } from '../../../core/decimal';
import { formatUnits, parseUnits, unitsOfDec } from '../../../core/money-units';
import type { AccountChangeRecord, TradeRecord } from '../../../protocol/records';
import type { SymbolSpec } from '../symbols';

const CHANGE_CODE = new Map<string, number>(CHANGE_TYPES.map((t, i) => [t, i]));

/** Money units of a restored record's amount (records hold money to 8 places). */
const unitsOf = (s: string): bigint => parseUnits(s) ?? unitsOfDec(new Dec(s));

/** Balance changes: amount, wallet after, frozen, change type, reference, time, symbol. */
export class ChangeLog {
  private n = 0;
  private readonly amount = new BigIntColumn();
  private readonly after = new BigIntColumn();
  private readonly frozen = new BigIntColumn();
  private readonly codes = new NumberColumn();
  private readonly times = new NumberColumn();
  /** An order id (the reference of a fill's changes), or the reference's text. */
  private readonly refs: Array<number | string> = [];
  private readonly symbols: string[] = [];

  constructor(private readonly restored: readonly AccountChangeRecord[] = []) {}

  get length(): number {
    return this.restored.length + this.n;
  }

  /** A USDT wallet change of `amount` money units leaving `after` in the wallet, with `frozen` frozen. */
  push(amount: bigint, after: bigint, frozen: bigint, changeType: ChangeType, referenceId: number | string, createdAt: number, symbol: string): void {
    const i = this.n++;
    this.amount.set(i, amount);
    this.after.set(i, after);
    this.frozen.set(i, frozen);
    this.codes.set(i, CHANGE_CODE.get(changeType) as number);
    this.times.set(i, createdAt);
    this.refs.push(referenceId);
    this.symbols.push(symbol);
  }

  createdAt(i: number): number {
    const r = this.restored.length;
    return i < r ? this.restored[i].createdAt : this.times.get(i - r);
  }

  changeType(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].changeType : CHANGE_TYPES[this.codes.get(i - r)];
  }

  assetType(i: number): string {
    return i < this.restored.length ? this.restored[i].assetType : 'USDT';
  }

  /** The change, in money units. */
  amountUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].amount) : this.amount.get(i - r);
  }

  /** The wallet balance after the change, in money units. */
  walletAfterUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].walletBalanceAfter) : this.after.get(i - r);
  }

  at(i: number): AccountChangeRecord {
    const r = this.restored.length;
    if (i < r) return { ...this.restored[i] };
    const k = i - r;
    const amount = this.amount.get(k);
    const after = this.after.get(k);
    const frozen = formatUnits(this.frozen.get(k));
    const ref = this.refs[k];
    return {
      assetType: 'USDT',
      amount: formatUnits(amount),
      walletBalanceBefore: formatUnits(after - amount),
      walletBalanceAfter: formatUnits(after),
      frozenBalanceBefore: frozen,
      frozenBalanceAfter: frozen,
      changeType: CHANGE_TYPES[this.codes.get(k)],
      referenceId: typeof ref === 'number' ? String(ref) : ref,
      createdAt: this.times.get(k),
      symbol: this.symbols[k],
    };
  }

  toArray(): AccountChangeRecord[] {
    return recordsOf(this);
  }
}

const ROLE_BIT = 1;
const SIDE_BIT = 2;
/** Position side code above the two bits. */
const POSITION_SHIFT = 2;

/** Fills: ids, symbol, sides, price in ticks, quantity in steps, value, fee and realized PnL in money units, time. */
export class TradeLog {
  private n = 0;
  private readonly fillIds = new NumberColumn();
  private readonly tradeIds = new NumberColumn();
  private readonly orderIds = new NumberColumn();
  private readonly specs: SymbolSpec[] = [];
  private readonly flags = new NumberColumn();
  private readonly ticks = new NumberColumn();
  private readonly steps = new NumberColumn();
  private readonly value = new BigIntColumn();
  private readonly fee = new BigIntColumn();
  private readonly realized = new BigIntColumn();
  private readonly times = new NumberColumn();

  constructor(private readonly restored: readonly TradeRecord[] = []) {}

  get length(): number {
    return this.restored.length + this.n;
  }

  push(fillId: number, tradeId: number, orderId: number, spec: SymbolSpec, side: Side, role: RoleType, positionSide: PositionSide, ticks: number, steps: number, value: bigint, fee: bigint, realized: bigint, createdAt: number): void {
    const i = this.n++;
    this.fillIds.set(i, fillId);
    this.tradeIds.set(i, tradeId);
    this.orderIds.set(i, orderId);
    this.specs.push(spec);
    this.flags.set(i, (role === 'taker' ? ROLE_BIT : 0) | (side === 'SELL' ? SIDE_BIT : 0) | (POSITION_SIDES.indexOf(positionSide) << POSITION_SHIFT));
    this.ticks.set(i, ticks);
    this.steps.set(i, steps);
    this.value.set(i, value);
    this.fee.set(i, fee);
    this.realized.set(i, realized);
    this.times.set(i, createdAt);
  }

  createdAt(i: number): number {
    const r = this.restored.length;
    return i < r ? this.restored[i].createdAt : this.times.get(i - r);
  }

  symbol(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].symbol : this.specs[i - r].name;
  }

  /** Price x quantity of the fill, in money units. */
  valueUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].tradeValue) : this.value.get(i - r);
  }

  /** The fill's fee, in money units. */
  feeUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].handlingFee) : this.fee.get(i - r);
  }

  /** The order id as the record shows it. */
  orderId(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].orderId : String(this.orderIds.get(i - r));
  }

  at(i: number): TradeRecord {
    const r = this.restored.length;
    if (i < r) return { ...this.restored[i] };
    const k = i - r;
    const spec = this.specs[k];
    const flags = this.flags.get(k);
    return {
      fillId: String(this.fillIds.get(k)),
      tradeId: String(this.tradeIds.get(k)),
      orderId: String(this.orderIds.get(k)),
      symbol: spec.name,
      side: SIDES[(flags & SIDE_BIT) === 0 ? 0 : 1],
      roleType: (flags & ROLE_BIT) === 0 ? 'maker' : 'taker',
      price: spec.tick.fromUnits(this.ticks.get(k)),
      quantity: spec.step.fromUnits(this.steps.get(k)),
      tradeValue: formatUnits(this.value.get(k)),
      handlingFee: formatUnits(this.fee.get(k)),
      realizedPnl: formatUnits(this.realized.get(k)),
      positionSide: POSITION_SIDES[flags >>> POSITION_SHIFT],
      createdAt: this.times.get(k),
    };
  }

  toArray(): TradeRecord[] {
    return recordsOf(this);
  }
}

function recordsOf<T>(log: { length: number; at(i: number): T }): T[] {
  const out = new Array<T>(log.length);
  for (let i = 0; i < out.length; i++) out[i] = log.at(i);
  return out;
}
