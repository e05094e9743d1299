/**
 * Settling a lost order answer against the real local exchange (its admin fault switches cut the
 * connection before or after the command is applied): a clientOrderId may be reused once the
 * order that had it is final (PROTOCOL.md section 3), so an older order with the same id is never
 * taken for the one the lost request made.
 */
import pino from 'pino';
import { NetworkError, PerpClient, UnknownOrderOutcomeError, hadNoEffect } from '../../src/client';
import { freePort } from '../helpers/ports';
import { BRACKET_OTOCO, startClientEnv, type ClientEnv } from './support/env';

let env: ClientEnv;

beforeAll(async () => {
  env = await startClientEnv();
});
afterAll(async () => {
  await env.stop();
});

const SAFETY = { orderSafety: { resolveAttempts: 2, resolveBackoff: { baseMs: 10, maxMs: 20 } } };

async function trader(): Promise<{ client: PerpClient; userId: string }> {
  return env.jwtClient(SAFETY);
}

/** The next request of `userId` to a path starting with `pathPrefix` is cut: before the command (`reject`) or after it (`accept`). */
async function dropNext(userId: string, pathPrefix: string, when: 'reject' | 'accept'): Promise<void> {
  await env.admin('/faults', { on: true, fault: when === 'reject' ? 'rejectDropResponse' : 'acceptDropResponse', userId, pathPrefix, count: 1 });
}

const order = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '45000', quantity: '0.01' } as const;

test('a lost placement reusing the clientOrderId of a final order: not the old order, UnknownOrderOutcomeError', async () => {
  const { client, userId } = await trader();
  const old = await client.orders.placeOrder({ ...order, clientOrderId: 'reuse-1' });
  await client.orders.cancelOrder({ symbol: 'BTCUSDT', orderId: old.orderId });
  await dropNext(userId, '/v1/private/order/place', 'reject');
  const err = await client.orders.placeOrder({ ...order, price: '44000', quantity: '0.02', clientOrderId: 'reuse-1' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnknownOrderOutcomeError);
  expect((err as UnknownOrderOutcomeError).clientOrderIds).toEqual(['reuse-1']);
});

test('the same request as a final order older than the tolerance: not taken either', async () => {
  const { client, userId } = await trader();
  const old = await client.orders.placeOrder({ ...order, clientOrderId: 'reuse-2' });
  await client.orders.cancelOrder({ symbol: 'BTCUSDT', orderId: old.orderId });
  await new Promise((r) => setTimeout(r, 1100));
  await dropNext(userId, '/v1/private/order/place', 'reject');
  await expect(client.orders.placeOrder({ ...order, clientOrderId: 'reuse-2' })).rejects.toBeInstanceOf(UnknownOrderOutcomeError);
});

test('a lost answer of a placement that was applied, with the id reused: the new order is found', async () => {
  const { client, userId } = await trader();
  const old = await client.orders.placeOrder({ ...order, clientOrderId: 'reuse-3' });
  await client.orders.cancelOrder({ symbol: 'BTCUSDT', orderId: old.orderId });
  await dropNext(userId, '/v1/private/order/place', 'accept');
  const r = await client.orders.placeOrder({ ...order, price: '44000.0', clientOrderId: 'reuse-3' });
  expect(r.orderId).not.toBe(old.orderId);
  expect(r).toMatchObject({ clientOrderId: 'reuse-3', status: 'NEW' });
});

test('batch: an item whose clientOrderId an old final order has is not settled by that order', async () => {
  const { client, userId } = await trader();
  const old = await client.orders.placeOrder({ ...order, clientOrderId: 'reuse-b1' });
  await client.orders.cancelOrder({ symbol: 'BTCUSDT', orderId: old.orderId });
  await dropNext(userId, '/v1/private/order/batch-place', 'reject');
  const err = await client.orders
    .batchPlaceOrders({ orders: [{ ...order, price: '44000', clientOrderId: 'reuse-b1' }, { ...order, clientOrderId: 'fresh-b2' }] })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnknownOrderOutcomeError);
  expect((err as UnknownOrderOutcomeError).clientOrderIds).toEqual(['reuse-b1', 'fresh-b2']);
});

test('condition order: a cancelled condition in the history with the same clientOrderId is not taken', async () => {
  const { client, userId } = await trader();
  const cond = { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '40000', quantity: '0.01' } as const;
  const old = await client.orders.placeConditionOrder({ ...cond, clientOrderId: 'reuse-c1' });
  await client.orders.cancelConditionOrder({ symbol: 'BTCUSDT', conditionId: old.conditionId });
  await dropNext(userId, '/v1/private/order/place-condition', 'reject');
  const err = await client.orders.placeConditionOrder({ ...cond, stopPrice: '39000', clientOrderId: 'reuse-c1' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnknownOrderOutcomeError);
});

test('a refused connection on an order sent nothing: a retryable NetworkError with no effect, retried, never settled by queries', async () => {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as { level: number; msg: string }) });
  const c = env.client({
    baseUrl: `http://127.0.0.1:${await freePort()}`,
    apiKey: { apiKey: 'k', secret: 's' },
    autoTimeSync: false,
    maxRetries: 1,
    retryBackoff: { baseMs: 5, maxMs: 10 },
    logger,
    ...SAFETY,
  });
  const err = await c.orders.placeOrder({ ...order, clientOrderId: 'refused-1' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(NetworkError);
  expect(err).not.toBeInstanceOf(UnknownOrderOutcomeError);
  expect(err).toMatchObject({ retryable: true, requestMayHaveBeenSent: false });
  expect((err as Error).message).toMatch(/ECONNREFUSED.*not sent/);
  expect(hadNoEffect(err)).toBe(true);
  // Nothing was sent, so sending again is safe: retried once (maxRetries 1); no settling.
  expect(lines.filter((l) => l.msg === 'retrying request')).toHaveLength(1);
  expect(lines.filter((l) => /settling|outcome unknown/.test(l.msg))).toEqual([]);
});

test('strategy order whose answer is lost after it was placed: still settled through its first sub-order', async () => {
  const { client, userId } = await trader();
  await dropNext(userId, '/v1/private/order/place-strategy', 'accept');
  const r = await client.orders.placeStrategyOrder(BRACKET_OTOCO);
  expect(r.strategyStatus).toBe('WORKING');
});
