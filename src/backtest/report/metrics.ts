/**
 * Report metrics from a backtest result. Definitions (docs/backtesting.md is the reference):
 *  - equity: wallet balance + unrealized PnL of the participant, sampled every equity interval of
 *    virtual time (at each boundary, the state after every event before it);
 *  - total PnL: final equity - initial balance (realized, unrealized, fees and funding together);
 *  - return: total PnL / initial balance;
 *  - per-sample returns r_i = equity_i / equity_{i-1} - 1; Sharpe = mean(r) / stdev(r) x
 *    sqrt(samples per year), stdev with n - 1; Sortino = mean(r) / sqrt(mean(min(r, 0)^2)) x
 *    sqrt(samples per year); 0 when the denominator is 0; risk-free rate 0;
 *  - max drawdown: largest (peak - equity) / peak over the samples, and its amount;
 *  - win rate: closing fills (realized PnL not 0) whose realized PnL net of the fill's fee is
 *    positive, over all closing fills;
 *  - exposure: share of sample intervals that began with a non-zero position; average gross
 *    leverage: mean of gross notional / equity over the samples.
 * Money sums are exact decimals; ratios are binary floating point, rounded to 10 significant
 * digits so that the printed report does not depend on the last bits of a sum.
 */
import { Dec } from '../../core/decimal';
import { newCounters, type StrategyCounters, type StrategyErrorRow } from '../backtest/counters';
import type { BacktestResult, FillRow } from '../backtest/run';

const YEAR_MS = 365 * 86_400_000;

export const round = (v: number): number => (Number.isFinite(v) ? Number(v.toPrecision(10)) : 0);
const money = (d: Dec): string => d.toDecimalPlaces(8, Dec.ROUND_HALF_EVEN).toFixed();

export interface Summary {
  initialBalance: string;
  finalEquity: string;
  totalPnl: string;
  realizedPnl: string;
  unrealizedPnl: string;
  fees: string;
  funding: string;
  return: number;
  maxDrawdown: number;
  maxDrawdownAmount: string;
  sharpe: number;
  sortino: number;
  /** What one return period of Sharpe/Sortino is, ms. */
  returnPeriodMs: number;
  winRate: number;
  closingFills: number;
  exposure: number;
  avgGrossLeverage: number;
  ordersAccepted: number;
  cancels: number;
  rejections: number;
  denials: number;
  fills: number;
  volume: string;
  liquidations: number;
  /** Risk denials and venue rejections by code, all strategies, codes sorted. */
  denialsByCode: Record<string, number>;
  rejectionsByCode: Record<string, number>;
  /** Times a strategy threw, the first error, and the strategies stopped for their errors. */
  strategyErrors: number;
  firstStrategyError: (StrategyErrorRow & { strategyId: string }) | null;
  strategiesStopped: string[];
}

/** Summary fields a sweep can rank by (numbers, or money strings read as numbers). */
export const RANKABLE_METRICS = [
  'totalPnl', 'return', 'sharpe', 'sortino', 'maxDrawdown', 'maxDrawdownAmount', 'winRate', 'fees', 'funding', 'fills', 'exposure',
  'avgGrossLeverage', 'realizedPnl', 'unrealizedPnl', 'finalEquity', 'volume', 'closingFills', 'ordersAccepted', 'cancels',
  'rejections', 'denials', 'liquidations', 'strategyErrors',
] as const satisfies ReadonlyArray<keyof Summary>;

export interface PeriodRow {
  start: number;
  end: number;
  startEquity: string;
  endEquity: string;
  pnl: string;
  return: number;
  fees: string;
  funding: string;
  realizedPnl: string;
  fills: number;
}

/** A strategy's fills in figures, beside its counters (codes sorted). */
export interface StrategyRow extends StrategyCounters {
  fills: number;
  volume: string;
  fees: string;
  realizedPnl: string;
  winRate: number;
  closingFills: number;
}

/** Counts by code summed over strategies, with the codes in sorted order (a stable report). */
function byCode(maps: Array<Record<string, number>>): Record<string, number> {
  const sum = new Map<string, number>();
  for (const m of maps) for (const [k, v] of Object.entries(m)) sum.set(k, (sum.get(k) ?? 0) + v);
  return Object.fromEntries([...sum].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function fillTotals(fills: readonly FillRow[]): { fees: Dec; realized: Dec; volume: Dec; wins: number; closing: number } {
  let fees = new Dec(0);
  let realized = new Dec(0);
  let volume = new Dec(0);
  let wins = 0;
  let closing = 0;
  for (const f of fills) {
    const fee = new Dec(f.fee);
    const pnl = new Dec(f.realizedPnl);
    fees = fees.plus(fee);
    realized = realized.plus(pnl);
    volume = volume.plus(new Dec(f.price).times(f.quantity));
    if (!pnl.isZero()) {
      closing++;
      if (pnl.minus(fee).gt(0)) wins++;
    }
  }
  return { fees, realized, volume, wins, closing };
}

/** Ratios of the equity curve: Sharpe, Sortino, drawdown, exposure. */
export function curveStats(equity: number[], gross: number[], hasPosition: boolean[], intervalMs: number): { sharpe: number; sortino: number; maxDrawdown: number; maxDrawdownAmount: number; exposure: number; avgGrossLeverage: number } {
  const rets: number[] = [];
  for (let i = 1; i < equity.length; i++) if (equity[i - 1] > 0) rets.push(equity[i] / equity[i - 1] - 1);
  const n = rets.length;
  const perYear = YEAR_MS / intervalMs;
  let sharpe = 0;
  let sortino = 0;
  if (n >= 2) {
    const mean = rets.reduce((s, r) => s + r, 0) / n;
    const variance = rets.reduce((s, r) => s + (r - mean) ** 2, 0) / (n - 1);
    const down = Math.sqrt(rets.reduce((s, r) => s + Math.min(r, 0) ** 2, 0) / n);
    sharpe = variance > 0 ? (mean / Math.sqrt(variance)) * Math.sqrt(perYear) : 0;
    sortino = down > 0 ? (mean / down) * Math.sqrt(perYear) : 0;
  }
  let peak = -Infinity;
  let maxDd = 0;
  let maxDdAmount = 0;
  for (const e of equity) {
    peak = Math.max(peak, e);
    if (peak > 0) {
      const dd = (peak - e) / peak;
      if (dd > maxDd) maxDd = dd;
      if (peak - e > maxDdAmount) maxDdAmount = peak - e;
    }
  }
  const intervals = Math.max(0, equity.length - 1);
  let exposed = 0;
  for (let i = 0; i < intervals; i++) if (hasPosition[i]) exposed++;
  let lev = 0;
  for (let i = 0; i < equity.length; i++) lev += equity[i] > 0 ? gross[i] / equity[i] : 0;
  return {
    sharpe: round(sharpe),
    sortino: round(sortino),
    maxDrawdown: round(maxDd),
    maxDrawdownAmount: round(maxDdAmount),
    exposure: intervals === 0 ? 0 : round(exposed / intervals),
    avgGrossLeverage: equity.length === 0 ? 0 : round(lev / equity.length),
  };
}

export function summarize(r: BacktestResult, intervalMs: number): Summary {
  const t = fillTotals(r.fills);
  const funding = r.funding.reduce((s, f) => s.plus(f.amount), new Dec(0));
  const initial = new Dec(r.initialBalance);
  const finalEquity = new Dec(r.finalAsset.walletBalance).plus(r.finalAsset.unrealizedPnl);
  const eq = r.samples.map((s) => Number(s.equity));
  const c = curveStats(eq, r.samples.map((s) => Number(s.grossNotional)), r.samples.map((s) => s.positions.some((p) => !new Dec(p).isZero())), intervalMs);
  const counters = Object.values(r.strategies);
  const sum = (k: 'ordersAccepted' | 'cancels' | 'rejections' | 'denials'): number => counters.reduce((s, x) => s + x[k], 0);
  return {
    initialBalance: money(initial),
    finalEquity: money(finalEquity),
    totalPnl: money(finalEquity.minus(initial)),
    realizedPnl: money(t.realized),
    unrealizedPnl: money(new Dec(r.finalAsset.unrealizedPnl)),
    fees: money(t.fees),
    funding: money(funding),
    return: initial.isZero() ? 0 : round(finalEquity.minus(initial).div(initial).toNumber()),
    maxDrawdown: c.maxDrawdown,
    maxDrawdownAmount: money(new Dec(c.maxDrawdownAmount)),
    sharpe: c.sharpe,
    sortino: c.sortino,
    returnPeriodMs: intervalMs,
    winRate: t.closing === 0 ? 0 : round(t.wins / t.closing),
    closingFills: t.closing,
    exposure: c.exposure,
    avgGrossLeverage: c.avgGrossLeverage,
    ordersAccepted: sum('ordersAccepted'),
    cancels: sum('cancels'),
    rejections: sum('rejections'),
    denials: sum('denials'),
    fills: r.fills.length,
    volume: money(t.volume),
    liquidations: r.liquidations,
    denialsByCode: byCode(counters.map((x) => x.denialsByCode)),
    rejectionsByCode: byCode(counters.map((x) => x.rejectionsByCode)),
    strategyErrors: counters.reduce((s, x) => s + x.errors, 0),
    firstStrategyError: firstError(r),
    strategiesStopped: Object.entries(r.strategies).filter(([, x]) => x.stopped !== null).map(([id]) => id).sort(),
  };
}

/** The earliest first error of any strategy (ties: strategy id order). */
function firstError(r: BacktestResult): Summary['firstStrategyError'] {
  let best: Summary['firstStrategyError'] = null;
  for (const id of Object.keys(r.strategies).sort()) {
    const e = r.strategies[id].firstError;
    if (e !== null && (best === null || e.time < best.time)) best = { strategyId: id, ...e };
  }
  return best;
}

/** PnL per calendar period (UTC-aligned multiples of `periodMs`), from the equity samples. */
export function periods(r: BacktestResult, periodMs: number): PeriodRow[] {
  const out: PeriodRow[] = [];
  if (r.samples.length === 0) return out;
  const startOf = (t: number): number => Math.floor(t / periodMs) * periodMs;
  let i = 0;
  let prevEquity = new Dec(r.initialBalance);
  while (i < r.samples.length) {
    const pStart = startOf(r.samples[i].time);
    const pEnd = pStart + periodMs;
    let j = i;
    while (j + 1 < r.samples.length && r.samples[j + 1].time < pEnd) j++;
    // A period ends at its last sample, or at the first sample of the next period when there is one.
    const endSample = j + 1 < r.samples.length ? r.samples[j + 1] : r.samples[j];
    const endEquity = new Dec(endSample.equity);
    const inPeriod = (time: number): boolean => time >= Math.max(pStart, r.startTime) && time < Math.min(pEnd, r.endTime + 1);
    const fills = r.fills.filter((f) => inPeriod(f.time));
    const t = fillTotals(fills);
    const funding = r.funding.filter((f) => inPeriod(f.time)).reduce((s, f) => s.plus(f.amount), new Dec(0));
    out.push({
      start: Math.max(pStart, r.startTime),
      end: Math.min(pEnd, r.endTime),
      startEquity: money(prevEquity),
      endEquity: money(endEquity),
      pnl: money(endEquity.minus(prevEquity)),
      return: prevEquity.isZero() ? 0 : round(endEquity.minus(prevEquity).div(prevEquity).toNumber()),
      fees: money(t.fees),
      funding: money(funding),
      realizedPnl: money(t.realized),
      fills: fills.length,
    });
    prevEquity = endEquity;
    i = j + 1;
  }
  return out;
}

export function perStrategy(r: BacktestResult): Record<string, StrategyRow> {
  const out: Record<string, StrategyRow> = {};
  const ids = [...Object.keys(r.strategies), ...r.fills.map((f) => f.strategyId)].filter((v, i, a) => a.indexOf(v) === i).sort();
  for (const id of ids) {
    const t = fillTotals(r.fills.filter((f) => f.strategyId === id));
    const c = r.strategies[id] ?? newCounters();
    out[id] = {
      fills: r.fills.filter((f) => f.strategyId === id).length,
      volume: money(t.volume),
      fees: money(t.fees),
      realizedPnl: money(t.realized),
      winRate: t.closing === 0 ? 0 : round(t.wins / t.closing),
      closingFills: t.closing,
      ordersAccepted: c.ordersAccepted,
      cancels: c.cancels,
      rejections: c.rejections,
      denials: c.denials,
      denialsByCode: byCode([c.denialsByCode]),
      rejectionsByCode: byCode([c.rejectionsByCode]),
      errors: c.errors,
      firstError: c.firstError,
      stopped: c.stopped,
    };
  }
  return out;
}
