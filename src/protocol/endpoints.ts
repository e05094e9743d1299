/**
 * Every HTTP endpoint in one table: the 42 of SERVICE_SPEC.md plus market data (PROTOCOL.md
 * section 6) and the local exchange's admin API (section 7). The server routes, authenticates and
 * validates from it; the client derives its method signatures from the same entries, so the two
 * cannot drift apart.
 */
import type { Permission } from '../core/enums';
import type * as A from './rest/admin';
import type { EmptyParams } from './rest/common';
import type * as M from './rest/market';
import type * as O from './rest/orders';
import type * as P from './rest/positions';
import type * as Pub from './rest/public';
import type * as U from './rest/user';
import * as va from './validate/admin';
import { validateEmptyBody, validateEmptyQuery } from './validate/empty';
import * as vm from './validate/market';
import * as vo from './validate/orders';
import * as vp from './validate/positions';
import * as vpub from './validate/public';
import * as vu from './validate/user';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * none: anyone. optional: credentials are used when sent (leaderboard's myRank) but not required.
 * private: JWT or API key. admin: the X-ADMIN-TOKEN header.
 */
export type AuthKind = 'none' | 'optional' | 'private' | 'admin';

/** Where the request's input is read from; 'none' endpoints still refuse unexpected fields. */
export type InputSource = 'body' | 'query' | 'none';

export type EndpointGroup = 'orders' | 'positions' | 'user' | 'public' | 'market' | 'admin';

export interface EndpointDef<Params, Req, Res> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly auth: AuthKind;
  /** API-key permission needed; JWT sessions hold both (PROTOCOL.md section 2). */
  readonly permission: Permission | undefined;
  readonly input: InputSource;
  readonly group: EndpointGroup;
  /** True for the endpoints of SERVICE_SPEC.md, false for PROTOCOL.md extensions. */
  readonly spec: boolean;
  /** Turns the decoded body or query into the typed request; throws VenueError. */
  readonly validate: (input: unknown) => Req;
  /**
   * Type-level only, never set: what a client sends and what `data` holds on success. Kept on the
   * entry so ParamsOf / ResponseOf can read them back.
   */
  readonly types?: { params: Params; response: Res };
}

type Shape = Omit<EndpointDef<unknown, unknown, unknown>, 'validate' | 'types'>;

function ep<Params, Req, Res>(shape: Shape, validate: (input: unknown) => Req): EndpointDef<Params, Req, Res> {
  return { ...shape, validate };
}

const order = (method: HttpMethod, path: string, input: InputSource): Shape => ({
  method, path: `/v1/private/order${path}`, auth: 'private', permission: 'TRADE', input, group: 'orders', spec: true,
});
const position = (method: HttpMethod, path: string, input: InputSource): Shape => ({
  method, path: `/v1/private/position${path}`, auth: 'private', permission: 'TRADE', input, group: 'positions', spec: true,
});
const user = (method: HttpMethod, path: string, input: InputSource): Shape => ({
  method, path: `/v1/private/user${path}`, auth: 'private', permission: 'READ', input, group: 'user', spec: true,
});
const pub = (method: HttpMethod, path: string, input: InputSource, auth: AuthKind = 'none'): Shape => ({
  method, path, auth, permission: undefined, input, group: 'public', spec: true,
});
const market = (path: string): Shape => ({
  method: 'GET', path: `/v1/public/market${path}`, auth: 'none', permission: undefined, input: 'query', group: 'market', spec: false,
});
const admin = (path: string): Shape => ({
  method: 'POST', path: `/v1/admin${path}`, auth: 'admin', permission: undefined, input: 'body', group: 'admin', spec: false,
});

export const ENDPOINTS = {
  // ---- orders (17)
  placeOrder: ep<O.PlaceOrderParams, O.PlaceOrderRequest, O.PlaceOrderResult>(order('POST', '/place', 'body'), vo.validatePlaceOrder),
  batchPlaceOrders: ep<O.BatchPlaceParams, O.BatchPlaceRequest, O.BatchPlaceResult>(order('POST', '/batch-place', 'body'), vo.validateBatchPlace),
  placeConditionOrder: ep<O.PlaceConditionParams, O.PlaceConditionRequest, O.PlaceConditionResult>(order('POST', '/place-condition', 'body'), vo.validatePlaceCondition),
  placeStrategyOrder: ep<O.PlaceStrategyParams, O.PlaceStrategyRequest, O.PlaceStrategyResult>(order('POST', '/place-strategy', 'body'), vo.validatePlaceStrategy),
  getOrder: ep<O.QueryOrderParams, O.QueryOrderRequest, O.QueryOrderResult>(order('GET', '', 'query'), vo.validateQueryOrder),
  getCurrentOrders: ep<O.CurrentOrdersParams, O.CurrentOrdersRequest, O.CurrentOrdersResult>(order('GET', '/current', 'query'), vo.validateCurrentOrders),
  getCurrentConditionOrders: ep<O.CurrentConditionOrdersParams, O.CurrentConditionOrdersRequest, O.CurrentConditionOrdersResult>(order('GET', '/current-condition', 'query'), vo.validateCurrentConditionOrders),
  getOrderHistory: ep<O.OrderHistoryParams, O.OrderHistoryRequest, O.OrderHistoryResult>(order('GET', '/history', 'query'), vo.validateOrderHistory),
  getConditionOrderHistory: ep<O.ConditionHistoryParams, O.ConditionHistoryRequest, O.ConditionHistoryResult>(order('GET', '/history-condition', 'query'), vo.validateConditionHistory),
  getTrades: ep<O.TradesParams, O.TradesRequest, O.TradesResult>(order('GET', '/trades', 'query'), vo.validateTrades),
  cancelOrder: ep<O.CancelOrderParams, O.CancelOrderRequest, O.CancelOrderResult>(order('POST', '/cancel', 'body'), vo.validateCancelOrder),
  moveOrder: ep<O.MoveOrderParams, O.MoveOrderRequest, O.MoveOrderResult>(order('POST', '/move', 'body'), vo.validateMoveOrder),
  batchMoveOrders: ep<O.BatchMoveParams, O.BatchMoveRequest, O.BatchMoveResult>(order('POST', '/batch-move', 'body'), vo.validateBatchMove),
  batchCancelOrders: ep<O.BatchCancelParams, O.BatchCancelRequest, O.BatchCancelResult>(order('POST', '/batch-cancel', 'body'), vo.validateBatchCancel),
  cancelAllOrders: ep<O.CancelAllParams, O.CancelAllRequest, O.CancelAllResult>(order('POST', '/batch-cancel-all', 'body'), vo.validateCancelAll),
  cancelConditionOrder: ep<O.CancelConditionParams, O.CancelConditionRequest, O.CancelConditionResult>(order('POST', '/cancel-condition', 'body'), vo.validateCancelCondition),
  getStrategyOrder: ep<O.StrategyOrderParams, O.StrategyOrderRequest, O.StrategyOrderResult>(order('GET', '/strategy', 'query'), vo.validateStrategyOrder),

  // ---- positions (5)
  setLeverage: ep<P.SetLeverageParams, P.SetLeverageRequest, P.SetLeverageResult>(position('POST', '/leverage', 'body'), vp.validateSetLeverage),
  setMarginMode: ep<P.SetMarginModeParams, P.SetMarginModeRequest, P.SetMarginModeResult>(position('POST', '/margin-mode', 'body'), vp.validateSetMarginMode),
  getPositionSettings: ep<P.PositionSettingsParams, P.PositionSettingsRequest, P.PositionSettingsResult>(position('GET', '/settings', 'query'), vp.validatePositionSettings),
  getPositions: ep<P.PositionsParams, P.PositionsRequest, P.PositionsResult>(position('GET', '/positions', 'query'), vp.validatePositions),
  getPositionHistory: ep<P.PositionHistoryParams, P.PositionHistoryRequest, P.PositionHistoryResult>(position('GET', '/history', 'query'), vp.validatePositionHistory),

  // ---- user and account (13)
  getUserInfo: ep<U.UserInfoParams, EmptyParams, U.UserInfoResult>(user('GET', '/info', 'none'), validateEmptyQuery),
  getUserAsset: ep<U.UserAssetParams, EmptyParams, U.UserAssetResult>(user('GET', '/asset', 'none'), validateEmptyQuery),
  createListenKey: ep<U.CreateListenKeyParams, EmptyParams, U.ListenKeyResult>(user('POST', '/listen-key', 'none'), validateEmptyBody),
  extendListenKey: ep<U.ListenKeyParams, U.ListenKeyRequest, U.ExtendListenKeyResult>(user('PUT', '/listen-key', 'body'), vu.validateListenKeyBody),
  closeListenKey: ep<U.ListenKeyParams, U.ListenKeyRequest, U.CloseListenKeyResult>(user('DELETE', '/listen-key', 'body'), vu.validateListenKeyBody),
  getAccountChangeLog: ep<U.AccountChangeLogParams, U.AccountChangeLogRequest, U.AccountChangeLogResult>(user('GET', '/account-change-log', 'query'), vu.validateAccountChangeLog),
  getVolumeStats: ep<U.VolumeStatsParams, EmptyParams, U.VolumeStatsResult>(user('GET', '/volume-stats', 'none'), validateEmptyQuery),
  getBalanceHistory: ep<U.BalanceHistoryParams, U.BalanceHistoryRequest, U.BalanceHistoryResult>(user('GET', '/balance-history', 'query'), vu.validateBalanceHistory),
  getTradeOverview: ep<U.TradeOverviewParams, U.TradeOverviewRequest, U.TradeOverviewResult>(user('GET', '/trade-overview', 'query'), vu.validateOverview),
  getAssetSummary: ep<U.AssetSummaryParams, EmptyParams, U.AssetSummaryResult>(user('GET', '/asset/overview/summary', 'none'), validateEmptyQuery),
  getAssetTrend: ep<U.AssetTrendParams, U.AssetTrendRequest, U.AssetTrendResult>(user('GET', '/asset/overview/trend', 'query'), vu.validateOverview),
  saveFavoriteSymbols: ep<U.FavoriteSymbolsParams, U.FavoriteSymbolsRequest, U.FavoriteSymbolsResult>(user('POST', '/favorite-symbols', 'body'), vu.validateFavoriteSymbols),
  getFavoriteSymbols: ep<EmptyParams, EmptyParams, U.FavoriteSymbolsResult>(user('GET', '/favorite-symbols', 'none'), validateEmptyQuery),

  // ---- public (7)
  getVersion: ep<Pub.VersionParams, EmptyParams, Pub.VersionResult>(pub('GET', '/v1/version', 'none'), validateEmptyQuery),
  getTime: ep<Pub.TimeParams, EmptyParams, Pub.TimeResult>(pub('GET', '/v1/time', 'none'), validateEmptyQuery),
  login: ep<Pub.LoginParams, Pub.LoginRequest, Pub.LoginResult>(pub('POST', '/v1/public/user/login', 'body'), vpub.validateLogin),
  refreshToken: ep<Pub.RefreshTokenParams, EmptyParams, Pub.RefreshTokenResult>(pub('POST', '/v1/public/user/refresh-token', 'none'), validateEmptyBody),
  exchangeTicket: ep<Pub.ExchangeTicketParams, Pub.ExchangeTicketRequest, Pub.ExchangeTicketResult>(pub('POST', '/v1/public/agent-sso/exchange-ticket', 'body'), vpub.validateExchangeTicket),
  exchangeEmbedToken: ep<Pub.ExchangeEmbedTokenParams, Pub.ExchangeEmbedTokenRequest, Pub.ExchangeEmbedTokenResult>(pub('POST', '/v1/public/agent-sso/exchange-embed-token', 'body'), vpub.validateExchangeEmbedToken),
  getLeaderboard: ep<Pub.LeaderboardParams, Pub.LeaderboardRequest, Pub.LeaderboardResult>(pub('GET', '/v1/public/leaderboard/pnl', 'query', 'optional'), vpub.validateLeaderboard),

  // ---- market data (PROTOCOL.md section 6)
  getSymbols: ep<M.SymbolsParams, M.SymbolsRequest, M.SymbolsResult>(market('/symbols'), vm.validateSymbols),
  getDepth: ep<M.DepthParams, M.DepthRequest, M.DepthResult>(market('/depth'), vm.validateDepth),
  getMarketTrades: ep<M.MarketTradesParams, M.MarketTradesRequest, M.MarketTradesResult>(market('/trades'), vm.validateMarketTrades),
  getMarkPrice: ep<M.MarkPriceParams, M.MarkPriceRequest, M.MarkPriceResult>(market('/mark-price'), vm.validateMarkPrice),
  getKlines: ep<M.KlinesParams, M.KlinesRequest, M.KlinesResult>(market('/klines'), vm.validateKlines),

  // ---- local exchange admin (PROTOCOL.md section 7)
  adminCreateUser: ep<A.CreateUserParams, A.CreateUserRequest, A.CreateUserResult>(admin('/users'), va.validateCreateUser),
  adminCreateApiKey: ep<A.CreateApiKeyParams, A.CreateApiKeyRequest, A.CreateApiKeyResult>(admin('/api-keys'), va.validateCreateApiKey),
  adminMintTicket: ep<A.MintTicketParams, A.MintTicketRequest, A.MintTicketResult>(admin('/agent-sso/ticket'), va.validateMintTicket),
  adminMintEmbedToken: ep<A.MintEmbedTokenParams, A.MintEmbedTokenRequest, A.MintEmbedTokenResult>(admin('/agent-sso/embed-token'), va.validateMintEmbedToken),
  adminSetMarkPrice: ep<A.SetMarkPriceParams, A.SetMarkPriceRequest, A.SetMarkPriceResult>(admin('/market/mark-price'), va.validateSetMarkPrice),
  adminSettleFunding: ep<A.SettleFundingParams, A.SettleFundingRequest, A.SettleFundingResult>(admin('/clock/funding'), va.validateSettleFunding),
  // Fault injection switches (docs/reliability.md "Fault injection").
  adminSetFault: ep<A.SetFaultParams, A.SetFaultRequest, A.FaultsResult>(admin('/faults'), va.validateSetFault),
  adminGetFaults: ep<A.GetFaultsParams, EmptyParams, A.FaultsResult>({ ...admin('/faults'), method: 'GET', input: 'none' }, validateEmptyQuery),
} as const;

export type Endpoints = typeof ENDPOINTS;
export type EndpointName = keyof Endpoints;

/** What a client passes for endpoint K (optional fields optional, query integers as numbers). */
export type ParamsOf<K extends EndpointName> = Endpoints[K] extends EndpointDef<infer Params, unknown, unknown> ? Params : never;
/** What the validator of endpoint K returns: defaults filled, query integers parsed. */
export type RequestOf<K extends EndpointName> = ReturnType<Endpoints[K]['validate']>;
/** `data` of a successful answer of endpoint K. */
export type ResponseOf<K extends EndpointName> = Endpoints[K] extends EndpointDef<unknown, unknown, infer Res> ? Res : never;

export type AnyEndpoint = EndpointDef<unknown, unknown, unknown>;

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** Endpoint by method, then path: no key text built per request. */
const BY_ROUTE: ReadonlyMap<string, ReadonlyMap<string, EndpointName>> = (() => {
  const m = new Map<string, Map<string, EndpointName>>();
  for (const name of ENDPOINT_NAMES) {
    const { method, path } = ENDPOINTS[name];
    let byPath = m.get(method);
    if (byPath === undefined) m.set(method, (byPath = new Map()));
    byPath.set(path, name);
  }
  return m;
})();

/** The endpoint serving METHOD + path (no query string), or undefined: the server's 10006. */
export function findEndpoint(method: string, path: string): EndpointName | undefined {
  return BY_ROUTE.get(method)?.get(path);
}

/** Whether any method serves this path, to tell "no such endpoint" from "wrong method" in logs. */
export function isKnownPath(path: string): boolean {
  return ENDPOINT_NAMES.some((n) => ENDPOINTS[n].path === path);
}
