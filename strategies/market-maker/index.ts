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
  quantity: param.quantity({ default: '0.01', description: 'Size of each quote, base asset.' }),
  minSpreadBps: param.decimal({ default: '4', below: '20000', description: 'Narrowest full spread, basis points (below 20000: the bid would be at zero).' }),
  volMultiplier: param.decimal({ default: '3', description: 'Spread per unit of volatility: spread = max(min, volMultiplier x sigma), sigma per update in bps.' }),
  maxInventory: param.decimal({ default: '0.1', description: 'Largest absolute position (base asset) before the adding side stops quoting.' }),
  skewBps: param.decimal({ default: '3', below: '10000', description: 'Lean at full inventory, basis points of mark (below 10000).' }),
  refreshMs: param.integer({ min: 50, max: 3_600_000, default: 1000, description: 'Re-quote at least this often, ms.' }),
  bookAware: param.boolean({ default: false, description: "Keep the quotes off the book's other side: a bid at most one tick under the best ask, an ask at least one tick over the best bid (reads depth; a makerOnly quote that would cross is refused by the venue)." }),
});
export type MarketMakerParams = Params<typeof schema>;

const BPS = new Dec(10000);
const ZERO = new Dec(0);
const ONE = new Dec(1);
const MINUS_ONE = new Dec(-1);
const HALF = new Dec('0.5');
/** Multiplying by it divides by 10,000 exactly, and costs a fraction of a decimal division. */
const PER_BPS = new Dec('0.0001');
/**
 * EWMA weight of the newest squared return. The volatility is a statistic, kept in floating
 * point: a 60-digit decimal square root per quote cost more than the rest of the strategy. The
 * quote prices themselves stay exact decimals (lean, half spread, mark), rounded to the tick.
 */
const VOL_ALPHA = 0.06;
const cancel = (o: TrackedOrderView): Intent => ({ kind: 'cancel', clientOrderId: o.clientOrderId });

export function marketMaker(ctx: StrategyContext<MarketMakerParams>): Strategy {
  const p = ctx.params;
  /** The decimal parameters as doubles, for the quote prices' first estimate. */
  const f = { minSpreadBps: p.minSpreadBps.toNumber(), volMultiplier: p.volMultiplier.toNumber(), maxInventory: p.maxInventory.toNumber(), skewBps: p.skewBps.toNumber() };
  let lastMark: number | undefined;
  let variance = 0;
  let quoting = true;

  // Quotes placed before a restart come back adopted from the venue without their tag: they are
  // recognised by side, or the restarted bot would quote a second bid and ask beside them.
  const quotes = (side: 'BUY' | 'SELL'): TrackedOrderView[] => ctx.myOrders(p.symbol).filter((o) => o.tag === side || (o.tag === undefined && o.side === side));

  type Targets = { BUY: string | undefined; SELL: string | undefined };
  /**
   * The last quote prices and what they were worked out from: they are a function of mark,
   * position and volatility only, so a requote with none of them changed (a timer's, most of
   * them) reuses them instead of doing the decimal arithmetic again.
   */
  let last: { mark: string; pos: Dec; variance: number; t: Targets } | undefined;

  /** Desired quote prices, or undefined for a side that must not quote. */
  function targets(markText: string): Targets {
    const pos = ctx.position();
    if (last !== undefined && last.mark === markText && last.variance === variance && last.pos.eq(pos)) return last.t;
    const t = quotePrices(markText, pos);
    last = { mark: markText, pos, variance, t };
    return t;
  }

  /**
   * The quote prices are exact decimals (mark x (10,000 -+ half spread - lean) / 10,000, rounded to
   * the tick), but worked out in doubles first: the grid takes that estimate when no tick boundary
   * lies within its error bound, and does the decimal arithmetic only for the rare quote that lands
   * on or beside a boundary (see Grid.unitsOfEstimate). The same prices as the decimals alone.
   */
  function quotePrices(markText: string, pos: Dec): Targets {
    // sigma of mark returns per update, in bps
    const sigmaBps = Math.sqrt(variance) * 10000;
    const spreadF = variance === 0 ? f.minSpreadBps : Math.max(f.minSpreadBps, f.volMultiplier * sigmaBps);
    const leanF = pos.isZero() ? 0 : Math.min(1, Math.max(-1, pos.toNumber() / f.maxInventory)) * f.skewBps;
    const mark = Number(markText);
    const exact = (): { mark: Dec; half: Dec; lean: Dec } => {
      const spreadBps = variance === 0 ? p.minSpreadBps : Dec.max(p.minSpreadBps, p.volMultiplier.times(sigmaBps));
      const lean = pos.isZero() ? ZERO : Dec.min(ONE, Dec.max(MINUS_ONE, pos.div(p.maxInventory))).times(p.skewBps);
      return { mark: new Dec(markText), half: spreadBps.times(HALF), lean };
    };
    const quote = (sign: 1 | -1, mode: 'down' | 'up'): string => {
      const factor = 10000 + sign * spreadF * 0.5 - leanF;
      // Each double operation is off by at most half an ulp; 1e-13 of the largest term over the
      // result bounds them all many times over (and grows without limit as the factor nears 0).
      const relErr = (1e-13 * (10000 + spreadF + Math.abs(leanF))) / Math.abs(factor);
      const units = ctx.price.grid.unitsOfEstimate((mark * factor) / 10000, relErr, mode, () => {
        const x = exact();
        return x.mark.times((sign === 1 ? BPS.plus(x.half) : BPS.minus(x.half)).minus(x.lean)).times(PER_BPS);
      });
      return ctx.price.grid.fromUnits(units);
    };
    return {
      BUY: pos.gte(p.maxInventory) ? undefined : quote(-1, 'down'),
      SELL: pos.lte(p.maxInventory.negated()) ? undefined : quote(1, 'up'),
    };
  }

  /**
   * With bookAware, the quotes moved back from the book's other side where they would cross it
   * (a makerOnly order that would take is refused by the venue, its amend too): the bid to one
   * tick under the best ask, the ask to one tick over the best bid. The mark is sampled (once a
   * second on many venues) while the book moves on, so a quote around the mark crosses now and then.
   */
  function offTheBook(t: Targets): Targets {
    const book = ctx.state.depth(p.symbol);
    if (book === undefined) return t;
    const grid = ctx.price.grid;
    const units = (px: string | undefined): number | undefined => (px === undefined ? undefined : grid.toUnits(px));
    const bestAsk = units(book.asks[0]?.[0]);
    const bestBid = units(book.bids[0]?.[0]);
    const bid = units(t.BUY);
    const ask = units(t.SELL);
    return {
      BUY: bid !== undefined && bestAsk !== undefined && bid >= bestAsk ? grid.fromUnits(bestAsk - 1) : t.BUY,
      SELL: ask !== undefined && bestBid !== undefined && ask <= bestBid ? grid.fromUnits(bestBid + 1) : t.SELL,
    };
  }

  function requote(): Intent[] {
    const mark = ctx.state.mark(p.symbol)?.markPrice;
    if (!quoting || mark === undefined) return [];
    const t = p.bookAware ? offTheBook(targets(mark)) : targets(mark);
    const out: Intent[] = [];
    // The venue takes a batch's amends in turn, and refuses a makerOnly amend that would take (its
    // own quote on the other side included): on a rise the ask moves first, on a fall the bid, so
    // that a jump wider than the spread does not put the bid through the ask not yet moved.
    const grid = ctx.price.grid;
    const [bid] = quotes('BUY');
    const bidNow = bid !== undefined && isWorking(bid) && bid.price !== undefined ? grid.toUnits(bid.price) : undefined;
    const bidNext = t.BUY === undefined ? undefined : grid.toUnits(t.BUY);
    const rising = bidNow !== undefined && bidNext !== undefined && bidNext > bidNow;
    for (const side of rising ? (['SELL', 'BUY'] as const) : (['BUY', 'SELL'] as const)) {
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
      const mark = Number(e.mark.markPrice);
      if (lastMark !== undefined && lastMark !== 0) {
        const r = (mark - lastMark) / lastMark;
        variance = variance * (1 - VOL_ALPHA) + r * r * VOL_ALPHA;
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
    saveState: () => ({ variance: String(variance), lastMark: lastMark === undefined ? undefined : String(lastMark) }),
    restoreState(s: unknown) {
      const o = (s ?? {}) as { variance?: unknown; lastMark?: unknown };
      // Numbers print and parse back exactly (shortest round-trip form).
      if (typeof o.variance === 'string' && Number.isFinite(Number(o.variance))) variance = Number(o.variance);
      if (typeof o.lastMark === 'string' && Number.isFinite(Number(o.lastMark))) lastMark = Number(o.lastMark);
    },
  };
}

export default defineStrategy({
  name: 'market-maker',
  description: 'Two-sided quotes around mark; spread widens with volatility, skew grows with inventory.',
  params: schema,
  symbols: (p) => [p.symbol],
  // Marks drive it; with bookAware it reads the book's top too (a backtest replays it only when asked).
  marketData: (p) => (p.bookAware ? ['markPrice', 'depth'] : ['markPrice']),
  create: marketMaker,
});
