/** Validators of the market data queries (PROTOCOL.md section 6). */
import { KLINE_INTERVALS } from '../../core/enums';
import type { DepthRequest, KlinesRequest, MarkPriceRequest, MarketTradesRequest, SymbolsRequest } from '../rest/market';
import {
  DEPTH_LIMIT_DEFAULT,
  DEPTH_LIMIT_MAX,
  KLINES_LIMIT_DEFAULT,
  KLINES_LIMIT_MAX,
  MARKET_TRADES_LIMIT_DEFAULT,
  MARKET_TRADES_LIMIT_MAX,
} from '../rest/market';
import { FieldReader, KeySet } from './fields';
import { SYMBOL, TIME_RANGE_KEYS, readTimeRange } from './rules';

const SYMBOL_KEYS = new KeySet(['symbol']);

export function validateSymbols(input: unknown): SymbolsRequest {
  const r = FieldReader.query(input, SYMBOL_KEYS);
  return { symbol: r.optString('symbol', SYMBOL) };
}

const DEPTH_KEYS = new KeySet(['symbol', 'limit']);

export function validateDepth(input: unknown): DepthRequest {
  const r = FieldReader.query(input, DEPTH_KEYS);
  return {
    symbol: r.reqString('symbol', SYMBOL),
    limit: r.optInt('limit', 1, DEPTH_LIMIT_MAX) ?? DEPTH_LIMIT_DEFAULT,
  };
}

export function validateMarketTrades(input: unknown): MarketTradesRequest {
  const r = FieldReader.query(input, DEPTH_KEYS);
  return {
    symbol: r.reqString('symbol', SYMBOL),
    limit: r.optInt('limit', 1, MARKET_TRADES_LIMIT_MAX) ?? MARKET_TRADES_LIMIT_DEFAULT,
  };
}

export function validateMarkPrice(input: unknown): MarkPriceRequest {
  const r = FieldReader.query(input, SYMBOL_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL) };
}

const KLINES_KEYS = new KeySet(['symbol', 'interval', ...TIME_RANGE_KEYS, 'limit']);

export function validateKlines(input: unknown): KlinesRequest {
  const r = FieldReader.query(input, KLINES_KEYS);
  const symbol = r.reqString('symbol', SYMBOL);
  const interval = r.reqEnum('interval', KLINE_INTERVALS);
  const { startTime, endTime } = readTimeRange(r);
  const limit = r.optInt('limit', 1, KLINES_LIMIT_MAX) ?? KLINES_LIMIT_DEFAULT;
  return { symbol, interval, startTime, endTime, limit };
}
