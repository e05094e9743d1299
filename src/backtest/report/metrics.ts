/**
 * Report metrics from a backtest result. Definitions (docs/backtesting.md is the reference):
 *  - equity: wallet balance + unrealized PnL of the participant, sampled every equity interval of
 *    virtual time (at each boundary, the state after every event before it);
 *  - total PnL: final equity - initial balance (realized, unrealized, fees and funding together);
 *    gross PnL: realized + unrealized (before fees and funding); return: total PnL / initial;
 *  - Sharpe, Sortino, Calmar: from daily returns, see ratios.ts (null, with a note, when the run
 *    is too short or a denominator is 0);
 *  - max drawdown: largest (peak - equity) / peak over the samples, and its amount;
 *  - trades: round trips, see trades.ts; win rate, profit factor, expectancy are theirs;
 *  - exposure: share of sample intervals that began with a non-zero position; average gross
 *    leverage: mean of gross notional / equity over the samples; turnover: volume / initial;
 *  - benchmark: buy and hold of the traded symbols (equal weights, 1x, no fees) from the first
 *    sample's marks to the last's;
 *  - fees and funding share: fees / |gross PnL|, -funding / |gross PnL| (null when gross is 0).
 * Nothing divides by zero into a number: such a figure is null, and the report says why.
 */
import { Dec } from '../../core/decimal';
import { EX_ZERO, compare, decOfExact, exactOfText, plus, times } from '../../core/exact';
import { newCounters, type BotErrorRow, type RejectionRow, type StrategyCounters, type StrategyErrorRow, type VenuePlacedRefusals, venuePlacedRefusals } from '../backtest/counters';
import type { BacktestResult, FillRow, SilenceRow } from '../backtest/result';
import { ratios, type Ratios } from './ratios';
import { money, round, share } from './round';
import { tradeStats, type Trade } from './trades';

export { round } from './round';

export interface Summary extends Ratios, VenuePlacedRefusals {
  initialBalance: string;
  finalEquity: string;
  totalPnl: string;
  grossPnl: string;
  realizedPnl: string;
  unrealizedPnl: string;
  fees: string;
  funding: string;
  return: number;
  maxDrawdown: number;
  maxDrawdownAmount: string;
  /** Closed round trips, their win rate (net PnL > 0), profit factor and mean net PnL. */
  trades: number;
  winRate: number | null;
  profitFactor: number | null;
  expectancy: string | null;
  /** Closing fills (realized PnL not 0). */
  closingFills: number;
  exposure: number;
  avgGrossLeverage: number;
  turnover: number | null;
  /** Buy and hold of the traded symbols over the same samples; null without samples. */
  benchmarkReturn: number | null;
  feesShare: number | null;
  fundingShare: number | null;
  ordersAccepted: number;
  /** Orders ended REJECTED on arrival (makerOnly that would have taken liquidity): no error code, so not in `rejections`. */
  ordersRejected: number;
  /** Orders ended EXPIRED with nothing filled (a MARKET, IOC or FOK order that found no liquidity): no error code either. */
  ordersExpiredUnfilled: number;
  /** Of those, orders a triggered stop or take-profit placed: the position it was to close stayed open. */
  triggeredExpiredUnfilled: number;
  /** Orders ended EXPIRED after filling in part (the rest found no liquidity): not in `ordersExpiredUnfilled`. */
  ordersExpiredPartial: number;
  cancels: number;
  rejections: number;
  denials: number;
  fills: number;
  volume: string;
  liquidations: number;
  /** Risk denials and venue rejections by code, all strategies, codes sorted. */
  denialsByCode: Record<string, number>;
  rejectionsByCode: Record<string, number>;
  /** The first rejection of each venue code, of any strategy (codes sorted): what the venue said. */
  firstRejectionByCode: Record<string, RejectionRow & { strategyId: string }>;
  /** The first denial of each risk code, of any strategy (codes sorted): the risk engine's reason. */
  firstDenialByCode: Record<string, RejectionRow & { strategyId: string }>;
  /** Times a strategy threw, the first error, and the strategies stopped for their errors. */
  strategyErrors: number;
  firstStrategyError: (StrategyErrorRow & { strategyId: string }) | null;
  strategiesStopped: string[];
  /** Reads of the wall clock by the strategies' code, and the strategies that read it (their first read). */
  wallClockReads: number;
  wallClockReaders: Record<string, string>;
  /** Unexpected exceptions of the bot's own pipeline, and the first: the figures are in doubt. */
  botErrors: number;
  firstBotError: BotErrorRow | null;
  /**
   * What of the range the data does not hold: the recording's `gap` events in it (`data.gaps`),
   * and its silences longer than a minute (`data.silences`: no event at all, marked by a gap or
   * not, within a file or between two), their total length in ms and the longest.
   */
  gaps: number;
  silences: number;
  silentMs: number;
  longestSilence: SilenceRow | null;
}

/** Summary fields a sweep can rank by (numbers, or money strings read as numbers; null ranks last). */
export const RANKABLE_METRICS = [
  'totalPnl', 'return', 'sharpe', 'sortino', 'calmar', 'maxDrawdown', 'maxDrawdownAmount', 'winRate', 'profitFactor', 'expectancy', 'trades', 'fees', 'funding', 'fills', 'exposure',
  'avgGrossLeverage', 'turnover', 'realizedPnl', 'unrealizedPnl', 'grossPnl', 'finalEquity', 'volume', 'closingFills', 'ordersAccepted', 'cancels',
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
  /** Share of the strategy's closing fills whose realized PnL net of the fee is positive; null with none. */
  fillWinRate: number | null;
  closingFills: number;
}

/** Counts by code summed over strategies, with the codes in sorted order (a stable report). */
function byCode(maps: Array<Record<string, number>>): Record<string, number> {
  const sum = new Map<string, number>();
  for (const m of maps) for (const [k, v] of Object.entries(m)) sum.set(k, (sum.get(k) ?? 0) + v);
  return codesSorted(sum);
}

/** Entries by code with the codes in sorted order. */
function codesSorted<T>(m: Map<string, T> | Record<string, T>): Record<string, T> {
  return Object.fromEntries([...(m instanceof Map ? m : Object.entries(m))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Fees, realized PnL and volume summed over fills. Summed as exact decimals on bigint (core/exact.ts:
 * Dec's arithmetic, the same digits) rather than with Dec: this ran over every fill three times
 * per report, a few per cent of a market maker's backtest.
 */
function fillTotals(fills: readonly FillRow[]): { fees: Dec; realized: Dec; volume: Dec; wins: number; closing: number } {
  let fees = EX_ZERO;
  let realized = EX_ZERO;
  let volume = EX_ZERO;
  let wins = 0;
  let closing = 0;
  for (const f of fills) {
    const fee = exactOfText(f.fee);
    const pnl = exactOfText(f.realizedPnl);
    fees = plus(fees, fee);
    realized = plus(realized, pnl);
    volume = plus(volume, times(exactOfText(f.price), exactOfText(f.quantity)));
    if (pnl.m !== 0n) {
      closing++;
      if (compare(pnl, fee) > 0) wins++;
    }
  }
  return { fees: decOfExact(fees), realized: decOfExact(realized), volume: decOfExact(volume), wins, closing };
}

/** Drawdown, exposure and leverage of the equity curve (no annualised figure: see ratios.ts). */
export function curveStats(equity: number[], gross: number[], hasPosition: boolean[]): { maxDrawdown: number; exposure: number; avgGrossLeverage: number } {
  let peak = -Infinity;
  let maxDd = 0;
  for (const e of equity) {
    peak = Math.max(peak, e);
    if (peak > 0) {
      const dd = (peak - e) / peak;
      if (dd > maxDd) maxDd = dd;
    }
  }
  const intervals = Math.max(0, equity.length - 1);
  let exposed = 0;
  for (let i = 0; i < intervals; i++) if (hasPosition[i]) exposed++;
  let lev = 0;
  for (let i = 0; i < equity.length; i++) lev += equity[i] > 0 ? gross[i] / equity[i] : 0;
  return {
    maxDrawdown: round(maxDd),
    exposure: intervals === 0 ? 0 : round(exposed / intervals),
    avgGrossLeverage: equity.length === 0 ? 0 : round(lev / equity.length),
  };
}

/**
 * The largest fall of equity from its peak, in USDT, exact: money, so from the samples' decimal
 * strings and not from binary floats cut to 10 significant digits (which lost the last places).
 * As the ratio, only while the peak is above 0.
 */
export function maxDrawdownAmount(equity: readonly string[]): Dec {
  let peak: Dec | undefined;
  let max = new Dec(0);
  for (const text of equity) {
    const e = new Dec(text);
    if (peak === undefined || e.gt(peak)) peak = e;
    if (peak.gt(0)) {
      const dd = peak.minus(e);
      if (dd.gt(max)) max = dd;
    }
  }
  return max;
}

/** Buy and hold of the traded symbols, equal weights, 1x, no fees: equity per sample. */
export function benchmarkCurve(r: Pick<BacktestResult, 'samples' | 'initialBalance'>): number[] {
  const first = r.samples[0];
  if (first === undefined) return [];
  const initial = Number(r.initialBalance);
  const base = first.marks.map(Number);
  return r.samples.map((s) => {
    if (base.length === 0) return initial;
    let rel = 0;
    for (let k = 0; k < base.length; k++) rel += base[k] > 0 ? Number(s.marks[k]) / base[k] : 1;
    return round((initial * rel) / base.length);
  });
}

export function summarize(r: BacktestResult, trades: Trade[]): Summary {
  const t = fillTotals(r.fills);
  const funding = r.funding.reduce((s, f) => s.plus(f.amount), new Dec(0));
  const initial = new Dec(r.initialBalance);
  const finalEquity = new Dec(r.finalAsset.walletBalance).plus(r.finalAsset.unrealizedPnl);
  const eq = r.samples.map((s) => Number(s.equity));
  const c = curveStats(eq, r.samples.map((s) => Number(s.grossNotional)), r.samples.map((s) => s.positions.some((p) => !new Dec(p).isZero())));
  const rt = ratios(initial.toNumber(), r.samples.map((s) => ({ time: s.time, equity: Number(s.equity) })), r.endTime - r.startTime, c.maxDrawdown);
  const ts = tradeStats(trades);
  const counters = Object.values(r.strategies);
  const sum = (k: 'ordersAccepted' | 'ordersRejected' | 'ordersExpiredUnfilled' | 'triggeredExpiredUnfilled' | 'ordersExpiredPartial' | 'cancels' | 'rejections' | 'denials'): number => counters.reduce((s, x) => s + x[k], 0);
  const gross = t.realized.plus(r.finalAsset.unrealizedPnl);
  const bench = benchmarkCurve(r);
  return {
    initialBalance: money(initial),
    finalEquity: money(finalEquity),
    totalPnl: money(finalEquity.minus(initial)),
    grossPnl: money(gross),
    realizedPnl: money(t.realized),
    unrealizedPnl: money(new Dec(r.finalAsset.unrealizedPnl)),
    fees: money(t.fees),
    funding: money(funding),
    return: initial.isZero() ? 0 : round(finalEquity.minus(initial).div(initial).toNumber()),
    maxDrawdown: c.maxDrawdown,
    maxDrawdownAmount: money(maxDrawdownAmount(r.samples.map((x) => x.equity))),
    ...rt,
    trades: ts.closed,
    winRate: ts.winRate,
    profitFactor: ts.profitFactor,
    expectancy: ts.expectancy,
    closingFills: t.closing,
    exposure: c.exposure,
    avgGrossLeverage: c.avgGrossLeverage,
    turnover: share(t.volume.toNumber(), initial.toNumber()),
    benchmarkReturn: bench.length === 0 || initial.isZero() ? null : round(bench[bench.length - 1] / initial.toNumber() - 1),
    feesShare: share(t.fees.toNumber(), gross.abs().toNumber()),
    fundingShare: share(funding.neg().toNumber(), gross.abs().toNumber()),
    ordersAccepted: sum('ordersAccepted'),
    ordersRejected: sum('ordersRejected'),
    ordersExpiredUnfilled: sum('ordersExpiredUnfilled'),
    triggeredExpiredUnfilled: sum('triggeredExpiredUnfilled'),
    ordersExpiredPartial: sum('ordersExpiredPartial'),
    cancels: sum('cancels'),
    rejections: sum('rejections'),
    denials: sum('denials'),
    fills: r.fills.length,
    volume: money(t.volume),
    liquidations: r.liquidations,
    denialsByCode: byCode(counters.map((x) => x.denialsByCode)),
    rejectionsByCode: byCode(counters.map((x) => x.rejectionsByCode)),
    firstRejectionByCode: firstByCode(r, 'firstRejectionByCode'),
    firstDenialByCode: firstByCode(r, 'firstDenialByCode'),
    strategyErrors: counters.reduce((s, x) => s + x.errors, 0),
    firstStrategyError: firstError(r),
    strategiesStopped: Object.entries(r.strategies).filter(([, x]) => x.stopped !== null).map(([id]) => id).sort(),
    wallClockReads: counters.reduce((s, x) => s + x.wallClockReads, 0),
    wallClockReaders: Object.fromEntries(Object.entries(r.strategies).flatMap(([id, x]) => (x.firstWallClockRead === null ? [] : [[id, x.firstWallClockRead]])).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    botErrors: r.botStats.pipelineErrors,
    firstBotError: r.firstBotError,
    ...venuePlacedRefusals(r),
    gaps: r.gaps.count,
    silences: r.silences.count,
    silentMs: r.silences.ms,
    longestSilence: r.silences.longest,
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

/**
 * The earliest first rejection (or denial: `which`) of each code over the strategies (ties:
 * strategy id order), codes sorted.
 */
function firstByCode(r: BacktestResult, which: 'firstRejectionByCode' | 'firstDenialByCode'): Summary['firstRejectionByCode'] {
  const best = new Map<string, RejectionRow & { strategyId: string }>();
  for (const id of Object.keys(r.strategies).sort()) {
    for (const [code, e] of Object.entries(r.strategies[id][which])) {
      const b = best.get(code);
      if (b === undefined || e.time < b.time) best.set(code, { strategyId: id, ...e });
    }
  }
  return codesSorted(best);
}

/** How a returns table is cut: fixed UTC-aligned buckets, or calendar months. */
export type PeriodUnit = 'hour' | 'day' | 'month' | { ms: number };

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The period of a returns table that fits a run: hours under 2 days, days under 92, else months. */
export function periodFor(spanMs: number): 'hour' | 'day' | 'month' {
  return spanMs < 2 * DAY ? 'hour' : spanMs < 92 * DAY ? 'day' : 'month';
}

function bucket(unit: PeriodUnit): { startOf(t: number): number; next(t: number): number } {
  if (unit === 'month') {
    return {
      startOf: (t) => {
        const d = new Date(t);
        return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      },
      next: (t) => {
        const d = new Date(t);
        return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      },
    };
  }
  const ms = unit === 'hour' ? HOUR : unit === 'day' ? DAY : unit.ms;
  return { startOf: (t) => Math.floor(t / ms) * ms, next: (t) => Math.floor(t / ms) * ms + ms };
}

/** PnL per calendar period (UTC-aligned), from the equity samples. */
export function periods(r: BacktestResult, unit: PeriodUnit): PeriodRow[] {
  const out: PeriodRow[] = [];
  if (r.samples.length === 0) return out;
  const b = bucket(unit);
  let i = 0;
  let prevEquity = new Dec(r.initialBalance);
  while (i < r.samples.length) {
    const pStart = b.startOf(r.samples[i].time);
    const pEnd = b.next(pStart);
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
  // The run's last sample on a period boundary opens an empty period: not a row of its own. What
  // happened in its millisecond (a funding settlement at the run's end, fills) belongs to the row
  // before, whose end equity (that last sample) already holds it: the funding column missed a
  // settlement at the run's last millisecond while the row's pnl held it.
  const last = out[out.length - 1];
  if (out.length > 1 && last.start >= last.end && new Dec(last.pnl).isZero()) {
    out.pop();
    const prev = out[out.length - 1];
    prev.fees = money(new Dec(prev.fees).plus(last.fees));
    prev.funding = money(new Dec(prev.funding).plus(last.funding));
    prev.realizedPnl = money(new Dec(prev.realizedPnl).plus(last.realizedPnl));
    prev.fills += last.fills;
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
      fillWinRate: share(t.wins, t.closing),
      closingFills: t.closing,
      ordersAccepted: c.ordersAccepted,
      ordersRejected: c.ordersRejected,
      ordersExpiredUnfilled: c.ordersExpiredUnfilled,
      triggeredExpiredUnfilled: c.triggeredExpiredUnfilled,
      ordersExpiredPartial: c.ordersExpiredPartial,
      cancels: c.cancels,
      rejections: c.rejections,
      denials: c.denials,
      denialsByCode: byCode([c.denialsByCode]),
      rejectionsByCode: byCode([c.rejectionsByCode]),
      firstRejectionByCode: codesSorted(c.firstRejectionByCode),
      firstDenialByCode: codesSorted(c.firstDenialByCode),
      errors: c.errors,
      firstError: c.firstError,
      wallClockReads: c.wallClockReads,
      firstWallClockRead: c.firstWallClockRead,
      stopped: c.stopped,
    };
  }
  return out;
}
