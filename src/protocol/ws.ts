/**
 * WebSocket messages (PROTOCOL.md section 5): private events on /v1/ws/private, and the
 * subscribe protocol and pushes of /v1/ws/public.
 */
import { CHANGE_TYPES, PUBLIC_TOPIC_KINDS, type ExecutionType, type PublicTopicKind, type RoleType } from '../core/enums';
import { ErrorCodes, VenueError } from '../core/errors';
import type { ConditionOrderRecord, OrderRecord, PositionRecord, StrategyOrderRecord, UserAssetRecord } from './records';
import type { MarkPriceData, PriceLevel, PublicTrade } from './rest/market';
import { FieldReader, KeySet, isPlainObject, jsonTypeOf } from './validate/fields';
import { ID } from './validate/rules';

export const PRIVATE_STREAM_PATH = '/v1/ws/private';
export const PUBLIC_STREAM_PATH = '/v1/ws/public';

// ---------------------------------------------------------------- private stream

/** Fill details, present when executionType is TRADE. */
export interface FillFields {
  tradeId: string;
  fillId: string;
  lastFilledQty: string;
  lastFilledPrice: string;
  roleType: RoleType;
  handlingFee: string;
  realizedPnl: string;
}

export type OrderTradeUpdateData = OrderRecord & { executionType: ExecutionType } & Partial<FillFields>;

/**
 * The order update of an order event: the record's fields, the execution type, and the fill's
 * fields for a TRADE, in that order (as `{ ...order, executionType, ...fill }` would lay them out).
 * Written field by field: that spread made the object through the generic slow path, about 4 us
 * an event (5 % of a market maker's backtest), where this takes tens of nanoseconds.
 */
export function orderUpdateOf(order: OrderRecord, executionType: ExecutionType, fill: FillFields | undefined): OrderTradeUpdateData {
  const u = orderOfUpdate(order) as OrderTradeUpdateData;
  u.executionType = executionType;
  if (fill !== undefined) {
    u.tradeId = fill.tradeId;
    u.fillId = fill.fillId;
    u.lastFilledQty = fill.lastFilledQty;
    u.lastFilledPrice = fill.lastFilledPrice;
    u.roleType = fill.roleType;
    u.handlingFee = fill.handlingFee;
    u.realizedPnl = fill.realizedPnl;
  }
  return u;
}

/**
 * The order record inside an order update, without the execution and fill fields (given a record,
 * a copy of it). Written field by field: an object-rest copy of the update was a measurable share
 * of a backtest's time per order event.
 */
export function orderOfUpdate(u: OrderRecord): OrderRecord {
  const o: OrderRecord = {
    orderId: u.orderId,
    clientOrderId: u.clientOrderId,
    symbol: u.symbol,
    side: u.side,
    positionSide: u.positionSide,
    type: u.type,
    timeInForce: u.timeInForce,
    price: u.price,
    quantity: u.quantity,
    executedQty: u.executedQty,
    avgPrice: u.avgPrice,
    cumQuote: u.cumQuote,
    status: u.status,
    reduceOnly: u.reduceOnly,
    makerOnly: u.makerOnly,
    closePosition: u.closePosition,
    priceType: u.priceType,
    placeType: u.placeType,
    createdAt: u.createdAt,
    updateTime: u.updateTime,
  };
  if (u.conditionId !== undefined) o.conditionId = u.conditionId;
  if (u.strategyId !== undefined) o.strategyId = u.strategyId;
  return o;
}

/**
 * Why an ACCOUNT_UPDATE was sent: a change-log reason, or ORDER (margin frozen or released by
 * placing, amending or cancelling), LEVERAGE and MARGIN_MODE (margin recomputed).
 */
export const ACCOUNT_UPDATE_REASONS = [...CHANGE_TYPES, 'ORDER', 'LEVERAGE', 'MARGIN_MODE'] as const;
export type AccountUpdateReason = (typeof ACCOUNT_UPDATE_REASONS)[number];

export interface AccountUpdateData {
  reason: AccountUpdateReason;
  userAsset: UserAssetRecord;
  /** The positions that changed (all of the user's open ones is also fine for a client). */
  positions: PositionRecord[];
}

export interface ListenKeyExpiredData {
  listenKey: string;
}

/** `data` of each private event kind. */
export interface PrivateEventDataMap {
  ORDER_TRADE_UPDATE: OrderTradeUpdateData;
  CONDITION_ORDER_UPDATE: ConditionOrderRecord;
  STRATEGY_ORDER_UPDATE: StrategyOrderRecord;
  ACCOUNT_UPDATE: AccountUpdateData;
  LISTEN_KEY_EXPIRED: ListenKeyExpiredData;
}

export type PrivateEventOf<K extends keyof PrivateEventDataMap> = {
  event: K;
  /** Epoch ms. */
  eventTime: number;
  /** 1, 2, 3 ... per connection: a jump means a message was lost. */
  seq: number;
  data: PrivateEventDataMap[K];
};

/** Discriminated on `event`. */
export type PrivateEvent = { [K in keyof PrivateEventDataMap]: PrivateEventOf<K> }[keyof PrivateEventDataMap];

// ---------------------------------------------------------------- public stream: client frames

export const PUBLIC_OPS = ['subscribe', 'unsubscribe'] as const;
export type PublicOp = (typeof PUBLIC_OPS)[number];

/** `kind:SYMBOL`, e.g. `depth:BTCUSDT`. */
export type PublicTopic = `${PublicTopicKind}:${string}`;

export interface PublicClientFrame {
  op: PublicOp;
  args: PublicTopic[];
}

/** Most topics one frame may name; more is refused so one frame cannot make unbounded work. */
export const PUBLIC_TOPICS_PER_FRAME_MAX = 50;
/** Frames longer than this are refused before JSON.parse. */
export const PUBLIC_FRAME_MAX_BYTES = 8192;

export interface ParsedTopic {
  kind: PublicTopicKind;
  symbol: string;
}

const TOPIC_RE = /^(trade|markPrice|depth|ticker):([A-Za-z0-9_-]{1,32})$/;

/** Splits a topic, or undefined when it is not `kind:SYMBOL` with a known kind. */
export function parseTopic(topic: string): ParsedTopic | undefined {
  const m = TOPIC_RE.exec(topic);
  return m === null ? undefined : { kind: m[1] as PublicTopicKind, symbol: m[2] as string };
}

export function topicOf(kind: PublicTopicKind, symbol: string): PublicTopic {
  return `${kind}:${symbol}`;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: VenueError };

const frameError = (code: 10001 | 10002 | 10004 | 10005, message: string, field?: string): ParseResult<never> => ({
  ok: false,
  error: new VenueError(code, message, field),
});

/**
 * Parses one text frame from a public-stream client. Never throws: whatever arrives (binary,
 * broken JSON, wrong shapes, huge frames) yields an error value the server can answer with.
 * Whether a symbol exists is for the server to check (10003).
 */
export function parsePublicClientFrame(raw: unknown): ParseResult<PublicClientFrame> {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else if (Buffer.isBuffer(raw)) text = raw.length > PUBLIC_FRAME_MAX_BYTES ? '' : raw.toString('utf8');
  else return frameError(ErrorCodes.BODY_NOT_OBJECT, `frame must be JSON text, got ${jsonTypeOf(raw)}`);
  // Measured in UTF-16 units for strings: close enough to bytes for a guard against huge frames.
  if (text.length > PUBLIC_FRAME_MAX_BYTES || (Buffer.isBuffer(raw) && raw.length > PUBLIC_FRAME_MAX_BYTES)) {
    return frameError(ErrorCodes.INVALID_PARAMETER, `frame must be at most ${PUBLIC_FRAME_MAX_BYTES} bytes long`);
  }
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return frameError(ErrorCodes.BODY_NOT_OBJECT, 'frame is not valid JSON');
  }
  return validatePublicClientMessage(msg);
}

/** The same checks on an already decoded message. */
export function validatePublicClientMessage(msg: unknown): ParseResult<PublicClientFrame> {
  if (!isPlainObject(msg)) return frameError(ErrorCodes.BODY_NOT_OBJECT, `frame must be a JSON object, got ${jsonTypeOf(msg)}`);
  for (const k of Object.keys(msg)) {
    if (k !== 'op' && k !== 'args') return frameError(ErrorCodes.INVALID_PARAMETER, `unknown field '${k}'; accepted fields are: op, args`, k);
  }
  const op = msg.op;
  if (op === undefined) return frameError(ErrorCodes.MISSING_PARAMETER, 'op is required (one of subscribe, unsubscribe)', 'op');
  if (typeof op !== 'string') return frameError(ErrorCodes.INVALID_PARAMETER, `op must be a string, got ${jsonTypeOf(op)}`, 'op');
  if (op !== 'subscribe' && op !== 'unsubscribe') {
    return frameError(ErrorCodes.INVALID_ENUM, `op must be one of ${PUBLIC_OPS.join(', ')}; got ${JSON.stringify(op)}`, 'op');
  }
  const args = msg.args;
  if (args === undefined) return frameError(ErrorCodes.MISSING_PARAMETER, 'args is required (an array of topics)', 'args');
  if (!Array.isArray(args)) return frameError(ErrorCodes.INVALID_PARAMETER, `args must be an array of topics, got ${jsonTypeOf(args)}`, 'args');
  if (args.length === 0) return frameError(ErrorCodes.INVALID_PARAMETER, 'args must name at least one topic', 'args');
  if (args.length > PUBLIC_TOPICS_PER_FRAME_MAX) {
    return frameError(ErrorCodes.INVALID_PARAMETER, `args must name at most ${PUBLIC_TOPICS_PER_FRAME_MAX} topics, got ${args.length}`, 'args');
  }
  const topics: PublicTopic[] = [];
  for (let i = 0; i < args.length; i++) {
    const t: unknown = args[i];
    const f = `args[${i}]`;
    if (typeof t !== 'string') return frameError(ErrorCodes.INVALID_PARAMETER, `${f} must be a topic string, got ${jsonTypeOf(t)}`, f);
    if (parseTopic(t) === undefined) {
      return frameError(
        ErrorCodes.INVALID_PARAMETER,
        `${f} must be "<kind>:<symbol>" with kind one of ${PUBLIC_TOPIC_KINDS.join(', ')}; got ${JSON.stringify(t.slice(0, 64))}`,
        f,
      );
    }
    topics.push(t as PublicTopic);
  }
  return { ok: true, value: { op, args: topics } };
}

// ---------------------------------------------------------------- public stream: server frames

export interface PublicAck {
  op: PublicOp;
  success: true;
  args: PublicTopic[];
}

/** Answer to a frame that could not be honoured; the connection stays open. */
export interface PublicNack {
  /** Absent when the frame was too broken to tell. */
  op?: PublicOp;
  success: false;
  code: number;
  message: string;
  args?: string[];
}

export type TradePushData = PublicTrade;

export type MarkPricePushData = MarkPriceData;

/** Full top-20 snapshot each push; best level first on both sides. */
export interface DepthPushData {
  bids: PriceLevel[];
  asks: PriceLevel[];
}

/** Rolling 24 hours. */
export interface TickerPushData {
  lastPrice: string;
  markPrice: string;
  high: string;
  low: string;
  volume: string;
  quoteVolume: string;
  /** Percent, e.g. "-1.25" for -1.25 %. */
  priceChangePercent: string;
  openPrice: string;
  bestBid: string;
  bestAsk: string;
}

export const DEPTH_PUSH_LEVELS = 20;

export interface PublicPushDataMap {
  trade: TradePushData;
  markPrice: MarkPricePushData;
  depth: DepthPushData;
  ticker: TickerPushData;
}

export type PublicPushOf<K extends PublicTopicKind> = {
  event: K;
  symbol: string;
  eventTime: number;
  data: PublicPushDataMap[K];
};

/** Discriminated on `event`. */
export type PublicPush = { [K in PublicTopicKind]: PublicPushOf<K> }[PublicTopicKind];

export type PublicServerMessage = PublicAck | PublicNack | PublicPush;

/** Tells an ack or nack (has `success`) from a push (has `event`) in a client. */
export function isPublicAck(msg: PublicServerMessage): msg is PublicAck | PublicNack {
  return 'success' in msg;
}

// ---------------------------------------------------------------- shallow guards for clients

const PRIVATE_KINDS: ReadonlySet<string> = new Set(['ORDER_TRADE_UPDATE', 'CONDITION_ORDER_UPDATE', 'STRATEGY_ORDER_UPDATE', 'ACCOUNT_UPDATE', 'LISTEN_KEY_EXPIRED']);
const PUSH_KINDS: ReadonlySet<string> = new Set(PUBLIC_TOPIC_KINDS);

const isMs = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Checks the frame around a private event (kind, eventTime, seq, data object); the records inside
 * come from our own server and are trusted by shape. Never throws.
 */
export function parsePrivateEvent(text: string): ParseResult<PrivateEvent> {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return frameError(ErrorCodes.BODY_NOT_OBJECT, 'private event is not valid JSON');
  }
  if (!isPlainObject(m)) return frameError(ErrorCodes.BODY_NOT_OBJECT, `private event must be a JSON object, got ${jsonTypeOf(m)}`);
  if (typeof m.event !== 'string' || !PRIVATE_KINDS.has(m.event)) {
    return frameError(ErrorCodes.INVALID_ENUM, `private event kind must be one of ${[...PRIVATE_KINDS].join(', ')}; got ${JSON.stringify(m.event)}`, 'event');
  }
  if (!isMs(m.eventTime)) return frameError(ErrorCodes.INVALID_PARAMETER, 'eventTime must be epoch milliseconds', 'eventTime');
  if (!isMs(m.seq) || m.seq < 1) return frameError(ErrorCodes.INVALID_PARAMETER, 'seq must be an integer from 1', 'seq');
  if (!isPlainObject(m.data)) return frameError(ErrorCodes.INVALID_PARAMETER, `data must be an object, got ${jsonTypeOf(m.data)}`, 'data');
  return { ok: true, value: m as unknown as PrivateEvent };
}

/** Same for what the public stream sends: an ack/nack or a push of a known kind. Never throws. */
export function parsePublicServerMessage(text: string): ParseResult<PublicServerMessage> {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return frameError(ErrorCodes.BODY_NOT_OBJECT, 'public message is not valid JSON');
  }
  if (!isPlainObject(m)) return frameError(ErrorCodes.BODY_NOT_OBJECT, `public message must be a JSON object, got ${jsonTypeOf(m)}`);
  if (typeof m.success === 'boolean') return { ok: true, value: m as unknown as PublicAck | PublicNack };
  if (typeof m.event !== 'string' || !PUSH_KINDS.has(m.event)) {
    return frameError(ErrorCodes.INVALID_ENUM, `push event must be one of ${PUBLIC_TOPIC_KINDS.join(', ')}; got ${JSON.stringify(m.event)}`, 'event');
  }
  if (typeof m.symbol !== 'string') return frameError(ErrorCodes.INVALID_PARAMETER, 'symbol must be a string', 'symbol');
  if (!isMs(m.eventTime)) return frameError(ErrorCodes.INVALID_PARAMETER, 'eventTime must be epoch milliseconds', 'eventTime');
  if (!isPlainObject(m.data)) return frameError(ErrorCodes.INVALID_PARAMETER, `data must be an object, got ${jsonTypeOf(m.data)}`, 'data');
  return { ok: true, value: m as unknown as PublicPush };
}

const PRIVATE_STREAM_KEYS = new KeySet(['listenKey']);

/** Query of the private stream upgrade; a missing or malformed key is refused like an unknown one (401). */
export function validatePrivateStreamQuery(input: unknown): { listenKey: string } {
  const r = FieldReader.query(input, PRIVATE_STREAM_KEYS);
  return { listenKey: r.reqString('listenKey', ID) };
}
