/**
 * Market maker: quotes one bid and one ask around mark price. The spread widens with volatility
 * (an EWMA of mark-price returns), the quotes lean against inventory (long: both quotes move
 * down, so selling is likelier than buying), quotes move with batch-move amends instead of
 * cancel/replace, the side that would add to a full inventory is not quoted, and all quotes are
 * pulled as soon as the risk engine leaves ACTIVE.
 */
import { Dec, defineStrategy, isWorking, param, params, type Intent, type Params, type Strategy, type StrategyContext, type TrackedOrderView } from '../../src/index';

const schema = params({
  symbol: param.string({ default: 'BTCUSDT' }),
  quantity: param.decimal({ default: '0.01', description: 'Size of each quote, base asset.' }),
  minSpreadBps: param.decimal({ default: '4', description: 'Narrowest full spread, basis points.' }),
  volMultiplier: param.decimal({ default: '3', description: 'Spread per unit of volatility: spread = max(min, volMultiplier x sigma), sigma per update in bps.' }),
  maxInventory: param.decimal({ default: '0.1', description: 'Largest absolute position (base asset) before the adding side stops quoting.' }),
  skewBps: param.decimal({ default: '3', description: 'Lean at full inventory, basis points of mark.' }),
  refreshMs: param.integer({ min: 50, max: 3_600_000, default: 1000, description: 'Re-quote at least this often, ms.' }),
});
export type MarketMakerParams = Params<typeof schema>;

const BPS = new Dec(10000);
/** EWMA weight of the newest squared return. */
const VOL_ALPHA = new Dec('0.06');
const cancel = (o: TrackedOrderView): Intent => ({ kind: 'cancel', clientOrderId: o.clientOrderId });

export function marketMaker(ctx: StrategyContext<MarketMakerParams>): Strategy {
  const p = ctx.params;
  let lastMark: Dec | undefined;
  let variance = new Dec(0);
  let quoting = true;

  // Quotes placed before a restart come back adopted from the venue without their tag: they are
  // recognised by side, or the restarted bot would quote a second bid and ask beside them.
  const quotes = (side: 'BUY' | 'SELL'): TrackedOrderView[] => ctx.myOrders(p.symbol).filter((o) => o.tag === side || (o.tag === undefined && o.side === side));

  /** Desired quote prices, or undefined for a side that must not quote. */
  function targets(mark: Dec): { BUY: string | undefined; SELL: string | undefined } {
    const pos = ctx.position();
    // sigma of mark returns per update, in bps
    const spreadBps = Dec.max(p.minSpreadBps, p.volMultiplier.times(variance.sqrt().times(BPS)));
    const lean = Dec.min(new Dec(1), Dec.max(new Dec(-1), pos.div(p.maxInventory))).times(p.skewBps);
    const half = spreadBps.div(2);
    return {
      BUY: pos.gte(p.maxInventory) ? undefined : ctx.price.round(mark.times(BPS.minus(half).minus(lean)).div(BPS), 'down'),
      SELL: pos.lte(p.maxInventory.negated()) ? undefined : ctx.price.round(mark.times(BPS.plus(half).minus(lean)).div(BPS), 'up'),
    };
  }

  function requote(): Intent[] {
    const mark = ctx.state.mark(p.symbol)?.markPrice;
    if (!quoting || mark === undefined) return [];
    const t = targets(new Dec(mark));
    const out: Intent[] = [];
    for (const side of ['BUY', 'SELL'] as const) {
      const [o, ...extra] = quotes(side);
      const price = t[side];
      // More than one quote on a side (adopted after a crash mid-replace): keep the first only.
      out.push(...extra.filter(isWorking).map(cancel));
      if (price === undefined) {
        if (o && isWorking(o)) out.push(cancel(o));
      } else if (!o) {
        out.push({ kind: 'place', symbol: p.symbol, side, type: 'LIMIT', price, quantity: ctx.quantity.round(p.quantity), makerOnly: true, tag: side });
      } else if (isWorking(o) && o.price !== price) {
        out.push({ kind: 'amend', clientOrderId: o.clientOrderId, price, quantity: o.quantity });
      }
      // Orders still pending an answer are left alone until the venue has spoken.
    }
    return out;
  }

  const pull = (): Intent[] => ctx.myOrders(p.symbol).filter(isWorking).map(cancel);

  return {
    onStart() {
      ctx.every('requote', p.refreshMs);
      return requote();
    },
    onMark(e) {
      const mark = new Dec(e.mark.markPrice);
      if (lastMark !== undefined && !lastMark.isZero()) {
        const r = mark.minus(lastMark).div(lastMark);
        variance = variance.times(new Dec(1).minus(VOL_ALPHA)).plus(r.times(r).times(VOL_ALPHA));
      }
      lastMark = mark;
      return requote();
    },
    onTimer: requote,
    onFill: requote,
    onRiskState(e) {
      quoting = e.state === 'ACTIVE';
      return quoting ? requote() : pull();
    },
    // A makerOnly quote that would have crossed comes back REJECTED: it is re-quoted next tick.
    onStop: pull,
    saveState: () => ({ variance: variance.toString(), lastMark: lastMark?.toString() }),
    restoreState(s: unknown) {
      const o = (s ?? {}) as { variance?: unknown; lastMark?: unknown };
      if (typeof o.variance === 'string') variance = new Dec(o.variance);
      if (typeof o.lastMark === 'string') lastMark = new Dec(o.lastMark);
    },
  };
}

export default defineStrategy({
  name: 'market-maker',
  description: 'Two-sided quotes around mark; spread widens with volatility, skew grows with inventory.',
  params: schema,
  symbols: (p) => [p.symbol],
  create: marketMaker,
});
