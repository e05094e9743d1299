/**
 * The exchange engine: a pure, deterministic state machine. Commands, market ticks and the
 * injected clock go in; events come out through `drain()`. No I/O, no wall clock, no randomness:
 * the same commands at the same clock readings give the same events, byte for byte.
 *
 * Prices are integer ticks and quantities integer steps inside; money is integer money units
 * (bigint, 10^-8 USDT; docs/engine.md). Validation
 * happens before any mutation, so a command that throws a VenueError has changed nothing.
 *
 * This file is the facade: it builds the bounded contexts over one shared state (state.ts),
 * wires their follow-up signals, frames each command (frame.ts: follow-up work and account updates run
 * when the outermost command ends) and exposes the public API. The logic lives in the contexts:
 *
 *   accounts/     ledger (accounts, deposits, wallet movements, frozen margin), margin figures
 *   positions/    applying fills to positions, position records, leverage and margin mode
 *   orders/       intake (validation), matching and fills, commands (place/cancel/amend), queries,
 *                 and the order-status transition table
 *   conditions/   condition orders and when they fire
 *   strategies/   strategy orders (OTO, OCO, OTOCO)
 *   funding/      funding rates and settlement
 *   liquidation/  the liquidation sweep and the insurance fund
 *   market/       mark price, depth and the market summary
 *
 * Imports point down that list's dependency order: orders never import conditions or strategy
 * orders, conditions never import strategy orders; they signal follow-ups through `state.follow`.
 */
import type { Clock } from '../../core/clock';
import { Dec } from '../../core/decimal';
import { formatUnits, unitsOfDec } from '../../core/money-units';
import type { ConditionStatus, OrderStatus, Side } from '../../core/enums';
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
import type { BatchResult } from '../../protocol/rest/common';
import { Ledger, type EngineAudit } from './accounts/ledger';
import type { ChangeLog, TradeLog } from './accounts/history';
import { Margin } from './accounts/margin';
import { ConditionFiring } from './conditions/firing';
import { Conditions } from './conditions/conditions';
import type { EngineEvent } from './events';
import { Funding } from './funding/funding';
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
} from './inputs';
import { Liquidation } from './liquidation/liquidation';
import { Market } from './market/market';
import { QuoteOrders } from './market/quote-orders';
import { OrderCommands } from './orders/commands';
import { Matching } from './orders/matching';
import { OrderIntake } from './orders/prepare';
import { OrderQueries, type OrderHistoryFilter, type RestingOrder } from './orders/queries';
import { Positions } from './positions/positions';
import { PositionViews } from './positions/views';
import { exportEngineState, importEngineState, type EngineSnapshot } from './snapshot';
import { CommandFrame } from './frame';
import { conditionRecord } from './records';
import { INSURANCE_ACCOUNT, EngineState, type TakingHook } from './state';
import { indexEveryClientId } from './orders/client-ids';
import { StrategyOrders } from './strategies/strategy-orders';
import { SymbolSpec, type SymbolConfig } from './symbols';

export { INSURANCE_ACCOUNT } from './state';
export { MAX_OPEN_ORDERS_PER_SYMBOL } from './orders/prepare';
export { MAX_OPEN_CONDITIONS_PER_SYMBOL } from './conditions/conditions';
export type { OrderHistoryFilter } from './orders/queries';

export interface EngineOptions {
  symbols: readonly SymbolConfig[];
  clock: Clock;
  /** Initial balance of the insurance fund. */
  insuranceFund?: string;
}

export class Engine {
  private readonly s: EngineState;
  private readonly margin: Margin;
  private readonly ledger: Ledger;
  private readonly positionViews: PositionViews;
  private readonly orders: OrderCommands;
  private readonly orderQueries: OrderQueries;
  private readonly conditions: Conditions;
  private readonly strategies: StrategyOrders;
  private readonly funding: Funding;
  private readonly market: Market;
  /** A replay tape's quotes in ticks and steps, by order id: the same outcome as placeOrderStatus and cancelOrderQuiet (market/quote-orders.ts). */
  readonly tapeQuotes: QuoteOrders;
  private readonly frames: CommandFrame;

  constructor(opts: EngineOptions) {
    const s = (this.s = new EngineState(opts.clock));
    for (const cfg of opts.symbols) s.addSymbol(new SymbolSpec(cfg));
    this.margin = new Margin(s);
    this.ledger = new Ledger(s, this.margin);
    const positions = new Positions(s);
    this.positionViews = new PositionViews(s, this.margin);
    const intake = new OrderIntake(s, this.margin, positions);
    const matching = new Matching(s, this.ledger, positions, (spec) => intake.memoOf(spec));
    this.orderQueries = new OrderQueries(s);
    this.orders = new OrderCommands(s, intake, matching, this.orderQueries, this.ledger, this.margin, positions);
    this.conditions = new Conditions(s, positions);
    const firing = new ConditionFiring(s, intake, matching);
    this.strategies = new StrategyOrders(s, positions, intake, matching, this.conditions);
    this.funding = new Funding(s, this.ledger);
    this.market = new Market(s);
    this.frames = new CommandFrame(s, () => this.tapeQuotes.settle(), () => this.positionViews.flushAccountUpdates());
    this.tapeQuotes = new QuoteOrders(s, intake, matching, (fn) => this.frames.frame(fn));
    const liquidation = new Liquidation(s, this.ledger, this.margin, positions, intake, matching);
    s.follow = {
      strategyTouched: (id, amended) => this.strategies.queue(id, amended),
      conditionTriggered: (c, orderId) => this.strategies.conditionTriggered(c, orderId),
      marketMoved: (st) => firing.queue(st),
      positionChanged: (acct, st) => this.conditions.positionChanged(acct, st),
      marginMoved: (st) => s.work.push(() => liquidation.check(st)),
      traded: () => liquidation.checkTraded(),
    };
    const insurance = this.ledger.newAccount(INSURANCE_ACCOUNT, 'ONE_WAY');
    const fund = unitsOfDec(new Dec(opts.insuranceFund ?? '0'));
    insurance.wallet = fund;
    s.deposits = fund;
  }

  // ---------------------------------------------------------------- events and command framing

  /** Events emitted since the last drain, in order. */
  drain(): EngineEvent[] {
    const e = this.s.out;
    this.s.out = [];
    return e;
  }

  /** Events waiting for `drain()`: lets a pump skip a quiet step without allocating. */
  get pendingEvents(): number {
    return this.s.out.length;
  }

  /** Runs a command in the frame (frame.ts): follow-up work and account updates run before it answers. */
  private run<T>(fn: () => T): T {
    return this.frames.run(fn);
  }

  /**
   * Stops the private events of a user nobody listens to (a backtest's tape accounts): building
   * them is most of what a tape order costs. State, queries and public trades are unaffected.
   */
  muteEvents(userId: string): void {
    this.s.muted.add(userId);
  }

  /** Around the orders the engine places itself (state.ts `TakingHook`): a replay's l2 book walks its levels for them. */
  setTakingHook(hook: TakingHook | undefined): void {
    this.s.taking = hook;
  }

  /**
   * Whose account, condition and strategy-order events are wanted (the local exchange: users with
   * a private stream open; a stream carries live events only). Those of others are not built: an
   * account update is the dearest part of an order. Order events always come out (market data).
   */
  setPrivateEventFilter(wanted: (userId: string) => boolean): void {
    this.s.privateFilter = wanted;
  }

  /**
   * No margin check or freeze for this user's orders, and no liquidation: a replay's tape accounts
   * stand for the rest of the market. Fills, positions and funding settle as for anyone.
   */
  exemptFromMargin(userId: string): void {
    this.s.marginExempt.add(userId);
  }

  /**
   * The user's orders are dropped once final (queries answer ORDER_NOT_FOUND): for a replay's tape,
   * whose orders would grow memory with the recording. Trades and account changes are kept.
   */
  forgetFinalOrders(userId: string): void {
    // From now on the account's client id index is kept whole (orders/client-ids.ts).
    const acct = this.s.accounts.get(userId);
    if (acct) indexEveryClientId(this.s, acct);
    this.s.forgetful.add(userId);
  }

  symbolSpecs(): SymbolSpec[] {
    return [...this.s.symbols.values()].map((x) => x.spec);
  }

  // ---------------------------------------------------------------- accounts

  hasAccount(userId: string): boolean {
    return userId !== INSURANCE_ACCOUNT && this.s.accounts.has(userId);
  }

  /** Creates an account with an opening deposit (admin). */
  createAccount(input: CreateAccountInput): void {
    this.run(() => this.ledger.createAccount(input.userId, input.balance, input.positionMode ?? 'ONE_WAY'));
  }

  /** Adds (or with a negative amount, withdraws) funds (admin). */
  deposit(userId: string, amount: string): void {
    this.run(() => this.ledger.deposit(userId, amount));
  }

  asset(userId: string): UserAssetRecord {
    return this.margin.assetOf(this.s.acct(userId));
  }

  /**
   * The wallet and unrealized PnL fields of `asset()`, identical to them, without working out
   * margins (for an equity curve sampled often).
   */
  equityParts(userId: string): { walletBalance: string; unrealizedPnl: string } {
    return this.margin.equityParts(this.s.acct(userId));
  }

  accountChanges(userId: string, f: { assetType?: string; changeType?: string; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: AccountChangeRecord[]; total: number } {
    return this.ledger.accountChanges(userId, f);
  }

  /** Read-only history of an account, for the statistics endpoints (volume, overview, leaderboard). */
  accountData(userId: string): { trades: TradeLog; changes: ChangeLog; transferIn: string; wallet: string } {
    const acct = this.s.acct(userId);
    return { trades: acct.trades, changes: acct.changes, transferIn: formatUnits(acct.transferIn), wallet: formatUnits(acct.wallet) };
  }

  /** Ids of all user accounts, in creation order. */
  userIds(): string[] {
    return [...this.s.accounts.values()].filter((a) => a.userId !== INSURANCE_ACCOUNT).map((a) => a.userId);
  }

  // ---------------------------------------------------------------- normal orders

  /** Places a normal order for a user. */
  placeOrder(userId: string, input: PlaceOrderInput): OrderRecord {
    return this.run(() => this.orders.place(userId, input));
  }

  /** Places up to 20 orders; one bad order never fails the others. */
  batchPlace(userId: string, inputs: PlaceOrderInput[]): BatchResult {
    return this.run(() => this.orders.batchPlace(userId, inputs));
  }

  queryOrder(userId: string, ref: OrderRef): OrderRecord {
    this.tapeQuotes.settle();
    return this.orderQueries.queryOrder(userId, ref);
  }

  /** Status and executed quantity of an order, as `queryOrder` has them, without the whole record. */
  orderProgress(userId: string, ref: OrderRef): { status: OrderStatus; executedQty: string } {
    this.tapeQuotes.settle();
    return this.orderQueries.orderProgress(userId, ref);
  }

  /** Resting orders on one side priced at `limitTicks` or better, best first (the tape's queue model reads them). */
  restingThrough(symbol: string, side: Side, limitTicks: number, exactly = false): RestingOrder[] {
    return this.orderQueries.restingThrough(symbol, side, limitTicks, exactly);
  }

  /** Changes whenever the symbol's resting orders do (never to a number it had): `restingThrough` answers alike until then. */
  bookVersion(symbol: string): number {
    return this.s.sym(symbol).book.version;
  }

  cancelOrder(userId: string, ref: OrderRef): OrderRecord {
    return this.run(() => this.orders.cancel(userId, ref));
  }

  /** `placeOrder` answering only the order's status, no record formatted (the replay tape reads nothing else). */
  placeOrderStatus(userId: string, input: PlaceOrderInput): OrderStatus {
    return this.run(() => this.orders.placeStatus(userId, input));
  }

  /** `cancelOrder` without an answer, no record formatted (the replay tape). */
  cancelOrderQuiet(userId: string, ref: OrderRef): void {
    this.run(() => this.orders.cancelQuiet(userId, ref));
  }

  batchCancel(userId: string, refs: OrderRef[]): BatchResult {
    return this.run(() => this.orders.batchCancel(userId, refs));
  }

  /**
   * Amends price and total quantity. A pure quantity decrease keeps queue priority; any price
   * change or increase goes to the back of the queue, and a new price that crosses trades at once
   * (a makerOnly order refuses such an amend).
   */
  moveOrder(userId: string, input: MoveOrderInput): OrderRecord {
    return this.run(() => this.orders.move(userId, input));
  }

  batchMove(userId: string, symbol: string, inputs: Array<Omit<MoveOrderInput, 'symbol'>>): BatchResult {
    return this.run(() => this.orders.batchMove(userId, symbol, inputs));
  }

  /**
   * Cancel-all by cancelType: 0 all normal orders, 1 limit orders only, 2 all condition orders.
   * The server acknowledges at once; the engine finishes the work in the same step.
   */
  cancelAll(userId: string, input: CancelAllInput): { canceled: number } {
    return this.run(() => {
      const acct = this.s.acct(userId);
      if (input.symbol !== undefined) this.s.sym(input.symbol);
      const type = input.cancelType ?? 0;
      const canceled = type === 2 ? this.conditions.cancelAll(acct, input.symbol) : this.orders.cancelAll(acct, input.symbol, type === 1);
      return { canceled };
    });
  }

  /** Open orders, ascending by id, after the `lastOrderId` cursor. */
  currentOrders(userId: string, q: { symbol?: string; limit?: number; lastOrderId?: number }): { list: OrderRecord[]; total: number } {
    this.tapeQuotes.settle();
    return this.orderQueries.currentOrders(userId, q);
  }

  /** Every order of the user, newest first, filtered. */
  orderHistory(userId: string, f: OrderHistoryFilter): { list: OrderRecord[]; total: number } {
    this.tapeQuotes.settle();
    return this.orderQueries.orderHistory(userId, f);
  }

  tradeHistory(userId: string, f: { symbol?: string; orderId?: string; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: TradeRecord[]; total: number } {
    return this.orderQueries.tradeHistory(userId, f);
  }

  // ---------------------------------------------------------------- condition and strategy orders

  /** Answers the condition as the command left it: one whose trigger is met fired in it (TRIGGERED). */
  placeCondition(userId: string, input: PlaceConditionInput): ConditionOrderRecord {
    return conditionRecord(this.run(() => this.conditions.place(userId, input)));
  }

  cancelCondition(userId: string, symbol: string, conditionId: string): ConditionOrderRecord {
    return this.run(() => this.conditions.cancel(userId, symbol, conditionId));
  }

  currentConditions(userId: string, symbol: string | undefined): { list: ConditionOrderRecord[]; total: number } {
    return this.conditions.current(userId, symbol);
  }

  conditionHistory(userId: string, f: { symbol?: string; side?: Side; status?: ConditionStatus; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: ConditionOrderRecord[]; total: number } {
    return this.conditions.history(userId, f);
  }

  /** Answers the strategy order as the command left it, once its sub-orders were driven (ALL_DONE if all ended). */
  placeStrategy(userId: string, input: PlaceStrategyInput): StrategyOrderRecord {
    return this.strategies.recordOf(this.run(() => this.strategies.place(userId, input)));
  }

  strategy(userId: string, strategyId: string): StrategyOrderRecord {
    return this.strategies.get(userId, strategyId);
  }

  // ---------------------------------------------------------------- positions, leverage, margin mode

  setLeverage(userId: string, input: SetLeverageInput): { symbol: string; leverage: number; timestamp: number } {
    return this.run(() => this.positionViews.setLeverage(userId, input, (acct, spec) => this.orders.refreezeAtLeverage(acct, spec)));
  }

  setMarginMode(userId: string, input: SetMarginModeInput): { symbol: string; marginMode: 1 | 2; timestamp: number } {
    return this.run(() => this.positionViews.setMarginMode(userId, input));
  }

  positionSettings(userId: string, symbol: string): PositionSettingsRecord {
    return this.positionViews.positionSettings(userId, symbol);
  }

  /**
   * The user's signed net position on `symbol` in base units (long minus short), without
   * building position records (which work out margin, liquidation price and the rest).
   */
  netQuantity(userId: string, symbol: string): string {
    return this.positionViews.netQuantity(userId, symbol);
  }

  positions(userId: string, symbol?: string): PositionRecord[] {
    return this.positionViews.positions(userId, symbol);
  }

  positionHistory(userId: string, f: { symbol?: string; side?: 'long' | 'short'; startTime?: number; endTime?: number; page?: number; pageSize?: number }): { list: PositionHistoryRecord[]; total: number } {
    return this.positionViews.positionHistory(userId, f);
  }

  // ---------------------------------------------------------------- market: mark price, funding

  /** Sets mark (and index) price, then runs triggers, trailing stops and liquidation checks. */
  setMarkPrice(symbol: string, markPrice: string, indexPrice?: string): void {
    this.run(() => this.market.setMarkPrice(symbol, markPrice, indexPrice));
  }

  /** A recorded trade of the rest of the market that reached no order here (market/market.ts): moves the last price, fires what it triggers. */
  marketTrade(symbol: string, price: string, quantity: string, side: Side): void {
    // With no condition waiting on the symbol, nothing reads the move before the next command,
    // which settles the deferred tape quotes itself: one per recorded trade would undo the deferral.
    if (!this.market.conditionsWait(symbol)) this.market.marketTrade(symbol, price, quantity, side);
    else this.run(() => this.market.marketTrade(symbol, price, quantity, side));
  }

  setFundingRate(symbol: string, rate: string): void {
    this.run(() => this.funding.setRate(symbol, rate));
  }

  /** Symbols whose scheduled funding time has come. */
  fundingDue(now: number): string[] {
    return this.funding.due(now);
  }

  /**
   * Settles one funding round at mark price: each position pays Q * mark * rate (longs pay when
   * the rate is positive). Payments pass through the insurance fund, which also keeps the rounding.
   * Answers the rate settled at and the round's funding time (funding/funding.ts).
   */
  settleFunding(symbol: string, rate?: string): { fundingRate: string; fundingTime: number } {
    return this.run(() => this.funding.settle(symbol, rate));
  }

  depth(symbol: string, limit: number): { bids: Array<[string, string]>; asks: Array<[string, string]>; lastUpdateTime: number } {
    this.tapeQuotes.settle();
    return this.market.depth(symbol, limit);
  }

  marketState(symbol: string): { markPrice: string; indexPrice: string; lastPrice: string; fundingRate: string; nextFundingTime: number; bestBid: string; bestAsk: string } {
    this.tapeQuotes.settle();
    return this.market.marketState(symbol);
  }

  // ---------------------------------------------------------------- audit (tests and admin)

  /** Figures for the conservation invariants (see Ledger.audit). */
  audit(): EngineAudit {
    this.tapeQuotes.settle();
    return this.ledger.audit();
  }

  // ---------------------------------------------------------------- snapshots (format in snapshot.ts)

  /** The whole state as plain data, for a snapshot. Call between commands. */
  exportState(): EngineSnapshot {
    this.tapeQuotes.settle();
    const s = this.s;
    return exportEngineState(s, {
      nextOrderId: s.nextOrderId,
      nextConditionId: s.nextConditionId,
      nextStrategyId: s.nextStrategyId,
      nextTradeId: s.nextTradeId,
      nextFillId: s.nextFillId,
      accountSeq: s.accountSeq,
      feePool: s.feePool,
      deposits: s.deposits,
    });
  }

  /** Replaces the whole state with a snapshot's; the engine must have the snapshot's symbols. */
  importState(snap: EngineSnapshot): void {
    this.tapeQuotes.discard();
    const s = this.s;
    const c = importEngineState(s, snap);
    s.nextOrderId = c.nextOrderId;
    s.nextConditionId = c.nextConditionId;
    s.nextStrategyId = c.nextStrategyId;
    s.nextTradeId = c.nextTradeId;
    s.nextFillId = c.nextFillId;
    s.accountSeq = c.accountSeq;
    s.feePool = c.feePool;
    s.deposits = c.deposits;
  }
}
