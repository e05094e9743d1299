/** Orders and positions endpoints over real HTTP: success paths, error codes, and user isolation. */
import { startTestExchange, type CallOptions, type TestExchange } from '../../helpers/exchange';

type Rec = Record<string, unknown>;

let ex: TestExchange;
let a: string;
let b: string;
let aId: string;
const as = (token: string) => (method: string, path: string, opts: CallOptions = {}) => ex.call<Rec>(method, path, { ...opts, token });
let callA: ReturnType<typeof as>;
let callB: ReturnType<typeof as>;

beforeAll(async () => {
  ex = await startTestExchange();
  const ua = await ex.createUser({ balance: '1000000' });
  const ub = await ex.createUser({ balance: '1000000' });
  aId = ua.userId;
  a = (await ex.login(ua.username, ua.password)).accessToken;
  b = (await ex.login(ub.username, ub.password)).accessToken;
  callA = as(a);
  callB = as(b);
});
afterAll(() => ex.stop());

const limit = (side: 'BUY' | 'SELL', price: string, quantity = '0.01', extra: Rec = {}): Rec => ({ symbol: 'BTCUSDT', type: 'LIMIT', side, price, quantity, ...extra });

describe('normal orders', () => {
  it('place returns {orderId, clientOrderId, status, timestamp}', async () => {
    const r = await callA('POST', '/v1/private/order/place', { body: limit('BUY', '40000', '0.01', { clientOrderId: 'c-1' }) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(['clientOrderId', 'orderId', 'status', 'timestamp']);
    expect(r.body.data).toMatchObject({ clientOrderId: 'c-1', status: 'NEW' });
  });

  it('duplicate clientOrderId of a live order: 409 / 30002', async () => {
    const r = await callA('POST', '/v1/private/order/place', { body: limit('BUY', '40000', '0.01', { clientOrderId: 'c-1' }) });
    expect([r.status, r.body.code]).toEqual([409, 30002]);
  });

  it('validation and engine refusals keep their codes', async () => {
    const cases: Array<[Rec, number]> = [
      [{ type: 'LIMIT', side: 'BUY', price: '1', quantity: '1' }, 10002],
      [limit('BUY', '40000', '0.01', { symbol: 'NOPE' }), 10003],
      [limit('UP' as 'BUY', '40000'), 10004],
      [limit('BUY', '40000.05'), 30005],
      [limit('BUY', '100', '0.001'), 30006],
      [limit('BUY', '40000', '900'), 30003],
      [{ ...limit('BUY', '40000'), price: 40000 }, 10001],
      [{ ...limit('BUY', '40000'), quantity: '1e-2' }, 10001],
      [{ ...limit('BUY', '40000'), extra: true }, 10001],
    ];
    for (const [body, code] of cases) {
      const r = await callA('POST', '/v1/private/order/place', { body });
      expect({ body, code: r.body.code }).toEqual({ body, code });
      expect(r.status).toBeLessThan(500);
    }
  });

  it('query by orderId or clientOrderId; both must match; neither is 10002', async () => {
    const placed = await callA('POST', '/v1/private/order/place', { body: limit('BUY', '41000', '0.01', { clientOrderId: 'q-1' }) });
    const orderId = String(placed.body.data.orderId);
    const byId = await callA('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', orderId } });
    expect(byId.body.data).toMatchObject({ orderId, clientOrderId: 'q-1', symbol: 'BTCUSDT', status: 'NEW', executedQty: '0' });
    const byClient = await callA('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', clientOrderId: 'q-1' } });
    expect(byClient.body.data.orderId).toBe(orderId);
    expect((await callA('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', orderId, clientOrderId: 'other' } })).body.code).toBe(30001);
    expect((await callA('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT' } })).body.code).toBe(10002);
  });

  it('current orders with limit and cursor, history with filters and paging, trades', async () => {
    const cur = await callA('GET', '/v1/private/order/current', { query: { symbol: 'BTCUSDT', limit: 1 } });
    expect(cur.body.data.total).toBeGreaterThanOrEqual(2);
    expect((cur.body.data.list as Rec[]).length).toBe(1);
    const first = (cur.body.data.list as Rec[])[0];
    const next = await callA('GET', '/v1/private/order/current', { query: { lastOrderId: String(first.orderId) } });
    expect((next.body.data.list as Rec[]).every((o) => Number(o.orderId) > Number(first.orderId))).toBe(true);
    expect((await callA('GET', '/v1/private/order/current', { query: { limit: 101 } })).body.code).toBe(10001);
    // lastOrderId is int64: the whole range is a cursor (past every id here), beyond it a range error.
    for (const big of ['9007199254740993', '9223372036854775807']) {
      const r = await callA('GET', '/v1/private/order/current', { query: { lastOrderId: big } });
      expect([r.body.code, r.body.data?.list]).toEqual([0, []]);
    }
    const over = await callA('GET', '/v1/private/order/current', { query: { lastOrderId: '9223372036854775808' } });
    expect([over.body.code, over.body.message]).toEqual([10001, expect.stringMatching(/lastOrderId must be a base-10 integer between 0 and 9223372036854775807/)]);

    const hist = await callA('GET', '/v1/private/order/history', { query: { symbol: 'BTCUSDT', type: 1, side: 1, status: 1, page: 1, pageSize: 1 } });
    expect(hist.body.data.total).toBeGreaterThanOrEqual(2);
    expect((hist.body.data.list as Rec[]).length).toBe(1);
    expect((await callA('GET', '/v1/private/order/history', { query: { pageSize: 101 } })).body.code).toBe(10001);
    expect((await callA('GET', '/v1/private/order/history', { query: { status: 9 } })).body.code).toBe(10004);
    expect((await callA('GET', '/v1/private/order/history', { query: { startTime: 10, endTime: 5 } })).body.code).toBe(10001);

    await callB('POST', '/v1/private/order/place', { body: limit('SELL', '41000', '0.01') });
    const trades = await callA('GET', '/v1/private/order/trades', { query: { symbol: 'BTCUSDT' } });
    expect(trades.body.data.total).toBe(1);
    expect((trades.body.data.list as Rec[])[0]).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY', roleType: 'maker', price: '41000', quantity: '0.01' });
  });

  it('move returns the order record; quantity is the new total', async () => {
    const p = await callA('POST', '/v1/private/order/place', { body: limit('BUY', '39000', '0.02') });
    const orderId = String(p.body.data.orderId);
    const m = await callA('POST', '/v1/private/order/move', { body: { symbol: 'BTCUSDT', orderId, price: '39100', quantity: '0.03' } });
    expect(m.body.data).toMatchObject({ orderId, price: '39100', quantity: '0.03', status: 'NEW' });
    const c = await callA('POST', '/v1/private/order/cancel', { body: { symbol: 'BTCUSDT', orderId } });
    expect(c.body.data).toMatchObject({ orderId, status: 'CANCELED' });
    const again = await callA('POST', '/v1/private/order/cancel', { body: { symbol: 'BTCUSDT', orderId } });
    expect(again.body.code).toBe(30007);
    expect((await callA('POST', '/v1/private/order/move', { body: { symbol: 'BTCUSDT', orderId, price: '39100', quantity: '0.03' } })).body.code).toBe(30007);
  });

  it('batch place: one result per order, in order; a bad item fails alone', async () => {
    const r = await callA('POST', '/v1/private/order/batch-place', {
      body: { orders: [limit('BUY', '38000'), { symbol: 'BTCUSDT', side: 'BUY' }, limit('BUY', '38000.05'), limit('BUY', '38100', '0.01', { clientOrderId: 'bp-4' })] },
    });
    expect(r.body.code).toBe(0);
    expect(r.body.data).toMatchObject({ successCount: 2, failedCount: 2 });
    const results = r.body.data.results as Rec[];
    expect(results.map((x) => [x.index, x.success, x.code])).toEqual([[0, true, 0], [1, false, 10002], [2, false, 30005], [3, true, 0]]);
    expect(results[3]).toMatchObject({ clientOrderId: 'bp-4', status: 'NEW' });
    expect(Object.keys(results[1]).sort()).toEqual(['clientOrderId', 'code', 'index', 'message', 'orderId', 'status', 'success']);

    const ids = [String(results[0].orderId), String(results[3].orderId)];
    const mv = await callA('POST', '/v1/private/order/batch-move', { body: { symbol: 'BTCUSDT', orders: [{ orderId: ids[0], price: '38001', quantity: '0.02' }, { orderId: '999999', price: '1', quantity: '1' }] } });
    expect(mv.body.data).toMatchObject({ successCount: 1, failedCount: 1 });
    expect((mv.body.data.results as Rec[])[1]).toMatchObject({ index: 1, success: false, code: 30001 });
    const bc = await callA('POST', '/v1/private/order/batch-cancel', { body: { orders: [{ symbol: 'BTCUSDT', orderId: ids[0] }, { symbol: 'BTCUSDT', clientOrderId: 'bp-4' }, { symbol: 'BTCUSDT' }] } });
    expect(bc.body.data).toMatchObject({ successCount: 2, failedCount: 1 });
    expect((await callA('POST', '/v1/private/order/batch-place', { body: { orders: Array.from({ length: 21 }, () => limit('BUY', '1000')) } })).body.code).toBe(30008);
    expect((await callA('POST', '/v1/private/order/batch-place', { body: { orders: [] } })).body.code).toBe(10001);
  });

  it('a batch item refused by validation echoes the clientOrderId it was sent with, as engine refusals do', async () => {
    const r = await callA('POST', '/v1/private/order/batch-place', { body: { orders: [limit('BUY', '38000', '0.01', { clientOrderId: 'bv-1', timeInForce: 'NOPE' }), limit('BUY', '38000.05', '0.01', { clientOrderId: 'bv-2' })] } });
    const results = r.body.data.results as Rec[];
    expect(results.map((x) => [x.code, x.clientOrderId])).toEqual([[10004, 'bv-1'], [30005, 'bv-2']]);
  });

  it('cancel-all returns {accepted: true} and cancels', async () => {
    await callA('POST', '/v1/private/order/place', { body: limit('BUY', '30000') });
    const r = await callA('POST', '/v1/private/order/batch-cancel-all', { body: { symbol: 'BTCUSDT', cancelType: 0 } });
    expect(r.body.data).toEqual({ accepted: true });
    const cur = await callA('GET', '/v1/private/order/current', { query: { symbol: 'BTCUSDT' } });
    expect(cur.body.data.total).toBe(0);
    expect((await callA('POST', '/v1/private/order/batch-cancel-all', {})).body.data).toEqual({ accepted: true });
    expect((await callA('POST', '/v1/private/order/batch-cancel-all', { body: { cancelType: 3 } })).body.code).toBe(10004);
  });
});

describe('condition and strategy orders', () => {
  it('place, list, history and cancel a condition order', async () => {
    const p = await callA('POST', '/v1/private/order/place-condition', {
      body: { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', quantity: '0.01', stopPrice: '60000', workingType: 'MARK_PRICE' },
    });
    expect(Object.keys(p.body.data).sort()).toEqual(['conditionId', 'conditionStatus', 'timestamp']);
    expect(p.body.data.conditionStatus).toBe('NEW');
    const conditionId = String(p.body.data.conditionId);
    const cur = await callA('GET', '/v1/private/order/current-condition', { query: { symbol: 'BTCUSDT' } });
    expect(cur.body.data).toMatchObject({ total: 1 });
    expect((cur.body.data.list as Rec[])[0]).toMatchObject({ conditionId, stopPrice: '60000' });
    const c = await callA('POST', '/v1/private/order/cancel-condition', { body: { symbol: 'BTCUSDT', conditionId } });
    expect(c.body.data).toMatchObject({ conditionId, conditionStatus: 'CANCELED' });
    const hist = await callA('GET', '/v1/private/order/history-condition', { query: { status: 3 } });
    expect((hist.body.data.list as Rec[]).map((x) => x.conditionId)).toContain(conditionId);
    expect((await callA('POST', '/v1/private/order/place-condition', { body: { symbol: 'BTCUSDT', type: 'STOP_LIMIT', side: 'BUY', quantity: '0.01', stopPrice: '60000' } })).body.code).toBe(10002);
  });

  it('place a strategy order and read it back', async () => {
    const r = await callA('POST', '/v1/private/order/place-strategy', {
      body: {
        strategyType: 'OTOCO',
        subOrderList: [
          { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '35000', quantity: '0.01' },
          { strategySubId: 2, symbol: 'BTCUSDT', type: 'TAKE_PROFIT_MARKET', side: 'SELL', stopPrice: '45000', quantity: '0.01', reduceOnly: true, firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER', secondDrivenId: 3, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER' },
          { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '30000', quantity: '0.01', reduceOnly: true, firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER', secondDrivenId: 2, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER' },
        ],
      },
    });
    expect(r.body.code).toBe(0);
    expect(Object.keys(r.body.data).sort()).toEqual(['strategyId', 'strategyStatus', 'timestamp']);
    const s = await callA('GET', '/v1/private/order/strategy', { query: { strategyId: String(r.body.data.strategyId) } });
    expect(s.body.data).toMatchObject({ strategyId: r.body.data.strategyId, strategyType: 'OTOCO', strategyStatus: 'WORKING' });
    expect((s.body.data.subOrders as Rec[]).length).toBe(3);
    const bad = await callA('POST', '/v1/private/order/place-strategy', { body: { strategyType: 'OCO', subOrderList: [{ strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '35000', quantity: '0.01' }] } });
    expect(bad.body.code).toBe(30017);
  });
});

describe('positions', () => {
  it('leverage, margin mode, settings, positions and history', async () => {
    const lev = await callA('POST', '/v1/private/position/leverage', { body: { symbol: 'ETHUSDT', leverage: 10 } });
    expect(lev.body.data).toMatchObject({ symbol: 'ETHUSDT', leverage: 10 });
    expect(typeof lev.body.data.timestamp).toBe('number');
    expect((await callA('POST', '/v1/private/position/leverage', { body: { symbol: 'ETHUSDT', leverage: 101 } })).body.code).toBe(30009);
    // Out of the range 1..maxLeverage is 30009 (PROTOCOL.md section 8) below it too; 10001 is for a value that is no int32.
    for (const leverage of [0, -1]) {
      const low = await callA('POST', '/v1/private/position/leverage', { body: { symbol: 'ETHUSDT', leverage } });
      expect([low.body.code, low.body.message]).toEqual([30009, `leverage must be a whole number from 1 to 100 for ETHUSDT, got ${leverage}`]);
    }
    expect((await callA('POST', '/v1/private/position/leverage', { body: { symbol: 'ETHUSDT', leverage: 1e300 } })).body.code).toBe(10001);
    const mm = await callA('POST', '/v1/private/position/margin-mode', { body: { symbol: 'ETHUSDT', marginMode: 2 } });
    expect(mm.body.data).toMatchObject({ symbol: 'ETHUSDT', marginMode: 2 });
    expect((await callA('POST', '/v1/private/position/margin-mode', { body: { symbol: 'ETHUSDT', marginMode: 3 } })).body.code).toBe(10004);
    const st = await callA('GET', '/v1/private/position/settings', { query: { symbol: 'ETHUSDT' } });
    expect(st.body.data).toEqual({ symbol: 'ETHUSDT', marginMode: 2, leverage: 10 });
    expect((await callA('GET', '/v1/private/position/settings')).body.code).toBe(10002);

    await callB('POST', '/v1/private/order/place', { body: { symbol: 'ETHUSDT', type: 'LIMIT', side: 'SELL', price: '3000', quantity: '1' } });
    await callA('POST', '/v1/private/order/place', { body: { symbol: 'ETHUSDT', type: 'MARKET', side: 'BUY', quantity: '1' } });
    const pos = await callA('GET', '/v1/private/position/positions', { query: { symbol: 'ETHUSDT' } });
    expect(pos.body.data.positions as Rec[]).toEqual([expect.objectContaining({ symbol: 'ETHUSDT', marginMode: 'ISOLATED', quantity: '1', entryPrice: '3000', leverage: 10 })]);
    expect((await callA('POST', '/v1/private/position/margin-mode', { body: { symbol: 'ETHUSDT', marginMode: 1 } })).body.code).toBe(30012);
    await callB('POST', '/v1/private/order/place', { body: { symbol: 'ETHUSDT', type: 'LIMIT', side: 'BUY', price: '3000', quantity: '1' } });
    await callA('POST', '/v1/private/order/place', { body: { symbol: 'ETHUSDT', type: 'MARKET', side: 'SELL', quantity: '1', reduceOnly: true } });
    const hist = await callA('GET', '/v1/private/position/history', { query: { symbol: 'ETHUSDT', side: 'long' } });
    expect(hist.body.data.total).toBe(1);
    expect((hist.body.data.list as Rec[])[0]).toMatchObject({ symbol: 'ETHUSDT', maxQuantity: '1', entryPrice: '3000', closePrice: '3000' });
    expect((await callA('GET', '/v1/private/position/history', { query: { side: 'LONG' } })).body.code).toBe(10004);
  });
});

describe('user isolation: another user\'s ids behave as missing ones', () => {
  it('orders 30001, conditions 30015, strategies 30016, listenKeys 20008', async () => {
    const o = await callA('POST', '/v1/private/order/place', { body: limit('BUY', '20000', '0.01', { clientOrderId: 'iso-1' }) });
    const orderId = String(o.body.data.orderId);
    const c = await callA('POST', '/v1/private/order/place-condition', { body: { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', quantity: '0.01', stopPrice: '70000' } });
    const conditionId = String(c.body.data.conditionId);
    const s = await callA('POST', '/v1/private/order/place-strategy', {
      body: { strategyType: 'OCO', subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '20000', quantity: '0.01', secondDrivenId: 2, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '70000', quantity: '0.01', secondDrivenId: 1, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER' },
      ] },
    });
    expect(s.body.code).toBe(0);
    const strategyId = String(s.body.data.strategyId);
    const lk = await callA('POST', '/v1/private/user/listen-key');
    const listenKey = String(lk.body.data.listenKey);

    const missingOrder = await callB('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', orderId: '99999999' } });
    const foreignOrder = await callB('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', orderId } });
    expect([foreignOrder.status, foreignOrder.body.code]).toEqual([404, 30001]);
    expect(foreignOrder.body.message.replace(orderId, 'X')).toBe(missingOrder.body.message.replace('99999999', 'X'));
    expect((await callB('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', clientOrderId: 'iso-1' } })).body.code).toBe(30001);
    expect((await callB('POST', '/v1/private/order/cancel', { body: { symbol: 'BTCUSDT', orderId } })).body.code).toBe(30001);
    expect((await callB('POST', '/v1/private/order/move', { body: { symbol: 'BTCUSDT', orderId, price: '20001', quantity: '0.01' } })).body.code).toBe(30001);
    expect((await callB('POST', '/v1/private/order/cancel-condition', { body: { symbol: 'BTCUSDT', conditionId } })).body.code).toBe(30015);
    expect((await callB('GET', '/v1/private/order/strategy', { query: { strategyId } })).body.code).toBe(30016);
    expect((await callB('PUT', '/v1/private/user/listen-key', { body: { listenKey } })).body.code).toBe(20008);
    expect((await callB('DELETE', '/v1/private/user/listen-key', { body: { listenKey } })).body.code).toBe(20008);
    const trades = await callB('GET', '/v1/private/order/trades', { query: { orderId } });
    expect(trades.body.data.total).toBe(0);
    // A's things are untouched.
    expect((await callA('GET', '/v1/private/order', { query: { symbol: 'BTCUSDT', orderId } })).body.data.status).toBe('NEW');
    expect((await callA('PUT', '/v1/private/user/listen-key', { body: { listenKey } })).body.code).toBe(0);
    void aId;
  });
});
