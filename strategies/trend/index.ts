/**
 * Trend with brackets: an EMA crossover on time bars cut from public trades. When the fast EMA
 * crosses above the slow one (below, for a short) on a closed bar, and nothing of ours is working,
 * the entry goes out as one OTOCO strategy order: a marketable LIMIT entry a few bps through the
 * close, a take-profit LIMIT and a stop-loss STOP_MARKET at ATR multiples from the entry. The
 * venue places both exits when the entry fills, so the position is protected even if the bot
 * dies; the strategy never closes positions itself. An entry that has not filled after
 * `entryTimeoutBars` bars is cancelled (the venue cancels its exits with it).
 *
 * "Working" is read from the venue: our OTOCO strategy orders that are not final (from
 * `strategyOrder` events), an open position, or an entry order of ours still live.
 */
import { Dec, defineStrategy, type BotEvent, type Intent, type StrategyContext, type StrategyOrderRecord } from '../../src/index';
import { Atr, BarAggregator, Ema, type Bar } from '../indicators';
import { dec, int, onlyKeys, str } from '../params';

export interface TrendParams {
  symbol: string;
  /** Entry size, base asset. */
  quantity: Dec;
  /** Bar length, ms. */
  barMs: number;
  fastPeriod: number;
  slowPeriod: number;
  atrPeriod: number;
  /** Take-profit distance from the entry, in ATRs. */
  takeProfitAtr: Dec;
  /** Stop-loss distance from the entry, in ATRs. */
  stopLossAtr: Dec;
  /** The entry LIMIT sits this far through the close (above for a buy), bps: a bounded-slippage market order. */
  entryOffsetBps: Dec;
  /** Bars an entry may stay unfilled before it is cancelled. */
  entryTimeoutBars: number;
}

const KEYS = ['symbol', 'quantity', 'barMs', 'fastPeriod', 'slowPeriod', 'atrPeriod', 'takeProfitAtr', 'stopLossAtr', 'entryOffsetBps', 'entryTimeoutBars'] as const;
const BPS = new Dec(10000);

interface Working {
  entryClientOrderId: string;
  entryFilled: boolean;
  /** Bar count when the bracket was first seen working. */
  sinceBar: number;
  cancelSent: boolean;
}

export function trend(ctx: StrategyContext<TrendParams>) {
  const p = ctx.params;
  const found = ctx.symbols.get(p.symbol);
  if (!found) throw new Error(`trend: unknown symbol ${p.symbol}`);
  const info = found;
  const qty = info.step.fromUnits(info.step.unitsOfDec(p.quantity, 'down'));
  const bars = new BarAggregator(p.barMs);
  const fast = new Ema(p.fastPeriod);
  const slow = new Ema(p.slowPeriod);
  const atr = new Atr(p.atrPeriod);
  let prevDiff: number | undefined;
  let barCount = 0;
  /** A bracket sent and not yet seen on the venue: the bar count it was sent at. */
  let pendingSince: number | undefined;
  const working = new Map<string, Working>();
  let active = true;

  const mine = (r: StrategyOrderRecord): boolean => r.subOrders.some((s) => s.clientOrderId.startsWith(`${ctx.id}-`));

  function busy(): boolean {
    if (pendingSince !== undefined || working.size > 0) return true;
    if (!new Dec(ctx.state.position(p.symbol)?.quantity ?? '0').isZero()) return true;
    // After a restart the strategy events are gone, but an entry still on the book is adopted.
    return ctx.myOrders(p.symbol).some((o) => !o.reduceOnly);
  }

  function onStrategyOrder(r: StrategyOrderRecord): void {
    if (r.strategyType !== 'OTOCO' || !mine(r)) return;
    pendingSince = undefined;
    if (r.strategyStatus !== 'WORKING') {
      working.delete(r.strategyId);
      return;
    }
    const entry = r.subOrders.find((s) => s.strategySubId === 1) ?? r.subOrders[0];
    const was = working.get(r.strategyId);
    working.set(r.strategyId, {
      entryClientOrderId: entry.clientOrderId,
      entryFilled: entry.status === 'FILLED' || entry.status === 'PARTIALLY_FILLED',
      sinceBar: was?.sinceBar ?? barCount,
      cancelSent: was?.cancelSent ?? false,
    });
  }

  function expireEntries(): Intent[] {
    const out: Intent[] = [];
    for (const w of working.values()) {
      if (w.entryFilled || w.cancelSent || barCount - w.sinceBar < p.entryTimeoutBars) continue;
      w.cancelSent = true;
      ctx.log.info({ entry: w.entryClientOrderId }, 'trend: entry unfilled too long; cancelling the bracket');
      out.push({ kind: 'cancel', clientOrderId: w.entryClientOrderId });
    }
    // A bracket whose fate never reached us (answer lost) stops blocking after the same time.
    if (pendingSince !== undefined && barCount - pendingSince >= p.entryTimeoutBars) pendingSince = undefined;
    return out;
  }

  function bracket(side: 'BUY' | 'SELL', close: Dec, atrValue: number): Intent[] {
    const sign = side === 'BUY' ? 1 : -1;
    // Rounded away from the close: never less marketable than asked.
    const entryRaw = close.times(BPS.plus(p.entryOffsetBps.times(sign))).div(BPS);
    const entry = info.tick.decOf(info.tick.unitsOfDec(entryRaw, side === 'BUY' ? 'up' : 'down'));
    const a = new Dec(atrValue);
    const tp = info.tick.decOf(info.tick.unitsOfDec(entry.plus(a.times(p.takeProfitAtr).times(sign)), 'nearest'));
    const sl = info.tick.decOf(info.tick.unitsOfDec(entry.minus(a.times(p.stopLossAtr).times(sign)), 'nearest'));
    if (sl.lte(0) || tp.lte(0) || tp.eq(entry) || sl.eq(entry)) {
      ctx.log.warn({ entry: entry.toString(), tp: tp.toString(), sl: sl.toString() }, 'trend: ATR too small or too large for a bracket on this tick; no entry');
      return [];
    }
    pendingSince = barCount;
    return [{ kind: 'bracket', symbol: p.symbol, side, quantity: qty, entryPrice: entry.toString(), takeProfitPrice: tp.toString(), stopLossPrice: sl.toString(), tag: side === 'BUY' ? 'long' : 'short' }];
  }

  function onBar(bar: Bar): Intent[] {
    barCount++;
    const f = fast.update(bar.close);
    const s = slow.update(bar.close);
    const a = atr.update(bar);
    const out = expireEntries();
    if (f === undefined || s === undefined) return out;
    const diff = f - s;
    const before = prevDiff;
    prevDiff = diff;
    if (before === undefined || a === undefined || !active || busy()) return out;
    // Double decimal rendering of a number is exact for prices read from decimal strings.
    if (before <= 0 && diff > 0) return [...out, ...bracket('BUY', new Dec(bar.close), a)];
    if (before >= 0 && diff < 0) return [...out, ...bracket('SELL', new Dec(bar.close), a)];
    return out;
  }

  return {
    onStart(): Intent[] {
      // Close a quiet bar on time: check at least every second (or every bar, if shorter).
      ctx.every('bar', Math.min(p.barMs, 1000));
      return [];
    },
    onEvent(e: BotEvent): Intent[] {
      switch (e.type) {
        case 'trade': {
          if (e.symbol !== p.symbol) return [];
          const closed = bars.update(e.trade.time, Number(e.trade.price), Number(e.trade.quantity));
          return closed ? onBar(closed) : [];
        }
        case 'timer': {
          const closed = bars.closeUntil(ctx.clock.now());
          return closed ? onBar(closed) : [];
        }
        case 'strategyOrder':
          onStrategyOrder(e.strategyOrder);
          return [];
        case 'denial':
        case 'rejection':
          if (e.intent.kind === 'bracket') pendingSince = undefined;
          return [];
        case 'riskState':
          // Entries stop outside ACTIVE; the exits already on the venue keep working.
          active = e.state === 'ACTIVE';
          return [];
        default:
          return [];
      }
    },
    onStop(): Intent[] {
      // Unfilled entries are withdrawn; filled ones keep their venue-side take-profit and stop.
      return [...working.values()].filter((w) => !w.entryFilled).map((w): Intent => ({ kind: 'cancel', clientOrderId: w.entryClientOrderId }));
    },
  };
}

export default defineStrategy<TrendParams>({
  name: 'trend',
  description: 'EMA crossover on trade bars; every entry is an OTOCO bracket with ATR-based take-profit and stop-loss on the venue.',
  symbols: (p) => [p.symbol],
  // Builds its bars from public trades; marks and books it reads from the state cache when needed.
  marketData: () => ['trade'],
  params: (raw) => {
    onlyKeys(raw, KEYS);
    const p: TrendParams = {
      symbol: str(raw, 'symbol', 'BTCUSDT'),
      quantity: dec(raw, 'quantity', '0.001'),
      barMs: int(raw, 'barMs', 1000, 86_400_000, 60_000),
      fastPeriod: int(raw, 'fastPeriod', 1, 1000, 9),
      slowPeriod: int(raw, 'slowPeriod', 2, 1000, 21),
      atrPeriod: int(raw, 'atrPeriod', 1, 1000, 14),
      takeProfitAtr: dec(raw, 'takeProfitAtr', '3'),
      stopLossAtr: dec(raw, 'stopLossAtr', '1.5'),
      entryOffsetBps: dec(raw, 'entryOffsetBps', '5'),
      entryTimeoutBars: int(raw, 'entryTimeoutBars', 1, 1000, 2),
    };
    if (p.fastPeriod >= p.slowPeriod) throw new Error(`parameter 'fastPeriod' must be below slowPeriod, got ${p.fastPeriod} >= ${p.slowPeriod}`);
    return p;
  },
  create: trend,
});
