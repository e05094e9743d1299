/**
 * Shared by the security tests: a valid request for every endpoint of the registry (the fuzzers
 * mutate it, the authorization matrix sends it), a fingerprint of everything a request could
 * change, and the envelope check every answer must pass.
 */
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../src/core/errors';
import { ENDPOINTS, type AnyEndpoint, type EndpointName } from '../../src/protocol/endpoints';
import type { ExchangeServer } from '../../src/exchange/transport/server';
import type { CallResult, TestExchange } from '../helpers/exchange';

export type Rec = Record<string, unknown>;

/** Ids a sample request refers to; the fuzzers seed them so valid-shaped requests reach the engine. */
export interface SampleIds {
  userId: string;
  orderId: string;
  clientOrderId: string;
  conditionId: string;
  strategyId: string;
  listenKey: string;
  ticket: string;
  embedToken: string;
  channelId: string;
}

export const ORDER = { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '40000', quantity: '0.01' } as const;

/**
 * A valid input per endpoint: the body object or the query record. Endpoints added to the
 * registry later without a sample here are still fuzzed, starting from an empty object.
 */
export function sampleInput(name: EndpointName, ids: SampleIds): Rec {
  return sampleTable(ids)[name] ?? {};
}

/** Whether the endpoint has a sample here (the others are fuzzed from an empty object). */
export function hasSample(name: EndpointName): boolean {
  return name in sampleTable({} as SampleIds);
}

function sampleTable(ids: SampleIds): Partial<Record<EndpointName, Rec>> {
  return {
    placeOrder: { ...ORDER, clientOrderId: 'fz-1' },
    batchPlaceOrders: { orders: [{ ...ORDER }, { ...ORDER, price: '39000' }] },
    placeConditionOrder: { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '45000', quantity: '0.01', workingType: 'MARK_PRICE' },
    placeStrategyOrder: {
      strategyType: 'OTOCO',
      subOrderList: [
        { strategySubId: 1, symbol: 'ETHUSDT', type: 'LIMIT', side: 'BUY', price: '2900', quantity: '0.1' },
        { strategySubId: 2, symbol: 'ETHUSDT', type: 'TAKE_PROFIT_MARKET', side: 'SELL', stopPrice: '3200', quantity: '0.1', reduceOnly: true, firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER', secondDrivenId: 3, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER' },
        { strategySubId: 3, symbol: 'ETHUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '2800', quantity: '0.1', reduceOnly: true, firstDrivenId: 1, firstDrivenOn: 'FILLED', firstTrigger: 'PLACE_ORDER', secondDrivenId: 2, secondDrivenOn: 'FILLED', secondTrigger: 'CANCEL_ORDER' },
      ],
    },
    getOrder: { symbol: 'BTCUSDT', orderId: ids.orderId },
    getCurrentOrders: { symbol: 'BTCUSDT', limit: '10' },
    getCurrentConditionOrders: { symbol: 'BTCUSDT' },
    getOrderHistory: { symbol: 'BTCUSDT', status: '3', page: '1', pageSize: '20' },
    getConditionOrderHistory: { status: '3' },
    getTrades: { symbol: 'BTCUSDT', pageSize: '5' },
    cancelOrder: { symbol: 'BTCUSDT', clientOrderId: ids.clientOrderId },
    moveOrder: { symbol: 'BTCUSDT', orderId: ids.orderId, price: '39950', quantity: '0.03' },
    batchMoveOrders: { symbol: 'BTCUSDT', orders: [{ orderId: ids.orderId, price: '39700', quantity: '0.02' }] },
    batchCancelOrders: { orders: [{ symbol: 'BTCUSDT', orderId: ids.orderId }] },
    cancelAllOrders: { symbol: 'ETHUSDT', cancelType: 0 },
    cancelConditionOrder: { symbol: 'BTCUSDT', conditionId: ids.conditionId },
    getStrategyOrder: { strategyId: ids.strategyId },
    setLeverage: { symbol: 'ETHUSDT', leverage: 10 },
    setMarginMode: { symbol: 'ETHUSDT', marginMode: 2 },
    getPositionSettings: { symbol: 'ETHUSDT' },
    getPositions: {},
    getPositionHistory: { symbol: 'BTCUSDT' },
    extendListenKey: { listenKey: ids.listenKey },
    closeListenKey: { listenKey: ids.listenKey },
    getAccountChangeLog: { changeType: 'TRADE_FEE', pageSize: '2' },
    getBalanceHistory: { period: '1D', limit: '3' },
    getTradeOverview: { type: '1W' },
    getAssetTrend: { type: '1W' },
    saveFavoriteSymbols: { symbols: ['BTCUSDT', 'ETHUSDT'] },
    login: { username: 'nobody-here', password: 'not-the-password', deviceId: 'laptop-1' },
    exchangeTicket: { ticket: ids.ticket, deviceId: 'laptop-1' },
    exchangeEmbedToken: { embedToken: ids.embedToken, channelId: ids.channelId },
    getLeaderboard: { period: '7d' },
    getSymbols: { symbol: 'ETHUSDT' },
    getDepth: { symbol: 'BTCUSDT', limit: '5' },
    getMarketTrades: { symbol: 'BTCUSDT', limit: '2' },
    getMarkPrice: { symbol: 'BTCUSDT' },
    getKlines: { symbol: 'BTCUSDT', interval: '1m', limit: '2' },
    adminCreateUser: { username: 'fuzzed', password: 'fuzzed-pass', balance: '1000' },
    adminCreateApiKey: { userId: ids.userId, permissions: ['READ'] },
    adminMintTicket: { userId: ids.userId },
    adminMintEmbedToken: { userId: ids.userId, channelId: ids.channelId },
    adminSetMarkPrice: { symbol: 'BTCUSDT', markPrice: '50000' },
    adminSettleFunding: { symbol: 'BTCUSDT', fundingRate: '0.0001' },
    // Turning every switch off: a fault switched on answers 5xx or drops answers by design, which
    // is not what the fuzzers look for. Mutations of this sample cannot name another switch.
    adminSetFault: { fault: 'all', on: false },
  };
}

/** Where an endpoint takes its input on the wire: GET query or JSON body (PROTOCOL.md section 1). */
export function inputPlace(ep: AnyEndpoint): 'query' | 'body' {
  if (ep.input === 'query') return 'query';
  if (ep.input === 'body') return 'body';
  return ep.method === 'GET' ? 'query' : 'body';
}

/** Query string of a sample record, as a client would build it. */
export function queryOf(rec: Rec): string {
  return new URLSearchParams(Object.entries(rec).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

/** The sample as `call` options: query string or JSON body. */
export function sampleRequest(name: EndpointName, ids: SampleIds): { query?: string; body?: string } {
  const input = sampleInput(name, ids);
  const ep: AnyEndpoint = ENDPOINTS[name];
  if (inputPlace(ep) === 'query') return Object.keys(input).length > 0 ? { query: queryOf(input) } : {};
  // Endpoints without input (createListenKey, refreshToken) get no body at all, as clients send them.
  if (ep.input === 'none') return {};
  return { body: JSON.stringify(input) };
}

const KNOWN_CODES: ReadonlySet<number> = new Set<number>(Object.values(ErrorCodes));

/**
 * PROTOCOL.md sections 1 and 8: the envelope, a known code, the status that code implies, the
 * request id in the header, `data` null on errors. Returns a description of what is wrong, or
 * undefined; the fuzzers report the description with the request that caused it.
 */
export function envelopeProblem(r: CallResult<unknown>): string | undefined {
  const b = r.body as unknown as Rec;
  if (typeof b !== 'object' || b === null) return 'answer is not a JSON object';
  if (typeof b.code !== 'number' || !KNOWN_CODES.has(b.code)) return `unknown code ${String(b.code)}`;
  if (typeof b.message !== 'string' || b.message.length === 0) return 'message missing';
  if (typeof b.requestId !== 'string' || b.requestId.length === 0) return 'requestId missing';
  if (r.headers['x-request-id'] !== b.requestId) return 'X-Request-Id header differs from requestId';
  if (r.status !== httpStatusOf(b.code as ErrorCode)) return `status ${r.status} does not match code ${b.code}`;
  if (r.status >= 500) return `server error ${r.status}: ${b.message}`;
  if (b.code !== 0 && b.data !== null) return 'error answer with data';
  if (b.code === 0 && (typeof b.data !== 'object' || b.data === null)) return 'success answer without data';
  return undefined;
}

/** Rejects when `p` has not settled within `ms`: the "never a hang" property. */
export async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Everything a request could change, as one string: the engine's whole state (orders, conditions,
 * strategies, positions, balances, counters) and its money audit, the journal's length, users,
 * API keys, favourites, last logins, and the given listenKeys' liveness and expiry. Sessions
 * (refresh tokens, tickets) are keyed by hashes and have no read API; their tests check them by
 * use instead.
 */
export function fingerprint(server: ExchangeServer, listenKeys: readonly string[] = []): string {
  const core = server.core;
  const acc = core.accounts;
  return JSON.stringify({
    applied: core.appliedCount,
    engine: core.engine.exportState(),
    audit: core.engine.audit(),
    users: [...acc.users.values()].map((u) => [u.userId, u.username, u.positionMode]),
    apiKeys: [...acc.apiKeys.values()].map((k) => [k.apiKey, k.userId, k.permissions]),
    favorites: [...acc.favorites.entries()],
    lastLogin: [...acc.lastLogin.entries()],
    listenKeys: listenKeys.map((k) => server.listenKeys.lookup(k) ?? null),
  });
}

/** A user with an open order, a waiting condition, a working strategy and a listenKey: ids to aim at. */
export async function seedUser(ex: TestExchange, prefix: string): Promise<{ userId: string; username: string; password: string; token: string; cookie: string } & Omit<SampleIds, 'userId' | 'ticket' | 'embedToken' | 'channelId'>> {
  const u = await ex.createUser({ username: `${prefix}-user`, password: `${prefix}-Pw-9x!` });
  const { accessToken: token, cookie } = await ex.login(u.username, u.password);
  const clientOrderId = `${prefix}-open-1`;
  const placed = await ex.call<{ orderId: string }>('POST', '/v1/private/order/place', { token, body: { ...ORDER, clientOrderId } });
  const cond = await ex.call<{ conditionId: string }>('POST', '/v1/private/order/place-condition', { token, body: sampleInput('placeConditionOrder', {} as SampleIds) });
  const strat = await ex.call<{ strategyId: string }>('POST', '/v1/private/order/place-strategy', { token, body: sampleInput('placeStrategyOrder', {} as SampleIds) });
  const lk = await ex.call<{ listenKey: string }>('POST', '/v1/private/user/listen-key', { token });
  for (const r of [placed, cond, strat, lk]) if (r.body.code !== 0) throw new Error(`seeding ${prefix} failed: ${r.body.code} ${r.body.message}`);
  return {
    ...u,
    token,
    cookie,
    orderId: placed.body.data.orderId,
    clientOrderId,
    conditionId: cond.body.data.conditionId,
    strategyId: strat.body.data.strategyId,
    listenKey: lk.body.data.listenKey,
  };
}

/** Seed for fast-check: FUZZ_SEED when given (to replay a failure), else one per run, printed on failure by fast-check. */
export function fuzzSeed(): number | undefined {
  const s = process.env.FUZZ_SEED;
  return s === undefined || s === '' ? undefined : Number(s);
}

/** Runs per property: FUZZ_RUNS scales every file up for a long soak. */
export function fuzzRuns(defaultRuns: number): number {
  const s = process.env.FUZZ_RUNS;
  const n = s === undefined || s === '' ? NaN : Number(s);
  return Number.isSafeInteger(n) && n > 0 ? n : defaultRuns;
}
