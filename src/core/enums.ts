/**
 * Every enumeration of SERVICE_SPEC.md and PROTOCOL.md as an `as const` tuple (for validators and
 * iteration) and a literal union type (for the compiler).
 */
export const ORDER_TYPES = ['LIMIT', 'MARKET'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const CONDITION_TYPES = ['STOP_MARKET', 'TAKE_PROFIT_MARKET', 'STOP_LIMIT', 'TAKE_PROFIT_LIMIT', 'TRAILING_STOP'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const SIDES = ['BUY', 'SELL'] as const;
export type Side = (typeof SIDES)[number];

export const POSITION_SIDES = ['BOTH', 'LONG', 'SHORT'] as const;
export type PositionSide = (typeof POSITION_SIDES)[number];

export const TIME_IN_FORCE = ['GTC', 'IOC', 'FOK'] as const;
export type TimeInForce = (typeof TIME_IN_FORCE)[number];

export const CONDITION_TIME_IN_FORCE = ['GTC', 'IOC', 'FOK', 'GTE_GTC'] as const;
export type ConditionTimeInForce = (typeof CONDITION_TIME_IN_FORCE)[number];

export const WORKING_TYPES = ['MARK_PRICE', 'CONTRACT_PRICE'] as const;
export type WorkingType = (typeof WORKING_TYPES)[number];

/** 0 specified price, 1 opponent price 1, 2 opponent price 5, 3 same-side price 1, 4 same-side price 5. */
export const PRICE_TYPES = [0, 1, 2, 3, 4] as const;
export type PriceType = (typeof PRICE_TYPES)[number];

export const STRATEGY_TYPES = ['OTOCO', 'OTO', 'OCO'] as const;
export type StrategyType = (typeof STRATEGY_TYPES)[number];

export const STRATEGY_STATUSES = ['WORKING', 'ALL_DONE', 'CANCELLED'] as const;
export type StrategyStatus = (typeof STRATEGY_STATUSES)[number];

/** 0 all normal orders, 1 limit orders only, 2 all condition orders. */
export const CANCEL_TYPES = [0, 1, 2] as const;
export type CancelType = (typeof CANCEL_TYPES)[number];

/** Margin mode as an int32 in requests and settings: 1 cross, 2 isolated. */
export const MARGIN_MODE_CODES = [1, 2] as const;
export type MarginModeCode = (typeof MARGIN_MODE_CODES)[number];

/** Margin mode as a string in position records. */
export const MARGIN_MODES = ['CROSS', 'ISOLATED'] as const;
export type MarginMode = (typeof MARGIN_MODES)[number];

export const marginModeFromCode = (c: MarginModeCode): MarginMode => (c === 1 ? 'CROSS' : 'ISOLATED');
export const marginModeToCode = (m: MarginMode): MarginModeCode => (m === 'CROSS' ? 1 : 2);

/** History filter `type`: 1 limit, 2 market. */
export const HISTORY_TYPE_FILTERS = [1, 2] as const;
export type HistoryTypeFilter = (typeof HISTORY_TYPE_FILTERS)[number];

/** History filter `side`: 1 buy, 2 sell. */
export const HISTORY_SIDE_FILTERS = [1, 2] as const;
export type HistorySideFilter = (typeof HISTORY_SIDE_FILTERS)[number];

export const POSITION_HISTORY_SIDES = ['long', 'short'] as const;
export type PositionHistorySide = (typeof POSITION_HISTORY_SIDES)[number];

export const ROLE_TYPES = ['maker', 'taker'] as const;
export type RoleType = (typeof ROLE_TYPES)[number];

export const LEADERBOARD_PERIODS = ['7d', '30d', '90d'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];

export const BALANCE_HISTORY_PERIODS = ['1D', '1W', '1M'] as const;
export type BalanceHistoryPeriod = (typeof BALANCE_HISTORY_PERIODS)[number];

export const OVERVIEW_TYPES = ['1D', '1W', '1M', '3M', '6M', '1Y'] as const;
export type OverviewType = (typeof OVERVIEW_TYPES)[number];

export const ORDER_STATUSES = ['NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED', 'EXPIRED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const FINAL_ORDER_STATUSES: ReadonlySet<OrderStatus> = new Set(['FILLED', 'CANCELED', 'REJECTED', 'EXPIRED']);
/** Numeric history filter: 1 NEW ... 6 EXPIRED. */
export const orderStatusFromCode = (n: number): OrderStatus | undefined => ORDER_STATUSES[n - 1];

export const CONDITION_STATUSES = ['NEW', 'TRIGGERED', 'CANCELED', 'EXPIRED', 'REJECTED'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];
export const conditionStatusFromCode = (n: number): ConditionStatus | undefined => CONDITION_STATUSES[n - 1];

export const DRIVEN_ON = ['NEW', 'PARTIALLY_FILLED_OR_FILLED', 'FILLED', 'CANCELED', 'REJECTED', 'EXPIRED'] as const;
export type DrivenOn = (typeof DRIVEN_ON)[number];

export const TRIGGER_ACTIONS = ['PLACE_ORDER', 'CANCEL_ORDER'] as const;
export type TriggerAction = (typeof TRIGGER_ACTIONS)[number];

/** Status of a strategy sub-order: an order status, or PENDING while it waits for its driver. */
export const SUB_ORDER_STATUSES = ['PENDING', ...ORDER_STATUSES, 'TRIGGERED'] as const;
export type SubOrderStatus = (typeof SUB_ORDER_STATUSES)[number];

export const EXECUTION_TYPES = ['NEW', 'TRADE', 'CANCELED', 'AMENDED', 'EXPIRED', 'REJECTED'] as const;
export type ExecutionType = (typeof EXECUTION_TYPES)[number];

export const PRIVATE_EVENT_KINDS = [
  'ORDER_TRADE_UPDATE',
  'CONDITION_ORDER_UPDATE',
  'STRATEGY_ORDER_UPDATE',
  'ACCOUNT_UPDATE',
  'LISTEN_KEY_EXPIRED',
] as const;
export type PrivateEventKind = (typeof PRIVATE_EVENT_KINDS)[number];

export const PUBLIC_TOPIC_KINDS = ['trade', 'markPrice', 'depth', 'ticker'] as const;
export type PublicTopicKind = (typeof PUBLIC_TOPIC_KINDS)[number];

export const PERMISSIONS = ['READ', 'TRADE'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const POSITION_MODES = ['ONE_WAY', 'HEDGE'] as const;
export type PositionMode = (typeof POSITION_MODES)[number];

/** Reasons for account change log entries and ACCOUNT_UPDATE events. */
export const CHANGE_TYPES = ['DEPOSIT', 'TRADE_FEE', 'REALIZED_PNL', 'FUNDING_FEE', 'LIQUIDATION', 'ISOLATED_MARGIN'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export const KLINE_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type KlineInterval = (typeof KLINE_INTERVALS)[number];
