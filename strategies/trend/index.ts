/**
 * Trend with brackets: an EMA crossover on time bars cut from public trades. When the fast EMA
 * crosses above the slow one (below, for a short) on a closed bar, and nothing of ours is working,
 * the entry goes out as one OTOCO strategy order: a marketable LIMIT entry a few bps through the
 * close, a take-profit LIMIT and a stop-loss STOP_MARKET at ATR multiples from the close. The
 * exits are measured from the close, not from the entry's limit, because a marketable entry fills
 * near the close: measured from the limit, the stop would sit `entryOffsetBps` nearer the fill, and
 * on the wrong side of it (triggering at once) whenever stopLossAtr x ATR is less than the offset.
 * Each exit is at least one tick beyond the close, the take-profit also beyond the entry's limit
 * (where the entry may fill). The venue places both exits when the entry fills, so the position is
 * protected even if the bot dies; the strategy never closes positions itself. An entry that has
 * not filled after `entryTimeoutBars` bars is cancelled (the venue cancels its exits with it).
 *
 * "Working" is read from the venue: our OTOCO strategy orders that are not final (from
 * `strategyOrder` events), an open position, or an entry order of ours still live.
 */
import { Dec, defineStrategy, param, params, type Bar, type Intent, type Params, type Strategy, type StrategyContext } from '../../src/index';
import { Atr, Ema } from '../../src/indicators';

const schema = params({
  symbol: param.string({ default: 'BTCUSDT' }),
  quantity: param.quantity({ default: '0.001', description: 'Entry size, base asset.' }),
  barMs: param.integer({ min: 1000, max: 86_400_000, default: 60_000, description: 'Bar length, ms.' }),
  fastPeriod: param.integer({ min: 1, max: 1000, default: 9 }),
  slowPeriod: param.integer({ min: 2, max: 1000, default: 21 }),
  atrPeriod: param.integer({ min: 1, max: 1000, default: 14 }),
  takeProfitAtr: param.decimal({ default: '3', description: "Take-profit distance from the signal bar's close (where the entry is expected to fill, not its limit), in ATRs; at least one tick, and beyond the entry's limit." }),
  stopLossAtr: param.decimal({ default: '1.5', description: "Stop-loss distance from the signal bar's close (where the entry is expected to fill, not its limit), in ATRs; at least one tick." }),
  entryOffsetBps: param.decimal({ default: '5', below: '10000', description: 'The entry LIMIT sits this far through the close (above for a buy), bps: a bounded-slippage market order (below 10000: a sell entry would be at zero).' }),
  entryTimeoutBars: param.integer({ min: 1, max: 1000, default: 2, description: 'Bars an entry may stay unfilled before it is cancelled.' }),
});
export type TrendParams = Params<typeof schema>;

const BPS = new Dec(10000);

interface Working {
  entryClientOrderId: string;
  entryFilled: boolean;
  /** Bar count when the bracket was first seen working. */
  sinceBar: number;
  cancelSent: boolean;
}

export function trend(ctx: StrategyContext<TrendParams>): Strategy {
  const p = ctx.params;
  const [fast, slow, atr] = [new Ema(p.fastPeriod), new Ema(p.slowPeriod), new Atr(p.atrPeriod)];
  let prevDiff: number | undefined;
  let barCount = 0;
  /** A bracket sent and not yet seen on the venue: the bar count it was sent at. */
  let pendingSince: number | undefined;
  const working = new Map<string, Working>();
  let active = true;

  function busy(): boolean {
    if (pendingSince !== undefined || working.size > 0 || !ctx.position().isZero()) return true;
    // After a restart the strategy events are gone, but an entry still on the book is adopted.
    return ctx.myOrders(p.symbol).some((o) => !o.reduceOnly);
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

  /**
   * `atrs` ATRs from the close toward `dir` (1 above, -1 below), at least one tick, rounded away
   * from the close: an exit never nearer the expected fill than asked, never at or through it.
   */
  function beyondClose(close: Dec, atr: Dec, atrs: Dec, dir: 1 | -1): string {
    const distance = Dec.max(atr.times(atrs), ctx.price.grid.size);
    return ctx.price.round(close.plus(distance.times(dir)), dir === 1 ? 'up' : 'down');
  }

  function bracket(side: 'BUY' | 'SELL', close: Dec, atrValue: number): Intent[] {
    const sign = side === 'BUY' ? 1 : -1;
    // Rounded away from the close: never less marketable than asked.
    const entry = ctx.price.round(close.times(BPS.plus(p.entryOffsetBps.times(sign))).div(BPS), side === 'BUY' ? 'up' : 'down');
    // The exits are measured from the close, where the marketable entry is expected to fill: from
    // the limit, a stop nearer than the offset would be through the fill price and trigger at once.
    const a = new Dec(atrValue);
    // The take-profit is also at least one tick beyond the entry's limit: the entry may fill there
    // (it rests when the market has moved away), and a take-profit at or through the fill closes
    // the position at once. Only a take-profit distance under the offset is moved by this.
    const pastEntry = new Dec(entry).plus(new Dec(ctx.price.grid.size).times(sign));
    const fromClose = new Dec(beyondClose(close, a, p.takeProfitAtr, sign));
    const tp = ctx.price.round(sign === 1 ? Dec.max(fromClose, pastEntry) : Dec.min(fromClose, pastEntry));
    const sl = beyondClose(close, a, p.stopLossAtr, sign === 1 ? -1 : 1);
    if (new Dec(sl).lte(0) || new Dec(tp).lte(0)) {
      ctx.log.warn({ close: close.toString(), entry, tp, sl }, 'trend: ATR too large for a bracket (an exit at or below zero); no entry');
      return [];
    }
    pendingSince = barCount;
    return [{ kind: 'bracket', symbol: p.symbol, side, quantity: ctx.quantity.round(p.quantity), entryPrice: entry, takeProfitPrice: tp, stopLossPrice: sl, tag: side === 'BUY' ? 'long' : 'short' }];
  }

  return {
    bars: { time: p.barMs },
    onBar(bar: Bar) {
      barCount++;
      const [f, s, a] = [fast.update(bar.close), slow.update(bar.close), atr.update(bar)];
      const out = expireEntries();
      if (f === undefined || s === undefined) return out;
      const [before, diff] = [prevDiff, f - s];
      prevDiff = diff;
      if (before === undefined || a === undefined || !active || busy()) return out;
      // Double decimal rendering of a number is exact for prices read from decimal strings.
      if (before <= 0 && diff > 0) return [...out, ...bracket('BUY', new Dec(bar.close), a)];
      if (before >= 0 && diff < 0) return [...out, ...bracket('SELL', new Dec(bar.close), a)];
      return out;
    },
    onStrategyOrder({ strategyOrder: r }) {
      if (r.strategyType !== 'OTOCO' || !r.subOrders.some((s) => s.clientOrderId.startsWith(`${ctx.id}-`))) return;
      pendingSince = undefined;
      if (r.strategyStatus !== 'WORKING') {
        working.delete(r.strategyId);
        return;
      }
      const entry = r.subOrders.find((s) => s.strategySubId === 1) ?? r.subOrders[0];
      const was = working.get(r.strategyId);
      const entryFilled = entry.status === 'FILLED' || entry.status === 'PARTIALLY_FILLED';
      working.set(r.strategyId, { entryClientOrderId: entry.clientOrderId, entryFilled, sinceBar: was?.sinceBar ?? barCount, cancelSent: was?.cancelSent ?? false });
    },
    onRefused({ intent }) {
      if (intent.kind === 'bracket') pendingSince = undefined;
    },
    onRiskState(e) {
      // Entries stop outside ACTIVE; the exits already on the venue keep working.
      active = e.state === 'ACTIVE';
    },
    onStop() {
      // Unfilled entries are withdrawn; filled ones keep their venue-side take-profit and stop.
      return [...working.values()].filter((w) => !w.entryFilled).map((w): Intent => ({ kind: 'cancel', clientOrderId: w.entryClientOrderId }));
    },
  };
}

export default defineStrategy({
  name: 'trend',
  description: 'EMA crossover on trade bars; every entry is an OTOCO bracket with ATR-based take-profit and stop-loss on the venue.',
  params: schema,
  check: (p) => {
    if (p.fastPeriod >= p.slowPeriod) throw new Error(`parameter 'fastPeriod' must be below slowPeriod, got ${p.fastPeriod} >= ${p.slowPeriod}`);
  },
  symbols: (p) => [p.symbol],
  create: trend,
});
