/**
 * What a bot's stop does beyond stopping its strategies: close the positions when asked
 * (flattenOnStop) and tell what it leaves on the venue, so nobody walks away from an open
 * position without being told; and at start, the positions no stop-loss of the bot closes.
 */
import type { Clock, Scheduler } from '../core/clock';
import { Dec } from '../core/decimal';
import { errMessage } from '../core/errors';
import type { ConditionOrderRecord, OrderRecord, PositionRecord } from '../protocol/records';
import type { OrderExecutor } from './execution/executor';
import type { OrderTracker } from './execution/order-tracker';
import type { StateCache } from './state/cache';
import type { StrategyLogger } from './strategy/api';
import type { Intent } from './strategy/intents';
import type { Venue } from './venue/venue';

export interface StopDeps {
  venue: Venue;
  cache: StateCache;
  tracker: OrderTracker;
  executor: OrderExecutor;
  clock: Clock;
  scheduler: Scheduler;
  logger: StrategyLogger;
  reportError: (e: unknown, context: string) => void;
}

/** What a stop leaves on the venue: the user must know about a position or an order left open. */
export interface LeftOnStop {
  positions: PositionRecord[];
  openOrders: OrderRecord[];
  /** Condition orders waiting for a trigger (a bracket's stop-loss): they can still trade. */
  conditionOrders: ConditionOrderRecord[];
  /** With flattenOnStop: whether every position was closed; undefined when not asked to. */
  flattened: boolean | undefined;
  /** Set when the venue could not be asked (the lists are then the bot's last view). */
  error: string | undefined;
  /** Set when the state could not be saved at the stop: a restart resumes from the last save. */
  stateNotSaved?: string;
  /**
   * Positions left open whose stop-loss this stop cancelled (cancelOnStop cancels condition
   * orders too, a bracket's stop-loss among them) and that no stop on the venue closes now: they
   * are left WITHOUT a stop. Empty when nothing was cancelled or every position keeps one.
   */
  unprotected?: UnprotectedPosition[];
}

/** A position a stop left open with no stop-loss closing it, and the stops the stop cancelled for it. */
export interface UnprotectedPosition {
  symbol: string;
  positionSide: PositionRecord['positionSide'];
  quantity: string;
  /** The stop-losses of this position the stop cancelled (cancelOnStop). */
  cancelled: Array<Pick<ConditionOrderRecord, 'type' | 'side' | 'stopPrice' | 'clientOrderId'>>;
}

/** A condition order that limits a loss (a stop), as opposed to a take-profit. */
const STOP_TYPES: ReadonlySet<ConditionOrderRecord['type']> = new Set(['STOP_MARKET', 'STOP_LIMIT', 'TRAILING_STOP']);

/** Whether a condition order is a stop that would close (part of) this position when it triggers. */
export function stopCloses(c: ConditionOrderRecord, p: PositionRecord): boolean {
  if (c.symbol !== p.symbol || !STOP_TYPES.has(c.type)) return false;
  if (p.positionSide !== 'BOTH') return c.positionSide === p.positionSide && c.side === (p.positionSide === 'LONG' ? 'SELL' : 'BUY');
  const qty = new Dec(p.quantity);
  return c.positionSide === 'BOTH' && c.side === (qty.gt(0) ? 'SELL' : 'BUY');
}

/**
 * The open positions no stop closes whose stop-loss a stop cancelled (`cancelled`): what the
 * stop left WITHOUT a stop. A position that never had one is not the stop's doing and not listed.
 */
export function unprotectedPositions(positions: PositionRecord[], open: ConditionOrderRecord[], cancelled: ConditionOrderRecord[]): UnprotectedPosition[] {
  const out: UnprotectedPosition[] = [];
  for (const p of positions) {
    if (new Dec(p.quantity).isZero() || open.some((c) => stopCloses(c, p))) continue;
    const mine = cancelled.filter((c) => stopCloses(c, p));
    if (mine.length === 0) continue;
    out.push({ symbol: p.symbol, positionSide: p.positionSide, quantity: p.quantity, cancelled: mine.map((c) => ({ type: c.type, side: c.side, stopPrice: c.stopPrice, clientOrderId: c.clientOrderId })) });
  }
  return out;
}

/**
 * At start: a position on one of `symbols` (the strategies') that no stop-loss of this bot
 * (`ours`, by clientOrderId) closes (a stop with cancelOnStop cancelled a bracket's, or it was
 * never placed) is said at warn, once: reconciliation adopts orders, and a position with nothing
 * guarding it was adopted silently.
 */
export async function warnPositionsWithoutStop(d: Pick<StopDeps, 'venue' | 'cache' | 'logger'>, symbols: ReadonlySet<string>, ours: (clientOrderId: string) => boolean): Promise<void> {
  const positions = d.cache.positions().filter((p) => symbols.has(p.symbol) && !new Dec(p.quantity).isZero());
  if (positions.length === 0) return;
  let conditions: ConditionOrderRecord[];
  try {
    conditions = await d.venue.openConditionOrders();
  } catch (e) {
    d.logger.warn({ err: errMessage(e) }, 'open positions at start, and their stops could not be listed');
    return;
  }
  for (const p of positions) {
    if (conditions.some((c) => ours(c.clientOrderId) && stopCloses(c, p))) continue;
    const others = conditions.filter((c) => stopCloses(c, p)).length;
    d.logger.warn(
      { symbol: p.symbol, side: p.positionSide, quantity: p.quantity, entryPrice: p.entryPrice, liqPrice: p.liqPrice, otherStops: others },
      `position ${p.symbol} ${p.positionSide} ${p.quantity} @ ${p.entryPrice} is open with no stop-loss of this bot on the venue${others > 0 ? ` (${others} stop(s) not placed by this bot close it)` : ''}: nothing of this bot limits its loss until a strategy places a stop (a stop with cancelOnStop: true cancels a bracket's stop-loss)`,
    );
  }
}

/** The clientOrderId prefix of the orders a stop sends to flatten positions. */
export const FLATTEN_ID = '_flatten';

/**
 * Positions and open orders on the venue now, logged at warn when anything is left; a position
 * left without the stop-loss the stop cancelled (`cancelledStops`) is a warn line of its own.
 */
export async function leftOnVenue(d: StopDeps, flattened: boolean | undefined, cancelledStops: ConditionOrderRecord[] = []): Promise<LeftOnStop> {
  let left: LeftOnStop;
  try {
    const positions = (await d.venue.positions()).filter((p) => !new Dec(p.quantity).isZero());
    left = { positions, openOrders: await d.venue.openOrders(), conditionOrders: await d.venue.openConditionOrders(), flattened, error: undefined };
  } catch (e) {
    const positions = d.cache.positions().filter((p) => !new Dec(p.quantity).isZero());
    left = { positions, openOrders: [...d.cache.openOrders()], conditionOrders: [], flattened, error: e instanceof Error ? e.message : String(e) };
  }
  const fields = {
    positions: left.positions.map((p) => ({ symbol: p.symbol, side: p.positionSide, quantity: p.quantity, entryPrice: p.entryPrice, unrealizedPnl: p.unrealizedPnl })),
    openOrders: left.openOrders.map((o) => ({ symbol: o.symbol, side: o.side, price: o.price, quantity: o.quantity, executedQty: o.executedQty, clientOrderId: o.clientOrderId })),
    conditionOrders: left.conditionOrders.map((c) => ({ symbol: c.symbol, side: c.side, type: c.type, stopPrice: c.stopPrice, quantity: c.quantity, clientOrderId: c.clientOrderId })),
    flattened,
    ...(left.error === undefined ? {} : { venueError: left.error }),
  };
  if (left.positions.length > 0 || left.openOrders.length > 0 || left.conditionOrders.length > 0 || left.error !== undefined) d.logger.warn(fields, 'left on the venue at stop');
  else d.logger.info(fields, 'nothing left on the venue at stop');
  const unprotected = unprotectedPositions(left.positions, left.conditionOrders, cancelledStops);
  for (const u of unprotected) {
    d.logger.warn(
      { symbol: u.symbol, side: u.positionSide, quantity: u.quantity, cancelled: u.cancelled },
      `position ${u.symbol} ${u.positionSide} ${u.quantity} left open WITHOUT a stop: cancelOnStop cancelled its stop-loss (keep it with cancelOnStop: false, or close the position with flattenOnStop: true)`,
    );
  }
  return unprotected.length === 0 ? left : { ...left, unprotected };
}


/**
 * Cancels the condition orders of the bot's strategies (by clientOrderId: a bracket's stop-loss
 * carries its strategy's prefix). The tracker follows normal orders only, so a stop's cancels
 * (cancelOnStop) used to leave them working on the venue. Failures are reported, not thrown.
 * Returns the ones cancelled.
 */
export async function cancelConditionOrders(d: StopDeps, ours: (clientOrderId: string) => boolean): Promise<ConditionOrderRecord[]> {
  let list: ConditionOrderRecord[];
  try {
    list = (await d.venue.openConditionOrders()).filter((c) => ours(c.clientOrderId));
  } catch (e) {
    d.reportError(e, 'stop: condition orders');
    return [];
  }
  const cancelled: ConditionOrderRecord[] = [];
  for (const c of list) {
    try {
      await d.venue.cancelConditionOrder(c.symbol, c.conditionId);
      cancelled.push(c);
    } catch (e) {
      d.reportError(e, 'stop: cancel a condition order');
    }
  }
  return cancelled;
}

/**
 * Closes every open position with a reduce-only market order (not through the risk engine: a
 * stop is an operator's act) and waits, bounded, until the venue reports them closed.
 */
export async function flattenPositions(d: StopDeps, timeoutMs: number): Promise<boolean> {
  const deadline = d.clock.now() + timeoutMs;
  for (;;) {
    let open: PositionRecord[];
    try {
      open = (await d.venue.positions()).filter((p) => !new Dec(p.quantity).isZero());
    } catch (e) {
      d.reportError(e, 'flatten on stop: positions');
      return false;
    }
    if (open.length === 0) return true;
    if (d.clock.now() >= deadline) return false;
    if (d.tracker.live(FLATTEN_ID).length === 0) {
      for (const p of open) {
        const qty = new Dec(p.quantity);
        const long = p.positionSide === 'LONG' || (p.positionSide === 'BOTH' && qty.gt(0));
        const intent: Intent = { kind: 'place', symbol: p.symbol, side: long ? 'SELL' : 'BUY', type: 'MARKET', quantity: qty.abs().toString(), reduceOnly: true };
        if (p.positionSide !== 'BOTH') intent.positionSide = p.positionSide;
        d.logger.warn({ symbol: p.symbol, side: p.positionSide, quantity: p.quantity }, 'flattening the position on stop');
        d.executor.enqueue(FLATTEN_ID, intent);
      }
      await d.executor.flush();
    }
    await new Promise<void>((resolve) => {
      d.scheduler.after(100, resolve);
    });
  }
}
