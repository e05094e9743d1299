/** Market data REST of PROTOCOL.md section 6 (/v1/public/market/*), no authentication. */
import type * as M from '../../protocol/rest/market';
import type { RequestOptions, RestCore } from './core';

export class MarketApi {
  constructor(private readonly core: RestCore) {}

  /** GET /v1/public/market/symbols: contract specs (tick, step, limits, fees, margin tiers). */
  getSymbols(params: M.SymbolsParams = {}, ro?: RequestOptions): Promise<M.SymbolsResult> {
    return this.core.call('getSymbols', params, ro);
  }

  /** GET /v1/public/market/depth. */
  getDepth(params: M.DepthParams, ro?: RequestOptions): Promise<M.DepthResult> {
    return this.core.call('getDepth', params, ro);
  }

  /** GET /v1/public/market/trades. */
  getMarketTrades(params: M.MarketTradesParams, ro?: RequestOptions): Promise<M.MarketTradesResult> {
    return this.core.call('getMarketTrades', params, ro);
  }

  /** GET /v1/public/market/mark-price. */
  getMarkPrice(params: M.MarkPriceParams, ro?: RequestOptions): Promise<M.MarkPriceResult> {
    return this.core.call('getMarkPrice', params, ro);
  }

  /** GET /v1/public/market/klines. */
  getKlines(params: M.KlinesParams, ro?: RequestOptions): Promise<M.KlinesResult> {
    return this.core.call('getKlines', params, ro);
  }
}
