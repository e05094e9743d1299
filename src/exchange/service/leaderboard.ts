/**
 * PnL leaderboard (PROTOCOL.md, last paragraph): every user with at least one trade in the period,
 * ranked by net realized PnL (fees and funding included) descending, ties by volume descending,
 * then by userId so that the order is stable. `pnlPct` is that PnL over the wallet balance at the
 * period's start; for an account created during the period, over its first balance.
 */
import { Dec, formatDec } from '../../core/decimal';
import type { LeaderboardPeriod } from '../../core/enums';
import { MONEY_DP } from '../../core/values';
import type { LeaderboardEntry, LeaderboardResult } from '../../protocol/rest/public';
import { DAY, balanceAfterFirstFrom, balanceBefore, money, pnlBetween, tradedSince, volumeBetween, type AccountHistory } from './stats';

export const LEADERBOARD_SIZE = 100;
const PERIOD_MS: Record<LeaderboardPeriod, number> = { '7d': 7 * DAY, '30d': 30 * DAY, '90d': 90 * DAY };

/** "alice" → "al***ce", "bob" → "b***b": enough to recognise oneself, not enough to identify. */
export function maskName(name: string): string {
  const chars = [...name];
  const keep = chars.length >= 5 ? 2 : 1;
  return `${chars.slice(0, keep).join('')}***${chars.slice(-keep).join('')}`;
}

export interface LeaderboardSource {
  userIds(): string[];
  history(userId: string): AccountHistory;
  username(userId: string): string;
}

interface Row {
  userId: string;
  volume: Dec;
  pnl: Dec;
  pct: Dec;
}

export function leaderboard(src: LeaderboardSource, period: LeaderboardPeriod, now: number, me: string | undefined): LeaderboardResult {
  const from = now - PERIOD_MS[period];
  const rows: Row[] = [];
  for (const userId of src.userIds()) {
    const h = src.history(userId);
    if (!tradedSince(h.trades, from)) continue;
    const pnl = pnlBetween(h.changes, from, Number.MAX_SAFE_INTEGER);
    let base = balanceBefore(h.changes, from);
    if (base.lte(0)) base = balanceAfterFirstFrom(h.changes, from) ?? base;
    rows.push({ userId, volume: volumeBetween(h.trades, from, Number.MAX_SAFE_INTEGER), pnl, pct: base.gt(0) ? pnl.div(base) : new Dec(0) });
  }
  rows.sort((a, b) => b.pnl.comparedTo(a.pnl) || b.volume.comparedTo(a.volume) || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  const list: LeaderboardEntry[] = rows.slice(0, LEADERBOARD_SIZE).map((r, i) => ({
    rank: i + 1,
    userId: r.userId,
    trader: maskName(src.username(r.userId)),
    volume: money(r.volume),
    pnlAmount: money(r.pnl),
    pnlPct: formatDec(r.pct, MONEY_DP),
  }));
  const myIndex = me === undefined ? -1 : rows.findIndex((r) => r.userId === me);
  return { list, myRank: myIndex + 1 };
}
