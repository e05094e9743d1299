/** User and account resource (/v1/private/user/*), one method per endpoint. */
import type { AccountChangeRecord } from '../../protocol/records';
import type * as U from '../../protocol/rest/user';
import type { RequestOptions, RestCore } from './core';
import { paginate } from './paginate';

export class UserApi {
  constructor(private readonly core: RestCore) {}

  /** GET /v1/private/user/info. */
  getUserInfo(ro?: RequestOptions): Promise<U.UserInfoResult> {
    return this.core.call('getUserInfo', undefined, ro);
  }

  /** GET /v1/private/user/asset. */
  getUserAsset(ro?: RequestOptions): Promise<U.UserAssetResult> {
    return this.core.call('getUserAsset', undefined, ro);
  }

  /** POST /v1/private/user/listen-key: a key for the private stream, valid 60 min from the last PUT. */
  createListenKey(ro?: RequestOptions): Promise<U.ListenKeyResult> {
    return this.core.call('createListenKey', undefined, ro);
  }

  /** PUT /v1/private/user/listen-key. */
  extendListenKey(params: U.ListenKeyParams, ro?: RequestOptions): Promise<U.ExtendListenKeyResult> {
    return this.core.call('extendListenKey', params, ro);
  }

  /** DELETE /v1/private/user/listen-key. */
  closeListenKey(params: U.ListenKeyParams, ro?: RequestOptions): Promise<U.CloseListenKeyResult> {
    return this.core.call('closeListenKey', params, ro);
  }

  /** GET /v1/private/user/account-change-log. */
  getAccountChangeLog(params: U.AccountChangeLogParams = {}, ro?: RequestOptions): Promise<U.AccountChangeLogResult> {
    return this.core.call('getAccountChangeLog', params, ro);
  }

  iterateAccountChangeLog(params: U.AccountChangeLogParams = {}, ro?: RequestOptions): AsyncGenerator<AccountChangeRecord, void, undefined> {
    return paginate((p) => this.getAccountChangeLog(p, ro), params);
  }

  /** GET /v1/private/user/volume-stats. */
  getVolumeStats(ro?: RequestOptions): Promise<U.VolumeStatsResult> {
    return this.core.call('getVolumeStats', undefined, ro);
  }

  /** GET /v1/private/user/balance-history. */
  getBalanceHistory(params: U.BalanceHistoryParams, ro?: RequestOptions): Promise<U.BalanceHistoryResult> {
    return this.core.call('getBalanceHistory', params, ro);
  }

  /** GET /v1/private/user/trade-overview. */
  getTradeOverview(params: U.TradeOverviewParams, ro?: RequestOptions): Promise<U.TradeOverviewResult> {
    return this.core.call('getTradeOverview', params, ro);
  }

  /** GET /v1/private/user/asset/overview/summary. */
  getAssetSummary(ro?: RequestOptions): Promise<U.AssetSummaryResult> {
    return this.core.call('getAssetSummary', undefined, ro);
  }

  /** GET /v1/private/user/asset/overview/trend. */
  getAssetTrend(params: U.AssetTrendParams, ro?: RequestOptions): Promise<U.AssetTrendResult> {
    return this.core.call('getAssetTrend', params, ro);
  }

  /** POST /v1/private/user/favorite-symbols: replaces the whole list. */
  saveFavoriteSymbols(params: U.FavoriteSymbolsParams, ro?: RequestOptions): Promise<U.FavoriteSymbolsResult> {
    return this.core.call('saveFavoriteSymbols', params, ro);
  }

  /** GET /v1/private/user/favorite-symbols. */
  getFavoriteSymbols(ro?: RequestOptions): Promise<U.FavoriteSymbolsResult> {
    return this.core.call('getFavoriteSymbols', undefined, ro);
  }
}
