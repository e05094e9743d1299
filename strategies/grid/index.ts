/**
 * Grid: limit orders on a symmetric ladder around a reference price, buys below and sells above.
 * Level k (k = -levels..levels) sits at reference * (1 + k * spacing). One level is always empty
 * (the "gap", at the reference to begin with): every level below it holds a buy, every level above
 * it a sell. When a buy at level k fills, k becomes the gap and the level above gets a sell, which
 * takes one spacing of profit when it fills; a filled sell re-arms a buy one level below the same
 * way. Outside [lowerBound, upperBound] the grid stops for good: it cancels its orders and
 * flattens the position with a reduce-only market order, because a market that leaves the range
 * leaves the grid holding a one-sided inventory that only grows.
 *
 * Orders are recognised by their price, not by a tag, so orders adopted after a restart (the
 * tracker knows their price but not their tag) still map onto their levels.
 */
import { Dec, defineStrategy, isWorking, param, params, type Intent, type Params, type Strategy, type StrategyContext } from '../../src/index';

const schema = params({
  symbol: param.string({ default: 'BTCUSDT' }),
  quantity: param.quantity({ default: '0.001', description: "Size of each level's order, base asset." }),
  levels: param.integer({ min: 1, max: 50, default: 5, description: 'Levels on each side of the reference.' }),
  spacingBps: param.decimal({ default: '20', description: 'Distance between levels, basis points of the reference.' }),
  referencePrice: param.optional(param.decimal({ description: 'Centre of the grid; the first mark price when absent.' })),
  lowerBound: param.optional(param.decimal({ description: 'Below this mark the grid stops and flattens; one spacing below the lowest level by default.' })),
  upperBound: param.optional(param.decimal({ description: 'Above this mark the grid stops and flattens; one spacing above the highest level by default.' })),
  refreshMs: param.integer({ min: 100, max: 3_600_000, default: 5000, description: 'Re-check the grid (missing levels, a flatten that did not fill) this often, ms.' }),
});
export type GridParams = Params<typeof schema>;

const BPS = new Dec(10000);

/** The price ladder of a reference: level k -> price on the tick grid (buys down, sells up). */
interface Ladder {
  reference: Dec;
  /** Price string of each level, index k + levels. */
  prices: string[];
  lower: Dec;
  upper: Dec;
}

export function grid(ctx: StrategyContext<GridParams>): Strategy {
  const p = ctx.params;
  let ladder: Ladder | undefined;
  /** The empty level, -levels..levels. */
  let gap = 0;
  let stopped = false;
  /** Why it stopped, kept in its saved state: a restarted bot shows the grid halted too. */
  let haltReason: string | undefined;
  let active = true;
  const requested = new Map<number, { side: 'BUY' | 'SELL'; at: number }>();

  const levelOf = (price: string | undefined): number | undefined => {
    const i = ladder && price !== undefined ? ladder.prices.indexOf(price) : -1;
    return i < 0 ? undefined : i - p.levels;
  };
  const sideOf = (k: number): 'BUY' | 'SELL' | undefined => (k < gap ? 'BUY' : k > gap ? 'SELL' : undefined);

  function ladderOf(reference: Dec): Ladder {
    const prices: string[] = [];
    for (let k = -p.levels; k <= p.levels; k++) {
      // Below the reference round down and above round up, so rounding never narrows a spacing.
      prices.push(ctx.price.round(reference.times(BPS.plus(p.spacingBps.times(k))).div(BPS), k < 0 ? 'down' : k > 0 ? 'up' : 'nearest'));
    }
    const edge = p.spacingBps.times(p.levels + 1);
    const lower = p.lowerBound ?? reference.times(BPS.minus(edge)).div(BPS);
    const upper = p.upperBound ?? reference.times(BPS.plus(edge)).div(BPS);
    if (new Dec(prices[0]).lte(0)) throw new Error(`grid: the lowest level is not positive: reduce 'levels' or 'spacingBps' (reference ${reference.toString()})`);
    if (lower.gte(prices[0]) || upper.lte(prices[prices.length - 1])) {
      throw new Error(`grid: bounds [${lower.toString()}, ${upper.toString()}] must lie outside the levels [${prices[0]}, ${prices[prices.length - 1]}]`);
    }
    return { reference, prices, lower, upper };
  }

  /**
   * Places what is missing and cancels what sits on the wrong side of the gap. Orders asked for
   * but not yet tracked (several fills in one burst each trigger a reconcile before the executor
   * has sent the first one's orders) are remembered in `requested`, so a level is never doubled.
   *
   * The grid never has more than 2 x levels orders: one it is cancelling counts until the venue
   * says it is gone, and holds its level (it placed beside such orders, and a cancel lost on the
   * way left it one over until its next event). Levels nearest the gap are filled first.
   */
  function reconcile(): Intent[] {
    if (!ladder || stopped || !active) return [];
    const out: Intent[] = [];
    const held = new Set<number>();
    let live = 0;
    for (const o of ctx.myOrders(p.symbol)) {
      const k = levelOf(o.price);
      if (k === undefined || o.reduceOnly) continue;
      if (requested.get(k)?.side === o.side) requested.delete(k);
      live++;
      held.add(k);
      // A wrong-side order still PENDING_NEW is cancelled once acknowledged.
      if (o.side !== sideOf(k) && isWorking(o)) out.push({ kind: 'cancel', clientOrderId: o.clientOrderId });
    }
    let room = 2 * p.levels - live - requested.size;
    for (let d = 1; d <= 2 * p.levels && room > 0; d++) {
      for (const k of [gap - d, gap + d]) {
        const side = sideOf(k);
        if (room === 0 || k < -p.levels || k > p.levels || side === undefined || held.has(k) || requested.has(k)) continue;
        requested.set(k, { side, at: ctx.clock.now() });
        room--;
        out.push({ kind: 'place', symbol: p.symbol, side, type: 'LIMIT', price: ladder.prices[k + p.levels], quantity: ctx.quantity.round(p.quantity), tag: `L${k}` });
      }
    }
    return out;
  }

  /** Cancels the grid's orders and closes the position with a reduce-only market order. */
  function flatten(): Intent[] {
    const mine = ctx.myOrders(p.symbol);
    // Individual cancels rather than cancelAll: a closing order already on its way must stay.
    const out: Intent[] = mine.filter((o) => !o.reduceOnly && isWorking(o)).map((o): Intent => ({ kind: 'cancel', clientOrderId: o.clientOrderId }));
    const pos = ctx.position();
    if (!pos.isZero() && !mine.some((o) => o.reduceOnly)) {
      out.push({ kind: 'place', symbol: p.symbol, side: pos.gt(0) ? 'SELL' : 'BUY', type: 'MARKET', quantity: ctx.quantity.round(pos.abs()), reduceOnly: true, tag: 'flatten' });
    }
    return out;
  }

  function onMark(mark: Dec): Intent[] {
    if (!ladder) {
      ladder = ladderOf(p.referencePrice ?? mark);
      ctx.log.info({ reference: ladder.reference.toString(), lower: ladder.lower.toString(), upper: ladder.upper.toString(), levels: ladder.prices }, 'grid armed');
    }
    if (!stopped && (mark.lt(ladder.lower) || mark.gt(ladder.upper))) {
      stopped = true;
      haltReason = `mark ${mark.toString()} left the bounds [${ladder.lower.toString()}, ${ladder.upper.toString()}]; orders cancelled, position flattened`;
      ctx.halt(haltReason);
      return flatten();
    }
    return reconcile();
  }

  return {
    onStart() {
      ctx.every('grid', p.refreshMs);
      const m = ctx.state.mark(p.symbol)?.markPrice;
      return m === undefined ? [] : onMark(new Dec(m));
    },
    onMark: (e) => onMark(new Dec(e.mark.markPrice)),
    onOrder({ order: o }) {
      // A level's order filled completely: it becomes the gap, which flips its neighbour.
      const k = levelOf(o.price);
      if (o.symbol !== p.symbol || o.reduceOnly || k === undefined) return [];
      // The venue has spoken about this level's order: it is no longer only requested.
      if (requested.get(k)?.side === o.side) requested.delete(k);
      if (o.status !== 'FILLED') return o.status === 'NEW' ? [] : reconcile();
      if (!stopped) gap = k;
      return reconcile();
    },
    onTimer() {
      // Forget requests the tracker should have shown long ago.
      for (const [k, r] of requested) if (r.at <= ctx.clock.now() - p.refreshMs) requested.delete(k);
      return stopped ? flatten() : reconcile();
    },
    onRefused({ intent }) {
      // A refused placement no longer holds its level.
      const k = intent.kind === 'place' ? levelOf(intent.price) : undefined;
      if (intent.kind === 'place' && k !== undefined && requested.get(k)?.side === intent.side) requested.delete(k);
    },
    onRiskState(e) {
      // Outside ACTIVE the risk engine would refuse the adding side anyway: pull the grid
      // rather than collect denials, and re-arm when trading is allowed again.
      active = e.state === 'ACTIVE';
      requested.clear();
      return active ? reconcile() : [{ kind: 'cancelAll', symbol: p.symbol }];
    },
    onStop: () => [{ kind: 'cancelAll', symbol: p.symbol }],
    saveState: () => ({ reference: ladder?.reference.toString(), gap, stopped, haltReason }),
    restoreState(s: unknown) {
      const o = (s ?? {}) as { reference?: unknown; gap?: unknown; stopped?: unknown; haltReason?: unknown };
      if (typeof o.reference === 'string') ladder = ladderOf(new Dec(o.reference));
      if (typeof o.gap === 'number' && Number.isInteger(o.gap) && Math.abs(o.gap) <= p.levels) gap = o.gap;
      if (typeof o.stopped === 'boolean') stopped = o.stopped;
      if (stopped) {
        haltReason = typeof o.haltReason === 'string' ? o.haltReason : 'it left its bounds before the restart';
        ctx.halt(haltReason);
      }
    },
  };
}

export default defineStrategy({
  name: 'grid',
  description: 'Symmetric ladder of limit orders around a reference; filled levels re-arm one level over; flattens outside its bounds.',
  params: schema,
  check: (p) => {
    if (p.spacingBps.times(p.levels).gte(BPS)) throw new Error(`parameter 'spacingBps' must be such that levels x spacingBps is below 10000, got ${p.levels} x ${p.spacingBps.toString()}`);
    if (p.lowerBound && p.upperBound && p.lowerBound.gte(p.upperBound)) throw new Error(`parameter 'lowerBound' must be below upperBound, got ${p.lowerBound.toString()} >= ${p.upperBound.toString()}`);
    if (p.referencePrice && ((p.lowerBound && p.lowerBound.gte(p.referencePrice)) || (p.upperBound && p.upperBound.lte(p.referencePrice)))) {
      throw new Error(`parameter 'referencePrice' must lie between lowerBound and upperBound, got ${p.referencePrice.toString()}`);
    }
  },
  symbols: (p) => [p.symbol],
  create: grid,
});
