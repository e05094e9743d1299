/**
 * One schema per endpoint of the registry for the `data` of a successful answer. The mapped type
 * makes the compiler refuse a missing endpoint and a schema whose output does not fit ResponseOf<K>.
 */
import {
  CONDITION_STATUSES,
  KLINE_INTERVALS,
  MARGIN_MODE_CODES,
  ORDER_STATUSES,
  STRATEGY_STATUSES,
} from '../../core/enums';
import type { EndpointName, ResponseOf } from '../../protocol/endpoints';
import {
  accountChangeRecord,
  batchResult,
  conditionRecord,
  listOf,
  orderRecord,
  positionHistoryRecord,
  positionRecord,
  strategyRecord,
  tradeRecord,
  userAssetRecord,
} from './records';
import { arr, dec, decOrEmpty, int, literal, ms, nonEmptyStr, obj, oneOf, str, tuple2, type Schema } from './schema';

const accessToken = obj({ accessToken: nonEmptyStr, accessExpire: ms });
const listenKey = obj({ listenKey: nonEmptyStr, expireAt: ms });
const trendItem = obj({ snapshotTime: ms, balance: dec, pnl: dec, pnlRate: dec, totalPnl: dec });
const summaryFields = {
  todayPnl: dec,
  todayVolume: dec,
  totalVolume: dec,
  totalPnl: dec,
  maxDrawdown30d: dec,
  maxDrawdown30dRate: dec,
  transferIn: dec,
  transferOut: dec,
};
const level = tuple2(dec, dec);
const publicTrade = obj({ tradeId: nonEmptyStr, price: dec, quantity: dec, side: oneOf(['BUY', 'SELL'] as const), time: ms });
const marginTier = obj({ tier: int, maxNotional: dec, maxLeverage: int, maintenanceMarginRate: dec, maintenanceAmount: dec });

type AdminFree = Exclude<EndpointName, `admin${string}`>;

export const RESPONSE_SCHEMAS: { [K in AdminFree]: Schema<ResponseOf<K>> } = {
  // orders
  placeOrder: obj({ orderId: nonEmptyStr, clientOrderId: str, status: oneOf(ORDER_STATUSES), timestamp: ms }),
  batchPlaceOrders: batchResult,
  placeConditionOrder: obj({ conditionId: nonEmptyStr, conditionStatus: oneOf(CONDITION_STATUSES), timestamp: ms }),
  placeStrategyOrder: obj({ strategyId: nonEmptyStr, strategyStatus: oneOf(STRATEGY_STATUSES), timestamp: ms }),
  getOrder: orderRecord,
  getCurrentOrders: listOf(orderRecord),
  getCurrentConditionOrders: listOf(conditionRecord),
  getOrderHistory: listOf(orderRecord),
  getConditionOrderHistory: listOf(conditionRecord),
  getTrades: listOf(tradeRecord),
  cancelOrder: orderRecord,
  moveOrder: orderRecord,
  batchMoveOrders: batchResult,
  batchCancelOrders: batchResult,
  cancelAllOrders: obj({ accepted: literal(true) }),
  cancelConditionOrder: conditionRecord,
  getStrategyOrder: strategyRecord,
  // positions
  setLeverage: obj({ symbol: nonEmptyStr, leverage: int, timestamp: ms }),
  setMarginMode: obj({ symbol: nonEmptyStr, marginMode: oneOf(MARGIN_MODE_CODES), timestamp: ms }),
  getPositionSettings: obj({ symbol: nonEmptyStr, marginMode: oneOf(MARGIN_MODE_CODES), leverage: int }),
  getPositions: obj({ positions: arr(positionRecord) }),
  getPositionHistory: listOf(positionHistoryRecord),
  // user
  getUserInfo: obj({
    userInfo: obj({ userId: nonEmptyStr, username: str, agentId: int, vipLevel: int, lastLoginAt: ms, lastLoginIp: str }),
  }),
  getUserAsset: obj({ userAsset: userAssetRecord }),
  createListenKey: listenKey,
  extendListenKey: listenKey,
  closeListenKey: obj({}) as Schema<Record<string, never>>,
  getAccountChangeLog: listOf(accountChangeRecord),
  getVolumeStats: obj({ volume30d: dec, feeTotal30d: dec }),
  getBalanceHistory: obj({ items: arr(obj({ date: str, balance: dec, pnl: dec })) }),
  getTradeOverview: obj({ ...summaryFields, items: arr(trendItem) }),
  getAssetSummary: obj(summaryFields),
  getAssetTrend: obj({ items: arr(trendItem) }),
  saveFavoriteSymbols: obj({ symbols: arr(str) }),
  getFavoriteSymbols: obj({ symbols: arr(str) }),
  // public
  getVersion: obj({ version: str, apiVersion: literal('v1') }),
  getTime: obj({ serverTime: ms }),
  login: accessToken,
  refreshToken: accessToken,
  exchangeTicket: obj({ accessToken: nonEmptyStr, accessExpire: ms, redirectPath: str }),
  exchangeEmbedToken: accessToken,
  getLeaderboard: obj({
    list: arr(obj({ rank: int, userId: str, trader: str, volume: dec, pnlAmount: dec, pnlPct: dec })),
    myRank: int,
  }),
  // market
  getSymbols: obj({
    symbols: arr(
      obj({
        symbol: nonEmptyStr,
        baseAsset: str,
        quoteAsset: str,
        tickSize: dec,
        stepSize: dec,
        minQty: dec,
        maxQty: dec,
        minNotional: dec,
        maxLeverage: int,
        makerFee: dec,
        takerFee: dec,
        marginTiers: arr(marginTier),
      }),
    ),
  }),
  getDepth: obj({ symbol: nonEmptyStr, bids: arr(level), asks: arr(level), time: ms }),
  getMarketTrades: obj({ symbol: nonEmptyStr, list: arr(publicTrade) }),
  getMarkPrice: obj({ symbol: nonEmptyStr, time: ms, markPrice: dec, indexPrice: dec, fundingRate: dec, nextFundingTime: ms }),
  getKlines: obj({
    symbol: nonEmptyStr,
    interval: oneOf(KLINE_INTERVALS),
    list: arr(
      obj({ openTime: ms, closeTime: ms, open: dec, high: dec, low: dec, close: dec, volume: dec, quoteVolume: dec, tradeCount: int }),
    ),
  }),
};

export { publicTrade, level, decOrEmpty };
