import type { StrategySubOrderInput } from '../../../../src/exchange/engine/inputs';
import { parsePrivateEvent } from '../../../../src/protocol/ws';
import { refusedUpgrade, startWorld, until, type Client, type Json, type World } from './harness';

const data = (m: Json): Record<string, unknown> => m.data as Record<string, unknown>;
const brief = (m: Json): string => (m.event === 'ORDER_TRADE_UPDATE' ? `${m.seq} ORDER ${String(data(m).executionType)} ${String(data(m).status)}` : `${m.seq} ${m.event}`);

describe('ws private stream', () => {
  let w: World;
  let a: Client;
  let b: Client;
  let keyA: string;

  beforeEach(async () => {
    w = await startWorld();
    await w.createUser('a');
    await w.createUser('b');
    await w.createUser('c');
    keyA = w.listenKeys.create('a').listenKey;
    a = await w.connect(w.privateUrl(keyA));
    b = await w.connect(w.privateUrl(w.listenKeys.create('b').listenKey));
  });
  afterEach(() => w.close());

  it('place, fill on both sides: ORDER_TRADE_UPDATE with fill fields, then ACCOUNT_UPDATE, seq from 1', async () => {
    const sell = await w.place('a', { side: 'SELL', price: '50000' });
    const buy = await w.place('b', { side: 'BUY', price: '50000' });
    const ma = await a.take(3);
    const mb = await b.take(3);
    expect(ma.map(brief)).toEqual(['1 ORDER NEW NEW', '2 ORDER TRADE FILLED', '3 ACCOUNT_UPDATE']);
    expect(mb.map(brief)).toEqual(['1 ORDER NEW NEW', '2 ORDER TRADE FILLED', '3 ACCOUNT_UPDATE']);
    for (const m of [...ma, ...mb]) {
      expect(parsePrivateEvent(JSON.stringify(m)).ok).toBe(true);
      expect(m.eventTime).toBeGreaterThan(0);
    }
    expect(data(ma[0])).toMatchObject({ orderId: sell.orderId, symbol: 'BTCUSDT', side: 'SELL', price: '50000', quantity: '1', executedQty: '0' });
    expect(data(ma[0]).tradeId).toBeUndefined();
    const makerFill = data(ma[1]);
    const takerFill = data(mb[1]);
    expect(makerFill).toMatchObject({ orderId: sell.orderId, lastFilledQty: '1', lastFilledPrice: '50000', roleType: 'maker', handlingFee: '10', realizedPnl: '0', executedQty: '1' });
    expect(takerFill).toMatchObject({ orderId: buy.orderId, lastFilledQty: '1', lastFilledPrice: '50000', roleType: 'taker', handlingFee: '25' });
    expect(makerFill.tradeId).toBe(takerFill.tradeId);
    expect(typeof makerFill.fillId).toBe('string');
    expect(data(ma[2])).toMatchObject({ reason: 'TRADE_FEE', userAsset: { userId: 'a', walletBalance: '99990' } });
    expect(data(ma[2]).positions).toEqual([expect.objectContaining({ symbol: 'BTCUSDT', quantity: '-1', entryPrice: '50000' })]);
    expect(data(mb[2]).positions).toEqual([expect.objectContaining({ symbol: 'BTCUSDT', quantity: '1' })]);
  });

  it('cancel and amend', async () => {
    const o = await w.place('a', { side: 'BUY', price: '49000' });
    await w.exec({ k: 'moveOrder', userId: 'a', input: { symbol: 'BTCUSDT', orderId: o.orderId, price: '49100', quantity: '2' } });
    await w.exec({ k: 'cancelOrder', userId: 'a', ref: { symbol: 'BTCUSDT', orderId: o.orderId } });
    const ms = await a.take(3);
    expect(ms.map(brief)).toEqual(['1 ORDER NEW NEW', '2 ORDER AMENDED NEW', '3 ORDER CANCELED CANCELED']);
    expect(data(ms[1])).toMatchObject({ price: '49100', quantity: '2' });
    expect(b.drain()).toEqual([]);
  });

  it('condition order: NEW, TRIGGERED on setMarkPrice, then the order it placed', async () => {
    // a long 1 BTC at 50000, liquidity for the stop below
    await w.place('b', { side: 'SELL', price: '50000' });
    await w.place('a', { side: 'BUY', price: '50000' });
    await w.place('c', { side: 'BUY', price: '47000', quantity: '2' });
    await a.take(3);
    const cond = await w.exec<{ conditionId: string }>({
      k: 'placeCondition',
      userId: 'a',
      input: { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', workingType: 'MARK_PRICE', closePosition: true },
    });
    const placed = await a.next();
    expect(placed).toMatchObject({ seq: 4, event: 'CONDITION_ORDER_UPDATE', data: { conditionId: cond.conditionId, conditionStatus: 'NEW' } });
    await w.exec({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '48000' });
    // The condition's TRIGGERED update comes first, naming the order it placed; then that order.
    const after = await a.take(4);
    expect(after.map(brief)).toEqual(['5 CONDITION_ORDER_UPDATE', '6 ORDER NEW NEW', '7 ORDER TRADE FILLED', '8 ACCOUNT_UPDATE']);
    expect(data(after[0])).toMatchObject({ conditionId: cond.conditionId, conditionStatus: 'TRIGGERED', triggeredOrderId: data(after[1]).orderId });
    expect(data(after[2])).toMatchObject({ type: 'MARKET', conditionId: cond.conditionId, clientOrderId: data(after[0]).clientOrderId, lastFilledPrice: '47000', realizedPnl: '-3000' });
    expect(data(after[3])).toMatchObject({ reason: 'REALIZED_PNL' });
    expect(data(after[3]).positions).toEqual([expect.objectContaining({ quantity: '0' })]);
    const seqs = a.messages.map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('OTOCO strategy: placement, entry fill places take-profit and stop-loss, take-profit fill ends it', async () => {
    const subs: StrategySubOrderInput[] = [
      { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '1' },
      { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '52000', quantity: '1', reduceOnly: true },
      { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', quantity: '1', reduceOnly: true, workingType: 'MARK_PRICE' },
    ];
    const s = await w.exec<{ strategyId: string }>({ k: 'placeStrategy', userId: 'a', input: { strategyType: 'OTOCO', subOrderList: subs } });
    // Placement shows as the entry order, then the strategy record.
    expect(data(await a.next())).toMatchObject({ executionType: 'NEW', strategyId: s.strategyId, price: '50000' });
    const placedRec = await a.next();
    expect(placedRec).toMatchObject({ event: 'STRATEGY_ORDER_UPDATE', data: { strategyId: s.strategyId, strategyStatus: 'WORKING' } });
    expect((data(placedRec).subOrders as Array<{ status: string }>).map((x) => x.status)).toEqual(['NEW', 'PENDING', 'PENDING']);
    await w.place('b', { side: 'SELL', price: '50000' });
    await a.next((m) => m.event === 'ORDER_TRADE_UPDATE' && data(m).executionType === 'TRADE' && data(m).strategyId === s.strategyId);
    await a.next((m) => m.event === 'CONDITION_ORDER_UPDATE' && data(m).conditionStatus === 'NEW');
    const working = await a.next((m) => m.event === 'STRATEGY_ORDER_UPDATE');
    expect(data(working)).toMatchObject({ strategyId: s.strategyId, strategyStatus: 'WORKING' });
    expect((data(working).subOrders as Array<{ status: string }>).map((x) => x.status)).toEqual(['FILLED', 'NEW', 'NEW']);
    await w.place('c', { side: 'BUY', price: '52000' });
    const done = await a.next((m) => m.event === 'STRATEGY_ORDER_UPDATE' && data(m).strategyStatus === 'ALL_DONE');
    expect((data(done).subOrders as Array<{ status: string }>).map((x) => x.status)).toEqual(['FILLED', 'FILLED', 'CANCELED']);
    const seqs = a.messages.map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(a.messages.some((m) => m.event === 'ACCOUNT_UPDATE')).toBe(true);
  });

  it('every connection of a user gets its own seq; other users see nothing of it', async () => {
    const a2 = await w.connect(w.privateUrl(keyA));
    const a3 = await w.connect(w.privateUrl(w.listenKeys.create('a').listenKey));
    await w.place('a', { side: 'BUY', price: '49000' });
    await w.place('a', { side: 'BUY', price: '48000' });
    for (const c of [a, a2, a3]) expect((await c.take(2)).map(brief)).toEqual(['1 ORDER NEW NEW', '2 ORDER NEW NEW']);
    a2.ws.close();
    await a2.closed;
    await until(() => w.gateway.connectionCount === 3);
    await w.place('a', { side: 'BUY', price: '47000' });
    expect(brief(await a.next())).toBe('3 ORDER NEW NEW');
    expect(brief(await a3.next())).toBe('3 ORDER NEW NEW');
    expect(b.drain()).toEqual([]);
  });

  it('refuses an unknown, missing or malformed listenKey with HTTP 401 and the envelope', async () => {
    const how = ': connect to /v1/ws/private?listenKey=<key>, with a key from POST /v1/private/user/listen-key';
    const cases: Array<[string, string]> = [
      [w.privateUrl('nope'), 'listenKey not found or expired'],
      // A query without one usable key says what is wrong with it, not "not found".
      [`ws://127.0.0.1:${w.port}/v1/ws/private`, `listenKey is required${how}`],
      [`${w.privateUrl(keyA)}&listenKey=${keyA}`, `query parameter 'listenKey' is given more than once${how}`],
      [`${w.privateUrl(keyA)}&x=1`, `unknown field 'x'; accepted fields are: listenKey${how}`],
    ];
    for (const [url, message] of cases) {
      const r = await refusedUpgrade(url);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: 20008, data: null, message });
      expect(r.body.requestId).toBe(r.requestId);
    }
    const other = await refusedUpgrade(`ws://127.0.0.1:${w.port}/v1/ws/elsewhere`);
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 10006 });
  });

  it('expiry: LISTEN_KEY_EXPIRED once, then close 4001; other keys keep streaming', async () => {
    const keyA2 = w.listenKeys.create('a').listenKey;
    const other = await w.connect(w.privateUrl(keyA2));
    const same = await w.connect(w.privateUrl(keyA));
    await w.place('a', { side: 'BUY', price: '49000' });
    await a.next();
    await same.next();
    expect(w.listenKeys.expireNow(keyA)).toBe(true);
    for (const c of [a, same]) {
      const m = await c.next();
      expect(m).toMatchObject({ event: 'LISTEN_KEY_EXPIRED', seq: 2, data: { listenKey: keyA } });
      expect(parsePrivateEvent(JSON.stringify(m)).ok).toBe(true);
      expect(await c.closed).toEqual({ code: 4001, reason: 'listenKey expired' });
      expect(c.drain()).toEqual([]);
    }
    await w.place('a', { side: 'BUY', price: '48000' });
    expect(brief(await other.next((m) => m.seq === 2))).toBe('2 ORDER NEW NEW');
    // deleting a key (DELETE /listen-key) ends its streams the same way
    w.listenKeys.close('a', keyA2);
    expect(await other.next()).toMatchObject({ event: 'LISTEN_KEY_EXPIRED', data: { listenKey: keyA2 } });
    expect((await other.closed).code).toBe(4001);
    expect((await refusedUpgrade(w.privateUrl(keyA))).status).toBe(401);
  });

  it('a key that runs out is noticed by the heartbeat sweep', async () => {
    await w.close();
    w = await startWorld({ listenKeyTtlMs: 150, ws: { pingIntervalMs: 50, deadAfterMs: 1000 } });
    await w.createUser('a');
    const key = w.listenKeys.create('a').listenKey;
    const c = await w.connect(w.privateUrl(key));
    const t0 = Date.now();
    expect(await c.next(() => true, 2000)).toMatchObject({ event: 'LISTEN_KEY_EXPIRED', seq: 1 });
    expect((await c.closed).code).toBe(4001);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('ignores client frames, garbage included, and closes on an oversized one (1009)', async () => {
    a.send('hello');
    a.send('{"op":"subscribe","args":["trade:BTCUSDT"]}');
    a.ws.send(Buffer.from([0xff, 0x00, 0xfe, 0x01]), { binary: true });
    await w.place('a', { side: 'BUY', price: '49000' });
    expect(brief(await a.next())).toBe('1 ORDER NEW NEW');
    // Invalid UTF-8 in a text frame breaks the WebSocket protocol: the ws library closes with 1007.
    a.ws.send(Buffer.from([0xc3, 0x28]), { binary: false });
    expect((await a.closed).code).toBe(1007);
    b.send('x'.repeat(100));
    await w.place('b', { side: 'BUY', price: '49000' });
    expect(brief(await b.next())).toBe('1 ORDER NEW NEW');
    b.send('x'.repeat(5000));
    expect((await b.closed).code).toBe(1009);
    await until(() => w.gateway.connectionCount === 0);
    expect(w.gateway.stats()).toMatchObject({ privateUsers: 0, privateListenKeys: 0 });
  });

  it('fault hooks: silence keeps pings but withholds events (seq gap after); dropUser cuts the user', async () => {
    w.gateway.silence('a', true);
    await w.place('a', { side: 'BUY', price: '49000' });
    await w.place('b', { side: 'BUY', price: '49000' });
    await b.next();
    const pong = new Promise<void>((resolve) => a.ws.once('pong', () => resolve()));
    a.ws.ping();
    await pong;
    expect(a.drain()).toEqual([]);
    w.gateway.silence('a', false);
    await w.place('a', { side: 'BUY', price: '48000' });
    expect(brief(await a.next())).toBe('2 ORDER NEW NEW');

    const a2 = await w.connect(w.privateUrl(keyA));
    expect(w.gateway.dropUser('a')).toBe(2);
    expect((await a.closed).code).toBe(1006);
    expect((await a2.closed).code).toBe(1006);
    expect(b.ws.readyState).toBe(b.ws.OPEN);
    const a3 = await w.connect(w.privateUrl(keyA));
    expect(w.gateway.dropUser('a', { code: 4000, reason: 'fault' })).toBe(1);
    expect(await a3.closed).toEqual({ code: 4000, reason: 'fault' });
    expect(w.gateway.dropUser('nobody')).toBe(0);
  });
});
