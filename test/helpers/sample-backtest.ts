/**
 * Runs an example strategy's backtest config (config/backtest-<name>.yaml) on the sample recording
 * in process, as `perpkit backtest` would, and checks what every such report must satisfy.
 */
import * as path from 'node:path';
import { backtest, type BacktestOutcome } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig, type BacktestConfig } from '../../src/backtest/backtest/config';
import { reportJson } from '../../src/backtest/report/report';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SAMPLE = path.join(ROOT, 'data', 'sample', 'btcusdt-2h.jsonl.gz');

/** The config file of an example, optionally adjusted (params, time slice) before the run. */
export function sampleConfig(name: string, adjust?: (cfg: BacktestConfig) => void): BacktestConfig {
  const cfg = loadBacktestConfig(path.join(ROOT, 'config', `backtest-${name}.yaml`));
  adjust?.(cfg);
  return cfg;
}

export interface SampleRun {
  outcome: BacktestOutcome;
  json: string;
}

/** Runs the backtest twice and expects byte-identical report.json (determinism). */
export async function runTwice(cfg: BacktestConfig): Promise<SampleRun> {
  const a = await backtest(cfg);
  const b = await backtest(cfg);
  const json = reportJson(a.report);
  expect(reportJson(b.report)).toBe(json);
  return { outcome: a, json };
}

/** Checks every report must pass: it read the sample, money is finite and conserved. */
export function expectSaneReport(o: BacktestOutcome): void {
  const r = o.report;
  expect(r.config.files).toEqual(['../data/sample/btcusdt-2h.jsonl.gz']);
  expect(r.data.events.read).toBeGreaterThan(0);
  expect(r.data.endTime).toBeGreaterThan(r.data.startTime);
  expect(r.equity.length).toBeGreaterThan(1);
  for (const [, equity, drawdown] of r.equity) {
    expect(Number.isFinite(Number(equity))).toBe(true);
    expect(Number(equity)).toBeGreaterThan(0);
    expect(drawdown).toBeGreaterThanOrEqual(0);
  }
  const s = r.summary;
  for (const v of [s.finalEquity, s.totalPnl, s.fees, s.funding, s.realizedPnl]) expect(Number.isFinite(Number(v))).toBe(true);
  for (const v of [s.return, s.maxDrawdown]) expect(Number.isFinite(v)).toBe(true);
  // Hours of data: no annualised ratio, and the report says why instead.
  for (const k of ['sharpe', 'sortino', 'calmar'] as const) {
    expect(s[k]).toBeNull();
    expect(s.ratioNotes[k]).toMatch(/^n\/a: [\d.]+ (min|h) of data \(1 daily return\), needs ≥ 30 days$/);
  }
  expect(s.fills).toBe(r.fills.length);
  expect(s.liquidations).toBe(0);
  // The sample has no funding line (its next funding time, 08:00, is after its end).
  expect(s.funding).toBe('0');
  // No order was refused by the risk engine: the example limits fit the example parameters.
  expect(s.denials).toBe(0);
  expect(r.engine.bot.errors).toBe(0);
  // Money is conserved across the engine's accounts and every position has its other side.
  expect(o.result.audit.frozenMismatch).toEqual([]);
  for (const q of Object.values(o.result.audit.netQtyBySymbol)) expect(q).toBe(0);
}

/** Largest |position| of a symbol column over the equity samples. */
export function maxAbsPosition(o: BacktestOutcome, symbol: string): number {
  const i = o.result.symbols.indexOf(symbol);
  return Math.max(0, ...o.result.samples.map((s) => Math.abs(Number(s.positions[i]))));
}
