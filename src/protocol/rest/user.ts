/**
 * User and account resource: /v1/private/user/* (SERVICE_SPEC "User and account", listenKey shapes
 * from PROTOCOL.md section 5).
 */
import type { BalanceHistoryPeriod, ChangeType, OverviewType } from '../../core/enums';
import type { AccountChangeRecord, UserAssetRecord } from '../records';
import type { EmptyParams, ListResult, PageParams, TimeRangeParams, WithDefaults } from './common';

export interface UserInfo {
  /** External user id. */
  userId: string;
  username: string;
  agentId: number;
  vipLevel: number;
  /** Epoch ms; 0 before the first login. */
  lastLoginAt: number;
  lastLoginIp: string;
}

export type UserInfoParams = EmptyParams;
export interface UserInfoResult {
  userInfo: UserInfo;
}

export type UserAssetParams = EmptyParams;
export interface UserAssetResult {
  userAsset: UserAssetRecord;
}

// ---------------------------------------------------------------- listenKey

export type CreateListenKeyParams = EmptyParams;
export interface ListenKeyResult {
  listenKey: string;
  /** Epoch ms: 60 minutes after creation or the last PUT. */
  expireAt: number;
}
export interface ListenKeyParams {
  listenKey: string;
}
export type ListenKeyRequest = ListenKeyParams;
export type ExtendListenKeyResult = ListenKeyResult;
export type CloseListenKeyResult = Record<string, never>;

// ---------------------------------------------------------------- account data

export interface AccountChangeLogParams extends PageParams, TimeRangeParams {
  assetType?: string;
  changeType?: ChangeType;
}
export type AccountChangeLogRequest = WithDefaults<AccountChangeLogParams, 'page' | 'pageSize'>;
export type AccountChangeLogResult = ListResult<AccountChangeRecord>;

export type VolumeStatsParams = EmptyParams;
export interface VolumeStatsResult {
  volume30d: string;
  feeTotal30d: string;
}

export interface BalanceHistoryParams {
  period: BalanceHistoryPeriod;
  /** 1..365, default 30. */
  limit?: number;
}
export type BalanceHistoryRequest = WithDefaults<BalanceHistoryParams, 'limit'>;
export const BALANCE_HISTORY_LIMIT_DEFAULT = 30;
export const BALANCE_HISTORY_LIMIT_MAX = 365;
export interface BalanceHistoryItem {
  /** Aggregation date, "YYYY-MM-DD" (UTC). */
  date: string;
  balance: string;
  pnl: string;
}
export interface BalanceHistoryResult {
  items: BalanceHistoryItem[];
}

export interface OverviewParams {
  type: OverviewType;
}
export type OverviewRequest = OverviewParams;

export interface AssetTrendItem {
  snapshotTime: number;
  balance: string;
  pnl: string;
  pnlRate: string;
  totalPnl: string;
}

export interface AssetOverviewSummary {
  todayPnl: string;
  todayVolume: string;
  totalVolume: string;
  totalPnl: string;
  maxDrawdown30d: string;
  /** Decimal 0 to 1. */
  maxDrawdown30dRate: string;
  transferIn: string;
  transferOut: string;
}

export type TradeOverviewParams = OverviewParams;
export type TradeOverviewRequest = OverviewRequest;
export interface TradeOverviewResult extends AssetOverviewSummary {
  items: AssetTrendItem[];
}

export type AssetSummaryParams = EmptyParams;
export type AssetSummaryResult = AssetOverviewSummary;

export type AssetTrendParams = OverviewParams;
export type AssetTrendRequest = OverviewRequest;
export interface AssetTrendResult {
  items: AssetTrendItem[];
}

// ---------------------------------------------------------------- favorite symbols

export interface FavoriteSymbolsParams {
  /** The whole list, replacing the stored one; [] clears it. */
  symbols: string[];
}
export type FavoriteSymbolsRequest = FavoriteSymbolsParams;
export interface FavoriteSymbolsResult {
  symbols: string[];
}
export const FAVORITE_SYMBOLS_MAX = 100;
