/**
 * What the dashboard's server sends its page: the wire types of `/api/snapshot` and the
 * `/api/stream` server-sent events. The page (web/dashboard) compiles against this file too, so it
 * imports nothing: it must typecheck in a browser project without Node's types.
 *
 * Numbers of money and size stay decimal strings, as everywhere on the wire.
 */

/** Kinds of entries in the event journal; `equity` entries feed the chart, not the list. */
export const DASH_EVENT_KINDS = ['fill', 'denial', 'rejection', 'riskState', 'reconciled', 'stream', 'strategyError', 'strategyStopped', 'botError', 'positionMismatch', 'action', 'equity'] as const;
export type DashEventKind = (typeof DASH_EVENT_KINDS)[number];

export interface FillPoint {
  time: number;
  strategyId: string | undefined;
  symbol: string;
  side: 'BUY' | 'SELL';
  price: string;
  quantity: string;
  fee: string;
  realizedPnl: string;
  role: 'maker' | 'taker';
  orderId: string;
}

export interface EquityPoint {
  time: number;
  equity: string;
  pnl: string;
}

/** One entry of the journal: replayed by id to a page that reconnects. */
export interface DashEvent {
  /** `<epoch>:<seq>`: the epoch changes when the daemon restarts, so old ids are recognised. */
  id: string;
  time: number;
  kind: DashEventKind;
  level: 'info' | 'warn' | 'error';
  strategyId: string | undefined;
  /** Denial code, venue error code, risk state, stream status... depending on the kind. */
  code: string | undefined;
  text: string;
  fill?: FillPoint;
  equity?: EquityPoint;
}

export interface StrategyView {
  id: string;
  /** The strategy's name (`market-maker`) as its definition gives it. */
  strategy: string;
  /** halted: the strategy said it stopped trading for good (ctx.halt); it still runs. */
  status: 'running' | 'paused' | 'stopped' | 'halted';
  /** Why it is paused or stopped. */
  statusReason: string | undefined;
  params: Record<string, unknown>;
  fills: number;
  /** Sum of fill notionals, USDT. */
  volume: string;
  realizedPnl: string;
  fees: string;
  /** Realized PnL minus fees since the bot started. */
  netPnl: string;
  /** Net quantity its fills added, per symbol, since start. */
  position: Record<string, string>;
  errors: number;
  lastError: string | undefined;
  denials: Record<string, number>;
  rejections: Record<string, number>;
  openOrders: number;
}

/** A position as the daemon reports it (on /status too: runtime/status.ts uses this type). */
export interface PositionView {
  symbol: string;
  positionSide: string;
  quantity: string;
  entryPrice: string;
  markPrice: string | undefined;
  unrealizedPnl: string;
  /** The venue's liquidation price ('0' or '' when it gives none). */
  liqPrice: string;
  leverage: number;
}

export interface OrderView {
  clientOrderId: string;
  strategyId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  price: string;
  quantity: string;
  executedQty: string;
  state: string;
  orderId: string;
  tag: string | undefined;
  sentAt: number;
}

export interface StreamView {
  status: string;
  detail: string;
  since: number;
}

/** The part of the state that is sent whole, often (it is small). */
export interface LiveState {
  phase: string;
  state: 'ACTIVE' | 'REDUCING' | 'HALTED';
  stateReason: string;
  streams: { private: StreamView | undefined; public: StreamView | undefined };
  startedAt: number;
  now: number;
  equity: string | undefined;
  pnl: string | undefined;
  exposure: string;
  fills: number;
  strategies: StrategyView[];
  positions: PositionView[];
  orders: OrderView[];
  counters: { events: number; intents: number; denials: number; rejections: number; fills: number; reconnects: number; reconciles: number; errors: number };
}

export interface Snapshot {
  bot: { name: string; venue: string; auth: 'token' | 'none' };
  /** Id of the last journal entry included: the stream resumes after it. */
  lastId: string;
  live: LiveState;
  /** The latest journal entries other than equity, oldest first. */
  events: DashEvent[];
  equity: EquityPoint[];
  fills: FillPoint[];
}

export interface ActionResult {
  ok: true;
  action: string;
  strategyId?: string;
  status?: string;
  cancelled?: number;
  state?: string;
}

export interface ApiError {
  error: string;
  code?: string;
}

/** One user's open position, as the local exchange's page lists them (GET /ui/api/positions). */
export interface UserPositionRow {
  username: string;
  userId: string;
  symbol: string;
  positionSide: string;
  quantity: string;
  entryPrice: string;
  markPrice: string;
  unrealizedPnl: string;
  liqPrice: string;
  leverage: number;
}
