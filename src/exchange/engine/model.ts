/**
 * Internal state of the engine. Prices are integer ticks and quantities integer steps of the
 * symbol's grid; money is integer money units (bigint, 10^-8 USDT, exact), except rates (the
 * funding rate, margin per step). Wire records are made from these on demand (records.ts).
 */
import type {
  ConditionStatus,
  ConditionTimeInForce,
  ConditionType,
  DrivenOn,
  MarginMode,
  OrderStatus,
  OrderType,
  PositionMode,
  PositionSide,
  PriceType,
  Side,
  StrategyStatus,
  StrategyType,
  SubOrderStatus,
  TimeInForce,
  TriggerAction,
  WorkingType,
} from '../../core/enums';
import type { Dec } from '../../core/decimal';
import { EX_ZERO } from '../../core/exact';
import type { NumberList } from '../../core/columns';
import type { IdMap } from '../../core/id-map';
import type { ChurnMap } from '../../core/churn-map';
import type { MarginRate } from './accounts/margin-rate';
import type { ChangeLog, TradeLog } from './accounts/history';
import type { ClosedPositions } from './positions/closed-positions';
import type { StrategySubOrderInput } from './inputs';
import type { SymbolSpec } from './symbols';

/**
 * An order, open or ended. A class, and every order the engine makes is made with `new` (matching,
 * liquidation, snapshots), never as an object literal: V8 decides for each object literal in the
 * code whether to allocate its objects straight in the old generation ("allocation-site
 * pretenuring"), from how many of them outlived a young collection. A burst of orders that all
 * stay (a ladder of quotes, the engine bench's 1,000 resting orders) could switch the order
 * literal to old-generation allocation for the life of the process: every order, most of which
 * end within moments, then a full collection's work. On `npm run bench -- engine`'s place+cancel
 * driver with client order ids the literal's orders were 250-320 of the bytes an operation that
 * left the young generation, in some runs and not others; made with `new`, never (a class has no
 * such site), and ~1.27x the operations a second. `new EngineOrder()` has every field, in this
 * order, so all orders share one shape.
 */
export class EngineOrder {
  id = 0;
  userId = '';
  symbol!: SymbolSpec;
  side: Side = 'BUY';
  positionSide: PositionSide = 'BOTH';
  type: OrderType = 'LIMIT';
  timeInForce: TimeInForce = 'GTC';
  /** Limit price in ticks; 0 for MARKET. */
  price = 0;
  qty = 0;
  executed = 0;
  /** Sum of price x quantity of the fills, in money units. */
  cumQuote = 0n;
  status: OrderStatus = 'NEW';
  reduceOnly = false;
  makerOnly = false;
  closePosition = false;
  priceType: PriceType = 0;
  placeType = '';
  clientOrderId = '';
  createdAt = 0;
  updateTime = 0;
  conditionId = 0;
  strategyId = 0;
  /** Margin frozen per remaining step (0 for orders that only reduce). */
  frozenPerStep: MarginRate = EX_ZERO;
  /** Margin frozen now = frozenPerStep * remaining resting qty, rounded up, in money units (10^-8 USDT). */
  frozen = 0n;

  /** A new object with the fields of `o` (an order read from columns or a snapshot). */
  static from(o: EngineOrder): EngineOrder {
    return Object.assign(new EngineOrder(), o);
  }
}

/**
 * The refusal of an order the engine placed itself (a fired condition's, a strategy sub-order's):
 * the code and message a user placing it would have got. The wire records have no field for it
 * (PROTOCOL.md section 3); the engine's `refused` event carries it, and the local exchange logs it.
 */
export interface Refusal {
  code: number;
  message: string;
}

export interface EngineCondition {
  id: number;
  userId: string;
  symbol: SymbolSpec;
  type: ConditionType;
  side: Side;
  positionSide: PositionSide;
  /** Steps; 0 with closePosition. */
  qty: number;
  /** Limit price in ticks for *_LIMIT types, else 0. */
  price: number;
  /** Trigger price in ticks; 0 for TRAILING_STOP. */
  stopPrice: number;
  workingType: WorkingType;
  priceProtect: boolean;
  /** Trailing activation price in ticks; 0 when not given. */
  activatePrice: number;
  /** Trailing callback rate in percent, as given. */
  callbackRate: string;
  timeInForce: ConditionTimeInForce;
  reduceOnly: boolean;
  closePosition: boolean;
  status: ConditionStatus;
  clientOrderId: string;
  triggeredOrderId: number;
  triggerTime: number;
  createdAt: number;
  updateTime: number;
  strategyId: number;
  /** Trailing state: activated, and the best price seen since activation (ticks). */
  trailActive: boolean;
  trailExtreme: number;
  /** Why its order was refused when it fired (REJECTED, or EXPIRED with nothing to close); only then. */
  refusal?: Refusal;
}

export interface EngineSubOrder {
  subId: number;
  kind: 'order' | 'condition';
  type: OrderType | ConditionType;
  side: Side;
  positionSide: PositionSide;
  price: number;
  qty: number;
  stopPrice: number;
  workingType: WorkingType;
  priceProtect: boolean;
  activatePrice: number;
  callbackRate: string;
  timeInForce: ConditionTimeInForce;
  reduceOnly: boolean;
  makerOnly: boolean;
  closePosition: boolean;
  clientOrderId: string;
  firstDrivenId: number;
  firstDrivenOn: DrivenOn | '';
  firstTrigger: TriggerAction | '';
  secondDrivenId: number;
  secondDrivenOn: DrivenOn | '';
  secondTrigger: TriggerAction | '';
  status: SubOrderStatus;
  orderId: number;
  conditionId: number;
  /** The sub-order as requested, placed when its driver fires. */
  input: StrategySubOrderInput;
  /** Every status the sub-order has reached, so a driver never misses a passing state. */
  reached: Set<string>;
  firstFired: boolean;
  secondFired: boolean;
  /** Why the sub-order could not be placed when its driver fired (REJECTED); only then. */
  refusal?: Refusal;
}

export interface EngineStrategy {
  id: number;
  userId: string;
  symbol: SymbolSpec;
  type: StrategyType;
  status: StrategyStatus;
  subs: EngineSubOrder[];
  bookTime: number;
  updateTime: number;
}

/** A position. Every money field is in money units (bigint, 10^-8 USDT), exact. */
export interface EnginePosition {
  symbol: SymbolSpec;
  positionSide: PositionSide;
  /** Signed quantity in steps: positive long, negative short (hedge SHORT is negative too). */
  qty: number;
  /** Signed cost basis: sum of price * quantity of the open inventory (buys positive). */
  cost: bigint;
  /** Fees paid on the trades that built the open inventory (released pro rata on reduce). */
  openFees: bigint;
  /** Isolated margin held by the position; zero in cross mode. */
  isolatedMargin: bigint;
  marginMode: MarginMode;
  /** Funding received (negative: paid) while the position was open. */
  fundingAccum: bigint;
  /** Realized PnL net of trading fees over the position's life. */
  realizedAccum: bigint;
  maxAbsQty: number;
  /** Sum of price*qty of the closing trades, to report the average close price. */
  closeQuote: bigint;
  closeQty: number;
  /** Sum of price*qty and of qty of every opening trade, for the lifetime average entry. */
  openQuote: bigint;
  openQty: number;
  /** Sign of the position while open: 1 long, -1 short. */
  lastDirection: number;
  openedAt: number;
}

export interface SymbolSettings {
  leverage: number;
  marginMode: MarginMode;
}

export interface EngineAccount {
  userId: string;
  /** Creation order: deterministic iteration key. */
  seq: number;
  positionMode: PositionMode;
  /** Wallet balance in money units (10^-8 USDT). */
  wallet: bigint;
  /** Margin frozen by open orders in money units: always the sum of their `frozen`. */
  frozen: bigint;
  settings: Map<string, SymbolSettings>;
  /** Key `${symbol}:${positionSide}`. */
  positions: Map<string, EnginePosition>;
  /** In placement order; an IdMap, not a Map (core/id-map.ts: entries come and go with every order). */
  openOrders: IdMap<EngineOrder>;
  /** Open normal orders per symbol, for the per-symbol limit without a scan. */
  openCountBySymbol: Map<string, number>;
  /** Open orders that only reduce a position, rechecked when the position changes. */
  reducingOpen: Set<EngineOrder>;
  /** clientOrderId -> id, for orders that are not final and whose id the user gave (orders/client-ids.ts `liveOrderIdOf`). */
  liveClientIds: ChurnMap<string, number>;
  /** clientOrderId -> latest order id with it, final or not; engine-made ids only where needed (orders/client-ids.ts). */
  lastClientIds: Map<string, number>;
  /** Ids of the account's orders, open and final, in creation order (the order history). */
  orders: NumberList;
  conditions: EngineCondition[];
  strategies: EngineStrategy[];
  /** Fills and balance changes, in columns (accounts/history.ts). */
  trades: TradeLog;
  changes: ChangeLog;
  /** Closed positions, in columns (positions/closed-positions.ts). */
  positionHistory: ClosedPositions;
  /** Deposits minus withdrawals in money units: the principal, for overview and leaderboard figures. */
  transferIn: bigint;
}

export interface MarketState {
  mark: number;
  index: number;
  /** Last trade price in ticks; 0 before the first trade. */
  last: number;
  fundingRate: Dec;
  nextFundingTime: number;
}
