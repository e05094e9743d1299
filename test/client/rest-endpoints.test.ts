/**
 * Every REST method of the SDK against the local exchange over real HTTP. Each test is named after
 * the SDK method it exercises (docs/api-coverage.md points here). Tests in a describe share state
 * and run in order.
 */
import { PerpClient, ValidationError, NotFoundError, OrderRejectedError } from '../../src/client';
import { BRACKET_OTOCO, startClientEnv, waitFor, type ClientEnv } from './support/env';

let env: ClientEnv;
let c: PerpClient;
let maker: PerpClient;
let username: string;
let userId: string;

beforeAll(async () => {
  env = await startClientEnv();
  const u = await env.jwtClient();
  c = u.client;
  username = u.username;
  userId = u.userId;
  maker = (await env.jwtClient()).client;
});
afterAll(async () => env.stop());

describe('public', () => {
  test('public.getVersion', async () => {
    const v = await c.public.getVersion();
    expect(v.apiVersion).toBe('v1');
    expect(typeof v.version).toBe('string');
  });

  test('public.getTime', async () => {
    const t = await c.public.getTime();
    expect(Math.abs(t.serverTime - Date.now())).toBeLessThan(5000);
  });

  test('public.login', async () => {
    const u = await env.ex.createUser();
    const fresh = env.client();
    const r = await fresh.public.login({ username: u.username, password: u.password, deviceId: 'dev-1', deviceName: 'jest' });
    expect(r.accessToken.length).toBeGreaterThan(10);
    expect(r.accessExpire).toBeGreaterThan(Date.now());
    expect(fresh.session?.canRefresh).toBe(true);
    expect((await fresh.user.getUserInfo()).userInfo.username).toBe(u.username);
  });

  test('public.refreshToken', async () => {
    const before = c.session?.accessToken;
    const r = await c.public.refreshToken();
    expect(r.accessToken).not.toBe(before);
    expect(c.session?.accessToken).toBe(r.accessToken);
    expect((await c.user.getUserInfo()).userInfo.userId).toBe(userId);
  });

  test('public.exchangeTicket', async () => {
    const { ticket } = await env.admin<{ ticket: string }>('/agent-sso/ticket', { userId });
    const sso = env.client();
    const r = await sso.public.exchangeTicket({ ticket, deviceId: 'sso' });
    expect(typeof r.redirectPath).toBe('string');
    expect((await sso.user.getUserInfo()).userInfo.userId).toBe(userId);
  });

  test('public.exchangeEmbedToken', async () => {
    const { embedToken } = await env.admin<{ embedToken: string }>('/agent-sso/embed-token', { userId, channelId: 'chan-1' });
    const sso = env.client();
    const r = await sso.public.exchangeEmbedToken({ embedToken, channelId: 'chan-1' });
    expect(r.accessExpire).toBeGreaterThan(Date.now());
    expect((await sso.user.getUserInfo()).userInfo.userId).toBe(userId);
  });

  test('public.getLeaderboard', async () => {
    const anon = env.client();
    const r = await anon.public.getLeaderboard({ period: '7d' });
    expect(r.myRank).toBe(0);
    expect(Array.isArray(r.list)).toBe(true);
  });
});

describe('market', () => {
  test('market.getSymbols', async () => {
    const r = await c.market.getSymbols();
    const btc = r.symbols.find((s) => s.symbol === 'BTCUSDT');
    expect(btc?.tickSize).toBe('0.1');
  });
  test('market.getDepth', async () => {
    const r = await c.market.getDepth({ symbol: 'BTCUSDT', limit: 5 });
    expect(r.symbol).toBe('BTCUSDT');
  });
  test('market.getMarketTrades', async () => {
    const r = await c.market.getMarketTrades({ symbol: 'BTCUSDT', limit: 10 });
    expect(Array.isArray(r.list)).toBe(true);
  });
  test('market.getMarkPrice', async () => {
    const r = await c.market.getMarkPrice({ symbol: 'BTCUSDT' });
    expect(r.markPrice).toBe('50000');
  });
  test('market.getKlines', async () => {
    const r = await c.market.getKlines({ symbol: 'BTCUSDT', interval: '1m', limit: 10 });
    expect(r.interval).toBe('1m');
  });
});

describe('orders', () => {
  let orderId: string;
  let conditionId: string;

  test('orders.placeOrder', async () => {
    const r = await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.01' });
    expect(r.status).toBe('NEW');
    expect(r.clientOrderId).toMatch(/^pk/);
    orderId = r.orderId;
  });

  test('orders.getOrder', async () => {
    const r = await c.orders.getOrder({ symbol: 'BTCUSDT', orderId });
    expect(r.price).toBe('49000');
    const byCid = await c.orders.getOrder({ symbol: 'BTCUSDT', clientOrderId: r.clientOrderId });
    expect(byCid.orderId).toBe(orderId);
  });

  test('orders.getCurrentOrders', async () => {
    const r = await c.orders.getCurrentOrders({ symbol: 'BTCUSDT' });
    expect(r.list.map((o) => o.orderId)).toContain(orderId);
  });

  test('orders.moveOrder', async () => {
    const r = await c.orders.moveOrder({ symbol: 'BTCUSDT', orderId, price: '48000', quantity: '0.02' });
    expect(r.price).toBe('48000');
    expect(r.quantity).toBe('0.02');
  });

  test('orders.batchPlaceOrders', async () => {
    const r = await c.orders.batchPlaceOrders({
      orders: [
        { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' },
        { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000.05', quantity: '0.01' },
      ],
    });
    expect(r.successCount).toBe(1);
    expect(r.failedCount).toBe(1);
    expect(r.results[1]?.code).toBe(30005);
    expect(r.results.every((x) => x.clientOrderId.length > 0)).toBe(true);
  });

  test('orders.batchMoveOrders', async () => {
    const r = await c.orders.batchMoveOrders({ symbol: 'BTCUSDT', orders: [{ orderId, price: '47000', quantity: '0.02' }] });
    expect(r.successCount).toBe(1);
  });

  test('orders.batchCancelOrders', async () => {
    const placed = await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '41000', quantity: '0.01' });
    const r = await c.orders.batchCancelOrders({ orders: [{ symbol: 'BTCUSDT', orderId: placed.orderId }] });
    expect(r.results[0]?.status).toBe('CANCELED');
  });

  test('orders.cancelOrder', async () => {
    const r = await c.orders.cancelOrder({ symbol: 'BTCUSDT', orderId });
    expect(r.status).toBe('CANCELED');
  });

  test('orders.placeConditionOrder', async () => {
    const r = await c.orders.placeConditionOrder({ symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '45000', quantity: '0.01', reduceOnly: false });
    expect(r.conditionStatus).toBe('NEW');
    conditionId = r.conditionId;
  });

  test('orders.getCurrentConditionOrders', async () => {
    const r = await c.orders.getCurrentConditionOrders({ symbol: 'BTCUSDT' });
    expect(r.list.map((x) => x.conditionId)).toContain(conditionId);
  });

  test('orders.cancelConditionOrder', async () => {
    const r = await c.orders.cancelConditionOrder({ symbol: 'BTCUSDT', conditionId });
    expect(r.conditionStatus).toBe('CANCELED');
  });

  test('orders.getConditionOrderHistory', async () => {
    const r = await c.orders.getConditionOrderHistory({ symbol: 'BTCUSDT' });
    expect(r.list.map((x) => x.conditionId)).toContain(conditionId);
    const all = [];
    for await (const x of c.orders.iterateConditionOrderHistory({ pageSize: 1 })) all.push(x);
    expect(all.length).toBe(r.total);
  });

  test('orders.placeStrategyOrder', async () => {
    const r = await c.orders.placeStrategyOrder(BRACKET_OTOCO);
    expect(r.strategyStatus).toBe('WORKING');
    const st = await c.orders.getStrategyOrder({ strategyId: r.strategyId });
    expect(st.subOrders).toHaveLength(3);
    expect(st.subOrders.every((s) => s.clientOrderId.length > 0)).toBe(true);
  });

  test('orders.getStrategyOrder', async () => {
    await expect(c.orders.getStrategyOrder({ strategyId: '999999' })).rejects.toBeInstanceOf(NotFoundError);
  });

  test('orders.cancelAllOrders', async () => {
    const r = await c.orders.cancelAllOrders({ symbol: 'BTCUSDT', cancelType: 0 });
    expect(r.accepted).toBe(true);
    await waitFor(async () => (await c.orders.getCurrentOrders({ symbol: 'BTCUSDT' })).list.length === 0, 5000, 'open orders to be cancelled');
  });

  test('orders.getTrades', async () => {
    await maker.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
    const taker = await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.01' });
    expect(taker.status).toBe('FILLED');
    const r = await c.orders.getTrades({ symbol: 'BTCUSDT', orderId: taker.orderId });
    expect(r.list[0]?.roleType).toBe('taker');
    const all = [];
    for await (const t of c.orders.iterateTrades({ symbol: 'BTCUSDT' })) all.push(t);
    expect(all.length).toBe(r.total);
  });

  test('orders.getOrderHistory', async () => {
    const r = await c.orders.getOrderHistory({ symbol: 'BTCUSDT', pageSize: 2 });
    expect(r.total).toBeGreaterThanOrEqual(4);
    const all = [];
    for await (const o of c.orders.iterateOrderHistory({ symbol: 'BTCUSDT', pageSize: 2 })) all.push(o.orderId);
    expect(new Set(all).size).toBe(r.total);
  });

  test('orders.iterateCurrentOrders', async () => {
    for (let i = 0; i < 5; i++) await c.orders.placeOrder({ symbol: 'ETHUSDT', type: 'LIMIT', side: 'BUY', price: `${2000 + i}`, quantity: '0.01' });
    const ids = [];
    for await (const o of c.orders.iterateCurrentOrders({ symbol: 'ETHUSDT', limit: 2 })) ids.push(o.orderId);
    expect(new Set(ids).size).toBe(5);
    await c.orders.cancelAllOrders({ symbol: 'ETHUSDT' });
  });

  test('validation errors map to ValidationError and rejections to OrderRejectedError', async () => {
    const bad = c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '1e5', quantity: '0.01' });
    await expect(bad).rejects.toBeInstanceOf(ValidationError);
    await expect(bad).rejects.toMatchObject({ venueCode: 10001, httpStatus: 400, retryable: false });
    const err = await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.0001' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderRejectedError);
    expect((err as OrderRejectedError).requestId).toBeTruthy();
  });
});

describe('positions', () => {
  test('positions.getPositions', async () => {
    const r = await c.positions.getPositions({ symbol: 'BTCUSDT' });
    expect(r.positions[0]?.quantity).toBe('0.01');
  });

  test('positions.setLeverage', async () => {
    const r = await c.positions.setLeverage({ symbol: 'ETHUSDT', leverage: 10 });
    expect(r.leverage).toBe(10);
  });

  test('positions.setMarginMode', async () => {
    const r = await c.positions.setMarginMode({ symbol: 'ETHUSDT', marginMode: 2 });
    expect(r.marginMode).toBe(2);
    await expect(c.positions.setMarginMode({ symbol: 'BTCUSDT', marginMode: 2 })).rejects.toMatchObject({ venueCode: 30012 });
  });

  test('positions.getPositionSettings', async () => {
    const r = await c.positions.getPositionSettings({ symbol: 'ETHUSDT' });
    expect(r).toMatchObject({ symbol: 'ETHUSDT', marginMode: 2, leverage: 10 });
  });

  test('positions.getPositionHistory', async () => {
    await maker.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.01' });
    await c.orders.placeOrder({ symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01', reduceOnly: true });
    const r = await c.positions.getPositionHistory({ symbol: 'BTCUSDT' });
    expect(r.total).toBe(1);
    const all = [];
    for await (const p of c.positions.iteratePositionHistory({})) all.push(p);
    expect(all).toHaveLength(1);
  });
});

describe('user', () => {
  test('user.getUserInfo', async () => {
    expect((await c.user.getUserInfo()).userInfo.username).toBe(username);
  });
  test('user.getUserAsset', async () => {
    const r = await c.user.getUserAsset();
    expect(r.userAsset.assetType).toBe('USDT');
  });
  test('user.createListenKey', async () => {
    const r = await c.user.createListenKey();
    expect(r.expireAt).toBeGreaterThan(Date.now());
  });
  test('user.extendListenKey', async () => {
    const k = await c.user.createListenKey();
    const r = await c.user.extendListenKey({ listenKey: k.listenKey });
    expect(r.expireAt).toBeGreaterThanOrEqual(k.expireAt);
  });
  test('user.closeListenKey', async () => {
    const k = await c.user.createListenKey();
    await c.user.closeListenKey({ listenKey: k.listenKey });
    await expect(c.user.extendListenKey({ listenKey: k.listenKey })).rejects.toBeInstanceOf(NotFoundError);
  });
  test('user.getAccountChangeLog', async () => {
    const r = await c.user.getAccountChangeLog({ pageSize: 2 });
    expect(r.total).toBeGreaterThan(0);
    let n = 0;
    for await (const _ of c.user.iterateAccountChangeLog({ pageSize: 2 })) n++;
    expect(n).toBe(r.total);
  });
  test('user.getVolumeStats', async () => {
    const r = await c.user.getVolumeStats();
    expect(Number(r.volume30d)).toBeGreaterThan(0);
  });
  test('user.getBalanceHistory', async () => {
    const r = await c.user.getBalanceHistory({ period: '1D', limit: 5 });
    expect(Array.isArray(r.items)).toBe(true);
  });
  test('user.getTradeOverview', async () => {
    const r = await c.user.getTradeOverview({ type: '1W' });
    expect(Array.isArray(r.items)).toBe(true);
  });
  test('user.getAssetSummary', async () => {
    const r = await c.user.getAssetSummary();
    expect(typeof r.totalPnl).toBe('string');
  });
  test('user.getAssetTrend', async () => {
    const r = await c.user.getAssetTrend({ type: '1M' });
    expect(Array.isArray(r.items)).toBe(true);
  });
  test('user.saveFavoriteSymbols', async () => {
    const r = await c.user.saveFavoriteSymbols({ symbols: ['BTCUSDT', 'ETHUSDT'] });
    expect(r.symbols).toEqual(['BTCUSDT', 'ETHUSDT']);
  });
  test('user.getFavoriteSymbols', async () => {
    expect((await c.user.getFavoriteSymbols()).symbols).toEqual(['BTCUSDT', 'ETHUSDT']);
  });
  test('public.getLeaderboard (signed in: myRank)', async () => {
    const r = await c.public.getLeaderboard({ period: '7d' });
    expect(r.myRank).toBeGreaterThan(0);
  });
});
