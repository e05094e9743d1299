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
import { BigIntTable, IntTable, NumberTable, Numbered, RecordLog } from '../../../core/columns';
import { CHANGE_TYPES, POSITION_SIDES, SIDES, type ChangeType, type PositionSide, type RoleType, type Side } from '../../../core/enums';
import { Dec } from '../../../core/decimal';
import { formatUnits, parseUnits, unitsOfDec } from '../../../core/money-units';
import type { AccountChangeRecord, TradeRecord } from '../../../protocol/records';
import type { SymbolSpec } from '../symbols';

const CHANGE_CODE = new Map<string, number>(CHANGE_TYPES.map((t, i) => [t, i]));

/** Money units of a restored record's amount (records hold money to 8 places). */
const unitsOf = (s: string): bigint => parseUnits(s) ?? unitsOfDec(new Dec(s));

/**
 * ChangeLog fields: money (amount, wallet after, frozen), integers (change type code, the
 * reference when it is an order id, the symbol's number in the log's list of symbols) and the time.
 */
const C_AMOUNT = 0;
const C_AFTER = 1;
const C_FROZEN = 2;
const C_CODE = 0;
const C_REF = 1;
const C_SYMBOL = 2;
/** C_REF of a reference that is text (kept apart); of the empty reference. */
const REF_TEXT = -1;
const REF_NONE = -2;

/** Balance changes: amount, wallet after, frozen, change type, reference, time, symbol. */
export class ChangeLog extends RecordLog<AccountChangeRecord> {
  private readonly money = new BigIntTable(3);
  private readonly ints = new IntTable(3);
  private readonly times = new NumberTable(1);
  /** References that are text (funding, insurance cover), by entry; an order id is in C_REF. */
  private readonly refTexts = new Map<number, string>();
  private readonly symbols = new Numbered<string>();

  constructor(restored: readonly AccountChangeRecord[] = []) {
    super(restored);
  }

  /** A USDT wallet change of `amount` money units leaving `after` in the wallet, with `frozen` frozen. */
  push(amount: bigint, after: bigint, frozen: bigint, changeType: ChangeType, referenceId: number | string, createdAt: number, symbol: string): void {
    const i = this.n++;
    this.money.set(i, C_AMOUNT, amount);
    this.money.set(i, C_AFTER, after);
    this.money.set(i, C_FROZEN, frozen);
    this.ints.set(i, C_CODE, CHANGE_CODE.get(changeType) as number);
    if (typeof referenceId === 'number') {
      this.ints.set(i, C_REF, referenceId);
    } else if (referenceId === '') {
      this.ints.set(i, C_REF, REF_NONE);
    } else {
      this.ints.set(i, C_REF, REF_TEXT);
      this.refTexts.set(i, referenceId);
    }
    this.ints.set(i, C_SYMBOL, this.symbols.of(symbol));
    this.times.set(i, 0, createdAt);
  }

  /** The reference as the record shows it. */
  private reference(k: number): string {
    const ref = this.ints.get(k, C_REF);
    return ref === REF_NONE ? '' : ref === REF_TEXT ? (this.refTexts.get(k) as string) : String(ref);
  }

  createdAt(i: number): number {
    const r = this.restored.length;
    return i < r ? this.restored[i].createdAt : this.times.get(i - r, 0);
  }

  changeType(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].changeType : CHANGE_TYPES[this.ints.get(i - r, C_CODE)];
  }

  assetType(i: number): string {
    return i < this.restored.length ? this.restored[i].assetType : 'USDT';
  }

  /** The change, in money units. */
  amountUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].amount) : this.money.get(i - r, C_AMOUNT);
  }

  /** The wallet balance after the change, in money units. */
  walletAfterUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].walletBalanceAfter) : this.money.get(i - r, C_AFTER);
  }

  protected build(k: number): AccountChangeRecord {
    const amount = this.money.get(k, C_AMOUNT);
    const after = this.money.get(k, C_AFTER);
    const frozen = formatUnits(this.money.get(k, C_FROZEN));
    return {
      assetType: 'USDT',
      amount: formatUnits(amount),
      walletBalanceBefore: formatUnits(after - amount),
      walletBalanceAfter: formatUnits(after),
      frozenBalanceBefore: frozen,
      frozenBalanceAfter: frozen,
      changeType: CHANGE_TYPES[this.ints.get(k, C_CODE)],
      referenceId: this.reference(k),
      createdAt: this.times.get(k, 0),
      symbol: this.symbols.values[this.ints.get(k, C_SYMBOL)],
    };
  }

}

const ROLE_BIT = 1;
const SIDE_BIT = 2;
/** Position side code above the two bits. */
const POSITION_SHIFT = 2;

/** TradeLog fields: integers (ids, flags, ticks, steps, the symbol), the time, and money (value, fee, realized PnL). */
const T_FILL = 0;
const T_TRADE = 1;
const T_ORDER = 2;
const T_FLAGS = 3;
const T_TICKS = 4;
const T_STEPS = 5;
/** The symbol's number in the log's list of specs. */
const T_SPEC = 6;
const T_VALUE = 0;
const T_FEE = 1;
const T_REALIZED = 2;

/** Fills: ids, symbol, sides, price in ticks, quantity in steps, value, fee and realized PnL in money units, time. */
export class TradeLog extends RecordLog<TradeRecord> {
  private readonly ints = new IntTable(7);
  private readonly times = new NumberTable(1);
  private readonly money = new BigIntTable(3);
  private readonly specs = new Numbered<SymbolSpec>();

  constructor(restored: readonly TradeRecord[] = []) {
    super(restored);
  }

  push(fillId: number, tradeId: number, orderId: number, spec: SymbolSpec, side: Side, role: RoleType, positionSide: PositionSide, ticks: number, steps: number, value: bigint, fee: bigint, realized: bigint, createdAt: number): void {
    const i = this.n++;
    this.ints.set(i, T_FILL, fillId);
    this.ints.set(i, T_TRADE, tradeId);
    this.ints.set(i, T_ORDER, orderId);
    this.ints.set(i, T_FLAGS, (role === 'taker' ? ROLE_BIT : 0) | (side === 'SELL' ? SIDE_BIT : 0) | (POSITION_SIDES.indexOf(positionSide) << POSITION_SHIFT));
    this.ints.set(i, T_TICKS, ticks);
    this.ints.set(i, T_STEPS, steps);
    this.times.set(i, 0, createdAt);
    this.money.set(i, T_VALUE, value);
    this.money.set(i, T_FEE, fee);
    this.money.set(i, T_REALIZED, realized);
    this.ints.set(i, T_SPEC, this.specs.of(spec));
  }

  createdAt(i: number): number {
    const r = this.restored.length;
    return i < r ? this.restored[i].createdAt : this.times.get(i - r, 0);
  }

  symbol(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].symbol : this.specs.values[this.ints.get(i - r, T_SPEC)].name;
  }

  /** Price x quantity of the fill, in money units. */
  valueUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].tradeValue) : this.money.get(i - r, T_VALUE);
  }

  /** The fill's fee, in money units. */
  feeUnits(i: number): bigint {
    const r = this.restored.length;
    return i < r ? unitsOf(this.restored[i].handlingFee) : this.money.get(i - r, T_FEE);
  }

  /** The order id as the record shows it. */
  orderId(i: number): string {
    const r = this.restored.length;
    return i < r ? this.restored[i].orderId : String(this.ints.get(i - r, T_ORDER));
  }

  protected build(k: number): TradeRecord {
    const spec = this.specs.values[this.ints.get(k, T_SPEC)];
    const flags = this.ints.get(k, T_FLAGS);
    return {
      fillId: String(this.ints.get(k, T_FILL)),
      tradeId: String(this.ints.get(k, T_TRADE)),
      orderId: String(this.ints.get(k, T_ORDER)),
      symbol: spec.name,
      side: SIDES[(flags & SIDE_BIT) === 0 ? 0 : 1],
      roleType: (flags & ROLE_BIT) === 0 ? 'maker' : 'taker',
      price: spec.tick.fromUnits(this.ints.get(k, T_TICKS)),
      quantity: spec.step.fromUnits(this.ints.get(k, T_STEPS)),
      tradeValue: formatUnits(this.money.get(k, T_VALUE)),
      handlingFee: formatUnits(this.money.get(k, T_FEE)),
      realizedPnl: formatUnits(this.money.get(k, T_REALIZED)),
      positionSide: POSITION_SIDES[flags >>> POSITION_SHIFT],
      createdAt: this.times.get(k, 0),
    };
  }

}
