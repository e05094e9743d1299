/**
 * Round trips ("trades") from fills, and their statistics.
 *
 * A trade is the life of the account's net position in one symbol from flat to flat, as the
 * engine holds it (one-way positions: strategies sharing a symbol share its position, so a trade
 * names every strategy that filled in it). A fill that flips the position closes the trade and
 * opens the next with the rest; its fee is split by quantity. Per trade:
 *  - entry/exit: time of the first opening / last closing fill, volume-weighted average prices;
 *  - pnl: the realized PnL of its fills (the engine's, before fees); fees; funding: the account's
 *    funding payments on that symbol while it was open; net = pnl - fees + funding;
 *  - MAE / MFE: worst and best unrealized PnL while open (USDT, against the average entry price),
 *    seen at each fill and each equity sample's mark, so at the sampling resolution.
 * A position still open at the end is an open trade (exit null) and is left out of the statistics,
 * which are over closed trades. Its pnl is the realized PnL of its fills so far plus the engine's
 * unrealized PnL of the position it ends with (finalPositions: at the final mark, against the
 * engine's cost basis, not the trade's average entry), so that the trades' pnl add up to the
 * account's realized + unrealized PnL exactly. The fills and the engine must agree on that
 * position; they always do, and a report that found them apart would be wrong, so it throws.
 */
import { Dec } from '../../core/decimal';
import { EX_ONE, EX_ZERO, absEx, compare, decOfExact, div, exactOfText, minus, negate, plus, times, type Exact } from '../../core/exact';
import type { BacktestResult, FillRow } from '../backtest/result';
import { money, round, share } from './round';

export interface Trade {
  symbol: string;
  side: 'LONG' | 'SHORT';
  strategies: string[];
  entryTime: number;
  exitTime: number | null;
  /** Largest absolute position of the trade (base asset). */
  size: string;
  entryPrice: string;
  exitPrice: string | null;
  pnl: string;
  fees: string;
  funding: string;
  netPnl: string;
  durationMs: number;
  mae: string;
  mfe: string;
  fills: number;
}

export interface SideStats {
  trades: number;
  wins: number;
  netPnl: string;
  winRate: number | null;
}

export interface TradeStats {
  closed: number;
  open: number;
  wins: number;
  losses: number;
  winRate: number | null;
  /** Gross profit of winners / gross loss of losers (net PnL); null with no losing trade. */
  profitFactor: number | null;
  /** Mean net PnL per closed trade. */
  expectancy: string | null;
  avgWin: string | null;
  avgLoss: string | null;
  largestWin: string | null;
  largestLoss: string | null;
  longestLosingStreak: number;
  avgDurationMs: number | null;
  long: SideStats;
  short: SideStats;
}

const d = (s: string): Dec => new Dec(s);
const EX_MINUS_ONE: Exact = { m: -1n, e: 0 };
/** (price - avg) x qty, signed for the trade's side: its unrealized PnL at `price`. */
const upnlAt = (o: Open, price: Exact, avg: Exact): Exact => times(times(minus(price, avg), o.qty), o.sign === 1 ? EX_ONE : EX_MINUS_ONE);
const px = (v: Dec): string => v.toSignificantDigits(12).toFixed();

/**
 * An open trade's running figures, in exact decimals on bigint (core/exact.ts): the same digits as
 * the Dec arithmetic (sums and products exact, quotients rounded to 60 digits half-even) at a
 * fraction of the cost per fill. They become Decs only to be printed, once per trade.
 */
interface Open {
  symbol: string;
  sign: 1 | -1;
  qty: Exact;
  entryCost: Exact;
  entryQty: Exact;
  exitCost: Exact;
  exitQty: Exact;
  maxQty: Exact;
  pnl: Exact;
  fees: Exact;
  funding: Exact;
  entryTime: number;
  lastTime: number;
  mae: Exact;
  mfe: Exact;
  strategies: Set<string>;
  fills: number;
}

function excursion(o: Open, price: Exact): void {
  if (o.qty.m === 0n) return;
  const avg = div(o.entryCost, o.entryQty);
  const u = upnlAt(o, price, avg);
  if (compare(u, o.mae) < 0) o.mae = u;
  if (compare(u, o.mfe) > 0) o.mfe = u;
}

/** The engine's position in a symbol at the end: signed quantity (hedge legs netted, as trades are) and unrealized PnL. */
function finalPosition(positions: BacktestResult['finalPositions'], symbol: string): { qty: Exact; upnl: Exact } {
  let qty = EX_ZERO;
  let upnl = EX_ZERO;
  for (const p of positions) {
    if (p.symbol !== symbol) continue;
    const q = exactOfText(p.quantity);
    qty = plus(qty, p.positionSide === 'LONG' ? absEx(q) : p.positionSide === 'SHORT' ? negate(absEx(q)) : q);
    upnl = plus(upnl, exactOfText(p.unrealizedPnl));
  }
  return { qty, upnl };
}

/** `unrealized`: for a trade open at the end, the engine's unrealized PnL of its position. */
function close(o: Open, exitTime: number | null, unrealized: Exact = EX_ZERO): Trade {
  const entry = div(o.entryCost, o.entryQty);
  const pnl = plus(o.pnl, unrealized);
  const end = exitTime ?? o.lastTime;
  return {
    symbol: o.symbol,
    side: o.sign === 1 ? 'LONG' : 'SHORT',
    strategies: [...o.strategies].sort(),
    entryTime: o.entryTime,
    exitTime,
    size: decOfExact(o.maxQty).toFixed(),
    entryPrice: px(decOfExact(entry)),
    exitPrice: o.exitQty.m === 0n ? null : px(decOfExact(div(o.exitCost, o.exitQty))),
    pnl: money(decOfExact(pnl)),
    fees: money(decOfExact(o.fees)),
    funding: money(decOfExact(o.funding)),
    netPnl: money(decOfExact(plus(minus(pnl, o.fees), o.funding))),
    durationMs: end - o.entryTime,
    mae: money(decOfExact(o.mae)),
    mfe: money(decOfExact(o.mfe)),
    fills: o.fills,
  };
}

/** Round trips of every symbol, in entry-time order (ties: symbol). */
export function roundTrips(r: Pick<BacktestResult, 'fills' | 'samples' | 'funding' | 'symbols' | 'endTime' | 'finalPositions'>): Trade[] {
  const out: Trade[] = [];
  const symbols = [...new Set([...r.symbols, ...r.fills.map((f) => f.symbol)])].sort();
  for (const sym of symbols) {
    const k = r.symbols.indexOf(sym);
    const fills = r.fills.filter((f) => f.symbol === sym);
    const funding = r.funding.filter((f) => f.symbol === sym);
    let fi = 0;
    let si = 0;
    let pi = 0;
    let open: Open | null = null;
    const fundTo = (t: number, inclusive: boolean): void => {
      while (pi < funding.length && (funding[pi].time < t || (inclusive && funding[pi].time === t))) {
        if (open !== null) open.funding = plus(open.funding, exactOfText(funding[pi].amount));
        pi++;
      }
    };
    const onFill = (f: FillRow): void => {
      fundTo(f.time, true);
      const price = exactOfText(f.price);
      let q = exactOfText(f.quantity);
      const sign: 1 | -1 = f.side === 'BUY' ? 1 : -1;
      const feeAll = exactOfText(f.fee);
      const total = q;
      if (open !== null) {
        open.lastTime = f.time;
        excursion(open, price);
        if (open.sign !== sign) {
          const closing = compare(q, open.qty) <= 0 ? q : open.qty;
          open.exitCost = plus(open.exitCost, times(price, closing));
          open.exitQty = plus(open.exitQty, closing);
          open.qty = minus(open.qty, closing);
          open.pnl = plus(open.pnl, exactOfText(f.realizedPnl));
          open.fees = plus(open.fees, div(times(feeAll, closing), total));
          open.strategies.add(f.strategyId);
          open.fills++;
          q = minus(q, closing);
          if (open.qty.m === 0n) {
            out.push(close(open, f.time));
            open = null;
          }
          if (q.m === 0n) return;
        }
      }
      if (open === null) {
        open = { symbol: sym, sign, qty: EX_ZERO, entryCost: EX_ZERO, entryQty: EX_ZERO, exitCost: EX_ZERO, exitQty: EX_ZERO, maxQty: EX_ZERO, pnl: EX_ZERO, fees: EX_ZERO, funding: EX_ZERO, entryTime: f.time, lastTime: f.time, mae: EX_ZERO, mfe: EX_ZERO, strategies: new Set(), fills: 0 };
      }
      const o: Open = open;
      o.qty = plus(o.qty, q);
      o.entryCost = plus(o.entryCost, times(price, q));
      o.entryQty = plus(o.entryQty, q);
      if (compare(o.qty, o.maxQty) > 0) o.maxQty = o.qty;
      o.fees = plus(o.fees, div(times(feeAll, q), total));
      o.strategies.add(f.strategyId);
      o.fills++;
      o.lastTime = f.time;
    };
    // Fills and samples in time order; at equal times the fill first (a sample is the state after).
    while (fi < fills.length || si < r.samples.length) {
      if (si >= r.samples.length || (fi < fills.length && fills[fi].time <= r.samples[si].time)) onFill(fills[fi++]);
      else {
        const s = r.samples[si++];
        if (open !== null && k >= 0) {
          fundTo(s.time, true);
          excursion(open, exactOfText(s.marks[k]));
        }
      }
    }
    // (`open` is set in onFill: the compiler's narrowing does not see it.)
    const o = open as Open | null;
    const end = finalPosition(r.finalPositions, sym);
    const left = o === null ? EX_ZERO : o.sign === 1 ? o.qty : negate(o.qty);
    if (compare(left, end.qty) !== 0 || (o === null && end.upnl.m !== 0n)) {
      throw new Error(`round trips of ${sym}: the fills leave a position of ${decOfExact(left).toFixed()}, the engine ends with ${decOfExact(end.qty).toFixed()} (unrealized PnL ${decOfExact(end.upnl).toFixed()})`);
    }
    if (o !== null) {
      fundTo(Infinity, false);
      o.lastTime = Math.max(o.lastTime, r.endTime);
      out.push(close(o, null, end.upnl));
    }
  }
  return out.sort((a, b) => a.entryTime - b.entryTime || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
}

function sideStats(ts: Trade[]): SideStats {
  const wins = ts.filter((t) => d(t.netPnl).gt(0)).length;
  return { trades: ts.length, wins, netPnl: money(ts.reduce((s, t) => s.plus(t.netPnl), new Dec(0))), winRate: share(wins, ts.length) };
}

export function tradeStats(trades: Trade[]): TradeStats {
  const closed = trades.filter((t) => t.exitTime !== null);
  const net = closed.map((t) => d(t.netPnl));
  const winners = net.filter((v) => v.gt(0));
  const losers = net.filter((v) => v.lt(0));
  const sum = (vs: Dec[]): Dec => vs.reduce((s, v) => s.plus(v), new Dec(0));
  const mean = (vs: Dec[]): string | null => (vs.length === 0 ? null : money(sum(vs).div(vs.length)));
  let streak = 0;
  let longest = 0;
  for (const v of net) {
    streak = v.lt(0) ? streak + 1 : 0;
    longest = Math.max(longest, streak);
  }
  const grossLoss = sum(losers).abs();
  return {
    closed: closed.length,
    open: trades.length - closed.length,
    wins: winners.length,
    losses: losers.length,
    winRate: share(winners.length, closed.length),
    profitFactor: grossLoss.isZero() ? null : round(sum(winners).div(grossLoss).toNumber()),
    expectancy: mean(net),
    avgWin: mean(winners),
    avgLoss: mean(losers),
    largestWin: winners.length === 0 ? null : money(winners.reduce((a, b) => (b.gt(a) ? b : a))),
    largestLoss: losers.length === 0 ? null : money(losers.reduce((a, b) => (b.lt(a) ? b : a))),
    longestLosingStreak: longest,
    avgDurationMs: closed.length === 0 ? null : Math.round(closed.reduce((s, t) => s + t.durationMs, 0) / closed.length),
    long: sideStats(closed.filter((t) => t.side === 'LONG')),
    short: sideStats(closed.filter((t) => t.side === 'SHORT')),
  };
}
