/** Positions resource (/v1/private/position/*), one method per endpoint. */
import type { PositionHistoryRecord } from '../../protocol/records';
import type * as P from '../../protocol/rest/positions';
import type { RequestOptions, RestCore } from './core';
import { paginate } from './paginate';

export class PositionsApi {
  constructor(private readonly core: RestCore) {}

  /** POST /v1/private/position/leverage. */
  setLeverage(params: P.SetLeverageParams, ro?: RequestOptions): Promise<P.SetLeverageResult> {
    return this.core.call('setLeverage', params, ro);
  }

  /** POST /v1/private/position/margin-mode (1 cross, 2 isolated). */
  setMarginMode(params: P.SetMarginModeParams, ro?: RequestOptions): Promise<P.SetMarginModeResult> {
    return this.core.call('setMarginMode', params, ro);
  }

  /** GET /v1/private/position/settings. */
  getPositionSettings(params: P.PositionSettingsParams, ro?: RequestOptions): Promise<P.PositionSettingsResult> {
    return this.core.call('getPositionSettings', params, ro);
  }

  /** GET /v1/private/position/positions. */
  getPositions(params: P.PositionsParams = {}, ro?: RequestOptions): Promise<P.PositionsResult> {
    return this.core.call('getPositions', params, ro);
  }

  /** GET /v1/private/position/history. */
  getPositionHistory(params: P.PositionHistoryParams = {}, ro?: RequestOptions): Promise<P.PositionHistoryResult> {
    return this.core.call('getPositionHistory', params, ro);
  }

  iteratePositionHistory(params: P.PositionHistoryParams = {}, ro?: RequestOptions): AsyncGenerator<PositionHistoryRecord, void, undefined> {
    return paginate((p) => this.getPositionHistory(p, ro), params);
  }
}
