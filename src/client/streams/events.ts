/** Runtime validation of stream messages: the frame (src/protocol/ws.ts), then `data` by kind. */
import { ROLE_TYPES, SIDES } from '../../core/enums';
import {
  ACCOUNT_UPDATE_REASONS,
  parsePrivateEvent,
  parsePublicServerMessage,
  type PrivateEvent,
  type PublicServerMessage,
} from '../../protocol/ws';
import { positionRecord, userAssetRecord, conditionRecord, executionType, orderRecord, strategyRecord } from '../validate/records';
import { arr, dec, decOrEmpty, extend, ms, nonEmptyStr, obj, oneOf, str, tuple2, SchemaError, type Schema } from '../validate/schema';

const fill = obj({
  tradeId: nonEmptyStr,
  fillId: nonEmptyStr,
  lastFilledQty: dec,
  lastFilledPrice: dec,
  roleType: oneOf(ROLE_TYPES),
  handlingFee: dec,
  realizedPnl: dec,
});

const orderUpdate = extend(orderRecord, obj({ executionType }));

const PRIVATE_DATA: Record<PrivateEvent['event'], Schema<unknown>> = {
  ORDER_TRADE_UPDATE: (v, p) => {
    const d = orderUpdate(v, p);
    if (d.executionType === 'TRADE') fill(v, p);
    return d;
  },
  CONDITION_ORDER_UPDATE: conditionRecord,
  STRATEGY_ORDER_UPDATE: strategyRecord,
  ACCOUNT_UPDATE: obj({ reason: oneOf(ACCOUNT_UPDATE_REASONS), userAsset: userAssetRecord, positions: arr(positionRecord) }),
  LISTEN_KEY_EXPIRED: obj({ listenKey: str }),
};

const level = tuple2(dec, dec);
const PUBLIC_DATA: Record<string, Schema<unknown>> = {
  trade: obj({ tradeId: nonEmptyStr, price: dec, quantity: dec, side: oneOf(SIDES), time: ms }),
  markPrice: obj({ markPrice: dec, indexPrice: dec, fundingRate: dec, nextFundingTime: ms }),
  depth: obj({ bids: arr(level), asks: arr(level) }),
  ticker: obj({
    lastPrice: decOrEmpty,
    markPrice: decOrEmpty,
    high: decOrEmpty,
    low: decOrEmpty,
    volume: decOrEmpty,
    quoteVolume: decOrEmpty,
    priceChangePercent: decOrEmpty,
    openPrice: decOrEmpty,
    bestBid: decOrEmpty,
    bestAsk: decOrEmpty,
  }),
};

export type Decoded<T> = { ok: true; value: T } | { ok: false; field: string; problem: string };

export function decodePrivateEvent(text: string): Decoded<PrivateEvent> {
  const r = parsePrivateEvent(text);
  if (!r.ok) return { ok: false, field: r.error.field ?? 'frame', problem: r.error.message };
  try {
    (PRIVATE_DATA[r.value.event] as Schema<unknown>)(r.value.data, 'data');
  } catch (err) {
    if (err instanceof SchemaError) return { ok: false, field: err.path, problem: `${r.value.event}: ${err.message}` };
    throw err;
  }
  return { ok: true, value: r.value };
}

export function decodePublicMessage(text: string): Decoded<PublicServerMessage> {
  const r = parsePublicServerMessage(text);
  if (!r.ok) return { ok: false, field: r.error.field ?? 'frame', problem: r.error.message };
  const m = r.value;
  if ('event' in m) {
    try {
      (PUBLIC_DATA[m.event] as Schema<unknown>)(m.data, 'data');
    } catch (err) {
      if (err instanceof SchemaError) return { ok: false, field: err.path, problem: `${m.event}: ${err.message}` };
      throw err;
    }
  }
  return { ok: true, value: m };
}
