/**
 * Market data REST, beyond the spec (PROTOCOL.md section 6): /v1/public/market/*.
 * Limits and defaults are ours (the section names the parameters only); they are modelled on
 * Binance-style venues and written next to the types that use them.
 */
import type { KlineInterval, Side } from '../../core/enums';
import type { WithDefaults } from './common';

/** One margin tier: up to `maxNotional` of position value the tier's leverage and rates apply. */
export interface MarginTier {
  tier: number;
  /** Position notional (quote asset) above the previous tier's bound, up to this one, inclusive. */
  maxNotional: string;
  maxLeverage: number;
  maintenanceMarginRate: string;
  /** Maintenance amount that keeps the margin continuous across tiers. */
  maintenanceAmount: string;
}

export interface SymbolSpec {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  tickSize: string;
  stepSize: string;
  minQty: string;
  maxQty: string;
  minNotional: string;
  maxLeverage: number;
  makerFee: string;
  takerFee: string;
  marginTiers: MarginTier[];
}

export interface SymbolsParams {
  /** One symbol only; all when absent. */
  symbol?: string;
}
export type SymbolsRequest = SymbolsParams;
export interface SymbolsResult {
  symbols: SymbolSpec[];
}

/** [price, quantity] as decimal strings. */
export type PriceLevel = [price: string, quantity: string];

export interface DepthParams {
  symbol: string;
  /** Levels per side, 1..100, default 20. */
  limit?: number;
}
export type DepthRequest = WithDefaults<DepthParams, 'limit'>;
export const DEPTH_LIMIT_DEFAULT = 20;
export const DEPTH_LIMIT_MAX = 100;
export interface DepthResult {
  symbol: string;
  /** Best first: highest bid first, lowest ask first. */
  bids: PriceLevel[];
  asks: PriceLevel[];
  /** Epoch ms of the snapshot. */
  time: number;
}

/** A public trade; the same shape is pushed on `trade:<symbol>`. */
export interface PublicTrade {
  tradeId: string;
  price: string;
  quantity: string;
  /** Side of the taker. */
  side: Side;
  time: number;
}

export interface MarketTradesParams {
  symbol: string;
  /** Most recent trades, 1..500, default 100. */
  limit?: number;
}
export type MarketTradesRequest = WithDefaults<MarketTradesParams, 'limit'>;
export const MARKET_TRADES_LIMIT_DEFAULT = 100;
export const MARKET_TRADES_LIMIT_MAX = 500;
export interface MarketTradesResult {
  symbol: string;
  /** Newest last. */
  list: PublicTrade[];
}

export interface MarkPriceParams {
  symbol: string;
}
export type MarkPriceRequest = MarkPriceParams;
/** Same fields as the `markPrice:<symbol>` push. */
export interface MarkPriceData {
  markPrice: string;
  indexPrice: string;
  /** Rate of the next settlement, e.g. "0.0001". */
  fundingRate: string;
  nextFundingTime: number;
}
export interface MarkPriceResult extends MarkPriceData {
  symbol: string;
  time: number;
}

export interface KlinesParams {
  symbol: string;
  interval: KlineInterval;
  startTime?: number;
  endTime?: number;
  /** 1..1000, default 500. */
  limit?: number;
}
export type KlinesRequest = WithDefaults<KlinesParams, 'limit'>;
export const KLINES_LIMIT_DEFAULT = 500;
export const KLINES_LIMIT_MAX = 1000;
export interface Kline {
  openTime: number;
  /** Last millisecond of the interval. */
  closeTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  quoteVolume: string;
  tradeCount: number;
}
export interface KlinesResult {
  symbol: string;
  interval: KlineInterval;
  /** Oldest first. */
  list: Kline[];
}
