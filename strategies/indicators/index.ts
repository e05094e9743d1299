/** Indicators shared by the example strategies; each is a small deterministic class on `number`. */
export { Ema } from './ema';
export { Atr, type HighLowClose } from './atr';
export { RollingVolatility } from './volatility';
export { BarAggregator, type Bar } from './bars';
