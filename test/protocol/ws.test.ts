import { ErrorCodes } from '../../src/core/errors';
import {
  parsePrivateEvent,
  parsePublicClientFrame,
  parsePublicServerMessage,
  parseTopic,
  validatePrivateStreamQuery,
  type PrivateEvent,
  type PublicPush,
} from '../../src/protocol';
import { orderOfUpdate, orderUpdateOf, type FillFields } from '../../src/protocol/ws';
import type { OrderRecord } from '../../src/protocol/records';
import type { EngineEvent } from '../../src/exchange/engine/events';
import { world } from '../exchange/engine/helpers';
import { errorOf } from './helpers';

describe('parsePublicClientFrame', () => {
  it.each([
    ['{"op":"subscribe","args":["trade:BTCUSDT","depth:ETHUSDT"]}', { op: 'subscribe', args: ['trade:BTCUSDT', 'depth:ETHUSDT'] }],
    ['{"op":"unsubscribe","args":["markPrice:BTCUSDT","ticker:BTCUSDT"]}', { op: 'unsubscribe', args: ['markPrice:BTCUSDT', 'ticker:BTCUSDT'] }],
  ])('accepts %s', (text, value) => {
    expect(parsePublicClientFrame(text)).toEqual({ ok: true, value });
    expect(parsePublicClientFrame(Buffer.from(text))).toEqual({ ok: true, value });
  });

  it.each<[string, unknown, number]>([
    ['broken JSON', '{"op":', ErrorCodes.BODY_NOT_OBJECT],
    ['a JSON array', '[1,2]', ErrorCodes.BODY_NOT_OBJECT],
    ['JSON null', 'null', ErrorCodes.BODY_NOT_OBJECT],
    ['a number value', 42, ErrorCodes.BODY_NOT_OBJECT],
    ['undefined', undefined, ErrorCodes.BODY_NOT_OBJECT],
    ['an empty string', '', ErrorCodes.BODY_NOT_OBJECT],
    ['a huge frame', `{"op":"subscribe","args":["${'x'.repeat(10000)}"]}`, ErrorCodes.INVALID_PARAMETER],
    ['no op', '{"args":["trade:BTCUSDT"]}', ErrorCodes.MISSING_PARAMETER],
    ['op not a string', '{"op":1,"args":[]}', ErrorCodes.INVALID_PARAMETER],
    ['unknown op', '{"op":"sub","args":["trade:BTCUSDT"]}', ErrorCodes.INVALID_ENUM],
    ['no args', '{"op":"subscribe"}', ErrorCodes.MISSING_PARAMETER],
    ['args a string', '{"op":"subscribe","args":"trade:BTCUSDT"}', ErrorCodes.INVALID_PARAMETER],
    ['args empty', '{"op":"subscribe","args":[]}', ErrorCodes.INVALID_PARAMETER],
    ['topic not a string', '{"op":"subscribe","args":[{}]}', ErrorCodes.INVALID_PARAMETER],
    ['unknown topic kind', '{"op":"subscribe","args":["kline:BTCUSDT"]}', ErrorCodes.INVALID_PARAMETER],
    ['topic without symbol', '{"op":"subscribe","args":["trade:"]}', ErrorCodes.INVALID_PARAMETER],
    ['topic without colon', '{"op":"subscribe","args":["trade"]}', ErrorCodes.INVALID_PARAMETER],
    ['too many topics', JSON.stringify({ op: 'subscribe', args: Array.from({ length: 51 }, (_, i) => `trade:S${i}`) }), ErrorCodes.INVALID_PARAMETER],
    ['unknown field', '{"op":"subscribe","args":["trade:BTCUSDT"],"id":1}', ErrorCodes.INVALID_PARAMETER],
    ['__proto__ key', '{"op":"subscribe","args":["trade:BTCUSDT"],"__proto__":{"x":1}}', ErrorCodes.INVALID_PARAMETER],
  ])('refuses %s with an error value, never a throw', (_, raw, code) => {
    const r = parsePublicClientFrame(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe(code);
  });

  it('splits topics', () => {
    expect(parseTopic('depth:BTCUSDT')).toEqual({ kind: 'depth', symbol: 'BTCUSDT' });
    expect(parseTopic('depth:BTC:USDT')).toBeUndefined();
  });
});

describe('server messages', () => {
  it('parses a private event and narrows on its kind', () => {
    const r = parsePrivateEvent('{"event":"LISTEN_KEY_EXPIRED","eventTime":1,"seq":1,"data":{"listenKey":"k"}}');
    expect(r.ok).toBe(true);
    if (r.ok) {
      const ev: PrivateEvent = r.value;
      if (ev.event === 'LISTEN_KEY_EXPIRED') expect(ev.data.listenKey).toBe('k');
    }
  });

  it.each(['nope', '[]', '{"event":"X","eventTime":1,"seq":1,"data":{}}', '{"event":"ACCOUNT_UPDATE","eventTime":1,"seq":0,"data":{}}', '{"event":"ACCOUNT_UPDATE","eventTime":1,"seq":1,"data":null}'])(
    'refuses private frame %s',
    (text) => {
      expect(parsePrivateEvent(text).ok).toBe(false);
    },
  );

  it('parses public pushes and acks', () => {
    const push = parsePublicServerMessage('{"event":"trade","symbol":"BTCUSDT","eventTime":5,"data":{"tradeId":"1","price":"1","quantity":"1","side":"BUY","time":5}}');
    expect(push.ok).toBe(true);
    if (push.ok && !('success' in push.value)) {
      const p: PublicPush = push.value;
      if (p.event === 'trade') expect(p.data.side).toBe('BUY');
    }
    expect(parsePublicServerMessage('{"op":"subscribe","success":true,"args":["trade:BTCUSDT"]}').ok).toBe(true);
    expect(parsePublicServerMessage('{"event":"kline","symbol":"B","eventTime":1,"data":{}}').ok).toBe(false);
  });

  it('validates the private stream query', () => {
    expect(validatePrivateStreamQuery({ listenKey: 'abc' })).toEqual({ listenKey: 'abc' });
    expect(errorOf(() => validatePrivateStreamQuery({})).code).toBe(ErrorCodes.MISSING_PARAMETER);
  });
});

describe('orderUpdateOf', () => {
  const record: OrderRecord = {
    orderId: '7',
    clientOrderId: 'mine',
    symbol: 'BTCUSDT',
    side: 'SELL',
    positionSide: 'BOTH',
    type: 'LIMIT',
    timeInForce: 'GTC',
    price: '50000.1',
    quantity: '0.01',
    executedQty: '0.004',
    avgPrice: '50000.1',
    cumQuote: '200.0004',
    status: 'PARTIALLY_FILLED',
    reduceOnly: false,
    makerOnly: true,
    closePosition: false,
    priceType: 0,
    placeType: '',
    createdAt: 1_700_000_000_000,
    updateTime: 1_700_000_000_123,
  };
  const fill: FillFields = { tradeId: '3', fillId: '5', lastFilledQty: '0.004', lastFilledPrice: '50000.1', roleType: 'maker', handlingFee: '0.04', realizedPnl: '-1.5' };

  it.each([
    ['a plain record', record],
    ['a record with conditionId and strategyId', { ...record, conditionId: '11', strategyId: '12' }],
    ['a record with only strategyId', { ...record, strategyId: '12' }],
  ])('lays out %s, the execution type and the fill as the spread of the three, key for key', (_name, rec) => {
    for (const f of [undefined, fill]) {
      const want = { ...rec, executionType: 'TRADE' as const, ...f };
      const got = orderUpdateOf(rec, 'TRADE', f);
      expect(got).toStrictEqual(want);
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      // The record inside it comes back whole.
      expect(orderOfUpdate(got)).toStrictEqual(rec);
    }
  });

  it('carries every field of the records the engine makes (an order from a condition, its fill)', () => {
    const w = world();
    w.engine.placeCondition('a', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', quantity: '0.010', stopPrice: '50100', workingType: 'MARK_PRICE' });
    w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50200', quantity: '0.010' });
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '50150');
    const orderEvents = w.drain().filter((e): e is Extract<EngineEvent, { kind: 'order' }> => e.kind === 'order');
    expect(orderEvents.some((e) => e.order.conditionId !== undefined && e.fill !== undefined)).toBe(true);
    for (const e of orderEvents) {
      const got = orderUpdateOf(e.order, e.executionType, e.fill);
      expect(JSON.stringify(got)).toBe(JSON.stringify({ ...e.order, executionType: e.executionType, ...e.fill }));
    }
  });
});
