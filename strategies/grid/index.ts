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
import { Dec, defineStrategy, type BotEvent, type Intent, type StrategyContext, type SymbolInfo } from '../../src/index';
import { dec, int, onlyKeys, str } from '../params';

export interface GridParams {
  symbol: string;
  /** Size of each level's order, base asset. */
  quantity: Dec;
  /** Levels on each side of the reference. */
  levels: number;
  /** Distance between levels, basis points of the reference. */
  spacingBps: Dec;
  /** Centre of the grid; the first mark price when absent. */
  referencePrice: Dec | undefined;
  /** Below this mark the grid stops and flattens; one spacing below the lowest level by default. */
  lowerBound: Dec | undefined;
  /** Above this mark the grid stops and flattens; one spacing above the highest level by default. */
  upperBound: Dec | undefined;
  /** Re-check the grid (missing levels, a flatten that did not fill) this often, ms. */
  refreshMs: number;
}

const KEYS = ['symbol', 'quantity', 'levels', 'spacingBps', 'referencePrice', 'lowerBound', 'upperBound', 'refreshMs'] as const;
const BPS = new Dec(10000);

/** The price ladder of a reference: level k -> price on the tick grid (buys down, sells up). */
interface Ladder {
  reference: Dec;
  /** Price string of each level, index k + levels. */
  prices: string[];
  lower: Dec;
  upper: Dec;
}

function ladderOf(p: GridParams, info: SymbolInfo, reference: Dec): Ladder {
  const prices: string[] = [];
  for (let k = -p.levels; k <= p.levels; k++) {
    const raw = reference.times(BPS.plus(p.spacingBps.times(k))).div(BPS);
    // Below the reference round down and above round up, so rounding never narrows a spacing.
    prices.push(info.tick.fromUnits(info.tick.unitsOfDec(raw, k < 0 ? 'down' : k > 0 ? 'up' : 'nearest')));
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

export function grid(ctx: StrategyContext<GridParams>) {
  const p = ctx.params;
  const found = ctx.symbols.get(p.symbol);
  if (!found) throw new Error(`grid: unknown symbol ${p.symbol}`);
  const info = found;
  const qty = info.step.fromUnits(info.step.unitsOfDec(p.quantity, 'down'));
  let ladder: Ladder | undefined;
  /** The empty level, -levels..levels. */
  let gap = 0;
  let stopped = false;
  let active = true;
  const requested = new Map<number, { side: 'BUY' | 'SELL'; at: number }>();

  const live = (s: string): boolean => s === 'NEW' || s === 'PARTIALLY_FILLED';
  const levelOf = (price: string): number | undefined => {
    if (!ladder) return undefined;
    const i = ladder.prices.indexOf(price);
    return i < 0 ? undefined : i - p.levels;
  };
  const sideOf = (k: number): 'BUY' | 'SELL' | undefined => (k < gap ? 'BUY' : k > gap ? 'SELL' : undefined);

  function init(mark: Dec): void {
    ladder = ladderOf(p, info, p.referencePrice ?? mark);
    ctx.log.info({ reference: ladder.reference.toString(), lower: ladder.lower.toString(), upper: ladder.upper.toString(), levels: ladder.prices }, 'grid armed');
  }

  /**
   * Places what is missing and cancels what sits on the wrong side of the gap. Orders asked for
   * but not yet tracked (several fills in one burst each trigger a reconcile before the executor
   * has sent the first one's orders) are remembered in `requested`, so a level is never doubled.
   */
  function reconcile(): Intent[] {
    if (!ladder || stopped || !active) return [];
    const out: Intent[] = [];
    const held = new Set<number>();
    for (const o of ctx.myOrders(p.symbol)) {
      const k = levelOf(o.price);
      if (k === undefined || o.reduceOnly) continue;
      if (requested.get(k)?.side === o.side) requested.delete(k);
      if (o.side === sideOf(k)) held.add(k);
      else if (live(o.state)) out.push({ kind: 'cancel', clientOrderId: o.clientOrderId });
      // A wrong-side order still PENDING_NEW is cancelled once acknowledged; one PENDING_CANCEL
      // is on its way out and does not hold its level.
      else if (o.state === 'PENDING_NEW' || o.state === 'UNKNOWN') held.add(k);
    }
    for (let k = -p.levels; k <= p.levels; k++) {
      const side = sideOf(k);
      if (side === undefined || held.has(k) || requested.get(k)?.side === side) continue;
      requested.set(k, { side, at: ctx.clock.now() });
      out.push({ kind: 'place', symbol: p.symbol, side, type: 'LIMIT', price: ladder.prices[k + p.levels], quantity: qty, tag: `L${k}` });
    }
    return out;
  }

  /** Forgets requests that were refused, or that the tracker should have shown long ago. */
  function forget(intent: Intent | undefined): void {
    if (intent === undefined) {
      const stale = ctx.clock.now() - p.refreshMs;
      for (const [k, r] of requested) if (r.at <= stale) requested.delete(k);
      return;
    }
    if (intent.kind !== 'place' || intent.price === undefined) return;
    const k = levelOf(intent.price);
    if (k !== undefined && requested.get(k)?.side === intent.side) requested.delete(k);
  }

  /** Cancels the grid's orders and closes the position with a reduce-only market order. */
  function flatten(): Intent[] {
    const mine = ctx.myOrders(p.symbol);
    // Individual cancels rather than cancelAll: a closing order already on its way must stay.
    const out: Intent[] = mine.filter((o) => !o.reduceOnly && live(o.state)).map((o): Intent => ({ kind: 'cancel', clientOrderId: o.clientOrderId }));
    const pos = new Dec(ctx.state.position(p.symbol)?.quantity ?? '0');
    const size = info.step.fromUnits(info.step.unitsOfDec(pos.abs(), 'down'));
    if (!pos.isZero() && !mine.some((o) => o.reduceOnly)) {
      out.push({ kind: 'place', symbol: p.symbol, side: pos.gt(0) ? 'SELL' : 'BUY', type: 'MARKET', quantity: size, reduceOnly: true, tag: 'flatten' });
    }
    return out;
  }

  function onMark(mark: Dec): Intent[] {
    if (!ladder) init(mark);
    const l = ladder as Ladder;
    if (!stopped && (mark.lt(l.lower) || mark.gt(l.upper))) {
      stopped = true;
      ctx.log.warn({ mark: mark.toString(), lower: l.lower.toString(), upper: l.upper.toString() }, 'grid: mark left the bounds; stopping and flattening');
      return flatten();
    }
    return reconcile();
  }

  return {
    onStart(): Intent[] {
      ctx.every('grid', p.refreshMs);
      const m = ctx.state.mark(p.symbol)?.markPrice;
      return m === undefined ? [] : onMark(new Dec(m));
    },
    onEvent(e: BotEvent): Intent[] {
      switch (e.type) {
        case 'markPrice':
          return e.symbol === p.symbol ? onMark(new Dec(e.mark.markPrice)) : [];
        case 'order': {
          // A level's order filled completely: it becomes the gap, which flips its neighbour.
          const o = e.order;
          if (o.symbol !== p.symbol || o.reduceOnly) return [];
          const k = levelOf(o.price);
          if (k === undefined) return [];
          // The venue has spoken about this level's order: it is no longer only requested.
          if (requested.get(k)?.side === o.side) requested.delete(k);
          if (o.status !== 'FILLED') return o.status === 'NEW' ? [] : reconcile();
          if (!stopped) gap = k;
          return reconcile();
        }
        case 'timer':
          forget(undefined);
          return stopped ? flatten() : reconcile();
        case 'denial':
        case 'rejection':
          forget(e.intent);
          return [];
        case 'riskState':
          // Outside ACTIVE the risk engine would refuse the adding side anyway: pull the grid
          // rather than collect denials, and re-arm when trading is allowed again.
          active = e.state === 'ACTIVE';
          requested.clear();
          return active ? reconcile() : [{ kind: 'cancelAll', symbol: p.symbol }];
        default:
          return [];
      }
    },
    onStop(): Intent[] {
      return [{ kind: 'cancelAll', symbol: p.symbol }];
    },
    saveState(): unknown {
      return { reference: ladder?.reference.toString(), gap, stopped };
    },
    restoreState(s: unknown): void {
      if (typeof s !== 'object' || s === null) return;
      const o = s as { reference?: unknown; gap?: unknown; stopped?: unknown };
      if (typeof o.reference === 'string') ladder = ladderOf(p, info, new Dec(o.reference));
      if (typeof o.gap === 'number' && Number.isInteger(o.gap) && Math.abs(o.gap) <= p.levels) gap = o.gap;
      if (typeof o.stopped === 'boolean') stopped = o.stopped;
    },
  };
}

function optionalDec(raw: Record<string, unknown>, key: string): Dec | undefined {
  return raw[key] === undefined ? undefined : dec(raw, key);
}

export default defineStrategy<GridParams>({
  name: 'grid',
  description: 'Symmetric ladder of limit orders around a reference; filled levels re-arm one level over; flattens outside its bounds.',
  symbols: (p) => [p.symbol],
  // Reads marks only (and the state cache): recorded trades and books are not handed to it.
  marketData: () => ['markPrice'],
  params: (raw) => {
    onlyKeys(raw, KEYS);
    const p: GridParams = {
      symbol: str(raw, 'symbol', 'BTCUSDT'),
      quantity: dec(raw, 'quantity', '0.001'),
      levels: int(raw, 'levels', 1, 50, 5),
      spacingBps: dec(raw, 'spacingBps', '20'),
      referencePrice: optionalDec(raw, 'referencePrice'),
      lowerBound: optionalDec(raw, 'lowerBound'),
      upperBound: optionalDec(raw, 'upperBound'),
      refreshMs: int(raw, 'refreshMs', 100, 3_600_000, 5000),
    };
    if (p.spacingBps.times(p.levels).gte(BPS)) throw new Error(`parameter 'spacingBps' must be such that levels x spacingBps is below 10000, got ${p.levels} x ${p.spacingBps.toString()}`);
    if (p.lowerBound && p.upperBound && p.lowerBound.gte(p.upperBound)) throw new Error(`parameter 'lowerBound' must be below upperBound, got ${p.lowerBound.toString()} >= ${p.upperBound.toString()}`);
    if (p.referencePrice && ((p.lowerBound && p.lowerBound.gte(p.referencePrice)) || (p.upperBound && p.upperBound.lte(p.referencePrice)))) {
      throw new Error(`parameter 'referencePrice' must lie between lowerBound and upperBound, got ${p.referencePrice.toString()}`);
    }
    return p;
  },
  create: grid,
});
