/**
 * The exchange engine: a pure, deterministic state machine. Commands, market ticks and the
 * injected clock go in; events come out through `drain()`. No I/O, no wall clock, no randomness:
 * the same commands at the same clock readings give the same events, byte for byte.
 *
 * Prices are integer ticks and quantities integer steps inside; money is exact Dec. Validation
 * happens before any mutation, so a command that throws a VenueError has changed nothing.
 */
import type { Clock } from '../../core/clock';
import { Dec, formatDec } from '../../core/decimal';
import {
  FINAL_ORDER_STATUSES,
  type ChangeType,
  type ConditionStatus,
  type DrivenOn,
  type ExecutionType,
  type MarginMode,
  type OrderStatus,
  type PositionSide,
  type Side,
  type SubOrderStatus,
  marginModeFromCode,
  marginModeToCode,
} from '../../core/enums';
import { ErrorCodes, VenueError, type ErrorCode } from '../../core/errors';
import { MONEY_DP } from '../../core/values';
import type {
  AccountChangeRecord,
  ConditionOrderRecord,
  OrderRecord,
  PositionHistoryRecord,
  PositionRecord,
  PositionSettingsRecord,
  StrategyOrderRecord,
  TradeRecord,
  UserAssetRecord,
} from '../../protocol/records';
import type { BatchResult, BatchResultItem } from '../../protocol/rest/common';
import { ASK, BID, OrderBook, type BookSide } from './book/order-book';
import type { EngineEvent, FillInfo } from './events';
import type {
  CancelAllInput,
  CreateAccountInput,
  MoveOrderInput,
  OrderRef,
  PlaceConditionInput,
  PlaceOrderInput,
  PlaceStrategyInput,
  SetLeverageInput,
  SetMarginModeInput,
  StrategySubOrderInput,
} from './inputs';
import type {
  EngineAccount,
  EngineCondition,
  EngineOrder,
  EnginePosition,
  EngineStrategy,
  EngineSubOrder,
  MarketState,
} from './model';
import * as pm from './position-math';
import { conditionRecord, derivedPrice, money, orderRecord, strategyRecord } from './records';
import { normalizeStrategy, type Driver } from './strategy-structure';
import { exportEngineState, importEngineState, type EngineSnapshot } from './snapshot';
import { SymbolSpec, type SymbolConfig } from './symbols';
import { stopFires, trailingStep } from './triggers';

const ZERO = new Dec(0);
const DEFAULT_LEVERAGE = 20;
/** Most open normal orders a user may have on one symbol (30010). */
export const MAX_OPEN_ORDERS_PER_SYMBOL = 200;
/** Most waiting condition orders a user may have on one symbol (30010). */
export const MAX_OPEN_CONDITIONS_PER_SYMBOL = 100;
/** priceProtect: a trigger this far (fraction) from mark at placement is refused with 30013. */
const PRICE_PROTECT_PLACE = new Dec('0.1');
/** priceProtect: a CONTRACT_PRICE trigger is held while last and mark differ by more than this. */
const PRICE_PROTECT_TRIGGER = new Dec('0.05');
/** Trailing callback rate bounds, percent. */
const CALLBACK_MIN = new Dec('0.1');
const CALLBACK_MAX = new Dec('10');
/** Id of the system account that takes over what liquidation orders could not close in the book. */
export const INSURANCE_ACCOUNT = 'insurance';

export interface EngineOptions {
  symbols: readonly SymbolConfig[];
  clock: Clock;
  /** Initial balance of the insurance fund. */
  insuranceFund?: string;
}

interface SymbolState {
  spec: SymbolSpec;
  book: OrderBook;
  market: MarketState;
  /** Waiting condition orders in creation order. */
  conditions: EngineCondition[];
  /** Accounts holding a position on this symbol, for funding and liquidation sweeps. */
  holders: Set<EngineAccount>;
  /** `market.fundingRate` formatted, and the Dec it was formatted from (every mark event carries it). */
  rateText?: { of: Dec; text: string };
}

/** The parts of an order request resolved against the symbol, the book and the account. */
interface PreparedOrder {
  acct: EngineAccount;
  st: SymbolState;
  input: PlaceOrderInput;
  positionSide: PositionSide;
  price: number;
  qty: number;
  reducing: boolean;
  frozenPerStep: Dec;
  clientOrderId: string;
}

interface PreparedCondition {
  acct: EngineAccount;
  st: SymbolState;
  input: PlaceConditionInput;
  positionSide: PositionSide;
  qty: number;
  price: number;
  stopPrice: number;
  activatePrice: number;
  callbackRate: string;
  clientOrderId: string;
}

function fail(code: ErrorCode, message: string, field?: string): never {
  throw new VenueError(code, message, field);
}

/**
 * Relative tolerance of the liquidation screen's float figures: their rounding error is about
 * 1e-15 of the magnitudes summed, so anything within 1e-9 of them is left to the exact check.
 */
const SCREEN_TOLERANCE = 1e-9;

interface FloatTier {
  cap: number;
  mmr: number;
  amount: number;
}

const isFinal = (s: OrderStatus): boolean => FINAL_ORDER_STATUSES.has(s);
const conditionFinal = (s: ConditionStatus): boolean => s !== 'NEW';
const posKey = (symbol: string, side: PositionSide): string => `${symbol}:${side}`;

export class Engine {
  private readonly clock: Clock;
  private readonly symbols = new Map<string, SymbolState>();
  private readonly accounts = new Map<string, EngineAccount>();
  private readonly ordersById = new Map<number, EngineOrder>();
  private readonly conditionsById = new Map<number, EngineCondition>();
  private readonly strategiesById = new Map<number, EngineStrategy>();
  private nextOrderId = 1;
  private nextConditionId = 1;
  private nextStrategyId = 1;
  private nextTradeId = 1;
  private nextFillId = 1;
  private accountSeq = 0;
  private out: EngineEvent[] = [];
  /** Follow-up work (triggers, strategy placements) run after the current operation, in order. */
  private readonly work: Array<() => void> = [];
  private nesting = 0;
  /** Users whose balances or positions changed in this command: symbol set and first reason. */
  private readonly touched = new Map<EngineAccount, { reason: EngineAccountReason; symbols: Set<string> }>();
  /** Users whose private events are not emitted (muteEvents). */
  private readonly muted = new Set<string>();
  /** setPrivateEventFilter: undefined means every user's private events are wanted. */
  private privateFilter: ((userId: string) => boolean) | undefined;
  /** Users whose final orders are dropped (forgetFinalOrders). */
  private readonly forgetful = new Set<string>();
  /** Users whose orders skip the margin check and freeze nothing (exemptFromMargin). */
  private readonly marginExempt = new Set<string>();
  /** Fees collected by the venue. */
  private feePool = ZERO;
  /** Sum of all deposits, for the conservation invariant. */
  private deposits = ZERO;
  /** Float values of Decs for the liquidation screen, by identity. */
  private readonly approxCache = new WeakMap<Dec, number>();
  private readonly floatTiersBySpec = new Map<SymbolSpec, FloatTier[]>();

  constructor(opts: EngineOptions) {
    this.clock = opts.clock;
    for (const cfg of opts.symbols) {
      const spec = new SymbolSpec(cfg);
      const mark = spec.tick.toUnits(cfg.markPrice);
      if (mark === undefined || mark <= 0) throw new RangeError(`${cfg.symbol}: markPrice ${cfg.markPrice} must be a positive multiple of tickSize`);
      const interval = cfg.fundingIntervalMs;
      const now = this.clock.now();
      this.symbols.set(spec.name, {
        spec,
        book: new OrderBook(),
        market: {
          mark,
          index: mark,
          last: 0,
          fundingRate: new Dec(cfg.fundingRate),
          nextFundingTime: (Math.floor(now / interval) + 1) * interval,
        },
        conditions: [],
        holders: new Set(),
      });
    }
    const insurance = this.newAccount(INSURANCE_ACCOUNT, 'ONE_WAY');
    const fund = new Dec(opts.insuranceFund ?? '0');
    insurance.wallet = fund;
    this.deposits = fund;
  }

  // ---------------------------------------------------------------- events and command framing

  /** Events emitted since the last drain, in order. */
  drain(): EngineEvent[] {
    const e = this.out;
    this.out = [];
    return e;
  }

  /** Events waiting for `drain()`: lets a pump skip a quiet step without allocating. */
  get pendingEvents(): number {
    return this.out.length;
  }

  /** Runs a command: follow-up work and account updates happen when the outermost one ends. */
  private run<T>(fn: () => T): T {
    this.nesting++;
    let result: T;
    try {
      result = fn();
    } finally {
      this.nesting--;
    }
    if (this.nesting === 0) {
      this.nesting++;
      try {
        for (let guard = 0; this.work.length > 0; guard++) {
          if (guard > 100000) throw new Error('engine follow-up work did not settle');
          const job = this.work.shift() as () => void;
          job();
        }
        this.flushAccountUpdates();
      } finally {
        this.nesting--;
      }
    }
    return result;
  }

  /**
   * Stops the private events (order, condition, strategy order, account) of a user whom nobody
   * listens to, such as a backtest's tape accounts: building their records (an account update
   * formats the asset and every position) is most of the cost of a tape order. The user's state,
   * queries and public trades are unaffected.
   */
  muteEvents(userId: string): void {
    this.muted.add(userId);
  }

  /**
   * Lets the owner say whose account, condition and strategy-order events are wanted, e.g. the
   * local exchange: only users with a private stream open (a stream carries live events only, so
   * a user who connects later has missed nothing it would have been sent). Those events of other
   * users are not built; an account update (asset and every position of the symbol, formatted)
   * is the dearest part of an order. Order events always come out: they also tell market data
   * that a book changed.
   */
  setPrivateEventFilter(wanted: (userId: string) => boolean): void {
    this.privateFilter = wanted;
  }

  private wantsPrivate(userId: string): boolean {
    return !this.muted.has(userId) && (this.privateFilter === undefined || this.privateFilter(userId));
  }

  /**
   * Orders of this user are neither checked against nor freeze margin: for a replay's tape
   * accounts, whose balance stands for the rest of the market (the check could never fail, and
   * working it out is most of what a tape quote costs), and it is never liquidated. Fills still
   * settle into its wallet and positions, and funding, as for anyone.
   */
  exemptFromMargin(userId: string): void {
    this.marginExempt.add(userId);
  }

  /**
   * The user's orders are dropped from the engine once final: no order history, and queries for
   * them answer ORDER_NOT_FOUND. For accounts whose history nobody reads, such as a replay's tape,
   * which places an order or two per recorded trade or depth line: without this the engine's
   * memory grows with the length of the recording. Trades and account changes are kept.
   */
  forgetFinalOrders(userId: string): void {
    this.forgetful.add(userId);
  }

  private touch(acct: EngineAccount, reason: EngineAccountReason, symbol: string): void {
    if (acct.userId === INSURANCE_ACCOUNT || !this.wantsPrivate(acct.userId)) return;
    let t = this.touched.get(acct);
    if (!t) {
      t = { reason, symbols: new Set() };
      this.touched.set(acct, t);
    }
    t.symbols.add(symbol);
  }

  private flushAccountUpdates(): void {
    if (this.touched.size === 0) return;
    const now = this.clock.now();
    for (const [acct, t] of this.touched) {
      const positions: PositionRecord[] = [];
      for (const sym of t.symbols) {
        if (sym === '') continue;
        for (const p of this.positionRecordsOf(acct, sym, true)) positions.push(p);
      }
      this.out.push({ kind: 'account', userId: acct.userId, time: now, reason: t.reason, asset: this.assetOf(acct), positions });
    }
    this.touched.clear();
  }

  private emitOrder(o: EngineOrder, executionType: ExecutionType, fill?: FillInfo): void {
    // The insurance fund is the venue's own book-keeping, not a user with a stream.
    if (o.userId === INSURANCE_ACCOUNT || this.muted.has(o.userId)) return;
    const ev: EngineEvent = { kind: 'order', userId: o.userId, time: this.clock.now(), executionType, order: orderRecord(o) };
    if (fill) ev.fill = fill;
    this.out.push(ev);
  }

  private emitCondition(c: EngineCondition): void {
    if (!this.wantsPrivate(c.userId)) return;
    this.out.push({ kind: 'condition', userId: c.userId, time: this.clock.now(), record: conditionRecord(c) });
  }

  private emitStrategy(s: EngineStrategy): void {
    if (!this.wantsPrivate(s.userId)) return;
    this.out.push({ kind: 'strategy', userId: s.userId, time: this.clock.now(), record: strategyRecord(s, (id) => this.ordersById.get(id)) });
  }

  // ---------------------------------------------------------------- lookups

  symbolSpecs(): SymbolSpec[] {
    return [...this.symbols.values()].map((s) => s.spec);
  }

  private sym(name: string, field = 'symbol'): SymbolState {
    const st = this.symbols.get(name);
    if (!st) fail(ErrorCodes.UNKNOWN_SYMBOL, `unknown symbol '${name}'; known symbols: ${[...this.symbols.keys()].join(', ')}`, field);
    return st;
  }

  private acct(userId: string): EngineAccount {
    const a = this.accounts.get(userId);
    if (!a || userId === INSURANCE_ACCOUNT) fail(ErrorCodes.NOT_AUTHENTICATED, `no account for user '${userId}'`);
    return a;
  }

  hasAccount(userId: string): boolean {
    return userId !== INSURANCE_ACCOUNT && this.accounts.has(userId);
  }

  private settingsOf(acct: EngineAccount, symbol: string): { leverage: number; marginMode: MarginMode } {
    let s = acct.settings.get(symbol);
    if (!s) {
      s = { leverage: Math.min(DEFAULT_LEVERAGE, this.sym(symbol).spec.maxLeverage), marginMode: 'CROSS' };
      acct.settings.set(symbol, s);
    }
    return s;
  }

  private markDec(st: SymbolState): Dec {
    return st.spec.tick.decOf(st.market.mark);
  }

  // ---------------------------------------------------------------- accounts and money

  private newAccount(userId: string, positionMode: 'ONE_WAY' | 'HEDGE'): EngineAccount {
    const a: EngineAccount = {
      userId,
      seq: this.accountSeq++,
      positionMode,
      wallet: ZERO,
      frozen: ZERO,
      settings: new Map(),
      positions: new Map(),
      openOrders: new Map(),
      openCountBySymbol: new Map(),
      reducingOpen: new Set(),
      liveClientIds: new Map(),
      lastClientIds: new Map(),
      orders: [],
      conditions: [],
      strategies: [],
      trades: [],
      changes: [],
      positionHistory: [],
      transferIn: ZERO,
    };
    this.accounts.set(userId, a);
    return a;
  }

  /** Creates an account with an opening deposit (admin). */
  createAccount(input: CreateAccountInput): void {
    this.run(() => {
      if (this.accounts.has(input.userId)) fail(ErrorCodes.INVALID_PARAMETER, `user '${input.userId}' already exists`, 'userId');
      const amount = this.parseMoney(input.balance, 'balance');
      const a = this.newAccount(input.userId, input.positionMode ?? 'ONE_WAY');
      if (!amount.isZero()) this.depositInto(a, amount);
    });
  }

  /** Adds (or with a negative amount, withdraws) funds (admin). */
  deposit(userId: string, amount: string): void {
    this.run(() => {
      const a = this.acct(userId);
      const d = this.parseMoney(amount, 'amount', true);
      if (d.isNegative() && this.availableOf(a).lt(d.abs())) fail(ErrorCodes.INSUFFICIENT_MARGIN, `cannot withdraw ${amount}: available balance is ${money(this.availableOf(a))}`, 'amount');
      this.depositInto(a, d);
    });
  }

  private parseMoney(s: string, field: string, allowNegative = false): Dec {
    if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(s)) fail(ErrorCodes.INVALID_PARAMETER, `${field} must be a plain decimal string, got "${s}"`, field);
    const d = new Dec(s);
    if (!allowNegative && d.isNegative()) fail(ErrorCodes.INVALID_PARAMETER, `${field} must not be negative, got "${s}"`, field);
    if (d.decimalPlaces() > MONEY_DP) fail(ErrorCodes.INVALID_PARAMETER, `${field} must have at most ${MONEY_DP} decimal places, got "${s}"`, field);
    return d;
  }

  private depositInto(a: EngineAccount, amount: Dec): void {
    this.deposits = this.deposits.plus(amount);
    a.transferIn = a.transferIn.plus(amount);
    this.changeWallet(a, amount, 'DEPOSIT', '', '');
  }

  /** Moves the wallet and writes the account change log entry. */
  private changeWallet(a: EngineAccount, amount: Dec, changeType: ChangeType, referenceId: string, symbol: string): void {
    if (amount.isZero()) return;
    const before = a.wallet;
    a.wallet = before.plus(amount);
    if (a.userId === INSURANCE_ACCOUNT) return;
    const frozen = money(a.frozen);
    const rec: AccountChangeRecord = {
      assetType: 'USDT',
      amount: formatDec(amount),
      walletBalanceBefore: formatDec(before),
      walletBalanceAfter: formatDec(a.wallet),
      frozenBalanceBefore: frozen,
      frozenBalanceAfter: frozen,
      changeType,
      referenceId,
      createdAt: this.clock.now(),
      symbol,
    };
    a.changes.push(rec);
    this.touch(a, changeType, symbol);
  }

  /** Freezes the order's margin for `steps` still open (nothing to do for an order that freezes none). */
  private freeze(o: EngineOrder, steps: number): void {
    if (o.frozenPerStep.isZero() && o.frozen.isZero()) return;
    this.setFrozen(o, o.frozenPerStep.times(steps));
  }

  /**
   * Sets an order's frozen margin, rounded up to the money scale so that the account's running
   * total stays exactly the sum over its orders (unrounded quotients would lose digits).
   */
  private setFrozen(o: EngineOrder, amount: Dec): void {
    if (o.frozen.isZero() && amount.isZero()) return;
    const frozen = amount.toDecimalPlaces(MONEY_DP, Dec.ROUND_UP);
    if (o.frozen.eq(frozen)) return;
    const acct = this.accounts.get(o.userId) as EngineAccount;
    acct.frozen = acct.frozen.minus(o.frozen).plus(frozen);
    o.frozen = frozen;
  }

  /** Unrealized PnL, initial and maintenance margin summed over an account's cross positions. */
  private crossFigures(a: EngineAccount): { upnl: Dec; im: Dec; mm: Dec; isolated: Dec } {
    let upnl = ZERO;
    let im = ZERO;
    let mm = ZERO;
    let isolated = ZERO;
    for (const p of a.positions.values()) {
      if (p.marginMode === 'ISOLATED') {
        isolated = isolated.plus(p.isolatedMargin);
        continue;
      }
      const st = this.symbols.get(p.symbol.name) as SymbolState;
      const q = p.symbol.step.decOf(p.qty);
      const mark = this.markDec(st);
      upnl = upnl.plus(pm.unrealizedPnl(q, p.cost, mark));
      im = im.plus(pm.initialMargin(p.cost, this.settingsOf(a, p.symbol.name).leverage));
      mm = mm.plus(pm.maintenanceMargin(p.symbol, q, mark));
    }
    return { upnl, im, mm, isolated };
  }

  /** What new orders may use: wallet + cross uPnL - cross IM - isolated margins - frozen. */
  private availableOf(a: EngineAccount): Dec {
    const f = this.crossFigures(a);
    return a.wallet.plus(f.upnl).minus(f.im).minus(f.isolated).minus(a.frozen);
  }

  assetOf(a: EngineAccount): UserAssetRecord {
    const f = this.crossFigures(a);
    let isoUpnl = ZERO;
    for (const p of a.positions.values()) {
      if (p.marginMode !== 'ISOLATED') continue;
      const st = this.symbols.get(p.symbol.name) as SymbolState;
      isoUpnl = isoUpnl.plus(pm.unrealizedPnl(p.symbol.step.decOf(p.qty), p.cost, this.markDec(st)));
    }
    return {
      userId: a.userId,
      assetType: 'USDT',
      walletBalance: money(a.wallet),
      frozenMargin: money(a.frozen),
      usedMargin: money(f.im.plus(f.isolated)),
      availableBalance: money(a.wallet.plus(f.upnl).minus(f.im).minus(f.isolated).minus(a.frozen)),
      unrealizedPnl: money(f.upnl.plus(isoUpnl)),
    };
  }

  // ---------------------------------------------------------------- positions

  private positionSideFor(acct: EngineAccount, given: PositionSide | undefined): PositionSide {
    const ps = given ?? 'BOTH';
    if (acct.positionMode === 'ONE_WAY' && ps !== 'BOTH') fail(ErrorCodes.POSITION_SIDE_MISMATCH, `positionSide ${ps} does not fit a one-way account: use BOTH`, 'positionSide');
    if (acct.positionMode === 'HEDGE' && ps === 'BOTH') fail(ErrorCodes.POSITION_SIDE_MISMATCH, 'positionSide BOTH does not fit a hedge-mode account: use LONG or SHORT', 'positionSide');
    return ps;
  }

  /** Signed position quantity (steps) of the position an order on `positionSide` acts on. */
  private positionQty(acct: EngineAccount, symbol: string, positionSide: PositionSide): number {
    return acct.positions.get(posKey(symbol, positionSide))?.qty ?? 0;
  }

  /** Whether an order of this side on this positionSide closes (reduces) its position by nature. */
  private static closesByNature(side: Side, positionSide: PositionSide): boolean {
    return (positionSide === 'LONG' && side === 'SELL') || (positionSide === 'SHORT' && side === 'BUY');
  }

  /** How many steps an order of `side` could close now on that position (0 if it would not reduce it). */
  private closable(acct: EngineAccount, symbol: string, side: Side, positionSide: PositionSide): number {
    const q = this.positionQty(acct, symbol, positionSide);
    if (side === 'BUY' && q < 0) return -q;
    if (side === 'SELL' && q > 0) return q;
    return 0;
  }

  private isReducing(o: { reduceOnly: boolean; closePosition: boolean; side: Side; positionSide: PositionSide }): boolean {
    return o.reduceOnly || o.closePosition || Engine.closesByNature(o.side, o.positionSide);
  }

  /**
   * Applies one fill to the position an order acts on. Returns the realized PnL. One-way positions
   * may flip through zero (the close part realizes, the rest opens); hedge positions never do.
   */
  private applyToPosition(acct: EngineAccount, o: EngineOrder, price: number, q: number, fee: Dec, liquidation: boolean): Dec {
    const st = this.symbols.get(o.symbol.name) as SymbolState;
    const spec = st.spec;
    const key = posKey(spec.name, o.positionSide);
    const settings = this.settingsOf(acct, spec.name);
    const px = spec.tick.decOf(price);
    const dq = o.side === 'BUY' ? q : -q;
    let pos = acct.positions.get(key);
    let realized = ZERO;
    let openSteps = q;
    let openFee = fee;
    if (pos && pos.qty !== 0 && Math.sign(pos.qty) !== Math.sign(dq)) {
      const absQ = Math.abs(pos.qty);
      const closeQ = Math.min(q, absQ);
      const full = closeQ === absQ;
      const share = (d: Dec): Dec => (full ? d : d.times(closeQ).div(absQ).toDecimalPlaces(MONEY_DP, Dec.ROUND_HALF_EVEN));
      const released = share(pos.cost);
      const closeNotional = px.times(spec.step.decOf(closeQ));
      realized = (dq > 0 ? closeNotional.negated() : closeNotional).minus(released);
      pos.cost = pos.cost.minus(released);
      pos.openFees = pos.openFees.minus(share(pos.openFees));
      pos.isolatedMargin = pos.isolatedMargin.minus(share(pos.isolatedMargin));
      pos.qty += dq > 0 ? closeQ : -closeQ;
      pos.closeQuote = pos.closeQuote.plus(closeNotional);
      pos.closeQty += closeQ;
      pos.realizedAccum = pos.realizedAccum.plus(realized);
      openSteps = q - closeQ;
      openFee = openSteps === 0 ? ZERO : fee.times(openSteps).div(q).toDecimalPlaces(MONEY_DP, Dec.ROUND_HALF_EVEN);
      pos.realizedAccum = pos.realizedAccum.minus(fee.minus(openFee));
      if (pos.qty === 0) {
        this.closePositionRecord(acct, pos, settings.leverage, liquidation ? 2 : 1);
        acct.positions.delete(key);
        if (![...acct.positions.values()].some((p) => p.symbol === spec)) st.holders.delete(acct);
        pos = undefined;
      }
    }
    if (openSteps > 0) {
      if (!pos) {
        pos = {
          symbol: spec,
          positionSide: o.positionSide,
          qty: 0,
          cost: ZERO,
          openFees: ZERO,
          isolatedMargin: ZERO,
          marginMode: settings.marginMode,
          fundingAccum: ZERO,
          realizedAccum: ZERO,
          maxAbsQty: 0,
          closeQuote: ZERO,
          closeQty: 0,
          openQuote: ZERO,
          openQty: 0,
          lastDirection: 0,
          openedAt: this.clock.now(),
        };
        acct.positions.set(key, pos);
        st.holders.add(acct);
      }
      const openNotional = px.times(spec.step.decOf(openSteps));
      pos.qty += dq > 0 ? openSteps : -openSteps;
      pos.lastDirection = Math.sign(pos.qty);
      pos.cost = pos.cost.plus(dq > 0 ? openNotional : openNotional.negated());
      pos.openFees = pos.openFees.plus(openFee);
      pos.realizedAccum = pos.realizedAccum.minus(openFee);
      if (pos.marginMode === 'ISOLATED') {
        pos.isolatedMargin = pos.isolatedMargin.plus(openNotional.div(settings.leverage).toDecimalPlaces(MONEY_DP, Dec.ROUND_UP));
      }
      pos.maxAbsQty = Math.max(pos.maxAbsQty, Math.abs(pos.qty));
      pos.openQuote = pos.openQuote.plus(openNotional);
      pos.openQty += openSteps;
    }
    return realized;
  }

  private closePositionRecord(acct: EngineAccount, pos: EnginePosition, leverage: number, triggerMode: number): void {
    const spec = pos.symbol;
    const closePrice = pos.closeQty > 0 ? pos.closeQuote.div(spec.step.decOf(pos.closeQty)) : ZERO;
    const avgEntry = pos.openQty > 0 ? pos.openQuote.div(spec.step.decOf(pos.openQty)) : ZERO;
    const im = avgEntry.times(spec.step.decOf(pos.maxAbsQty)).div(leverage);
    const pnl = pos.realizedAccum.plus(pos.fundingAccum);
    acct.positionHistory.push({ long: pos.lastDirection > 0, record: {
      symbol: spec.name,
      positionSide: pos.positionSide,
      leverage,
      maxQuantity: spec.step.fromUnits(pos.maxAbsQty),
      entryPrice: derivedPrice(avgEntry, spec.tick.scale),
      closePrice: derivedPrice(closePrice, spec.tick.scale),
      pnl: money(pnl),
      roe: im.isZero() ? '0' : formatDec(pnl.div(im), 8),
      marginMode: pos.marginMode,
      triggerMode,
      fundingFeeAccum: money(pos.fundingAccum),
      openedAt: pos.openedAt,
      closedAt: this.clock.now(),
    } });
  }

  positionRecordsOf(acct: EngineAccount, symbol: string | undefined, includeFlat = false): PositionRecord[] {
    const out: PositionRecord[] = [];
    for (const st of this.symbols.values()) {
      if (symbol !== undefined && st.spec.name !== symbol) continue;
      const sides: PositionSide[] = acct.positionMode === 'HEDGE' ? ['LONG', 'SHORT'] : ['BOTH'];
      for (const side of sides) {
        const p = acct.positions.get(posKey(st.spec.name, side));
        if (p) out.push(this.positionRecord(acct, st, p));
        else if (includeFlat) out.push(this.flatPositionRecord(acct, st, side));
      }
    }
    return out;
  }

  private flatPositionRecord(acct: EngineAccount, st: SymbolState, side: PositionSide): PositionRecord {
    const s = this.settingsOf(acct, st.spec.name);
    return {
      symbol: st.spec.name,
      marginMode: s.marginMode,
      positionSide: side,
      leverage: s.leverage,
      quantity: '0',
      entryPrice: '0',
      breakEvenPrice: '0',
      liqPrice: '0',
      marginRatio: '0',
      unrealizedPnl: '0',
      roe: '0',
      nextFundingFee: '0',
      fundingFeeAccum: '0',
      tpPrice: '0',
      slPrice: '0',
      positionMargin: '0',
      markPrice: st.spec.tick.fromUnits(st.market.mark),
    };
  }

  private positionRecord(acct: EngineAccount, st: SymbolState, p: EnginePosition): PositionRecord {
    const spec = st.spec;
    const s = this.settingsOf(acct, spec.name);
    const q = spec.step.decOf(p.qty);
    const mark = this.markDec(st);
    const upnl = pm.unrealizedPnl(q, p.cost, mark);
    const im = pm.initialMargin(p.cost, s.leverage);
    const mm = pm.maintenanceMargin(spec, q, mark);
    let margin: Dec;
    let ratio: Dec;
    if (p.marginMode === 'ISOLATED') {
      margin = p.isolatedMargin;
      const eq = p.isolatedMargin.plus(upnl);
      ratio = eq.lte(0) ? new Dec(1) : mm.div(eq);
    } else {
      const f = this.crossFigures(acct);
      const ownMm = mm;
      const crossEquity = acct.wallet.minus(f.isolated).plus(f.upnl);
      // Equity left for this position if the other cross positions stay where they are.
      margin = crossEquity.minus(upnl).minus(f.mm.minus(ownMm));
      ratio = crossEquity.lte(0) ? new Dec(1) : f.mm.div(crossEquity);
    }
    const liq = pm.liquidationPrice(spec, q, p.cost, margin, mark);
    const tpSl = this.tpSlOf(acct, spec.name, p);
    const quantity = acct.positionMode === 'HEDGE' ? spec.step.fromUnits(Math.abs(p.qty)) : spec.step.fromUnits(p.qty);
    return {
      symbol: spec.name,
      marginMode: p.marginMode,
      positionSide: p.positionSide,
      leverage: s.leverage,
      quantity,
      entryPrice: derivedPrice(pm.entryPrice(q, p.cost), spec.tick.scale),
      breakEvenPrice: derivedPrice(pm.breakEvenPrice(q, p.cost, p.openFees, spec.takerFee), spec.tick.scale),
      liqPrice: liq.isZero() ? '0' : spec.tick.fromUnits(p.qty > 0 ? spec.tick.unitsOfDec(liq, 'up') : spec.tick.unitsOfDec(liq, 'down')),
      marginRatio: formatDec(ratio, 8),
      unrealizedPnl: money(upnl),
      roe: formatDec(pm.roe(upnl, im), 8),
      nextFundingFee: money(pm.fundingPayment(q, mark, st.market.fundingRate).negated()),
      fundingFeeAccum: money(p.fundingAccum),
      tpPrice: tpSl.tp,
      slPrice: tpSl.sl,
      positionMargin: money(p.marginMode === 'ISOLATED' ? p.isolatedMargin : im),
      markPrice: spec.tick.fromUnits(st.market.mark),
    };
  }

  /** Take-profit and stop-loss prices of the waiting condition orders that close this position. */
  private tpSlOf(acct: EngineAccount, symbol: string, p: EnginePosition): { tp: string; sl: string } {
    let tp = '0';
    let sl = '0';
    const st = this.symbols.get(symbol) as SymbolState;
    const closingSide: Side = p.qty > 0 ? 'SELL' : 'BUY';
    for (const c of st.conditions) {
      if (c.userId !== acct.userId || c.positionSide !== p.positionSide || c.side !== closingSide) continue;
      if (!(c.reduceOnly || c.closePosition || Engine.closesByNature(c.side, c.positionSide))) continue;
      const price = st.spec.tick.fromUnits(c.stopPrice);
      if ((c.type === 'TAKE_PROFIT_MARKET' || c.type === 'TAKE_PROFIT_LIMIT') && tp === '0') tp = price;
      if ((c.type === 'STOP_MARKET' || c.type === 'STOP_LIMIT') && sl === '0') sl = price;
    }
    return { tp, sl };
  }

  // ---------------------------------------------------------------- normal orders

  /** Resolves and checks an order request; changes nothing. Throws VenueError. */
  private prepareOrder(acct: EngineAccount, input: PlaceOrderInput): PreparedOrder {
    const st = this.sym(input.symbol);
    const spec = st.spec;
    const positionSide = this.positionSideFor(acct, input.positionSide);
    const tif = input.timeInForce ?? 'GTC';
    const makerOnly = input.makerOnly ?? false;
    const priceType = input.priceType ?? 0;
    const closePosition = input.closePosition ?? false;
    if (input.clientOrderId !== undefined && acct.liveClientIds.has(input.clientOrderId)) {
      fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `clientOrderId '${input.clientOrderId}' is already used by open order ${acct.liveClientIds.get(input.clientOrderId)}`, 'clientOrderId');
    }
    if (makerOnly && (input.type !== 'LIMIT' || tif !== 'GTC')) fail(ErrorCodes.INVALID_PARAMETER, 'makerOnly applies only to LIMIT orders with timeInForce GTC', 'makerOnly');
    let price = 0;
    if (input.type === 'LIMIT') {
      if (priceType === 0) {
        if (input.price === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'price is required for LIMIT orders with priceType 0', 'price');
        price = this.ticksOf(spec, input.price, 'price');
      } else {
        price = this.bboPrice(st, input.side, priceType);
      }
    } else {
      if (input.price !== undefined) fail(ErrorCodes.INVALID_PARAMETER, 'price must not be given for MARKET orders', 'price');
      if (priceType !== 0) fail(ErrorCodes.INVALID_PARAMETER, 'priceType applies only to LIMIT orders', 'priceType');
    }
    const reducing = this.isReducing({ reduceOnly: input.reduceOnly ?? false, closePosition, side: input.side, positionSide });
    const closable = this.closable(acct, spec.name, input.side, positionSide);
    let qty: number;
    if (closePosition) {
      if (input.quantity !== undefined) fail(ErrorCodes.INVALID_PARAMETER, 'quantity must not be given with closePosition=true: the whole position is closed', 'quantity');
      if (closable === 0) fail(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE, `closePosition: there is no ${positionSide} position on ${spec.name} that a ${input.side} order would close`, 'closePosition');
      qty = closable;
    } else {
      if (input.quantity === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'quantity is required unless closePosition is true', 'quantity');
      qty = this.stepsOf(spec, input.quantity, 'quantity');
      if (reducing) {
        if (closable === 0) fail(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE, `reduce-only ${input.side} order would not reduce the ${positionSide} position on ${spec.name} (position is ${spec.step.fromUnits(this.positionQty(acct, spec.name, positionSide))})`, 'reduceOnly');
        qty = Math.min(qty, closable);
      }
    }
    const refTicks = price !== 0 ? price : this.referencePrice(st, input.side);
    // In integer (tick x step) units while the product is exact; decimals beyond that.
    const units = refTicks * qty;
    const below = Number.isSafeInteger(units) ? units < spec.minNotionalUnits : spec.tick.decOf(refTicks).times(spec.step.decOf(qty)).lt(spec.minNotional);
    if (!reducing && below) {
      const notional = spec.tick.decOf(refTicks).times(spec.step.decOf(qty));
      fail(ErrorCodes.BELOW_MIN_NOTIONAL, `order notional ${formatDec(notional)} is below the minimum notional ${formatDec(spec.minNotional)} of ${spec.name}`, 'quantity');
    }
    const openCount = acct.openCountBySymbol.get(spec.name) ?? 0;
    if (openCount >= MAX_OPEN_ORDERS_PER_SYMBOL) fail(ErrorCodes.TOO_MANY_OPEN_ORDERS, `at most ${MAX_OPEN_ORDERS_PER_SYMBOL} open orders per symbol; ${spec.name} has ${openCount}`);
    let frozenPerStep = ZERO;
    if (!reducing && !this.marginExempt.has(acct.userId)) {
      const opening = acct.positionMode === 'ONE_WAY' ? Math.max(0, qty - closable) : qty;
      if (opening > 0) {
        const leverage = this.settingsOf(acct, spec.name).leverage;
        const required = spec.tick.decOf(refTicks).times(spec.step.decOf(opening)).div(leverage);
        const available = this.availableOf(acct);
        if (available.lt(required)) {
          fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin: the order needs ${money(required)} USDT at ${leverage}x, available is ${money(available)} USDT`);
        }
        frozenPerStep = required.div(qty);
      }
    }
    return {
      acct,
      st,
      input,
      positionSide,
      price,
      qty,
      reducing,
      frozenPerStep,
      clientOrderId: input.clientOrderId ?? '',
    };
  }

  private ticksOf(spec: SymbolSpec, s: string, field: string): number {
    const t = spec.tick.toUnits(s);
    if (t === undefined) fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is not a multiple of the tick size ${spec.tick.size} of ${spec.name}`, field);
    if (t <= 0) fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} must be greater than zero, got ${s}`, field);
    return t;
  }

  private stepsOf(spec: SymbolSpec, s: string, field: string): number {
    const q = spec.step.toUnits(s);
    if (q === undefined) fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is not a multiple of the step size ${spec.step.size} of ${spec.name}`, field);
    if (q < spec.minQtySteps || q > spec.maxQtySteps) {
      fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `${field} ${s} is outside ${spec.step.fromUnits(spec.minQtySteps)}..${spec.step.fromUnits(spec.maxQtySteps)} for ${spec.name}`, field);
    }
    return q;
  }

  /** Price of a BBO priceType (1 opponent 1, 2 opponent 5, 3 same side 1, 4 same side 5). */
  private bboPrice(st: SymbolState, side: Side, priceType: number): number {
    const own: BookSide = side === 'BUY' ? BID : ASK;
    const bookSide: BookSide = priceType <= 2 ? (own === BID ? ASK : BID) : own;
    const depth = priceType === 1 || priceType === 3 ? 1 : 5;
    const levels = st.book.levelCount(bookSide);
    if (levels === 0) {
      fail(ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE, `priceType ${priceType}: no price available, the ${bookSide === BID ? 'bid' : 'ask'} side of ${st.spec.name} is empty`, 'priceType');
    }
    return st.book.levelPrice(bookSide, Math.min(depth, levels));
  }

  /** Price used to size a market order: the touch it would take, or mark when that side is empty. */
  private referencePrice(st: SymbolState, side: Side): number {
    const touch = st.book.bestPrice(side === 'BUY' ? ASK : BID);
    if (touch === 0) return st.market.mark;
    return side === 'BUY' ? Math.max(touch, st.market.mark) : touch;
  }

  /** Creates the order and runs it: matching, then rest, expire or reject. Never throws. */
  private commitOrder(p: PreparedOrder, link: { conditionId?: number; strategyId?: number; placeType?: string }): EngineOrder {
    const { acct, st, input } = p;
    const now = this.clock.now();
    const id = this.nextOrderId++;
    const o: EngineOrder = {
      id,
      userId: acct.userId,
      symbol: st.spec,
      side: input.side,
      positionSide: p.positionSide,
      type: input.type,
      timeInForce: input.timeInForce ?? 'GTC',
      price: p.price,
      qty: p.qty,
      executed: 0,
      cumQuote: ZERO,
      status: 'NEW',
      reduceOnly: input.reduceOnly ?? false,
      makerOnly: input.makerOnly ?? false,
      closePosition: input.closePosition ?? false,
      priceType: input.priceType ?? 0,
      placeType: link.placeType ?? input.placeType ?? '',
      clientOrderId: p.clientOrderId !== '' ? p.clientOrderId : `auto-${id}`,
      createdAt: now,
      updateTime: now,
      conditionId: link.conditionId ?? 0,
      strategyId: link.strategyId ?? 0,
      frozenPerStep: p.frozenPerStep,
      frozen: ZERO,
    };
    this.ordersById.set(id, o);
    if (!this.forgetful.has(acct.userId)) acct.orders.push(o);
    acct.lastClientIds.set(o.clientOrderId, id);
    const book = st.book;
    const opp: BookSide = o.side === 'BUY' ? ASK : BID;
    if (o.makerOnly) {
      const touch = book.bestPrice(opp);
      if (touch !== 0 && (o.side === 'BUY' ? o.price >= touch : o.price <= touch)) {
        o.status = 'REJECTED';
        this.emitOrder(o, 'REJECTED');
        this.orderChanged(o);
        this.forgetIfFinal(o);
        return o;
      }
    }
    acct.openOrders.set(id, o);
    acct.openCountBySymbol.set(st.spec.name, (acct.openCountBySymbol.get(st.spec.name) ?? 0) + 1);
    if (this.isReducing(o)) acct.reducingOpen.add(o);
    acct.liveClientIds.set(o.clientOrderId, id);
    this.freeze(o, o.qty);
    this.emitOrder(o, 'NEW');
    this.orderChanged(o);
    let fillable = true;
    if (o.timeInForce === 'FOK') {
      fillable = book.availableUpTo(opp, o.price, o.qty) >= o.qty;
    }
    if (fillable) this.matchTaker(o, st);
    if (!isFinal(o.status)) {
      const remaining = o.qty - o.executed;
      if (o.type === 'LIMIT' && o.timeInForce === 'GTC' && remaining > 0 && this.stillPlaceable(o)) {
        book.add(o.id, o.side === 'BUY' ? BID : ASK, o.price, remaining);
        this.freeze(o, remaining);
      } else {
        this.finish(o, 'EXPIRED', 'EXPIRED');
      }
    }
    this.queueTriggers(st);
    return o;
  }

  /** A reduce-only order whose position is gone after its taker part does not rest. */
  private stillPlaceable(o: EngineOrder): boolean {
    if (!this.isReducing(o)) return true;
    const acct = this.accounts.get(o.userId) as EngineAccount;
    return this.closable(acct, o.symbol.name, o.side, o.positionSide) > 0;
  }

  private matchTaker(o: EngineOrder, st: SymbolState): void {
    const book = st.book;
    const opp: BookSide = o.side === 'BUY' ? ASK : BID;
    const acct = this.accounts.get(o.userId) as EngineAccount;
    const reducing = this.isReducing(o);
    while (o.executed < o.qty) {
      const makerId = book.peekBest(opp);
      if (makerId < 0) break;
      const price = book.bestPrice(opp);
      if (o.price !== 0 && (o.side === 'BUY' ? price > o.price : price < o.price)) break;
      let q = Math.min(o.qty - o.executed, book.remainingOf(makerId));
      if (reducing) {
        const cap = this.closable(acct, st.spec.name, o.side, o.positionSide);
        if (cap <= 0) break;
        q = Math.min(q, cap);
      }
      const maker = this.ordersById.get(makerId) as EngineOrder;
      book.fillHead(opp, q);
      this.trade(st, maker, o, price, q);
    }
  }

  /** One trade between a resting maker and a taker at the maker's price. */
  private trade(st: SymbolState, maker: EngineOrder, taker: EngineOrder, price: number, q: number): void {
    const tradeId = String(this.nextTradeId++);
    const now = this.clock.now();
    this.applyFill(maker, price, q, 'maker', tradeId);
    this.applyFill(taker, price, q, 'taker', tradeId);
    st.market.last = price;
    this.out.push({ kind: 'trade', symbol: st.spec.name, time: now, tradeId, price: st.spec.tick.fromUnits(price), quantity: st.spec.step.fromUnits(q), side: taker.side });
    this.recheckReducing(this.accounts.get(maker.userId) as EngineAccount, st);
    if (taker.userId !== maker.userId) this.recheckReducing(this.accounts.get(taker.userId) as EngineAccount, st);
  }

  private applyFill(o: EngineOrder, price: number, q: number, role: 'maker' | 'taker', tradeId: string): void {
    const acct = this.accounts.get(o.userId) as EngineAccount;
    const spec = o.symbol;
    const notional = spec.tick.decOf(price).times(spec.step.decOf(q));
    const fee = notional.times(role === 'maker' ? spec.makerFee : spec.takerFee).toDecimalPlaces(MONEY_DP, Dec.ROUND_HALF_EVEN);
    const liquidation = o.placeType === 'LIQUIDATION';
    const realized = this.applyToPosition(acct, o, price, q, fee, liquidation);
    o.executed += q;
    o.cumQuote = o.cumQuote.plus(notional);
    o.updateTime = this.clock.now();
    o.status = o.executed === o.qty ? 'FILLED' : 'PARTIALLY_FILLED';
    const fillId = String(this.nextFillId++);
    const ref = String(o.id);
    this.changeWallet(acct, realized, liquidation ? 'LIQUIDATION' : 'REALIZED_PNL', ref, spec.name);
    this.changeWallet(acct, fee.negated(), 'TRADE_FEE', ref, spec.name);
    this.feePool = this.feePool.plus(fee);
    this.touch(acct, 'ORDER', spec.name);
    const tr: TradeRecord = {
      fillId,
      tradeId,
      orderId: ref,
      symbol: spec.name,
      side: o.side,
      roleType: role,
      price: spec.tick.fromUnits(price),
      quantity: spec.step.fromUnits(q),
      tradeValue: formatDec(notional),
      handlingFee: formatDec(fee),
      realizedPnl: formatDec(realized),
      positionSide: o.positionSide,
      createdAt: o.updateTime,
    };
    if (acct.userId !== INSURANCE_ACCOUNT) acct.trades.push(tr);
    if (o.status === 'FILLED') {
      this.release(o);
    } else {
      this.freeze(o, o.qty - o.executed);
    }
    this.emitOrder(o, 'TRADE', {
      tradeId,
      fillId,
      lastFilledQty: tr.quantity,
      lastFilledPrice: tr.price,
      roleType: role,
      handlingFee: tr.handlingFee,
      realizedPnl: tr.realizedPnl,
    });
    this.orderChanged(o);
  }

  /** Drops a final order from the live indexes and unfreezes its margin. */
  private release(o: EngineOrder): void {
    const acct = this.accounts.get(o.userId) as EngineAccount;
    if (acct.openOrders.delete(o.id)) acct.openCountBySymbol.set(o.symbol.name, (acct.openCountBySymbol.get(o.symbol.name) ?? 1) - 1);
    acct.reducingOpen.delete(o);
    if (acct.liveClientIds.get(o.clientOrderId) === o.id) acct.liveClientIds.delete(o.clientOrderId);
    this.setFrozen(o, ZERO);
    this.forgetIfFinal(o);
  }

  /** For users set to forgetFinalOrders: the final order leaves every index, so memory stays flat. */
  private forgetIfFinal(o: EngineOrder): void {
    if (!this.forgetful.has(o.userId) || !isFinal(o.status)) return;
    this.ordersById.delete(o.id);
    const acct = this.accounts.get(o.userId) as EngineAccount;
    if (acct.lastClientIds.get(o.clientOrderId) === o.id) acct.lastClientIds.delete(o.clientOrderId);
  }

  /** Ends an order that is not filled: out of the book, final status, event. */
  private finish(o: EngineOrder, status: OrderStatus, exec: ExecutionType): void {
    this.symbols.get(o.symbol.name)?.book.remove(o.id);
    o.status = status;
    o.updateTime = this.clock.now();
    this.release(o);
    this.emitOrder(o, exec);
    this.orderChanged(o);
  }

  /**
   * After a position changed: reduce-only and closing orders never exceed what they can close
   * (cut, keeping queue priority), and are cancelled once there is nothing to close; GTE_GTC
   * condition orders are cancelled when their position is gone.
   */
  private recheckReducing(acct: EngineAccount, st: SymbolState): void {
    if (acct.userId === INSURANCE_ACCOUNT) return;
    if (acct.reducingOpen.size > 0) this.recheckReducingOrders(acct, st);
    if (st.conditions.length > 0) {
      for (const c of [...st.conditions]) {
        if (c.userId !== acct.userId || c.timeInForce !== 'GTE_GTC') continue;
        if (this.positionQty(acct, st.spec.name, c.positionSide) === 0) this.endCondition(c, 'CANCELED');
      }
    }
  }

  private recheckReducingOrders(acct: EngineAccount, st: SymbolState): void {
    for (const o of [...acct.reducingOpen]) {
      if (o.symbol !== st.spec || !st.book.has(o.id)) continue;
      const cap = this.closable(acct, st.spec.name, o.side, o.positionSide);
      const remaining = o.qty - o.executed;
      if (cap === 0) {
        this.finish(o, 'CANCELED', 'CANCELED');
      } else if (remaining > cap) {
        st.book.reduce(o.id, cap);
        o.qty = o.executed + cap;
        o.updateTime = this.clock.now();
        this.emitOrder(o, 'AMENDED');
      }
    }
  }

  /** Places a normal order for a user. */
  placeOrder(userId: string, input: PlaceOrderInput): OrderRecord {
    return this.run(() => {
      const acct = this.acct(userId);
      const o = this.commitOrder(this.prepareOrder(acct, input), {});
      return orderRecord(o);
    });
  }

  /** Places up to 20 orders; one bad order never fails the others. */
  batchPlace(userId: string, inputs: PlaceOrderInput[]): BatchResult {
    return this.run(() => {
      const acct = this.acct(userId);
      if (inputs.length > 20) fail(ErrorCodes.TOO_MANY_IN_BATCH, `at most 20 orders in a batch, got ${inputs.length}`, 'orders');
      return this.batch(inputs, (input) => orderRecord(this.commitOrder(this.prepareOrder(acct, input), {})), (i) => i.clientOrderId ?? '');
    });
  }

  private batch<I>(inputs: I[], one: (input: I) => OrderRecord, clientIdOf: (input: I) => string): BatchResult {
    const results: BatchResultItem[] = [];
    let ok = 0;
    inputs.forEach((input, index) => {
      try {
        const r = one(input);
        ok++;
        results.push({ index, success: true, code: 0, message: 'success', orderId: r.orderId, clientOrderId: r.clientOrderId, status: r.status });
      } catch (e) {
        if (!(e instanceof VenueError)) throw e;
        results.push({ index, success: false, code: e.code, message: e.message, orderId: '', clientOrderId: clientIdOf(input), status: '' });
      }
    });
    return { successCount: ok, failedCount: inputs.length - ok, results };
  }

  private findOrder(acct: EngineAccount, ref: OrderRef): EngineOrder {
    const st = this.sym(ref.symbol);
    if (ref.orderId === undefined && ref.clientOrderId === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'orderId or clientOrderId is required', 'orderId');
    let o: EngineOrder | undefined;
    if (ref.orderId !== undefined) {
      const n = /^[1-9]\d{0,15}$/.test(ref.orderId) ? Number(ref.orderId) : NaN;
      o = this.ordersById.get(n);
      if (o && ref.clientOrderId !== undefined && o.clientOrderId !== ref.clientOrderId) o = undefined;
    } else if (ref.clientOrderId !== undefined) {
      const id = acct.liveClientIds.get(ref.clientOrderId) ?? acct.lastClientIds.get(ref.clientOrderId);
      o = id === undefined ? undefined : this.ordersById.get(id);
    }
    // Another user's order behaves exactly as one that does not exist.
    if (!o || o.userId !== acct.userId || o.symbol !== st.spec) {
      fail(ErrorCodes.ORDER_NOT_FOUND, `order not found: ${ref.orderId !== undefined ? `orderId ${ref.orderId}` : `clientOrderId ${ref.clientOrderId}`} on ${ref.symbol}`, ref.orderId !== undefined ? 'orderId' : 'clientOrderId');
    }
    return o;
  }

  queryOrder(userId: string, ref: OrderRef): OrderRecord {
    return orderRecord(this.findOrder(this.acct(userId), ref));
  }

  /** Status and executed quantity of an order, as `queryOrder` has them, without the whole record. */
  orderProgress(userId: string, ref: OrderRef): { status: OrderStatus; executedQty: string } {
    const o = this.findOrder(this.acct(userId), ref);
    return { status: o.status, executedQty: o.symbol.step.fromUnits(o.executed) };
  }

  cancelOrder(userId: string, ref: OrderRef): OrderRecord {
    return this.run(() => {
      const o = this.findOrder(this.acct(userId), ref);
      if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be cancelled`, 'orderId');
      this.finish(o, 'CANCELED', 'CANCELED');
      return orderRecord(o);
    });
  }

  batchCancel(userId: string, refs: OrderRef[]): BatchResult {
    return this.run(() => {
      const acct = this.acct(userId);
      if (refs.length > 20) fail(ErrorCodes.TOO_MANY_IN_BATCH, `at most 20 orders in a batch, got ${refs.length}`, 'orders');
      return this.batch(refs, (ref) => {
        const o = this.findOrder(acct, ref);
        if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be cancelled`, 'orderId');
        this.finish(o, 'CANCELED', 'CANCELED');
        return orderRecord(o);
      }, (r) => r.clientOrderId ?? '');
    });
  }

  /**
   * Amends price and total quantity. A pure quantity decrease keeps queue priority; any price
   * change or increase goes to the back of the queue, and a new price that crosses trades at once
   * (a makerOnly order refuses such an amend).
   */
  moveOrder(userId: string, input: MoveOrderInput): OrderRecord {
    return this.run(() => orderRecord(this.move(this.acct(userId), input)));
  }

  batchMove(userId: string, symbol: string, inputs: Array<Omit<MoveOrderInput, 'symbol'>>): BatchResult {
    return this.run(() => {
      const acct = this.acct(userId);
      this.sym(symbol);
      if (inputs.length > 20) fail(ErrorCodes.TOO_MANY_IN_BATCH, `at most 20 orders in a batch, got ${inputs.length}`, 'orders');
      return this.batch(inputs, (i) => orderRecord(this.move(acct, { ...i, symbol })), () => '');
    });
  }

  private move(acct: EngineAccount, input: MoveOrderInput): EngineOrder {
    const o = this.findOrder(acct, { symbol: input.symbol, orderId: input.orderId });
    if (isFinal(o.status)) fail(ErrorCodes.ORDER_FINAL, `order ${o.id} is ${o.status} and cannot be amended`, 'orderId');
    const st = this.sym(input.symbol);
    const spec = st.spec;
    const price = this.ticksOf(spec, input.price, 'price');
    const qty = this.stepsOf(spec, input.quantity, 'quantity');
    if (qty <= o.executed) fail(ErrorCodes.INVALID_PARAMETER, `quantity is the new total and must exceed the executed quantity ${spec.step.fromUnits(o.executed)}, got ${input.quantity}`, 'quantity');
    const opp: BookSide = o.side === 'BUY' ? ASK : BID;
    const touch = st.book.bestPrice(opp);
    const crosses = touch !== 0 && (o.side === 'BUY' ? price >= touch : price <= touch);
    if (o.makerOnly && crosses) fail(ErrorCodes.INVALID_PARAMETER, `makerOnly order cannot be amended to ${input.price}: it would take liquidity at ${spec.tick.fromUnits(touch)}`, 'price');
    let finalQty = qty;
    if (this.isReducing(o)) {
      finalQty = Math.min(qty, o.executed + this.closable(acct, spec.name, o.side, o.positionSide));
    }
    const remaining = finalQty - o.executed;
    let perStep = o.frozenPerStep;
    if (!this.isReducing(o)) {
      const leverage = this.settingsOf(acct, spec.name).leverage;
      const needed = spec.tick.decOf(price).times(spec.step.decOf(remaining)).div(leverage);
      const available = this.availableOf(acct).plus(o.frozen);
      const scale = o.frozenPerStep.isZero() ? ZERO : needed;
      if (scale.gt(available)) fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin: the amended order needs ${money(needed)} USDT, available is ${money(available)} USDT`);
      perStep = o.frozenPerStep.isZero() ? ZERO : needed.div(remaining);
    }
    const keepsPriority = price === o.price && finalQty <= o.qty;
    if (keepsPriority) {
      if (remaining < o.qty - o.executed) st.book.reduce(o.id, remaining);
    } else {
      st.book.remove(o.id);
    }
    o.price = price;
    o.qty = finalQty;
    o.frozenPerStep = perStep;
    o.updateTime = this.clock.now();
    this.setFrozen(o, perStep.times(remaining));
    this.emitOrder(o, 'AMENDED');
    if (!keepsPriority) {
      if (crosses) this.matchTaker(o, st);
      if (!isFinal(o.status)) {
        const left = o.qty - o.executed;
        if (left > 0 && this.stillPlaceable(o)) {
          st.book.add(o.id, o.side === 'BUY' ? BID : ASK, o.price, left);
          this.freeze(o, left);
        } else {
          this.finish(o, 'CANCELED', 'CANCELED');
        }
      }
      this.queueTriggers(st);
    }
    return o;
  }

  /**
   * Cancel-all by cancelType: 0 all normal orders, 1 limit orders only, 2 all condition orders.
   * The server acknowledges at once; the engine finishes the work in the same step.
   */
  cancelAll(userId: string, input: CancelAllInput): { canceled: number } {
    return this.run(() => {
      const acct = this.acct(userId);
      if (input.symbol !== undefined) this.sym(input.symbol);
      const type = input.cancelType ?? 0;
      let n = 0;
      if (type === 2) {
        for (const c of acct.conditions) {
          if (c.status === 'NEW' && (input.symbol === undefined || c.symbol.name === input.symbol)) {
            this.endCondition(c, 'CANCELED');
            n++;
          }
        }
      } else {
        for (const o of [...acct.openOrders.values()]) {
          if (input.symbol !== undefined && o.symbol.name !== input.symbol) continue;
          if (type === 1 && o.type !== 'LIMIT') continue;
          this.finish(o, 'CANCELED', 'CANCELED');
          n++;
        }
      }
      return { canceled: n };
    });
  }

  /** Open orders, ascending by id, after the `lastOrderId` cursor. */
  currentOrders(userId: string, q: { symbol?: string; limit?: number; lastOrderId?: number }): { list: OrderRecord[]; total: number } {
    const acct = this.acct(userId);
    if (q.symbol !== undefined) this.sym(q.symbol);
    const all = [...acct.openOrders.values()].filter((o) => q.symbol === undefined || o.symbol.name === q.symbol).sort((a, b) => a.id - b.id);
    const after = all.filter((o) => q.lastOrderId === undefined || o.id > q.lastOrderId);
    return { list: after.slice(0, q.limit ?? 100).map(orderRecord), total: all.length };
  }

  /** Every order of the user, newest first, filtered. */
  orderHistory(userId: string, f: OrderHistoryFilter): { list: OrderRecord[]; total: number } {
    const acct = this.acct(userId);
    if (f.symbol !== undefined) this.sym(f.symbol);
    const rows = acct.orders.filter((o) =>
      (f.symbol === undefined || o.symbol.name === f.symbol) &&
      (f.orderId === undefined || String(o.id) === f.orderId) &&
      (f.clientOrderId === undefined || o.clientOrderId === f.clientOrderId) &&
      (f.type === undefined || o.type === f.type) &&
      (f.side === undefined || o.side === f.side) &&
      (f.status === undefined || o.status === f.status) &&
      (f.startTime === undefined || o.createdAt >= f.startTime) &&
      (f.endTime === undefined || o.createdAt <= f.endTime));
    return page(rows.reverse(), f.page, f.pageSize, orderRecord);
  }

  tradeHistory(userId: string, f: { symbol?: string; orderId?: string; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: TradeRecord[]; total: number } {
    const acct = this.acct(userId);
    if (f.symbol !== undefined) this.sym(f.symbol);
    const rows = acct.trades.filter((t) =>
      (f.symbol === undefined || t.symbol === f.symbol) &&
      (f.orderId === undefined || t.orderId === f.orderId) &&
      (f.startTime === undefined || t.createdAt >= f.startTime) &&
      (f.endTime === undefined || t.createdAt <= f.endTime));
    return page([...rows].reverse(), f.page, f.pageSize, (t) => ({ ...t }));
  }

  /** A normal order or condition changed status: strategies that hold it may need to move. */
  private orderChanged(o: EngineOrder): void {
    if (o.strategyId) this.queueStrategy(o.strategyId);
  }

  // ---------------------------------------------------------------- condition orders

  private prepareCondition(acct: EngineAccount, input: PlaceConditionInput): PreparedCondition {
    const st = this.sym(input.symbol);
    const spec = st.spec;
    const positionSide = this.positionSideFor(acct, input.positionSide);
    const closePosition = input.closePosition ?? false;
    const isLimit = input.type === 'STOP_LIMIT' || input.type === 'TAKE_PROFIT_LIMIT';
    const trailing = input.type === 'TRAILING_STOP';
    let price = 0;
    if (isLimit) {
      if (input.price === undefined) fail(ErrorCodes.MISSING_PARAMETER, `price is required for ${input.type}`, 'price');
      price = this.ticksOf(spec, input.price, 'price');
    } else if (input.price !== undefined) {
      fail(ErrorCodes.INVALID_PARAMETER, `price must not be given for ${input.type}: it places a MARKET order`, 'price');
    }
    let stopPrice = 0;
    let activatePrice = 0;
    // A decimal field is a decimal string: "0" where it does not apply, as for the other prices.
    let callbackRate = '0';
    if (trailing) {
      if (input.callbackRate === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'callbackRate is required for TRAILING_STOP', 'callbackRate');
      const rate = new Dec(input.callbackRate);
      if (rate.lt(CALLBACK_MIN) || rate.gt(CALLBACK_MAX)) fail(ErrorCodes.INVALID_PARAMETER, `callbackRate is a percentage from ${CALLBACK_MIN} to ${CALLBACK_MAX}, got ${input.callbackRate}`, 'callbackRate');
      callbackRate = formatDec(rate);
      if (input.activatePrice !== undefined) activatePrice = this.ticksOf(spec, input.activatePrice, 'activatePrice');
      if (input.stopPrice !== undefined) fail(ErrorCodes.INVALID_PARAMETER, 'stopPrice must not be given for TRAILING_STOP: use activatePrice and callbackRate', 'stopPrice');
    } else {
      if (input.stopPrice === undefined) fail(ErrorCodes.MISSING_PARAMETER, `stopPrice is required for ${input.type}`, 'stopPrice');
      stopPrice = this.ticksOf(spec, input.stopPrice, 'stopPrice');
      if (input.activatePrice !== undefined || input.callbackRate !== undefined) {
        fail(ErrorCodes.INVALID_PARAMETER, `activatePrice and callbackRate apply only to TRAILING_STOP, not ${input.type}`, input.activatePrice !== undefined ? 'activatePrice' : 'callbackRate');
      }
      if (input.priceProtect) {
        const mark = this.markDec(st);
        const dev = spec.tick.decOf(stopPrice).minus(mark).abs().div(mark);
        if (dev.gt(PRICE_PROTECT_PLACE)) {
          fail(ErrorCodes.PRICE_PROTECTION, `priceProtect: stopPrice ${input.stopPrice} is ${formatDec(dev.times(100), 2)} % from mark price ${spec.tick.fromUnits(st.market.mark)}, more than ${formatDec(PRICE_PROTECT_PLACE.times(100))} %`, 'stopPrice');
        }
      }
    }
    let qty = 0;
    if (closePosition) {
      if (input.quantity !== undefined) fail(ErrorCodes.INVALID_PARAMETER, 'quantity must not be given with closePosition=true: the whole position is closed on trigger', 'quantity');
    } else {
      if (input.quantity === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'quantity is required unless closePosition is true', 'quantity');
      qty = this.stepsOf(spec, input.quantity, 'quantity');
    }
    if (input.timeInForce === 'GTE_GTC' && this.positionQty(acct, spec.name, positionSide) === 0) {
      fail(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE, `GTE_GTC condition order needs an open ${positionSide} position on ${spec.name} to close`, 'timeInForce');
    }
    if (input.clientOrderId !== undefined && acct.conditions.some((c) => c.status === 'NEW' && c.clientOrderId === input.clientOrderId)) {
      fail(ErrorCodes.DUPLICATE_CLIENT_ORDER_ID, `clientOrderId '${input.clientOrderId}' is already used by a waiting condition order`, 'clientOrderId');
    }
    const waiting = st.conditions.filter((c) => c.userId === acct.userId).length;
    if (waiting >= MAX_OPEN_CONDITIONS_PER_SYMBOL) fail(ErrorCodes.TOO_MANY_OPEN_ORDERS, `at most ${MAX_OPEN_CONDITIONS_PER_SYMBOL} waiting condition orders per symbol`);
    return { acct, st, input, positionSide, qty, price, stopPrice, activatePrice, callbackRate, clientOrderId: input.clientOrderId ?? '' };
  }

  private commitCondition(p: PreparedCondition, strategyId: number): EngineCondition {
    const now = this.clock.now();
    const id = this.nextConditionId++;
    const input = p.input;
    const c: EngineCondition = {
      id,
      userId: p.acct.userId,
      symbol: p.st.spec,
      type: input.type,
      side: input.side,
      positionSide: p.positionSide,
      qty: p.qty,
      price: p.price,
      stopPrice: p.stopPrice,
      workingType: input.workingType ?? 'CONTRACT_PRICE',
      priceProtect: input.priceProtect ?? false,
      activatePrice: p.activatePrice,
      callbackRate: p.callbackRate,
      timeInForce: input.timeInForce ?? 'GTC',
      reduceOnly: input.reduceOnly ?? false,
      closePosition: input.closePosition ?? false,
      status: 'NEW',
      clientOrderId: p.clientOrderId !== '' ? p.clientOrderId : `auto-c${id}`,
      triggeredOrderId: 0,
      triggerTime: 0,
      createdAt: now,
      updateTime: now,
      strategyId,
      trailActive: false,
      trailExtreme: 0,
    };
    this.conditionsById.set(id, c);
    p.acct.conditions.push(c);
    p.st.conditions.push(c);
    this.emitCondition(c);
    this.queueTriggers(p.st);
    return c;
  }

  placeCondition(userId: string, input: PlaceConditionInput): ConditionOrderRecord {
    return this.run(() => {
      const acct = this.acct(userId);
      return conditionRecord(this.commitCondition(this.prepareCondition(acct, input), 0));
    });
  }

  cancelCondition(userId: string, symbol: string, conditionId: string): ConditionOrderRecord {
    return this.run(() => {
      const acct = this.acct(userId);
      const st = this.sym(symbol);
      const c = /^[1-9]\d{0,15}$/.test(conditionId) ? this.conditionsById.get(Number(conditionId)) : undefined;
      if (!c || c.userId !== acct.userId || c.symbol !== st.spec) fail(ErrorCodes.CONDITION_NOT_FOUND, `condition order ${conditionId} not found on ${symbol}`, 'conditionId');
      if (conditionFinal(c.status)) fail(ErrorCodes.ORDER_FINAL, `condition order ${conditionId} is ${c.status} and cannot be cancelled`, 'conditionId');
      this.endCondition(c, 'CANCELED');
      return conditionRecord(c);
    });
  }

  private endCondition(c: EngineCondition, status: ConditionStatus): void {
    const st = this.symbols.get(c.symbol.name) as SymbolState;
    const i = st.conditions.indexOf(c);
    if (i >= 0) st.conditions.splice(i, 1);
    c.status = status;
    c.updateTime = this.clock.now();
    this.emitCondition(c);
    if (c.strategyId) this.queueStrategy(c.strategyId);
  }

  currentConditions(userId: string, symbol: string | undefined): { list: ConditionOrderRecord[]; total: number } {
    const acct = this.acct(userId);
    if (symbol !== undefined) this.sym(symbol);
    const list = acct.conditions.filter((c) => c.status === 'NEW' && (symbol === undefined || c.symbol.name === symbol)).map(conditionRecord);
    return { list, total: list.length };
  }

  conditionHistory(userId: string, f: { symbol?: string; side?: Side; status?: ConditionStatus; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: ConditionOrderRecord[]; total: number } {
    const acct = this.acct(userId);
    if (f.symbol !== undefined) this.sym(f.symbol);
    const rows = acct.conditions.filter((c) =>
      (f.symbol === undefined || c.symbol.name === f.symbol) &&
      (f.side === undefined || c.side === f.side) &&
      (f.status === undefined || c.status === f.status) &&
      (f.startTime === undefined || c.createdAt >= f.startTime) &&
      (f.endTime === undefined || c.createdAt <= f.endTime));
    return page([...rows].reverse(), f.page, f.pageSize, conditionRecord);
  }

  private queuedTriggers = new Set<SymbolState>();

  /** Evaluates condition triggers of a symbol once the current operation is done. */
  private queueTriggers(st: SymbolState): void {
    if (st.conditions.length === 0 || this.queuedTriggers.has(st)) return;
    this.queuedTriggers.add(st);
    this.work.push(() => {
      this.queuedTriggers.delete(st);
      this.runTriggers(st);
    });
  }

  /** Fires every waiting condition whose trigger is met, in creation order. */
  private runTriggers(st: SymbolState): void {
    const mark = st.market.mark;
    const last = st.market.last === 0 ? mark : st.market.last;
    for (const c of [...st.conditions]) {
      if (c.status !== 'NEW') continue;
      const price = c.workingType === 'MARK_PRICE' ? mark : last;
      const fires = c.type === 'TRAILING_STOP' ? trailingStep(c, price) : stopFires(c, price);
      if (!fires) continue;
      if (c.priceProtect && c.workingType === 'CONTRACT_PRICE') {
        const dev = st.spec.tick.decOf(last).minus(st.spec.tick.decOf(mark)).abs().div(st.spec.tick.decOf(mark));
        if (dev.gt(PRICE_PROTECT_TRIGGER)) continue;
      }
      this.fire(c, st);
    }
  }

  /** A condition fires: it places its normal order (MARKET for *_MARKET and trailing, else LIMIT). */
  private fire(c: EngineCondition, st: SymbolState): void {
    const acct = this.accounts.get(c.userId) as EngineAccount;
    const spec = st.spec;
    const isLimit = c.type === 'STOP_LIMIT' || c.type === 'TAKE_PROFIT_LIMIT';
    const input: PlaceOrderInput = {
      symbol: spec.name,
      type: isLimit ? 'LIMIT' : 'MARKET',
      side: c.side,
      positionSide: c.positionSide,
      reduceOnly: c.reduceOnly,
      closePosition: c.closePosition,
      timeInForce: isLimit ? (c.timeInForce === 'GTE_GTC' ? 'GTC' : c.timeInForce) : 'IOC',
    };
    if (isLimit) input.price = spec.tick.fromUnits(c.price);
    if (!c.closePosition) input.quantity = spec.step.fromUnits(c.qty);
    const i = st.conditions.indexOf(c);
    if (i >= 0) st.conditions.splice(i, 1);
    c.triggerTime = this.clock.now();
    c.updateTime = c.triggerTime;
    let prepared: PreparedOrder;
    try {
      prepared = this.prepareOrder(acct, input);
    } catch (e) {
      if (!(e instanceof VenueError)) throw e;
      c.status = e.code === ErrorCodes.REDUCE_ONLY_WOULD_INCREASE ? 'EXPIRED' : 'REJECTED';
      this.emitCondition(c);
      if (c.strategyId) this.queueStrategy(c.strategyId);
      return;
    }
    c.status = 'TRIGGERED';
    // The condition's update (with the id its order will get) goes out before the order's own.
    c.triggeredOrderId = this.nextOrderId;
    this.emitCondition(c);
    // The order inherits the condition's clientOrderId, so a client can attribute it.
    if (!acct.liveClientIds.has(c.clientOrderId)) prepared.clientOrderId = c.clientOrderId;
    const order = this.commitOrder(prepared, { conditionId: c.id, strategyId: c.strategyId || undefined });
    if (c.strategyId) {
      const strat = this.strategiesById.get(c.strategyId);
      const sub = strat?.subs.find((s) => s.conditionId === c.id);
      if (sub) sub.orderId = order.id;
      this.queueStrategy(c.strategyId);
    }
  }

  // ---------------------------------------------------------------- strategy orders

  placeStrategy(userId: string, input: PlaceStrategyInput): StrategyOrderRecord {
    return this.run(() => {
      const acct = this.acct(userId);
      const subs = normalizeStrategy(input);
      const st = this.sym(subs[0].input.symbol, 'subOrderList[0].symbol');
      // Check every sub-order against the symbol now, so a malformed one fails the whole request.
      const checked = subs.map((s, i) => this.checkSub(acct, s.input, i));
      const immediate = subs.filter((s) => s.first?.action !== 'PLACE_ORDER' && s.second?.action !== 'PLACE_ORDER');
      // The first immediate sub-order must be placeable now (margin, position): else nothing is applied.
      const firstPrepared = this.prepareSub(acct, immediate[0].input);
      const now = this.clock.now();
      const strat: EngineStrategy = {
        id: this.nextStrategyId++,
        userId,
        symbol: st.spec,
        type: input.strategyType,
        status: 'WORKING',
        subs: subs.map((s, i) => this.subOf(s.input, s.first, s.second, checked[i])),
        bookTime: now,
        updateTime: now,
      };
      this.strategiesById.set(strat.id, strat);
      acct.strategies.push(strat);
      for (const s of immediate) {
        const sub = strat.subs[s.input.strategySubId - 1];
        this.placeSub(strat, sub, s === immediate[0] ? firstPrepared : undefined);
      }
      this.emitStrategy(strat);
      this.queueStrategy(strat.id);
      return strategyRecord(strat, (id) => this.ordersById.get(id));
    });
  }

  /** Static checks of one sub-order (grid, required fields) without placing it. */
  private checkSub(acct: EngineAccount, s: StrategySubOrderInput, i: number): { price: number; qty: number; stopPrice: number; activatePrice: number } {
    try {
      const spec = this.sym(s.symbol).spec;
      const price = s.price !== undefined ? this.ticksOf(spec, s.price, 'price') : 0;
      const qty = s.quantity !== undefined ? this.stepsOf(spec, s.quantity, 'quantity') : 0;
      const stopPrice = s.stopPrice !== undefined ? this.ticksOf(spec, s.stopPrice, 'stopPrice') : 0;
      const activatePrice = s.activatePrice !== undefined ? this.ticksOf(spec, s.activatePrice, 'activatePrice') : 0;
      this.positionSideFor(acct, s.positionSide);
      if ((s.type === 'LIMIT' || s.type === 'STOP_LIMIT' || s.type === 'TAKE_PROFIT_LIMIT') && s.price === undefined) fail(ErrorCodes.MISSING_PARAMETER, `price is required for ${s.type}`, 'price');
      if (!(s.closePosition ?? false) && s.quantity === undefined) fail(ErrorCodes.MISSING_PARAMETER, 'quantity is required unless closePosition is true', 'quantity');
      if (s.type !== 'LIMIT' && s.type !== 'MARKET' && s.type !== 'TRAILING_STOP' && s.stopPrice === undefined) fail(ErrorCodes.MISSING_PARAMETER, `stopPrice is required for ${s.type}`, 'stopPrice');
      return { price, qty, stopPrice, activatePrice };
    } catch (e) {
      if (e instanceof VenueError) throw new VenueError(e.code, `subOrderList[${i}]: ${e.message}`, `subOrderList[${i}].${e.field ?? ''}`.replace(/\.$/, ''));
      throw e;
    }
  }

  private subOf(s: StrategySubOrderInput, first: Driver | undefined, second: Driver | undefined, c: { price: number; qty: number; stopPrice: number; activatePrice: number }): EngineSubOrder {
    const isOrder = s.type === 'LIMIT' || s.type === 'MARKET';
    return {
      subId: s.strategySubId,
      kind: isOrder ? 'order' : 'condition',
      type: s.type,
      side: s.side,
      positionSide: s.positionSide ?? 'BOTH',
      price: c.price,
      qty: c.qty,
      stopPrice: c.stopPrice,
      workingType: s.workingType ?? 'CONTRACT_PRICE',
      priceProtect: s.priceProtect ?? false,
      activatePrice: c.activatePrice,
      callbackRate: s.callbackRate ?? '0',
      timeInForce: s.timeInForce ?? 'GTC',
      reduceOnly: s.reduceOnly ?? false,
      makerOnly: s.makerOnly ?? false,
      closePosition: s.closePosition ?? false,
      clientOrderId: s.clientOrderId ?? '',
      firstDrivenId: first?.id ?? 0,
      firstDrivenOn: first?.on ?? '',
      firstTrigger: first?.action ?? '',
      secondDrivenId: second?.id ?? 0,
      secondDrivenOn: second?.on ?? '',
      secondTrigger: second?.action ?? '',
      status: 'PENDING',
      orderId: 0,
      conditionId: 0,
      input: s,
      reached: new Set(),
      firstFired: false,
      secondFired: false,
    };
  }

  private prepareSub(acct: EngineAccount, s: StrategySubOrderInput): PreparedOrder | PreparedCondition {
    if (s.type === 'LIMIT' || s.type === 'MARKET') {
      const tif = s.timeInForce === 'GTE_GTC' ? 'GTC' : s.timeInForce;
      const input: PlaceOrderInput = {
        symbol: s.symbol, type: s.type, side: s.side, positionSide: s.positionSide, price: s.price, quantity: s.quantity,
        timeInForce: tif, reduceOnly: s.reduceOnly, makerOnly: s.makerOnly, closePosition: s.closePosition, clientOrderId: s.clientOrderId,
      };
      return this.prepareOrder(acct, stripUndefined(input));
    }
    const input: PlaceConditionInput = {
      symbol: s.symbol, type: s.type, side: s.side, positionSide: s.positionSide, price: s.price, quantity: s.quantity,
      timeInForce: s.timeInForce, reduceOnly: s.reduceOnly, clientOrderId: s.clientOrderId, stopPrice: s.stopPrice,
      workingType: s.workingType, priceProtect: s.priceProtect, activatePrice: s.activatePrice, callbackRate: s.callbackRate,
      closePosition: s.closePosition,
    };
    return this.prepareCondition(acct, stripUndefined(input));
  }

  /** Places a sub-order now; a refusal makes the sub-order REJECTED. */
  private placeSub(strat: EngineStrategy, sub: EngineSubOrder, prepared?: PreparedOrder | PreparedCondition): void {
    const acct = this.accounts.get(strat.userId) as EngineAccount;
    let p = prepared;
    if (!p) {
      try {
        p = this.prepareSub(acct, sub.input);
      } catch (e) {
        if (!(e instanceof VenueError)) throw e;
        sub.status = 'REJECTED';
        sub.reached.add('REJECTED');
        return;
      }
    }
    if (sub.kind === 'order') {
      const o = this.commitOrder(p as PreparedOrder, { strategyId: strat.id });
      sub.orderId = o.id;
    } else {
      const c = this.commitCondition(p as PreparedCondition, strat.id);
      sub.conditionId = c.id;
    }
    this.syncSub(sub);
  }

  /** Brings a sub-order's status up to date with its order or condition. */
  private syncSub(sub: EngineSubOrder): void {
    let status: SubOrderStatus = sub.status;
    if (sub.orderId) {
      const o = this.ordersById.get(sub.orderId) as EngineOrder;
      status = o.status;
      if (o.executed > 0) sub.reached.add('PARTIALLY_FILLED');
    } else if (sub.conditionId) {
      const c = this.conditionsById.get(sub.conditionId) as EngineCondition;
      status = c.status === 'NEW' || c.status === 'TRIGGERED' ? 'NEW' : c.status;
    }
    sub.status = status;
    if (status !== 'PENDING') sub.reached.add(status);
  }

  private queuedStrategies = new Set<number>();

  private queueStrategy(id: number): void {
    if (this.queuedStrategies.has(id)) return;
    this.queuedStrategies.add(id);
    this.work.push(() => {
      this.queuedStrategies.delete(id);
      this.driveStrategy(this.strategiesById.get(id) as EngineStrategy);
    });
  }

  private static reachedState(sub: EngineSubOrder, on: DrivenOn): boolean {
    if (on === 'PARTIALLY_FILLED_OR_FILLED') return sub.reached.has('PARTIALLY_FILLED') || sub.reached.has('FILLED');
    return sub.reached.has(on);
  }

  private static subFinal(s: SubOrderStatus): boolean {
    return s === 'FILLED' || s === 'CANCELED' || s === 'REJECTED' || s === 'EXPIRED';
  }

  /** Runs the driven-on/trigger rules until nothing more moves, then settles the strategy status. */
  private driveStrategy(strat: EngineStrategy): void {
    if (strat.status !== 'WORKING') return;
    const before = strat.subs.map((s) => `${s.status}:${s.orderId}:${s.conditionId}`).join(',');
    let moved = true;
    for (let guard = 0; moved && guard < 10; guard++) {
      moved = false;
      for (const s of strat.subs) this.syncSub(s);
      for (const sub of strat.subs) {
        for (const which of ['first', 'second'] as const) {
          const id = which === 'first' ? sub.firstDrivenId : sub.secondDrivenId;
          if (id === 0 || (which === 'first' ? sub.firstFired : sub.secondFired)) continue;
          const on = (which === 'first' ? sub.firstDrivenOn : sub.secondDrivenOn) as DrivenOn;
          const action = which === 'first' ? sub.firstTrigger : sub.secondTrigger;
          const driver = strat.subs[id - 1];
          if (Engine.reachedState(driver, on)) {
            if (which === 'first') sub.firstFired = true;
            else sub.secondFired = true;
            moved = true;
            if (action === 'PLACE_ORDER') {
              if (sub.status === 'PENDING') this.placeSub(strat, sub);
            } else {
              this.cancelSub(sub);
            }
          } else if (action === 'PLACE_ORDER' && sub.status === 'PENDING' && Engine.subFinal(driver.status)) {
            // The driver ended without reaching the state: this sub-order can never be placed.
            sub.status = 'CANCELED';
            sub.reached.add('CANCELED');
            moved = true;
          }
        }
      }
    }
    for (const s of strat.subs) this.syncSub(s);
    if (strat.subs.every((s) => Engine.subFinal(s.status))) {
      const first = strat.subs[0];
      const firstOrder = first.orderId ? this.ordersById.get(first.orderId) : undefined;
      const unfilled = !firstOrder || firstOrder.executed === 0;
      strat.status = unfilled && (first.status === 'CANCELED' || first.status === 'REJECTED') ? 'CANCELLED' : 'ALL_DONE';
    }
    const after = strat.subs.map((s) => `${s.status}:${s.orderId}:${s.conditionId}`).join(',');
    if (after !== before || strat.status !== 'WORKING') {
      strat.updateTime = this.clock.now();
      this.emitStrategy(strat);
    }
  }

  private cancelSub(sub: EngineSubOrder): void {
    if (sub.status === 'PENDING') {
      sub.status = 'CANCELED';
      sub.reached.add('CANCELED');
      return;
    }
    if (sub.orderId) {
      const o = this.ordersById.get(sub.orderId) as EngineOrder;
      if (!isFinal(o.status)) this.finish(o, 'CANCELED', 'CANCELED');
    } else if (sub.conditionId) {
      const c = this.conditionsById.get(sub.conditionId) as EngineCondition;
      if (c.status === 'NEW') this.endCondition(c, 'CANCELED');
    }
    this.syncSub(sub);
  }

  strategy(userId: string, strategyId: string): StrategyOrderRecord {
    const acct = this.acct(userId);
    const s = /^[1-9]\d{0,15}$/.test(strategyId) ? this.strategiesById.get(Number(strategyId)) : undefined;
    if (!s || s.userId !== acct.userId) fail(ErrorCodes.STRATEGY_NOT_FOUND, `strategy order ${strategyId} not found`, 'strategyId');
    return strategyRecord(s, (id) => this.ordersById.get(id));
  }

  // ---------------------------------------------------------------- leverage and margin mode

  setLeverage(userId: string, input: SetLeverageInput): { symbol: string; leverage: number; timestamp: number } {
    return this.run(() => {
      const acct = this.acct(userId);
      const st = this.sym(input.symbol);
      const max = st.spec.maxLeverage;
      if (!Number.isInteger(input.leverage) || input.leverage < 1 || input.leverage > max) {
        fail(ErrorCodes.LEVERAGE_OUT_OF_RANGE, `leverage must be a whole number from 1 to ${max} for ${st.spec.name}, got ${input.leverage}`, 'leverage');
      }
      const s = this.settingsOf(acct, st.spec.name);
      const old = s.leverage;
      s.leverage = input.leverage;
      if (input.leverage < old && this.availableOf(acct).isNegative()) {
        s.leverage = old;
        fail(ErrorCodes.INSUFFICIENT_MARGIN, `insufficient margin to lower leverage to ${input.leverage}x with the open ${st.spec.name} position`, 'leverage');
      }
      if (old !== input.leverage) this.touch(acct, 'LEVERAGE', st.spec.name);
      return { symbol: st.spec.name, leverage: s.leverage, timestamp: this.clock.now() };
    });
  }

  setMarginMode(userId: string, input: SetMarginModeInput): { symbol: string; marginMode: 1 | 2; timestamp: number } {
    return this.run(() => {
      const acct = this.acct(userId);
      const st = this.sym(input.symbol);
      const mode = marginModeFromCode(input.marginMode);
      const s = this.settingsOf(acct, st.spec.name);
      if (s.marginMode !== mode) {
        const hasPosition = [...acct.positions.values()].some((p) => p.symbol === st.spec);
        const hasOrders = [...acct.openOrders.values()].some((o) => o.symbol === st.spec);
        if (hasPosition || hasOrders) {
          fail(ErrorCodes.MARGIN_MODE_LOCKED, `margin mode of ${st.spec.name} cannot change while there is an open ${hasPosition ? 'position' : 'order'} on it`, 'marginMode');
        }
        s.marginMode = mode;
        this.touch(acct, 'MARGIN_MODE', st.spec.name);
      }
      return { symbol: st.spec.name, marginMode: marginModeToCode(s.marginMode), timestamp: this.clock.now() };
    });
  }

  positionSettings(userId: string, symbol: string): PositionSettingsRecord {
    const acct = this.acct(userId);
    const st = this.sym(symbol);
    const s = acct.settings.get(st.spec.name) ?? { leverage: Math.min(DEFAULT_LEVERAGE, st.spec.maxLeverage), marginMode: 'CROSS' as MarginMode };
    return { symbol: st.spec.name, marginMode: marginModeToCode(s.marginMode), leverage: s.leverage };
  }

  /**
   * The user's signed net position on `symbol` in base units (long minus short), without
   * building position records (which work out margin, liquidation price and the rest).
   */
  netQuantity(userId: string, symbol: string): string {
    const acct = this.acct(userId);
    const st = this.sym(symbol);
    let steps = 0;
    for (const p of acct.positions.values()) if (p.symbol === st.spec) steps += p.qty;
    return st.spec.step.fromUnits(steps);
  }

  positions(userId: string, symbol?: string): PositionRecord[] {
    const acct = this.acct(userId);
    if (symbol !== undefined) this.sym(symbol);
    return this.positionRecordsOf(acct, symbol);
  }

  positionHistory(userId: string, f: { symbol?: string; side?: 'long' | 'short'; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: PositionHistoryRecord[]; total: number } {
    const acct = this.acct(userId);
    if (f.symbol !== undefined) this.sym(f.symbol);
    const rows = acct.positionHistory.filter(({ record: h, long }) =>
      (f.symbol === undefined || h.symbol === f.symbol) &&
      (f.side === undefined || (f.side === 'long') === long) &&
      (f.startTime === undefined || h.closedAt >= f.startTime) &&
      (f.endTime === undefined || h.closedAt <= f.endTime));
    return page([...rows].reverse(), f.page, f.pageSize, (h) => ({ ...h.record }));
  }

  asset(userId: string): UserAssetRecord {
    return this.assetOf(this.acct(userId));
  }

  /**
   * The wallet and unrealized PnL fields of `asset()`, identical to them, without working out
   * margins (for an equity curve sampled often).
   */
  equityParts(userId: string): { walletBalance: string; unrealizedPnl: string } {
    const a = this.acct(userId);
    let cross = ZERO;
    let iso = ZERO;
    for (const p of a.positions.values()) {
      const st = this.symbols.get(p.symbol.name) as SymbolState;
      const u = pm.unrealizedPnl(p.symbol.step.decOf(p.qty), p.cost, this.markDec(st));
      if (p.marginMode === 'ISOLATED') iso = iso.plus(u);
      else cross = cross.plus(u);
    }
    return { walletBalance: money(a.wallet), unrealizedPnl: money(cross.plus(iso)) };
  }

  accountChanges(userId: string, f: { assetType?: string; changeType?: string; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: AccountChangeRecord[]; total: number } {
    const acct = this.acct(userId);
    const rows = acct.changes.filter((c) =>
      (f.assetType === undefined || c.assetType === f.assetType) &&
      (f.changeType === undefined || c.changeType === f.changeType) &&
      (f.startTime === undefined || c.createdAt >= f.startTime) &&
      (f.endTime === undefined || c.createdAt <= f.endTime));
    return page([...rows].reverse(), f.page, f.pageSize, (c) => ({ ...c }));
  }

  /** Read-only history of an account, for the statistics endpoints (volume, overview, leaderboard). */
  accountData(userId: string): { trades: readonly TradeRecord[]; changes: readonly AccountChangeRecord[]; transferIn: string; wallet: string } {
    const acct = this.acct(userId);
    return { trades: acct.trades, changes: acct.changes, transferIn: formatDec(acct.transferIn), wallet: formatDec(acct.wallet) };
  }

  /** Ids of all user accounts, in creation order. */
  userIds(): string[] {
    return [...this.accounts.values()].filter((a) => a.userId !== INSURANCE_ACCOUNT).map((a) => a.userId);
  }

  // ---------------------------------------------------------------- market: mark price, funding, liquidation

  /** Sets mark (and index) price, then runs triggers, trailing stops and liquidation checks. */
  setMarkPrice(symbol: string, markPrice: string, indexPrice?: string): void {
    this.run(() => {
      const st = this.sym(symbol);
      const mark = this.ticksOf(st.spec, markPrice, 'markPrice');
      const index = indexPrice === undefined ? mark : this.ticksOf(st.spec, indexPrice, 'indexPrice');
      st.market.mark = mark;
      st.market.index = index;
      this.out.push({
        kind: 'markPrice',
        symbol: st.spec.name,
        time: this.clock.now(),
        markPrice: st.spec.tick.fromUnits(mark),
        indexPrice: st.spec.tick.fromUnits(index),
        fundingRate: this.rateTextOf(st),
        nextFundingTime: st.market.nextFundingTime,
      });
      this.queueTriggers(st);
      this.work.push(() => this.checkLiquidations(st));
    });
  }

  private rateTextOf(st: SymbolState): string {
    const r = st.market.fundingRate;
    if (st.rateText === undefined || st.rateText.of !== r) st.rateText = { of: r, text: formatDec(r) };
    return st.rateText.text;
  }

  setFundingRate(symbol: string, rate: string): void {
    this.run(() => {
      const st = this.sym(symbol);
      st.market.fundingRate = this.parseRate(rate);
    });
  }

  private parseRate(rate: string): Dec {
    if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(rate)) fail(ErrorCodes.INVALID_PARAMETER, `fundingRate must be a plain decimal string, got "${rate}"`, 'fundingRate');
    const d = new Dec(rate);
    if (d.abs().gt('0.05')) fail(ErrorCodes.INVALID_PARAMETER, `fundingRate must be within -0.05..0.05, got ${rate}`, 'fundingRate');
    return d;
  }

  /** Symbols whose scheduled funding time has come. */
  fundingDue(now: number): string[] {
    return [...this.symbols.values()].filter((s) => s.market.nextFundingTime <= now).map((s) => s.spec.name);
  }

  /**
   * Settles one funding round at mark price: each position pays Q * mark * rate (longs pay when
   * the rate is positive). Payments pass through the insurance fund, which also keeps the rounding.
   */
  settleFunding(symbol: string, rate?: string): void {
    this.run(() => {
      const st = this.sym(symbol);
      const r = rate === undefined ? st.market.fundingRate : this.parseRate(rate);
      if (rate !== undefined) st.market.fundingRate = r;
      const mark = this.markDec(st);
      const insurance = this.accounts.get(INSURANCE_ACCOUNT) as EngineAccount;
      for (const acct of this.holdersInOrder(st)) {
        for (const p of acct.positions.values()) {
          if (p.symbol !== st.spec) continue;
          const pay = pm.fundingPayment(st.spec.step.decOf(p.qty), mark, r).toDecimalPlaces(MONEY_DP, Dec.ROUND_HALF_EVEN);
          if (pay.isZero()) continue;
          p.fundingAccum = p.fundingAccum.minus(pay);
          this.changeWallet(acct, pay.negated(), 'FUNDING_FEE', `funding-${st.market.nextFundingTime}`, st.spec.name);
          insurance.wallet = insurance.wallet.plus(pay);
        }
      }
      const interval = st.spec.config.fundingIntervalMs;
      const now = this.clock.now();
      st.market.nextFundingTime = Math.max(st.market.nextFundingTime + interval, (Math.floor(now / interval) + 1) * interval);
      this.out.push({ kind: 'funding', symbol: st.spec.name, time: now, fundingRate: formatDec(r), markPrice: st.spec.tick.fromUnits(st.market.mark) });
      this.work.push(() => this.checkLiquidations(st));
    });
  }

  private holdersInOrder(st: SymbolState): EngineAccount[] {
    return [...st.holders].sort((a, b) => a.seq - b.seq);
  }

  /** A Dec as a float, cached by identity (Dec values are immutable; balances and costs change rarely). */
  private approx(d: Dec): number {
    let n = this.approxCache.get(d);
    if (n === undefined) {
      n = d.toNumber();
      this.approxCache.set(d, n);
    }
    return n;
  }

  /** Margin tiers of a symbol as floats, for the liquidation screen. */
  private floatTiers(spec: SymbolSpec): FloatTier[] {
    let t = this.floatTiersBySpec.get(spec);
    if (t === undefined) {
      t = spec.tiers.map((x) => ({ cap: x.maxNotional === undefined ? Infinity : x.maxNotional.toNumber(), mmr: x.mmr.toNumber(), amount: x.amount.toNumber() }));
      this.floatTiersBySpec.set(spec, t);
    }
    return t;
  }

  /**
   * Maintenance margin of a position of float notional `notional` (> 0), or NaN when the notional
   * is so close to a tier boundary that float rounding could pick another tier than the exact
   * figure does.
   */
  private approxMaintenance(spec: SymbolSpec, notional: number): number {
    for (const t of this.floatTiers(spec)) {
      if (Math.abs(notional - t.cap) <= SCREEN_TOLERANCE * t.cap) return NaN;
      if (notional <= t.cap) return Math.max(0, notional * t.mmr - t.amount);
    }
    const last = this.floatTiers(spec);
    const t = last[last.length - 1];
    return Math.max(0, notional * t.mmr - t.amount);
  }

  /**
   * The liquidation sweep's screen: false only when, in float arithmetic with a tolerance far above
   * its rounding error, every holder of the symbol keeps its equity clearly above maintenance, so
   * the exact (Decimal) check would liquidate nobody. Allocation-free; anything close, or any
   * figure float cannot place with certainty, goes to the exact check, so results never change.
   */
  private mayLiquidate(st: SymbolState): boolean {
    for (const acct of st.holders) {
      if (acct.userId === INSURANCE_ACCOUNT || this.marginExempt.has(acct.userId)) continue;
      const wallet = this.approx(acct.wallet);
      let equity = wallet;
      let scale = Math.abs(wallet);
      let mm = 0;
      let crossHere = false;
      for (const p of acct.positions.values()) {
        const spec = p.symbol;
        const qty = p.qty * spec.step.unitScaled / 10 ** spec.step.scale;
        const pst = this.symbols.get(spec.name) as SymbolState;
        const mark = pst.market.mark * spec.tick.unitScaled / 10 ** spec.tick.scale;
        const cost = this.approx(p.cost);
        const notional = Math.abs(qty) * mark;
        const m = notional === 0 ? 0 : this.approxMaintenance(spec, notional);
        if (Number.isNaN(m)) return true;
        if (p.marginMode === 'ISOLATED') {
          const iso = this.approx(p.isolatedMargin);
          equity -= iso;
          scale += Math.abs(iso);
          if (spec === st.spec) {
            const isoEquity = iso + qty * mark - cost;
            const isoScale = Math.abs(iso) + notional + Math.abs(cost) + m + 1;
            if (!(isoEquity - m > SCREEN_TOLERANCE * isoScale)) return true;
          }
          continue;
        }
        if (spec === st.spec) crossHere = true;
        equity += qty * mark - cost;
        mm += m;
        scale += 2 * notional + Math.abs(cost) + m;
      }
      if (crossHere && !(equity - mm > SCREEN_TOLERANCE * (scale + 1))) return true;
    }
    return false;
  }

  /** Liquidates every account on this symbol whose margin ratio reached 100 %. */
  private checkLiquidations(st: SymbolState): void {
    if (st.holders.size === 0 || !this.mayLiquidate(st)) return;
    for (const acct of this.holdersInOrder(st)) {
      if (acct.userId === INSURANCE_ACCOUNT || this.marginExempt.has(acct.userId)) continue;
      for (const p of [...acct.positions.values()]) {
        if (p.symbol !== st.spec || p.marginMode !== 'ISOLATED') continue;
        const q = st.spec.step.decOf(p.qty);
        const mark = this.markDec(st);
        const equity = p.isolatedMargin.plus(pm.unrealizedPnl(q, p.cost, mark));
        if (equity.lte(pm.maintenanceMargin(st.spec, q, mark))) this.liquidate(acct, [p], p.isolatedMargin);
      }
      const cross = [...acct.positions.values()].filter((p) => p.marginMode === 'CROSS');
      if (cross.length === 0 || !cross.some((p) => p.symbol === st.spec)) continue;
      const f = this.crossFigures(acct);
      const equity = acct.wallet.minus(f.isolated).plus(f.upnl);
      if (f.mm.gt(0) && equity.lte(f.mm)) this.liquidate(acct, cross, acct.wallet.minus(f.isolated));
    }
  }

  /**
   * Closes positions by liquidation: the account's orders on them are cancelled, a reduce-only
   * market order (placeType LIQUIDATION) takes what the book offers, and the insurance fund takes
   * over the rest at mark price. A loss beyond `margin` is covered by the insurance fund.
   */
  private liquidate(acct: EngineAccount, positions: EnginePosition[], margin: Dec): void {
    const walletBefore = acct.wallet;
    const symbols = new Set(positions.map((p) => p.symbol));
    for (const o of [...acct.openOrders.values()]) {
      if (symbols.has(o.symbol)) this.finish(o, 'CANCELED', 'CANCELED');
    }
    for (const p of positions) {
      const st = this.symbols.get(p.symbol.name) as SymbolState;
      const side: Side = p.qty > 0 ? 'SELL' : 'BUY';
      const qtyBefore = Math.abs(p.qty);
      this.out.push({ kind: 'liquidation', userId: acct.userId, symbol: st.spec.name, time: this.clock.now(), positionSide: p.positionSide, quantity: st.spec.step.fromUnits(qtyBefore), markPrice: st.spec.tick.fromUnits(st.market.mark) });
      const prepared = this.prepareOrder(acct, { symbol: st.spec.name, type: 'MARKET', side, positionSide: p.positionSide, closePosition: true, timeInForce: 'IOC' });
      this.commitOrder(prepared, { placeType: 'LIQUIDATION' });
      const left = Math.abs(this.positionQty(acct, st.spec.name, p.positionSide));
      if (left > 0) this.insuranceTakeover(acct, st, p.positionSide, side, left);
    }
    const loss = walletBefore.minus(acct.wallet);
    const cover = loss.minus(margin.isNegative() ? ZERO : margin);
    if (cover.gt(0) && acct.wallet.lt(walletBefore.minus(margin))) {
      const insurance = this.accounts.get(INSURANCE_ACCOUNT) as EngineAccount;
      insurance.wallet = insurance.wallet.minus(cover);
      this.changeWallet(acct, cover, 'LIQUIDATION', 'insurance-cover', [...symbols][0].name);
    }
  }

  /** The insurance fund takes the other side of what the book could not absorb, at mark price. */
  private insuranceTakeover(acct: EngineAccount, st: SymbolState, positionSide: PositionSide, side: Side, qty: number): void {
    const insurance = this.accounts.get(INSURANCE_ACCOUNT) as EngineAccount;
    const now = this.clock.now();
    const mk = (userId: string, s: Side, ps: PositionSide): EngineOrder => {
      const id = this.nextOrderId++;
      const o: EngineOrder = {
        id, userId, symbol: st.spec, side: s, positionSide: ps, type: 'MARKET', timeInForce: 'IOC', price: 0, qty, executed: 0,
        cumQuote: ZERO, status: 'NEW', reduceOnly: userId !== INSURANCE_ACCOUNT, makerOnly: false, closePosition: false, priceType: 0,
        placeType: 'LIQUIDATION', clientOrderId: `liq-${id}`, createdAt: now, updateTime: now, conditionId: 0, strategyId: 0,
        frozenPerStep: ZERO, frozen: ZERO,
      };
      this.ordersById.set(id, o);
      const a = this.accounts.get(userId) as EngineAccount;
      if (userId !== INSURANCE_ACCOUNT) a.orders.push(o);
      a.openOrders.set(id, o);
      a.openCountBySymbol.set(st.spec.name, (a.openCountBySymbol.get(st.spec.name) ?? 0) + 1);
      return o;
    };
    const taker = mk(acct.userId, side, positionSide);
    const maker = mk(insurance.userId, side === 'BUY' ? 'SELL' : 'BUY', 'BOTH');
    this.emitOrder(taker, 'NEW');
    this.trade(st, maker, taker, st.market.mark, qty);
  }

  // ---------------------------------------------------------------- market data

  depth(symbol: string, limit: number): { bids: Array<[string, string]>; asks: Array<[string, string]>; lastUpdateTime: number } {
    const st = this.sym(symbol);
    const f = (lv: Array<[number, number]>): Array<[string, string]> => lv.map(([p, q]) => [st.spec.tick.fromUnits(p), st.spec.step.fromUnits(q)]);
    return { bids: f(st.book.depth(BID, limit)), asks: f(st.book.depth(ASK, limit)), lastUpdateTime: this.clock.now() };
  }

  marketState(symbol: string): { markPrice: string; indexPrice: string; lastPrice: string; fundingRate: string; nextFundingTime: number; bestBid: string; bestAsk: string } {
    const st = this.sym(symbol);
    const t = st.spec.tick;
    const bb = st.book.bestPrice(BID);
    const ba = st.book.bestPrice(ASK);
    return {
      markPrice: t.fromUnits(st.market.mark),
      indexPrice: t.fromUnits(st.market.index),
      lastPrice: st.market.last === 0 ? '0' : t.fromUnits(st.market.last),
      fundingRate: formatDec(st.market.fundingRate),
      nextFundingTime: st.market.nextFundingTime,
      bestBid: bb === 0 ? '0' : t.fromUnits(bb),
      bestAsk: ba === 0 ? '0' : t.fromUnits(ba),
    };
  }

  // ---------------------------------------------------------------- audit (tests and admin)

  /**
   * Figures for the conservation invariants: across all accounts (the insurance fund included)
   * the sum of (wallet - signed cost basis) plus fees collected equals deposits, and positions
   * sum to zero per symbol.
   */
  audit(): { deposits: string; fees: string; walletsMinusCost: string; insurance: string; netQtyBySymbol: Record<string, number>; frozenMismatch: string[] } {
    let total = ZERO;
    const net: Record<string, number> = {};
    for (const st of this.symbols.values()) net[st.spec.name] = 0;
    const frozenMismatch: string[] = [];
    for (const a of this.accounts.values()) {
      total = total.plus(a.wallet);
      let frozen = ZERO;
      for (const o of a.openOrders.values()) frozen = frozen.plus(o.frozen);
      if (!frozen.eq(a.frozen)) frozenMismatch.push(a.userId);
      for (const p of a.positions.values()) {
        total = total.minus(p.cost);
        net[p.symbol.name] += p.qty;
      }
    }
    return {
      deposits: formatDec(this.deposits),
      fees: formatDec(this.feePool),
      walletsMinusCost: formatDec(total),
      insurance: formatDec((this.accounts.get(INSURANCE_ACCOUNT) as EngineAccount).wallet),
      netQtyBySymbol: net,
      frozenMismatch,
    };
  }

  // ---------------------------------------------------------------- snapshots (format in snapshot.ts)

  /** The whole state as plain data, for a snapshot. Call between commands. */
  exportState(): EngineSnapshot {
    const { symbols, accounts, ordersById, conditionsById, strategiesById } = this;
    return exportEngineState({ symbols, accounts, ordersById, conditionsById, strategiesById }, {
      nextOrderId: this.nextOrderId,
      nextConditionId: this.nextConditionId,
      nextStrategyId: this.nextStrategyId,
      nextTradeId: this.nextTradeId,
      nextFillId: this.nextFillId,
      accountSeq: this.accountSeq,
      feePool: this.feePool,
      deposits: this.deposits,
    });
  }

  /** Replaces the whole state with a snapshot's; the engine must have the snapshot's symbols. */
  importState(s: EngineSnapshot): void {
    const { symbols, accounts, ordersById, conditionsById, strategiesById } = this;
    const c = importEngineState({ symbols, accounts, ordersById, conditionsById, strategiesById }, s);
    this.nextOrderId = c.nextOrderId;
    this.nextConditionId = c.nextConditionId;
    this.nextStrategyId = c.nextStrategyId;
    this.nextTradeId = c.nextTradeId;
    this.nextFillId = c.nextFillId;
    this.accountSeq = c.accountSeq;
    this.feePool = c.feePool;
    this.deposits = c.deposits;
  }
}

type EngineAccountReason = ChangeType | 'ORDER' | 'MARGIN_MODE' | 'LEVERAGE';

export interface OrderHistoryFilter {
  symbol?: string;
  orderId?: string;
  clientOrderId?: string;
  type?: 'LIMIT' | 'MARKET';
  side?: Side;
  status?: OrderStatus;
  startTime?: number;
  endTime?: number;
  page?: number;
  pageSize?: number;
}

/** One page (1-based) of rows already in display order. */
function page<T, R>(rows: T[], pageNo: number | undefined, size: number | undefined, map: (t: T) => R): { list: R[]; total: number } {
  const p = pageNo ?? 1;
  const n = size ?? 20;
  return { list: rows.slice((p - 1) * n, p * n).map(map), total: rows.length };
}

/** A copy without the keys whose value is undefined (inputs treat absent and undefined alike). */
function stripUndefined<T extends object>(o: T): T {
  const out = {} as T;
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
