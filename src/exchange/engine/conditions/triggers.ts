/** When a condition order fires (PROTOCOL.md section 3; docs/engine.md "Condition orders"). */
import { Dec } from '../../../core/decimal';
import type { EngineCondition } from '../model';

/**
 * Whether a stop or take-profit condition fires at `price` (ticks).
 * STOP_*: BUY fires when price >= stop, SELL when price <= stop (a breakout or a stop-loss).
 * TAKE_PROFIT_*: BUY fires when price <= stop, SELL when price >= stop.
 */
export function stopFires(c: EngineCondition, price: number): boolean {
  const isStop = c.type === 'STOP_MARKET' || c.type === 'STOP_LIMIT';
  const up = c.side === 'BUY' ? isStop : !isStop;
  return up ? price >= c.stopPrice : price <= c.stopPrice;
}

/**
 * Advances a trailing stop with a new price and says whether it fires now.
 * SELL (protects a long): activates when price >= activatePrice (at once if none), tracks the
 * highest price since, fires when price <= highest * (1 - rate/100).
 * BUY mirrors it with the lowest price.
 */
export function trailingStep(c: EngineCondition, price: number): boolean {
  if (!c.trailActive) {
    const activates = c.activatePrice === 0 || (c.side === 'SELL' ? price >= c.activatePrice : price <= c.activatePrice);
    if (!activates) return false;
    c.trailActive = true;
    c.trailExtreme = price;
    return false;
  }
  const rate = new Dec(c.callbackRate).div(100);
  if (c.side === 'SELL') {
    if (price > c.trailExtreme) c.trailExtreme = price;
    return new Dec(price).lte(new Dec(c.trailExtreme).times(new Dec(1).minus(rate)));
  }
  if (price < c.trailExtreme) c.trailExtreme = price;
  return new Dec(price).gte(new Dec(c.trailExtreme).times(new Dec(1).plus(rate)));
}
