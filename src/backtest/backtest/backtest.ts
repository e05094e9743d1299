/**
 * One backtest from a config: load the strategies, open the data (through the replay cache when
 * enabled), run, and build the report. Used by the CLI and by sweep jobs alike.
 */
import { buildReport, type BacktestReport } from '../report/report';
import { checkDataFiles, type BacktestConfig } from './config';
import { openSource } from './open-source';
import type { BacktestResult } from './result';
import { runBacktest, type BacktestLogger, type RunOptions } from './run';
import { strategyCodes, strategySlots, type DefinitionCache } from './strategy-module';

export interface BacktestOptions {
  /** The strategies' `ctx.log` lines and the bot's; a function gets the replay clock (run.ts `BacktestLogger`). */
  logger?: BacktestLogger;
  onProgress?: RunOptions['onProgress'];
  onNotice?: (msg: string) => void;
  /** Overrides the config's data.cache. */
  cache?: boolean;
  fullTape?: boolean;
  /** Strategy modules already resolved (a sweep's jobs on one thread share them); new ones are added. */
  definitions?: DefinitionCache;
  /** Stops the run (Ctrl+C): it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface BacktestOutcome {
  report: BacktestReport;
  result: BacktestResult;
  sourceKind: 'cache' | 'jsonl';
  /** Wall time this run spent building the replay cache (ms; 0 when it was there already, or off). */
  cacheBuildMs: number;
  /** The files read, in order: data.files with the rotated parts found beside them. */
  files: string[];
  /** Those of `files` that data.files does not name: rotated parts read after their first part. */
  rotatedParts: string[];
}

export async function backtest(cfg: BacktestConfig, opts: BacktestOptions = {}): Promise<BacktestOutcome> {
  checkDataFiles(cfg);
  const definitions = opts.definitions ?? new Map();
  const slots = strategySlots(cfg, definitions);
  const { source, kind, cacheBuildMs } = await openSource(cfg.data.files, { cache: opts.cache ?? cfg.data.cache, onNotice: opts.onNotice });
  const result = await runBacktest(cfg, { slots, source, logger: opts.logger, onProgress: opts.onProgress, fullTape: opts.fullTape, signal: opts.signal });
  const listed = new Set(cfg.data.listed ?? cfg.data.files);
  const code = strategyCodes(cfg, definitions).map((c) => c.code);
  return { report: buildReport(cfg, result, code), result, sourceKind: kind, cacheBuildMs, files: cfg.data.files, rotatedParts: cfg.data.files.filter((f) => !listed.has(f)) };
}
