/**
 * `perpkit/backtest`: replay a recording through strategies and the matching engine from code, as
 * `perpkit backtest` and `perpkit sweep` do (docs/backtesting.md).
 */
export { backtest, type BacktestOptions, type BacktestOutcome } from './backtest/backtest';
export { loadBacktestConfig, parseBacktestConfig, BacktestConfigError, type BacktestConfig, type BacktestStrategyConfig } from './backtest/config';
export { runBacktest, type BacktestLogger } from './backtest/run';
export type { BacktestResult, FillRow, EquitySample } from './backtest/result';
export { runSweep, sweepJobs, type SweepOutcome, type SweepRunOptions } from './sweep/sweep';
export { buildReport, reportJson, REPORT_FORMAT, type BacktestReport } from './report/report';
export { renderHtml } from './report/html';
export { synthesize, type SynthOptions, type SynthResult } from '../market-data/synth';
export { readRecording, readHeader, RecordingFormatError } from '../market-data/reader';
