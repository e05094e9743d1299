/**
 * report.json: everything a backtest produced, as one deterministic document. Key order is fixed
 * by construction, numbers are rounded where they are computed, and no wall-clock reading goes in
 * (run durations are written separately), so the same config and data give the same bytes.
 */
import { configRelative, type BacktestConfig } from '../backtest/config';
import type { BacktestResult, FillRow } from '../backtest/result';
import type { StrategyCode } from '../backtest/strategy-code';
import { identityOf, type ReportIdentity } from './identity';
import { benchmarkCurve, perStrategy, periodFor, periods, summarize, type PeriodRow, type StrategyRow, type Summary } from './metrics';
import { round } from './round';
import { roundTrips, tradeStats, type Trade, type TradeStats } from './trades';

export const REPORT_FORMAT = 'perpkit-backtest-report';

export type ReportConfig = BacktestReport['config'];

export interface BacktestReport {
  format: typeof REPORT_FORMAT;
  version: 2;
  /** What produced this report (strategy, params, data and its sha256, models, version, config hash). */
  identity: ReportIdentity;
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
    /** The recorded L2 book comes from partial book depth (the symbols and levels a side), when it does. */
    partialDepth?: string;
    /** The recording's gap events in the range: the count and the first of them. */
    gaps: BacktestResult['gaps'];
    /** The range's silences longer than a minute: the count, total ms, the longest and the first of them. */
    silences: BacktestResult['silences'];
    /** Input messages the import left out, by reason (the recording header's `skipped`). */
    importSkipped: BacktestResult['importSkipped'];
    /** fill.book l2: files of the range in which no recorded book was known (no snapshot in them). */
    l2Unknown: BacktestResult['l2Unknown'];
    tape: BacktestResult['tape'];
  };
  summary: Summary;
  /** Per `report.periodMs` bucket, as configured. */
  periods: PeriodRow[];
  /** Returns by calendar period, the period fitting the run's length (hour, day or month). */
  returns: { period: 'hour' | 'day' | 'month'; rows: PeriodRow[] };
  /** Round trips, in entry order, and their statistics. */
  trades: Trade[];
  tradeStats: TradeStats;
  strategies: Record<string, StrategyRow>;
  finalPositions: BacktestResult['finalPositions'];
  /** [time, equity, drawdown from peak as a fraction, marks...] per sample. */
  equity: Array<[number, string, number, ...string[]]>;
  /** Buy-and-hold equity per equity sample (equal weights of the traded symbols, 1x, no fees). */
  benchmark: number[];
  /** [time, gross leverage (gross notional / equity), position per symbol...] per sample. */
  exposure: Array<[number, number, ...string[]]>;
  funding: BacktestResult['funding'];
  fills: FillRow[];
  engine: { audit: BacktestResult['audit']; bot: BacktestResult['botStats'] };
}

/** `code`: each strategy's code as the run loaded it, in config order (strategyCodes), for the identity. */
export function buildReport(cfg: BacktestConfig, r: BacktestResult, code?: ReadonlyArray<StrategyCode | undefined>): BacktestReport {
  let peak = -Infinity;
  const equity = r.samples.map((s): [number, string, number, ...string[]] => {
    const e = Number(s.equity);
    peak = Math.max(peak, e);
    const dd = peak > 0 ? Number(((peak - e) / peak).toPrecision(10)) : 0;
    return [s.time, s.equity, dd, ...s.marks];
  });
  // Relative to the config file, so a report does not depend on where the checkout lives.
  const files = cfg.data.files.map((f) => configRelative(cfg.baseDir, f));
  const config: ReportConfig = {
    files,
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
  };
  const trades = roundTrips(r);
  const unit = periodFor(r.endTime - r.startTime);
  return {
    format: REPORT_FORMAT,
    version: 2,
    identity: identityOf(cfg, r, config, files, code),
    config,
    data: { symbols: r.symbols, startTime: r.startTime, endTime: r.endTime, events: r.events, marks: r.marks, ...(r.partialDepth !== undefined ? { partialDepth: r.partialDepth } : {}), gaps: r.gaps, silences: r.silences, importSkipped: r.importSkipped, l2Unknown: r.l2Unknown, tape: r.tape },
    summary: summarize(r, trades),
    periods: periods(r, { ms: cfg.report.periodMs }),
    returns: { period: unit, rows: periods(r, unit) },
    trades,
    tradeStats: tradeStats(trades),
    strategies: perStrategy(r),
    finalPositions: r.finalPositions,
    equity,
    benchmark: benchmarkCurve(r),
    exposure: r.samples.map((s): [number, number, ...string[]] => [s.time, Number(s.equity) > 0 ? round(Number(s.grossNotional) / Number(s.equity)) : 0, ...s.positions]),
    funding: r.funding,
    fills: r.fills,
    engine: { audit: r.audit, bot: r.botStats },
  };
}

export function reportJson(report: BacktestReport): string {
  return `${JSON.stringify(report, null, 1)}\n`;
}
