/**
 * Market maker: quotes one bid and one ask around mark price. The spread widens with volatility
 * (an EWMA of mark-price returns), the quotes lean against inventory (long: both quotes move
 * down, so selling is likelier than buying), quotes move with batch-move amends instead of
 * cancel/replace, the side that would add to a full inventory is not quoted, and all quotes are
 * pulled as soon as the risk engine leaves ACTIVE.
 */
import { Dec, defineStrategy, type BotEvent, type Intent, type StrategyContext, type TrackedOrderView } from '../../src/index';
import { dec, int, onlyKeys, str } from '../params';

export interface MarketMakerParams {
  symbol: string;
  /** Size of each quote, base asset. */
  quantity: Dec;
  /** Narrowest full spread, basis points. */
  minSpreadBps: Dec;
  /** Spread per unit of volatility: spread = max(min, volMultiplier x sigma), sigma per update in bps. */
  volMultiplier: Dec;
  /** Largest absolute position (base asset) before the adding side stops quoting. */
  maxInventory: Dec;
  /** Lean at full inventory, basis points of mark. */
  skewBps: Dec;
  /** Re-quote at least this often, ms. */
  refreshMs: number;
}

const KEYS = ['symbol', 'quantity', 'minSpreadBps', 'volMultiplier', 'maxInventory', 'skewBps', 'refreshMs'] as const;
const BPS = new Dec(10000);
/** EWMA weight of the newest squared return. */
const VOL_ALPHA = new Dec('0.06');

export function marketMaker(ctx: StrategyContext<MarketMakerParams>) {
  const p = ctx.params;
  const found = ctx.symbols.get(p.symbol);
  if (!found) throw new Error(`market-maker: unknown symbol ${p.symbol}`);
  const info = found;
  let lastMark: Dec | undefined;
  let variance = new Dec(0);
  let quoting = true;

  // Quotes placed before a restart come back adopted from the venue without their tag: they are
  // recognised by side, or the restarted bot would quote a second bid and ask beside them.
  const quotes = (side: 'BUY' | 'SELL'): TrackedOrderView[] => ctx.myOrders(p.symbol).filter((o) => o.tag === side || (o.tag === undefined && o.side === side));
  const quote = (side: 'BUY' | 'SELL'): TrackedOrderView | undefined => quotes(side)[0];

  /** sigma of mark returns per update, in bps. */
  const sigmaBps = (): Dec => variance.sqrt().times(BPS);

  function observe(mark: Dec): void {
    if (lastMark !== undefined && !lastMark.isZero()) {
      const r = mark.minus(lastMark).div(lastMark);
      variance = variance.times(new Dec(1).minus(VOL_ALPHA)).plus(r.times(r).times(VOL_ALPHA));
    }
    lastMark = mark;
  }

  /** Desired quote prices, or undefined for a side that must not quote. */
  function targets(mark: Dec): { bid: string | undefined; ask: string | undefined; spreadBps: Dec } {
    const pos = new Dec(ctx.state.position(p.symbol)?.quantity ?? '0');
    const spreadBps = Dec.max(p.minSpreadBps, p.volMultiplier.times(sigmaBps()));
    const lean = Dec.min(new Dec(1), Dec.max(new Dec(-1), pos.div(p.maxInventory))).times(p.skewBps);
    const half = spreadBps.div(2);
    const bid = mark.times(BPS.minus(half).minus(lean)).div(BPS);
    const ask = mark.times(BPS.plus(half).minus(lean)).div(BPS);
    return {
      bid: pos.gte(p.maxInventory) ? undefined : info.tick.fromUnits(info.tick.unitsOfDec(bid, 'down')),
      ask: pos.lte(p.maxInventory.negated()) ? undefined : info.tick.fromUnits(info.tick.unitsOfDec(ask, 'up')),
      spreadBps,
    };
  }

  function requote(): Intent[] {
    const markStr = ctx.state.mark(p.symbol)?.markPrice;
    if (!quoting || markStr === undefined) return [];
    const t = targets(new Dec(markStr));
    const out: Intent[] = [];
    const qty = info.step.fromUnits(info.step.unitsOfDec(p.quantity, 'down'));
    for (const [side, price] of [['BUY', t.bid], ['SELL', t.ask]] as const) {
      const o = quote(side);
      // More than one quote on a side (adopted after a crash mid-replace): keep the first only.
      for (const extra of quotes(side).slice(1)) if (extra.state === 'NEW' || extra.state === 'PARTIALLY_FILLED') out.push({ kind: 'cancel', clientOrderId: extra.clientOrderId });
      if (price === undefined) {
        if (o && (o.state === 'NEW' || o.state === 'PARTIALLY_FILLED')) out.push({ kind: 'cancel', clientOrderId: o.clientOrderId });
        continue;
      }
      if (!o) {
        out.push({ kind: 'place', symbol: p.symbol, side, type: 'LIMIT', price, quantity: qty, makerOnly: true, tag: side });
      } else if ((o.state === 'NEW' || o.state === 'PARTIALLY_FILLED') && o.price !== price) {
        out.push({ kind: 'amend', clientOrderId: o.clientOrderId, price, quantity: o.quantity });
      }
      // Orders still pending an answer are left alone until the venue has spoken.
    }
    return out;
  }

  function pull(): Intent[] {
    return ctx.myOrders(p.symbol).filter((o) => o.state === 'NEW' || o.state === 'PARTIALLY_FILLED').map((o) => ({ kind: 'cancel', clientOrderId: o.clientOrderId }) as Intent);
  }

  return {
    onStart(): Intent[] {
      ctx.every('requote', p.refreshMs);
      return requote();
    },
    onEvent(e: BotEvent): Intent[] {
      switch (e.type) {
        case 'markPrice':
          if (e.symbol !== p.symbol) return [];
          observe(new Dec(e.mark.markPrice));
          return requote();
        case 'timer':
        case 'fill':
          return requote();
        case 'riskState':
          quoting = e.state === 'ACTIVE';
          return quoting ? requote() : pull();
        case 'rejection':
          // A makerOnly quote that would have crossed comes back REJECTED: re-quote next tick.
          return [];
        default:
          return [];
      }
    },
    onStop(): Intent[] {
      return pull();
    },
    saveState(): unknown {
      return { variance: variance.toString(), lastMark: lastMark?.toString() };
    },
    restoreState(s: unknown): void {
      if (typeof s !== 'object' || s === null) return;
      const o = s as { variance?: unknown; lastMark?: unknown };
      if (typeof o.variance === 'string') variance = new Dec(o.variance);
      if (typeof o.lastMark === 'string') lastMark = new Dec(o.lastMark);
    },
  };
}

export default defineStrategy<MarketMakerParams>({
  name: 'market-maker',
  description: 'Two-sided quotes around mark; spread widens with volatility, skew grows with inventory.',
  symbols: (p) => [p.symbol],
  // Reads marks only (and the state cache): recorded trades and books are not handed to it.
  marketData: () => ['markPrice'],
  params: (raw) => {
    onlyKeys(raw, KEYS);
    return {
      symbol: str(raw, 'symbol', 'BTCUSDT'),
      quantity: dec(raw, 'quantity', '0.01'),
      minSpreadBps: dec(raw, 'minSpreadBps', '4'),
      volMultiplier: dec(raw, 'volMultiplier', '3'),
      maxInventory: dec(raw, 'maxInventory', '0.1'),
      skewBps: dec(raw, 'skewBps', '3'),
      refreshMs: int(raw, 'refreshMs', 50, 3_600_000, 1000),
    };
  },
  create: marketMaker,
});
