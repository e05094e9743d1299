/**
 * perpkit/indicators: streaming technical indicators. Each is fed one value (or bar, or trade) per
 * event with `update()` and answers from what it has seen so far only: no look-ahead, no series
 * re-read. `value` is the latest answer and `ready` says whether the warm-up is over.
 *
 * Signal indicators (EMA, SMA, ATR, RSI, Bollinger, volatility) work on `number`: they drive
 * decisions, not money. VWAP, which is itself a price, is exact (`Dec`). Put any price derived
 * from an indicator on the symbol's tick grid (`ctx.price.round(x, 'down')`) before an intent.
 */
export { Ema } from './ema';
export { Sma } from './sma';
export { Atr, type HighLowClose } from './atr';
export { Rsi } from './rsi';
export { Bollinger, type Bands } from './bollinger';
export { Vwap } from './vwap';
export { RollingVolatility } from './volatility';
export { BarAggregator, TickBars, TimeBars, VolumeBars, barsOf, type Bar, type BarBuilder, type BarSpec } from './bars';
