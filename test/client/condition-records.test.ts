/**
 * Issue 12 item 11: condition records of every type but TRAILING_STOP carried `"callbackRate": ""`
 * (REST, history and WS). A decimal field is a decimal string: "0" where it does not apply, and the
 * SDK's validator refuses anything else.
 */
import { firstValueFrom } from 'rxjs';
import type { PrivateStream } from '../../src/client';
import { conditionRecord } from '../../src/client/validate/records';
import { SchemaError } from '../../src/client/validate/schema';
import type { ConditionOrderRecord } from '../../src/protocol/records';
import { startClientEnv, type ClientEnv } from './support/env';

let env: ClientEnv;
let stream: PrivateStream | undefined;
beforeAll(async () => {
  env = await startClientEnv();
});
afterAll(async () => {
  await stream?.stop();
  await env.stop();
});

test.each(['STOP_MARKET', 'TAKE_PROFIT_MARKET', 'STOP_LIMIT', 'TAKE_PROFIT_LIMIT'] as const)('%s: callbackRate is "0" over REST, in the history and on the stream', async (type) => {
  const { client } = await env.jwtClient();
  stream = client.privateStream();
  await stream.start();
  const pushed = firstValueFrom(stream.on('CONDITION_ORDER_UPDATE'));
  const limit = type.endsWith('_LIMIT') ? { price: '40000' } : {};
  const stopPrice = type.startsWith('STOP') ? '40000' : '60000';
  const { conditionId } = await client.orders.placeConditionOrder({ symbol: 'BTCUSDT', type, side: 'SELL', quantity: '0.01', stopPrice, ...limit });
  const current = (await client.orders.getCurrentConditionOrders({ symbol: 'BTCUSDT' })).list.find((c) => c.conditionId === conditionId) as ConditionOrderRecord;
  expect(current.callbackRate).toBe('0');
  expect((await pushed).data.callbackRate).toBe('0');
  await client.orders.cancelConditionOrder({ symbol: 'BTCUSDT', conditionId });
  const history = (await client.orders.getConditionOrderHistory({ symbol: 'BTCUSDT' })).list.find((c) => c.conditionId === conditionId) as ConditionOrderRecord;
  expect(history.callbackRate).toBe('0');
  await stream.stop();
  stream = undefined;
});

test('the SDK refuses a condition record whose callbackRate is not a decimal string', async () => {
  const { client } = await env.jwtClient();
  await client.orders.placeConditionOrder({ symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', quantity: '0.01', stopPrice: '40000' });
  const [rec] = (await client.orders.getCurrentConditionOrders({ symbol: 'BTCUSDT' })).list;
  expect(() => conditionRecord({ ...rec, callbackRate: '' }, 'record')).toThrow(SchemaError);
  expect(() => conditionRecord({ ...rec, callbackRate: '' }, 'record')).toThrow(/callbackRate/);
  expect(conditionRecord(rec, 'record').callbackRate).toBe('0');
});
