/** Market data REST (PROTOCOL.md section 6): contract specs from the engine, trades and klines from the market-data store. */
import type { SymbolSpec as WireSymbolSpec } from '../../../protocol/rest/market';
import { wireSpecOf, type SymbolSpec } from '../../engine/symbols';
import type { HandlerMap } from './context';

const wireSpec = (s: SymbolSpec): WireSymbolSpec => wireSpecOf(s.config);

export const marketHandlers = {
  getSymbols: (ctx, req) => {
    // marketState refuses an unknown symbol with 10003, like every other symbol lookup.
    if (req.symbol !== undefined) ctx.deps.core.engine.marketState(req.symbol);
    const specs = ctx.deps.core.engine.symbolSpecs().filter((s) => req.symbol === undefined || s.name === req.symbol);
    return { symbols: specs.map(wireSpec) };
  },
  getDepth: (ctx, req) => {
    const d = ctx.deps.core.engine.depth(req.symbol, req.limit);
    return { symbol: req.symbol, bids: d.bids, asks: d.asks, time: d.lastUpdateTime };
  },
  getMarketTrades: (ctx, req) => {
    ctx.deps.core.engine.marketState(req.symbol);
    return { symbol: req.symbol, list: ctx.deps.marketData.recentTrades(req.symbol, req.limit) };
  },
  getMarkPrice: (ctx, req) => {
    const m = ctx.deps.core.engine.marketState(req.symbol);
    return { symbol: req.symbol, markPrice: m.markPrice, indexPrice: m.indexPrice, fundingRate: m.fundingRate, nextFundingTime: m.nextFundingTime, time: ctx.deps.core.wallClock.now() };
  },
  getKlines: (ctx, req) => {
    ctx.deps.core.engine.marketState(req.symbol);
    return { symbol: req.symbol, interval: req.interval, list: ctx.deps.marketData.klines(req.symbol, req.interval, req.limit, req.startTime, req.endTime) };
  },
} satisfies Partial<HandlerMap>;
