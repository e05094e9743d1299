/**
 * Account statistics of the user endpoints (volume-stats, balance-history, trade-overview, asset
 * overview summary and trend), computed from the engine's own records of the account: its trades
 * and its account change log (`engine.accountData`). Nothing here re-derives engine logic.
 *
 * Definitions (docs/protocol.md "Statistics"):
 * - PnL is net: every wallet change but deposits, i.e. realized PnL + trading fees + funding +
 *   liquidation settlements. So between two snapshots, balance change = PnL + transfers.
 * - Balance at a time is the wallet balance after the last change at or before it.
 * - Day, week (Monday) and month boundaries are UTC.
 */
import { Dec, formatDec } from '../../core/decimal';
import { MONEY_DP } from '../../core/values';
import type { BalanceHistoryPeriod, OverviewType } from '../../core/enums';
import { decOfUnits } from '../../core/money-units';
import type { AssetOverviewSummary, AssetTrendItem, BalanceHistoryItem, VolumeStatsResult } from '../../protocol/rest/user';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
/** 1970-01-01 was a Thursday; weeks start on Monday, four days later. */
const MONDAY_OFFSET = 4 * DAY;

/** The account change log as the statistics read it: oldest first, figures in money units. */
export interface ChangeLogView {
  readonly length: number;
  createdAt(i: number): number;
  changeType(i: number): string;
  amountUnits(i: number): bigint;
  walletAfterUnits(i: number): bigint;
}

/** The account's fills as the statistics read them: oldest first, figures in money units. */
export interface TradeLogView {
  readonly length: number;
  createdAt(i: number): number;
  valueUnits(i: number): bigint;
  feeUnits(i: number): bigint;
}

/**
 * An account's history (the engine's `accountData`): read entry by entry, no record built per
 * entry, so a statistics call over a long history costs a scan with integer sums.
 */
export interface AccountHistory {
  trades: TradeLogView;
  changes: ChangeLogView;
  transferIn: string;
  wallet: string;
}

const ZERO = new Dec(0);
export const money = (d: Dec): string => formatDec(d, MONEY_DP);

/** Index of the first change with createdAt >= t (changes are in time order). */
function firstAtOrAfter(changes: ChangeLogView, t: number): number {
  let lo = 0;
  let hi = changes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (changes.createdAt(mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Wallet balance just before time t (after every change stamped earlier than t). */
export function balanceBefore(changes: ChangeLogView, t: number): Dec {
  const i = firstAtOrAfter(changes, t);
  return i === 0 ? ZERO : decOfUnits(changes.walletAfterUnits(i - 1));
}

/** The wallet balance after the first change stamped at or after t, if there is one. */
export function balanceAfterFirstFrom(changes: ChangeLogView, t: number): Dec | undefined {
  const i = firstAtOrAfter(changes, t);
  return i < changes.length ? decOfUnits(changes.walletAfterUnits(i)) : undefined;
}

/** Net PnL of the changes stamped in [from, to): every change but transfers (deposits). */
export function pnlBetween(changes: ChangeLogView, from: number, to: number): Dec {
  let sum = 0n;
  for (let i = firstAtOrAfter(changes, from); i < changes.length && changes.createdAt(i) < to; i++) {
    if (changes.changeType(i) !== 'DEPOSIT') sum += changes.amountUnits(i);
  }
  return decOfUnits(sum);
}

export function volumeBetween(trades: TradeLogView, from: number, to: number): Dec {
  let sum = 0n;
  for (let i = 0; i < trades.length; i++) {
    const t = trades.createdAt(i);
    if (t >= from && t < to) sum += trades.valueUnits(i);
  }
  return decOfUnits(sum);
}

/** Whether any fill is stamped at or after t. */
export function tradedSince(trades: TradeLogView, t: number): boolean {
  for (let i = trades.length - 1; i >= 0; i--) if (trades.createdAt(i) >= t) return true;
  return false;
}

export function volumeStats(h: AccountHistory, now: number): VolumeStatsResult {
  const from = now - 30 * DAY;
  let volume = 0n;
  let fees = 0n;
  const t = h.trades;
  for (let i = 0; i < t.length; i++) {
    if (t.createdAt(i) < from) continue;
    volume += t.valueUnits(i);
    fees += t.feeUnits(i);
  }
  return { volume30d: money(decOfUnits(volume)), feeTotal30d: money(decOfUnits(fees)) };
}

// ---------------------------------------------------------------- calendar buckets

const utcDay = (t: number): number => t - (((t % DAY) + DAY) % DAY);
const utcWeek = (t: number): number => utcDay(t) - ((((utcDay(t) - MONDAY_OFFSET) % WEEK) + WEEK) % WEEK);
const utcMonth = (t: number): number => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const addMonths = (start: number, n: number): number => {
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
};
const isoDate = (t: number): string => new Date(t).toISOString().slice(0, 10);

/** The last `count` calendar buckets [start, end), oldest first, the last one holding `now`. */
function calendarBuckets(period: BalanceHistoryPeriod, count: number, now: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (period === '1M') {
    const cur = utcMonth(now);
    for (let i = count - 1; i >= 0; i--) out.push([addMonths(cur, -i), addMonths(cur, -i + 1)]);
    return out;
  }
  const size = period === '1D' ? DAY : WEEK;
  const cur = period === '1D' ? utcDay(now) : utcWeek(now);
  for (let i = count - 1; i >= 0; i--) out.push([cur - i * size, cur - (i - 1) * size]);
  return out;
}

/**
 * One item per day, week or month, oldest first, the current (unfinished) one last: `date` is the
 * bucket's first day, `balance` the balance at its end (now, for the current one), `pnl` its net PnL.
 */
export function balanceHistory(h: AccountHistory, period: BalanceHistoryPeriod, limit: number, now: number): BalanceHistoryItem[] {
  return calendarBuckets(period, limit, now).map(([start, end]) => ({
    date: isoDate(start),
    balance: money(balanceBefore(h.changes, Math.min(end, now + 1))),
    pnl: money(pnlBetween(h.changes, start, end)),
  }));
}

// ---------------------------------------------------------------- overview

/** Item size and count of each overview type. */
export const TREND_BUCKETS: Record<OverviewType, { size: number; count: number }> = {
  '1D': { size: HOUR, count: 24 },
  '1W': { size: DAY, count: 7 },
  '1M': { size: DAY, count: 30 },
  '3M': { size: DAY, count: 90 },
  '6M': { size: WEEK, count: 26 },
  '1Y': { size: WEEK, count: 52 },
};

function alignedStart(size: number, t: number): number {
  if (size === WEEK) return utcWeek(t);
  return t - (((t % size) + size) % size);
}

/**
 * Asset trend: one item per bucket, oldest first. `snapshotTime` is the bucket's end (now for the
 * current one) and `balance` the balance then; `pnl` the bucket's net PnL, `pnlRate` that over the
 * balance at the bucket's start ("0" when that was not positive), `totalPnl` the cumulative net PnL
 * of the account up to the snapshot.
 */
export function assetTrend(h: AccountHistory, type: OverviewType, now: number): AssetTrendItem[] {
  const { size, count } = TREND_BUCKETS[type];
  const cur = alignedStart(size, now);
  const items: AssetTrendItem[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const start = cur - i * size;
    const end = Math.min(start + size, now + 1);
    const startBalance = balanceBefore(h.changes, start);
    const pnl = pnlBetween(h.changes, start, end);
    items.push({
      snapshotTime: end === now + 1 ? now : end,
      balance: money(balanceBefore(h.changes, end)),
      pnl: money(pnl),
      pnlRate: startBalance.gt(0) ? formatDec(pnl.div(startBalance), MONEY_DP) : '0',
      totalPnl: money(pnlBetween(h.changes, 0, end)),
    });
  }
  return items;
}

/**
 * Largest peak-to-trough fall of the daily closing balance over the last 30 UTC days (the balance
 * before the first day included as the opening peak). For an account that began inside them, the
 * opening peak is its first balance (not the 0 before it, which would hide a loss of its first
 * day) and the days before it are not counted. Amount and rate are each the largest seen; the rate
 * is the fall over its peak.
 */
export function maxDrawdown30d(h: AccountHistory, now: number): { amount: Dec; rate: Dec } {
  const today = utcDay(now);
  let first = today - 29 * DAY;
  const changes = h.changes;
  if (changes.length === 0) return { amount: ZERO, rate: ZERO };
  let peak: Dec;
  if (changes.createdAt(0) >= first) {
    first = utcDay(changes.createdAt(0));
    peak = decOfUnits(changes.walletAfterUnits(0));
  } else {
    peak = balanceBefore(changes, first);
  }
  let amount = ZERO;
  let rate = ZERO;
  for (let d = first; d <= today; d += DAY) {
    const close = balanceBefore(h.changes, Math.min(d + DAY, now + 1));
    if (close.gt(peak)) peak = close;
    const fall = peak.minus(close);
    if (fall.gt(amount)) amount = fall;
    if (peak.gt(0) && fall.div(peak).gt(rate)) rate = fall.div(peak);
  }
  return { amount, rate };
}

export function overviewSummary(h: AccountHistory, now: number): AssetOverviewSummary {
  const today = utcDay(now);
  const dd = maxDrawdown30d(h, now);
  return {
    todayPnl: money(pnlBetween(h.changes, today, now + 1)),
    todayVolume: money(volumeBetween(h.trades, today, now + 1)),
    totalVolume: money(volumeBetween(h.trades, 0, Number.MAX_SAFE_INTEGER)),
    totalPnl: money(pnlBetween(h.changes, 0, Number.MAX_SAFE_INTEGER)),
    maxDrawdown30d: money(dd.amount),
    maxDrawdown30dRate: formatDec(dd.rate, MONEY_DP),
    transferIn: money(new Dec(h.transferIn)),
    // The local exchange has no withdrawals.
    transferOut: '0',
  };
}
