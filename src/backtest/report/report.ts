/**
 * report.json: everything a backtest produced, as one deterministic document. Key order is fixed
 * by construction, numbers are rounded where they are computed, and no wall-clock reading goes in
 * (run durations are written separately), so the same config and data give the same bytes.
 */
import * as path from 'node:path';
import type { BacktestConfig } from '../backtest/config';
import type { BacktestResult, FillRow } from '../backtest/run';
import { perStrategy, periods, summarize, type PeriodRow, type StrategyRow, type Summary } from './metrics';

export const REPORT_FORMAT = 'perpkit-backtest-report';

export interface BacktestReport {
  format: typeof REPORT_FORMAT;
  version: 1;
  config: {
    files: string[];
    from: number | null;
    to: number | null;
    balance: string;
    fees: { maker: string; taker: string } | null;
    latency: BacktestConfig['latency'];
    fill: BacktestConfig['fill'];
    risk: BacktestConfig['risk'];
    strategies: BacktestConfig['strategies'];
    equityIntervalMs: number;
    periodMs: number;
  };
  data: {
    symbols: string[];
    startTime: number;
    endTime: number;
    events: BacktestResult['events'];
    /** How marks were obtained per symbol, when the recording says (derived marks are an approximation). */
    marks: BacktestResult['marks'];
    tape: BacktestResult['tape'];
  };
  summary: Summary;
  periods: PeriodRow[];
  strategies: Record<string, StrategyRow>;
  finalPositions: BacktestResult['finalPositions'];
  /** [time, equity, drawdown from peak as a fraction, marks...] per sample. */
  equity: Array<[number, string, number, ...string[]]>;
  funding: BacktestResult['funding'];
  fills: FillRow[];
  engine: { audit: BacktestResult['audit']; bot: BacktestResult['botStats'] };
}

export function buildReport(cfg: BacktestConfig, r: BacktestResult): BacktestReport {
  let peak = -Infinity;
  const equity = r.samples.map((s): [number, string, number, ...string[]] => {
    const e = Number(s.equity);
    peak = Math.max(peak, e);
    const dd = peak > 0 ? Number(((peak - e) / peak).toPrecision(10)) : 0;
    return [s.time, s.equity, dd, ...s.marks];
  });
  return {
    format: REPORT_FORMAT,
    version: 1,
    config: {
      // Relative to the config file, so a report does not depend on where the checkout lives.
      files: cfg.data.files.map((f) => path.relative(cfg.baseDir, f).split(path.sep).join('/')),
      from: cfg.data.from ?? null,
      to: cfg.data.to ?? null,
      balance: cfg.account.balance,
      fees: cfg.fees ?? null,
      latency: cfg.latency,
      fill: cfg.fill,
      risk: cfg.risk,
      strategies: cfg.strategies,
      equityIntervalMs: cfg.report.equityIntervalMs,
      periodMs: cfg.report.periodMs,
    },
    data: { symbols: r.symbols, startTime: r.startTime, endTime: r.endTime, events: r.events, marks: r.marks, tape: r.tape },
    summary: summarize(r, cfg.report.equityIntervalMs),
    periods: periods(r, cfg.report.periodMs),
    strategies: perStrategy(r),
    finalPositions: r.finalPositions,
    equity,
    funding: r.funding,
    fills: r.fills,
    engine: { audit: r.audit, bot: r.botStats },
  };
}

export function reportJson(report: BacktestReport): string {
  return `${JSON.stringify(report, null, 1)}\n`;
}
