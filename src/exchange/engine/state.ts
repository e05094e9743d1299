/**
 * The engine's shared state: the indexes every bounded context reads (symbols, accounts, orders,
 * conditions, strategy orders), the id counters, the event queue and the follow-up work queue,
 * and the few lookups all of them use. No context logic lives here.
 *
 * Contexts never call upwards: an order that changed, a market that moved or a position that
 * changed is signalled through `follow` (wired by the facade, engine.ts), and the context that
 * cares (condition orders, strategy orders, liquidation) reacts.
 */
import type { Clock } from '../../core/clock';
import { Dec } from '../../core/decimal';
import { exOfDec, type Exact } from '../../core/exact';
import type { ChangeType, ConditionStatus, ExecutionType, MarginMode, OrderStatus } from '../../core/enums';
import { FINAL_ORDER_STATUSES } from '../../core/enums';
import { ErrorCodes, VenueError, type ErrorCode } from '../../core/errors';
import { OrderBook } from './book/order-book';
import { OrderStore } from './order-store';
import type { OrderRecord } from '../../protocol/records';
import type { EngineEvent } from './events';
import type { FillFields } from '../../protocol/ws';
import type { EngineAccount, EngineCondition, EngineOrder, EngineStrategy, MarketState } from './model';
import { conditionRecord, orderRecord, strategyRecord } from './records';
import type { SymbolSpec } from './symbols';

export const ZERO = new Dec(0);
export const DEFAULT_LEVERAGE = 20;
/** Id of the system account that takes over what liquidation orders could not close in the book. */
export const INSURANCE_ACCOUNT = 'insurance';

export interface SymbolState {
  spec: SymbolSpec;
  book: OrderBook;
  market: MarketState;
  /** Waiting condition orders in creation order. */
  conditions: EngineCondition[];
  /** Accounts holding a position on this symbol, for funding and liquidation sweeps. */
  holders: Set<EngineAccount>;
  /** `market.fundingRate` formatted, and the Dec it was formatted from (every mark event carries it). */
  rateText?: { of: Dec; text: string };
  /** `market.fundingRate` as an exact decimal, and the Dec it was made from. */
  rateExact?: { of: Dec; ex: Exact };
}

export type EngineAccountReason = ChangeType | 'ORDER' | 'MARGIN_MODE' | 'LEVERAGE';

/** What a context signals to the contexts above it; the facade wires these. */
export interface FollowUps {
  /**
   * An order or condition that belongs to this strategy order changed; `amended`: an order of it
   * was amended (the detail shows its price and quantity): an update is due though no status moved.
   */
  strategyTouched(strategyId: number, amended?: boolean): void;
  /** A condition fired and placed this order. */
  conditionTriggered(c: EngineCondition, orderId: number): void;
  /** The book, last or mark price of a symbol changed: waiting conditions may fire. */
  marketMoved(st: SymbolState): void;
  /** A position of this account on this symbol changed (a fill). */
  positionChanged(acct: EngineAccount, st: SymbolState): void;
  /** Mark price or funding moved: margins may have fallen below maintenance. */
  marginMoved(st: SymbolState): void;
  /**
   * An order's matching is finished (its fills and those of the makers it met): the accounts whose
   * positions the fills changed (`EngineState.traded`) may be past their liquidation price at mark.
   */
  traded(): void;
}

/**
 * Refuses a command: a VenueError with the code, message and field the caller is answered with.
 * A refusal is an answer, not a fault: its message says what was wrong, and the engine's stack
 * would say nothing more. So none is captured (a backtest meets hundreds of refusals a run, each
 * deep in the replay's calls, and capturing the stack was most of their cost).
 */
export function fail(code: ErrorCode, message: string, field?: string): never {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const err = new VenueError(code, message, field);
  Error.stackTraceLimit = limit;
  throw err;
}

export const isFinal = (s: OrderStatus): boolean => FINAL_ORDER_STATUSES.has(s);
export const conditionFinal = (s: ConditionStatus): boolean => s !== 'NEW';
/** Position keys made once per symbol and side: a key built per lookup was a new string to hash each time. */
const POS_KEYS = new Map<string, Map<string, string>>();
/** Key of an account's position map: `${symbol}:${side}`. */
export function posKey(symbol: string, side: string): string {
  let bySide = POS_KEYS.get(symbol);
  if (bySide === undefined) {
    bySide = new Map();
    POS_KEYS.set(symbol, bySide);
  }
  let k = bySide.get(side);
  if (k === undefined) {
    k = `${symbol}:${side}`;
    bySide.set(side, k);
  }
  return k;
}

/**
 * The owner's hook around an order the engine places itself that may take liquidity (a triggered
 * condition's order, a strategy order's sub-order): a replay's `l2` book mode puts the recorded
 * levels it may reach into the book first and takes them out after, as around a participant's
 * own taking order (engine/market/tape.ts `beforeTaker`, `afterTaker`). `limit` undefined: MARKET.
 */
export interface TakingHook {
  before(symbol: string, side: 'BUY' | 'SELL', limit: string | undefined, quantity: string): void;
  after(): void;
}

/** An account update owed at the end of a command: the reason of the first touch, the symbols in order. */
export interface Touch {
  acct: EngineAccount;
  reason: EngineAccountReason;
  symbols: string[];
}

/**
 * The accounts a command touched, in the order first touched (a command touches one to a few).
 * Entries are reused from command to command and found by a scan: a Map cleared at the end of
 * every command made V8 keep each cleared table, and what it held, alive in the young generation
 * until the next full collection (core/id-map.ts says why).
 */
export class TouchedAccounts {
  private readonly entries: Touch[] = [];
  private n = 0;

  get size(): number {
    return this.n;
  }

  add(acct: EngineAccount, reason: EngineAccountReason, symbol: string): void {
    let t: Touch | undefined;
    for (let i = 0; i < this.n; i++) {
      if (this.entries[i].acct === acct) {
        t = this.entries[i];
        break;
      }
    }
    if (t === undefined) {
      t = this.entries[this.n];
      if (t === undefined) {
        t = { acct, reason, symbols: [] };
        this.entries.push(t);
      } else {
        t.acct = acct;
        t.reason = reason;
        t.symbols.length = 0;
      }
      this.n++;
    }
    if (!t.symbols.includes(symbol)) t.symbols.push(symbol);
  }

  /** The touches of this command; read them before `clear`. */
  at(i: number): Touch {
    return this.entries[i];
  }

  clear(): void {
    this.n = 0;
  }
}

/**
 * The accounts whose position on a symbol changed in fills not yet checked for liquidation, with
 * the symbol, in the order first noted (an order's taker, then the makers it met). The
 * liquidation check (liquidation/liquidation.ts `checkTraded`) goes through them after each
 * matched order, and through those the liquidations it makes add while it runs. The insurance
 * fund and margin-exempt users are never noted. Arrays reused from order to order, as
 * TouchedAccounts's entries are.
 */
export class TradedAccounts {
  private readonly accts: EngineAccount[] = [];
  private readonly syms: SymbolState[] = [];
  /** Entries before it were checked. */
  private next = 0;

  /** True when an account waits for its check. */
  get pending(): boolean {
    return this.next < this.accts.length;
  }

  add(acct: EngineAccount, st: SymbolState): void {
    const accts = this.accts;
    const from = this.next;
    // The first waiting entry is mostly the order's taker, noted again with every fill.
    if (from < accts.length && accts[from] === acct && this.syms[from] === st) return;
    for (let i = accts.length - 1; i > from; i--) if (accts[i] === acct && this.syms[i] === st) return;
    accts.push(acct);
    this.syms.push(st);
  }

  /** The entry `take` handed out last. */
  acct: EngineAccount | undefined = undefined;
  st: SymbolState | undefined = undefined;

  /**
   * Hands out the next waiting entry (in `acct` and `st`), counted as checked from now: a later
   * fill of that account is noted again. False when none waits; the lists are empty again then.
   */
  take(): boolean {
    if (this.next === this.accts.length) {
      this.clear();
      return false;
    }
    const i = this.next++;
    this.acct = this.accts[i];
    this.st = this.syms[i];
    return true;
  }

  /** Drops every entry. */
  clear(): void {
    this.accts.length = 0;
    this.syms.length = 0;
    this.next = 0;
    this.acct = undefined;
    this.st = undefined;
  }
}

export class EngineState {
  readonly symbols = new Map<string, SymbolState>();
  readonly accounts = new Map<string, EngineAccount>();
  readonly ordersById = new OrderStore();
  readonly conditionsById = new Map<number, EngineCondition>();
  readonly strategiesById = new Map<number, EngineStrategy>();
  nextOrderId = 1;
  nextConditionId = 1;
  nextStrategyId = 1;
  nextTradeId = 1;
  nextFillId = 1;
  accountSeq = 0;
  /** Trading fees collected, money units (conservation audit). */
  feePool = 0n;
  /** Deposits minus withdrawals over all accounts, money units (conservation audit). */
  deposits = 0n;
  out: EngineEvent[] = [];
  /** Follow-up work of the current command (triggers, strategies, liquidation checks). */
  readonly work: Array<() => void> = [];
  /** Accounts whose update event is due at the end of the command, with the reason and symbols. */
  readonly touched = new TouchedAccounts();
  /** Accounts whose positions fills changed, waiting for the liquidation check of the order that matched. */
  readonly traded = new TradedAccounts();
  readonly muted = new Set<string>();
  privateFilter: ((userId: string) => boolean) | undefined;
  readonly forgetful = new Set<string>();
  private lastEmitted: EngineOrder | undefined;
  private lastEmittedRecord: OrderRecord | undefined;
  readonly marginExempt = new Set<string>();
  /** Around the orders the engine places itself (see TakingHook); none by default. */
  taking: TakingHook | undefined = undefined;
  follow: FollowUps = {
    strategyTouched: () => undefined,
    conditionTriggered: () => undefined,
    marketMoved: () => undefined,
    positionChanged: () => undefined,
    marginMoved: () => undefined,
    traded: () => this.traded.clear(),
  };

  constructor(readonly clock: Clock) {}

  /** Adds a symbol at its configured mark price, funding rate and the next funding time from now. */
  addSymbol(spec: SymbolSpec): void {
    const cfg = spec.config;
    const mark = spec.tick.toUnits(cfg.markPrice);
    if (mark === undefined || mark <= 0) throw new RangeError(`${cfg.symbol}: markPrice ${cfg.markPrice} must be a positive multiple of tickSize`);
    const interval = cfg.fundingIntervalMs;
    const nextFundingTime = (Math.floor(this.clock.now() / interval) + 1) * interval;
    this.symbols.set(spec.name, {
      spec,
      book: new OrderBook(),
      market: { mark, index: mark, last: 0, fundingRate: new Dec(cfg.fundingRate), nextFundingTime },
      conditions: [],
      holders: new Set(),
    });
  }

  sym(name: string, field = 'symbol'): SymbolState {
    const st = this.symbols.get(name);
    if (!st) fail(ErrorCodes.UNKNOWN_SYMBOL, `unknown symbol '${name}'; known symbols: ${[...this.symbols.keys()].join(', ')}`, field);
    return st;
  }

  /** The symbol state of a spec the engine holds. */
  stateOf(spec: SymbolSpec): SymbolState {
    return this.symbols.get(spec.name) as SymbolState;
  }

  acct(userId: string): EngineAccount {
    const a = this.accounts.get(userId);
    if (!a || userId === INSURANCE_ACCOUNT) fail(ErrorCodes.NOT_AUTHENTICATED, `no account for user '${userId}'`);
    return a;
  }

  /** The account of an order, condition or holder the engine already holds. */
  owner(userId: string): EngineAccount {
    return this.accounts.get(userId) as EngineAccount;
  }

  settingsOf(acct: EngineAccount, symbol: string): { leverage: number; marginMode: MarginMode } {
    let s = acct.settings.get(symbol);
    if (!s) {
      s = { leverage: Math.min(DEFAULT_LEVERAGE, this.sym(symbol).spec.maxLeverage), marginMode: 'CROSS' };
      acct.settings.set(symbol, s);
    }
    return s;
  }

  /** Holders of a position on the symbol, in account creation order (deterministic sweeps). */
  holdersInOrder(st: SymbolState): EngineAccount[] {
    return [...st.holders].sort((a, b) => a.seq - b.seq);
  }

  markDec(st: SymbolState): Dec {
    return st.spec.tick.decOf(st.market.mark);
  }

  markExact(st: SymbolState): Exact {
    return st.spec.tick.exactOf(st.market.mark);
  }

  /** The symbol's funding rate as an exact decimal (parsed once per rate). */
  rateExact(st: SymbolState): Exact {
    let r = st.rateExact;
    if (r === undefined || r.of !== st.market.fundingRate) {
      r = { of: st.market.fundingRate, ex: exOfDec(st.market.fundingRate) };
      st.rateExact = r;
    }
    return r.ex;
  }

  wantsPrivate(userId: string): boolean {
    return !this.muted.has(userId) && (this.privateFilter === undefined || this.privateFilter(userId));
  }

  /** Marks an account for an update event at the end of the command. */
  touch(acct: EngineAccount, reason: EngineAccountReason, symbol: string): void {
    if (acct.userId === INSURANCE_ACCOUNT || !this.wantsPrivate(acct.userId)) return;
    this.touched.add(acct, reason, symbol);
  }

  /** Whether `emitOrder` makes events for this user's orders (so whether a fill's texts are needed). */
  emitsOrders(userId: string): boolean {
    // The insurance fund is the venue's own book-keeping, not a user with a stream.
    return userId !== INSURANCE_ACCOUNT && !this.muted.has(userId);
  }

  emitOrder(o: EngineOrder, executionType: ExecutionType, fill?: FillFields): void {
    if (!this.emitsOrders(o.userId)) return;
    const rec = orderRecord(o);
    this.lastEmitted = o;
    this.lastEmittedRecord = rec;
    const ev: EngineEvent = { kind: 'order', userId: o.userId, time: this.clock.now(), executionType, order: rec };
    if (fill) ev.fill = fill;
    this.out.push(ev);
  }

  /**
   * The order's record now. Every change of a field a record shows is followed by an event of
   * that order (matching, amends, reduce-only cuts, liquidation), so when the last order event
   * made was this order's, its record is current and is handed out again (records are never
   * changed once made) rather than formatted a second time for the command's answer.
   */
  recordOf(o: EngineOrder): OrderRecord {
    return this.lastEmitted === o && this.lastEmittedRecord !== undefined ? this.lastEmittedRecord : orderRecord(o);
  }

  emitCondition(c: EngineCondition): void {
    if (!this.wantsPrivate(c.userId)) return;
    this.out.push({ kind: 'condition', userId: c.userId, time: this.clock.now(), record: conditionRecord(c) });
  }

  /**
   * An order the engine placed itself was refused (events.ts `refused`): emitted whoever listens,
   * as it is rare and the local exchange logs it (a muted tape account's excepted).
   */
  emitRefused(e: Omit<Extract<EngineEvent, { kind: 'refused' }>, 'kind' | 'time'>): void {
    if (this.muted.has(e.userId)) return;
    this.out.push({ kind: 'refused', time: this.clock.now(), ...e });
  }

  emitStrategy(s: EngineStrategy): void {
    if (!this.wantsPrivate(s.userId)) return;
    this.out.push({ kind: 'strategy', userId: s.userId, time: this.clock.now(), record: strategyRecord(s, (id) => this.ordersById.get(id)) });
  }
}

/** One page (1-based) of rows already in display order. */
export function page<T, R>(rows: T[], pageNo: number | undefined, size: number | undefined, map: (t: T) => R): { list: R[]; total: number } {
  const p = pageNo ?? 1;
  const n = size ?? 20;
  return { list: rows.slice((p - 1) * n, p * n).map(map), total: rows.length };
}

/** The records of the entries `keep` accepts, newest first: one page of them and how many there are. */
export function pageOf<T>(log: { length: number; at(i: number): T }, keep: (i: number) => boolean, pageNo: number | undefined, size: number | undefined): { list: T[]; total: number } {
  const hits: number[] = [];
  for (let i = log.length - 1; i >= 0; i--) if (keep(i)) hits.push(i);
  return page(hits, pageNo, size, (i) => log.at(i));
}
