/** User/account, statistics, leaderboard, public, market-data and admin endpoints over real HTTP. */
import { startTestExchange, type CallOptions, type TestExchange } from '../../helpers/exchange';

type Rec = Record<string, unknown>;

let ex: TestExchange;
let alice: { userId: string; username: string; password: string };
let bob: { userId: string; username: string; password: string };
let ta: string;
let tb: string;
const admin = { 'x-admin-token': 'test-admin-token' };
const A = (method: string, path: string, opts: CallOptions = {}) => ex.call<Rec>(method, path, { ...opts, token: ta });
const B = (method: string, path: string, opts: CallOptions = {}) => ex.call<Rec>(method, path, { ...opts, token: tb });

beforeAll(async () => {
  ex = await startTestExchange({ version: '9.9.9' });
  alice = await ex.createUser({ username: 'alice', balance: '10000' });
  bob = await ex.createUser({ username: 'bob', balance: '20000' });
  ta = (await ex.login(alice.username, alice.password)).accessToken;
  tb = (await ex.login(bob.username, bob.password)).accessToken;
  // alice buys 1 BTC from bob at 50000, sells it back at 51000: alice +100 realized, both pay fees.
  await B('POST', '/v1/private/order/place', { body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.1' } });
  await A('POST', '/v1/private/order/place', { body: { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.1' } });
  await B('POST', '/v1/private/order/place', { body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '51000', quantity: '0.1' } });
  await A('POST', '/v1/private/order/place', { body: { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.1' } });
});
afterAll(() => ex.stop());

describe('public', () => {
  it('version and time', async () => {
    expect((await ex.call('GET', '/v1/version')).body.data).toEqual({ version: '9.9.9', apiVersion: 'v1' });
    const before = Date.now();
    const t = await ex.call<{ serverTime: number }>('GET', '/v1/time');
    expect(t.body.data.serverTime).toBeGreaterThanOrEqual(before);
    expect((await ex.call('GET', '/v1/time', { query: { x: 1 } })).body.code).toBe(10001);
  });

  it('leaderboard: ranked by net PnL, masked names, myRank 0 when anonymous', async () => {
    const anon = await ex.call<{ list: Rec[]; myRank: number }>('GET', '/v1/public/leaderboard/pnl', { query: { period: '7d' } });
    expect(anon.body.data.myRank).toBe(0);
    const list = anon.body.data.list;
    expect(list.map((e) => [e.rank, e.userId, e.trader])).toEqual([[1, alice.userId, 'al***ce'], [2, bob.userId, 'b***b']]);
    // alice: +100 realized - taker fees 2.5 + 2.55 = 94.95 net; pct over 10000.
    expect(list[0]).toMatchObject({ volume: '10100', pnlAmount: '94.95', pnlPct: '0.009495' });
    // bob: -100 realized - maker fees 1 + 1.02.
    expect(list[1]).toMatchObject({ volume: '10100', pnlAmount: '-102.02' });
    const mine = await B('GET', '/v1/public/leaderboard/pnl', { query: { period: '30d' } });
    expect(mine.body.data.myRank).toBe(2);
    expect((await ex.call('GET', '/v1/public/leaderboard/pnl', { query: { period: '1y' } })).body.code).toBe(10004);
    // A token that does not authenticate is answered as no token is (auth.test.ts: expired ones too).
    const bad = await ex.call<{ list: Rec[]; myRank: number }>('GET', '/v1/public/leaderboard/pnl', { query: { period: '7d' }, token: 'bad' });
    expect([bad.body.code, bad.body.data.myRank]).toEqual([0, 0]);
  });
});

describe('user and account', () => {
  it('asset', async () => {
    const r = await A('GET', '/v1/private/user/asset');
    expect(r.body.data.userAsset).toMatchObject({ userId: alice.userId, assetType: 'USDT', walletBalance: '10094.95', frozenMargin: '0', usedMargin: '0' });
  });

  it('listenKey create, extend, close', async () => {
    const c = await A('POST', '/v1/private/user/listen-key');
    expect(Object.keys(c.body.data).sort()).toEqual(['expireAt', 'listenKey']);
    const listenKey = String(c.body.data.listenKey);
    const e = await A('PUT', '/v1/private/user/listen-key', { body: { listenKey } });
    expect(e.body.data.listenKey).toBe(listenKey);
    expect(Number(e.body.data.expireAt)).toBeGreaterThanOrEqual(Number(c.body.data.expireAt));
    expect((await A('DELETE', '/v1/private/user/listen-key', { body: { listenKey } })).body.data).toEqual({});
    expect((await A('PUT', '/v1/private/user/listen-key', { body: { listenKey } })).body.code).toBe(20008);
    expect((await A('PUT', '/v1/private/user/listen-key', {})).body.code).toBe(10005);
    expect((await A('POST', '/v1/private/user/listen-key', { body: { listenKey } })).body.code).toBe(10001);
  });

  it('at most 10 live listenKeys per user', async () => {
    const u = await ex.createUser();
    const t = (await ex.login(u.username, u.password)).accessToken;
    for (let i = 0; i < 10; i++) expect((await ex.call('POST', '/v1/private/user/listen-key', { token: t })).body.code).toBe(0);
    expect((await ex.call('POST', '/v1/private/user/listen-key', { token: t })).body.code).toBe(10001);
  });

  it('account change log with filters and paging', async () => {
    const all = await A('GET', '/v1/private/user/account-change-log');
    // deposit, fee (opening fill realizes nothing), realized PnL, fee
    expect(all.body.data.total).toBe(4);
    const fees = await A('GET', '/v1/private/user/account-change-log', { query: { changeType: 'TRADE_FEE', pageSize: 1, page: 2 } });
    expect(fees.body.data.total).toBe(2);
    expect((fees.body.data.list as Rec[])[0]).toMatchObject({ changeType: 'TRADE_FEE', amount: '-2.5', assetType: 'USDT' });
    expect((await A('GET', '/v1/private/user/account-change-log', { query: { changeType: 'GIFT' } })).body.code).toBe(10004);
    expect((await A('GET', '/v1/private/user/account-change-log', { query: 'page=1&page=2' })).body.code).toBe(10001);
  });

  it('volume stats', async () => {
    expect((await A('GET', '/v1/private/user/volume-stats')).body.data).toEqual({ volume30d: '10100', feeTotal30d: '5.05' });
  });

  it('balance history: limit items, oldest first, the current bucket last', async () => {
    const r = await A('GET', '/v1/private/user/balance-history', { query: { period: '1D', limit: 3 } });
    const items = r.body.data.items as Rec[];
    expect(items).toHaveLength(3);
    expect(items[2]).toEqual({ date: new Date().toISOString().slice(0, 10), balance: '10094.95', pnl: '94.95' });
    expect(items[0]).toMatchObject({ balance: '0', pnl: '0' });
    expect(((await A('GET', '/v1/private/user/balance-history', { query: { period: '1M' } })).body.data.items as Rec[])).toHaveLength(30);
    expect((await A('GET', '/v1/private/user/balance-history', { query: { period: '1W', limit: 366 } })).body.code).toBe(10001);
    expect((await A('GET', '/v1/private/user/balance-history', {})).body.code).toBe(10002);
  });

  it('trade overview, asset summary and trend', async () => {
    const o = await A('GET', '/v1/private/user/trade-overview', { query: { type: '1W' } });
    expect(o.body.data).toMatchObject({ todayPnl: '94.95', todayVolume: '10100', totalVolume: '10100', totalPnl: '94.95', maxDrawdown30d: '0', maxDrawdown30dRate: '0', transferIn: '10000', transferOut: '0' });
    const items = o.body.data.items as Rec[];
    expect(items).toHaveLength(7);
    expect(items[6]).toMatchObject({ balance: '10094.95', pnl: '94.95', totalPnl: '94.95' });
    const s = await A('GET', '/v1/private/user/asset/overview/summary');
    expect(s.body.data).toEqual(Object.fromEntries(Object.entries(o.body.data).filter(([k]) => k !== 'items')));
    const t = await A('GET', '/v1/private/user/asset/overview/trend', { query: { type: '1D' } });
    expect((t.body.data.items as Rec[])).toHaveLength(24);
    const bobSummary = await B('GET', '/v1/private/user/asset/overview/summary');
    // Drawdown is measured on daily closing balances, from the account's first balance: a loss on
    // the day of the first deposit is a fall from it (stats.test.ts covers falls across days).
    expect(bobSummary.body.data).toMatchObject({ totalPnl: '-102.02', maxDrawdown30d: '102.02', maxDrawdown30dRate: '0.005101', transferIn: '20000' });
    expect((await A('GET', '/v1/private/user/trade-overview', { query: { type: '2Y' } })).body.code).toBe(10004);
  });

  it('favorite symbols: save replaces, read back, unknown symbol 10003', async () => {
    expect((await A('GET', '/v1/private/user/favorite-symbols')).body.data).toEqual({ symbols: [] });
    expect((await A('POST', '/v1/private/user/favorite-symbols', { body: { symbols: ['ETHUSDT', 'BTCUSDT'] } })).body.data).toEqual({ symbols: ['ETHUSDT', 'BTCUSDT'] });
    expect((await A('GET', '/v1/private/user/favorite-symbols')).body.data).toEqual({ symbols: ['ETHUSDT', 'BTCUSDT'] });
    expect((await A('POST', '/v1/private/user/favorite-symbols', { body: { symbols: ['DOGEUSDT'] } })).body.code).toBe(10003);
    expect((await A('POST', '/v1/private/user/favorite-symbols', { body: { symbols: ['BTCUSDT', 'BTCUSDT'] } })).body.code).toBe(10001);
    expect((await B('GET', '/v1/private/user/favorite-symbols')).body.data).toEqual({ symbols: [] });
  });
});

describe('market data', () => {
  it('symbols, depth, trades, mark price, klines', async () => {
    const s = await ex.call<{ symbols: Rec[] }>('GET', '/v1/public/market/symbols');
    expect(s.body.data.symbols.map((x) => x.symbol)).toEqual(['BTCUSDT', 'ETHUSDT']);
    expect(s.body.data.symbols[0]).toMatchObject({ tickSize: '0.1', stepSize: '0.001', minNotional: '5', maxLeverage: 125, makerFee: '0.0002', takerFee: '0.0005' });
    expect((s.body.data.symbols[0].marginTiers as Rec[])[0]).toMatchObject({ tier: 1, maxLeverage: 125 });
    expect((await ex.call('GET', '/v1/public/market/symbols', { query: { symbol: 'XUSDT' } })).body.code).toBe(10003);

    await B('POST', '/v1/private/order/place', { body: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.5' } });
    const d = await ex.call<Rec>('GET', '/v1/public/market/depth', { query: { symbol: 'BTCUSDT', limit: 5 } });
    expect(d.body.data).toMatchObject({ symbol: 'BTCUSDT', bids: [['49000', '0.5']], asks: [] });
    expect((await ex.call('GET', '/v1/public/market/depth', { query: { symbol: 'BTCUSDT', limit: 0 } })).body.code).toBe(10001);

    const tr = await ex.call<{ list: Rec[] }>('GET', '/v1/public/market/trades', { query: { symbol: 'BTCUSDT' } });
    expect(tr.body.data.list.map((t) => [t.price, t.quantity, t.side])).toEqual([['50000', '0.1', 'BUY'], ['51000', '0.1', 'SELL']]);

    const m = await ex.call<Rec>('GET', '/v1/public/market/mark-price', { query: { symbol: 'ETHUSDT' } });
    expect(m.body.data).toMatchObject({ symbol: 'ETHUSDT', markPrice: '3000', indexPrice: '3000', fundingRate: '0.0001' });

    const k = await ex.call<{ list: Rec[] }>('GET', '/v1/public/market/klines', { query: { symbol: 'BTCUSDT', interval: '1m' } });
    expect(k.body.data.list.length).toBeGreaterThanOrEqual(1);
    expect((await ex.call('GET', '/v1/public/market/klines', { query: { symbol: 'BTCUSDT', interval: '2m' } })).body.code).toBe(10004);
  });
});

describe('admin', () => {
  it('create user (hash only on the journal path), api key, duplicate username', async () => {
    const r = await ex.call<{ userId: string }>('POST', '/v1/admin/users', { headers: admin, body: { username: 'carol', password: 'pw-carol', balance: '5', positionMode: 'HEDGE' } });
    expect(r.body.code).toBe(0);
    const stored = ex.server.core.accounts.users.get(r.body.data.userId);
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(stored)).not.toContain('pw-carol');
    expect((await ex.call('POST', '/v1/admin/users', { headers: admin, body: { username: 'carol', password: 'x', balance: '5' } })).body.code).toBe(10001);
    expect((await ex.call('POST', '/v1/admin/users', { headers: admin, body: { username: 'dave', password: 'x', balance: '-5' } })).body.code).toBe(10001);
    const k = await ex.call<Rec>('POST', '/v1/admin/api-keys', { headers: admin, body: { userId: r.body.data.userId, permissions: ['READ'] } });
    expect(Object.keys(k.body.data).sort()).toEqual(['apiKey', 'secret']);
    expect((await ex.call('POST', '/v1/admin/api-keys', { headers: admin, body: { userId: '404', permissions: ['READ'] } })).body.code).toBe(10001);
    expect((await ex.call('POST', '/v1/admin/api-keys', { headers: admin, body: { userId: r.body.data.userId, permissions: ['WRITE'] } })).body.code).toBe(10004);
    expect((await ex.call('POST', '/v1/admin/agent-sso/ticket', { headers: admin, body: { userId: '404' } })).body.code).toBe(10001);
  });

  it('mark price triggers condition orders; funding settles at the given rate', async () => {
    const c = await A('POST', '/v1/private/order/place-condition', { body: { symbol: 'ETHUSDT', type: 'STOP_MARKET', side: 'BUY', quantity: '0.1', stopPrice: '3100', workingType: 'MARK_PRICE' } });
    const mp = await ex.call('POST', '/v1/admin/market/mark-price', { headers: admin, body: { symbol: 'ETHUSDT', markPrice: '3100' } });
    expect(mp.body.data).toEqual({ symbol: 'ETHUSDT', markPrice: '3100' });
    const h = await A('GET', '/v1/private/order/history-condition', { query: { symbol: 'ETHUSDT' } });
    expect((h.body.data.list as Rec[]).find((x) => x.conditionId === c.body.data.conditionId)).toMatchObject({ conditionStatus: 'TRIGGERED' });
    expect((await ex.call('POST', '/v1/admin/market/mark-price', { headers: admin, body: { symbol: 'ETHUSDT', markPrice: '3100.001' } })).body.code).toBe(30005);

    const f = await ex.call<Rec>('POST', '/v1/admin/clock/funding', { headers: admin, body: { symbol: 'BTCUSDT', fundingRate: '-0.001' } });
    expect(f.body.data).toMatchObject({ symbol: 'BTCUSDT', fundingRate: '-0.001' });
    expect(typeof f.body.data.fundingTime).toBe('number');
    expect((await ex.call('POST', '/v1/admin/clock/funding', { headers: admin, body: { symbol: 'BTCUSDT', fundingRate: '0.5' } })).body.code).toBe(10001);
  });
});
