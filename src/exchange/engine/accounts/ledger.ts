/**
 * The ledger: accounts, deposits and withdrawals, every wallet movement with its account-change
 * record, and the margin frozen by open orders.
 */
import { Dec } from '../../../core/decimal';
import { NumberList } from '../../../core/columns';
import { IdMap } from '../../../core/id-map';
import { ChurnMap } from '../../../core/churn-map';
import type { ChangeType, PositionMode } from '../../../core/enums';
import { ErrorCodes } from '../../../core/errors';
import { formatUnits, unitsOfDec } from '../../../core/money-units';
import { MONEY_DP } from '../../../core/values';
import type { AccountChangeRecord } from '../../../protocol/records';
import type { EngineAccount, EngineOrder } from '../model';
import { moneyDown } from '../records';
import { frozenUnits } from './margin-memo';
import { INSURANCE_ACCOUNT, fail, pageOf, type EngineState } from '../state';
import { ChangeLog, TradeLog } from './history';
import { ClosedPositions } from '../positions/closed-positions';
import type { Margin } from './margin';

export class Ledger {
  constructor(
    private readonly s: EngineState,
    private readonly margin: Margin,
  ) {}

  newAccount(userId: string, positionMode: PositionMode): EngineAccount {
    const a: EngineAccount = {
      userId,
      seq: this.s.accountSeq++,
      positionMode,
      wallet: 0n,
      frozen: 0n,
      settings: new Map(),
      positions: new Map(),
      openOrders: new IdMap(),
      openCountBySymbol: new Map(),
      reducingOpen: new Set(),
      liveClientIds: new ChurnMap(),
      lastClientIds: new Map(),
      orders: new NumberList(),
      conditions: [],
      strategies: [],
      trades: new TradeLog(),
      changes: new ChangeLog(),
      positionHistory: new ClosedPositions(),
      transferIn: 0n,
    };
    this.s.accounts.set(userId, a);
    return a;
  }

  /** Creates an account with an opening deposit (admin). */
  createAccount(userId: string, balance: string, positionMode: PositionMode): void {
    if (this.s.accounts.has(userId)) fail(ErrorCodes.INVALID_PARAMETER, `user '${userId}' already exists`, 'userId');
    const amount = parseMoney(balance, 'balance');
    const a = this.newAccount(userId, positionMode);
    if (!amount.isZero()) this.depositInto(a, amount);
  }

  /** Adds (or with a negative amount, withdraws) funds (admin). */
  deposit(userId: string, amount: string): void {
    const a = this.s.acct(userId);
    const d = parseMoney(amount, 'amount', true);
    if (d.isNegative() && this.margin.availableOf(a).lt(d.abs())) fail(ErrorCodes.INSUFFICIENT_MARGIN, `cannot withdraw ${amount}: available balance is ${moneyDown(this.margin.availableOf(a))}`, 'amount');
    this.depositInto(a, d);
  }

  private depositInto(a: EngineAccount, amount: Dec): void {
    const units = unitsOfDec(amount);
    this.s.deposits += units;
    a.transferIn += units;
    this.changeWallet(a, units, 'DEPOSIT', '', '');
  }

  /** Moves the wallet by `amount` money units and writes the account change log entry (`referenceId`: an order id, or text). */
  changeWallet(a: EngineAccount, amount: bigint, changeType: ChangeType, referenceId: number | string, symbol: string): void {
    if (amount === 0n) return;
    a.wallet += amount;
    if (a.userId === INSURANCE_ACCOUNT) return;
    a.changes.push(amount, a.wallet, a.frozen, changeType, referenceId, this.s.clock.now(), symbol);
    this.s.touch(a, changeType, symbol);
  }

  /** Freezes the order's margin for `steps` still open (nothing to do for an order that freezes none). */
  freeze(o: EngineOrder, steps: number): void {
    if (o.frozenPerStep.m === 0n && o.frozen === 0n) return;
    this.setFrozen(o, frozenUnits(o.frozenPerStep, steps));
  }

  /**
   * Sets an order's frozen margin (money units, already rounded up to the money scale) and moves
   * the account's total by the difference, so it stays exactly the sum over its orders.
   */
  setFrozen(o: EngineOrder, units: bigint): void {
    if (o.frozen === units) return;
    const acct = this.s.owner(o.userId);
    acct.frozen += units - o.frozen;
    o.frozen = units;
  }

  /**
   * Figures for the conservation invariants: across all accounts (the insurance fund included)
   * the sum of (wallet - signed cost basis) plus fees collected equals deposits, and positions
   * sum to zero per symbol.
   */
  audit(): EngineAudit {
    const s = this.s;
    let total = 0n;
    const net: Record<string, number> = {};
    for (const st of s.symbols.values()) net[st.spec.name] = 0;
    const frozenMismatch: string[] = [];
    for (const a of s.accounts.values()) {
      total += a.wallet;
      let frozen = 0n;
      for (const o of a.openOrders.values()) frozen += o.frozen;
      if (frozen !== a.frozen) frozenMismatch.push(a.userId);
      for (const p of a.positions.values()) {
        total -= p.cost;
        net[p.symbol.name] += p.qty;
      }
    }
    return {
      deposits: formatUnits(s.deposits),
      fees: formatUnits(s.feePool),
      walletsMinusCost: formatUnits(total),
      insurance: formatUnits(s.owner(INSURANCE_ACCOUNT).wallet),
      netQtyBySymbol: net,
      frozenMismatch,
    };
  }

  accountChanges(userId: string, f: { assetType?: string; changeType?: string; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: AccountChangeRecord[]; total: number } {
    const acct = this.s.acct(userId);
    const c = acct.changes;
    return pageOf(
      c,
      (i) =>
        (f.assetType === undefined || c.assetType(i) === f.assetType) &&
        (f.changeType === undefined || c.changeType(i) === f.changeType) &&
        (f.startTime === undefined || c.createdAt(i) >= f.startTime) &&
        (f.endTime === undefined || c.createdAt(i) <= f.endTime),
      f.page,
      f.pageSize,
    );
  }
}

/** Figures for the conservation invariants (tests and admin). */
export interface EngineAudit {
  deposits: string;
  fees: string;
  walletsMinusCost: string;
  insurance: string;
  netQtyBySymbol: Record<string, number>;
  frozenMismatch: string[];
}

/** A money amount of a request: plain decimal, at most MONEY_DP places. */
export function parseMoney(s: string, field: string, allowNegative = false): Dec {
  if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(s)) fail(ErrorCodes.INVALID_PARAMETER, `${field} must be a plain decimal string, got "${s}"`, field);
  const d = new Dec(s);
  if (!allowNegative && d.isNegative()) fail(ErrorCodes.INVALID_PARAMETER, `${field} must not be negative, got "${s}"`, field);
  if (d.decimalPlaces() > MONEY_DP) fail(ErrorCodes.INVALID_PARAMETER, `${field} must have at most ${MONEY_DP} decimal places, got "${s}"`, field);
  return d;
}
