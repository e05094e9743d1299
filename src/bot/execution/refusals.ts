/**
 * What a refusal from the venue is, read off the error or the rejection event: the venue's code,
 * and whether a rejection was only an amend too late for its order.
 */
import { ErrorCodes } from '../../core/errors';
import type { StrategyOrderRecord, StrategySubOrderRecord } from '../../protocol/records';
import type { Intent } from '../strategy/intents';

/**
 * The venue's error code a failed call carries: `venueCode` of the SDK's errors (whose `code` is
 * a string such as PERPKIT_ERR_REJECTED), `code` of the engine's VenueError (SimVenue).
 */
export function venueCodeOf(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  if ('venueCode' in e && typeof e.venueCode === 'number') return e.venueCode;
  if ('code' in e && typeof e.code === 'number') return e.code;
  return undefined;
}

/**
 * An amend the venue refused because its order had already ended (filled, or cancelled) by the
 * time it arrived: the race every quoting strategy meets when a fill and the market move that
 * prompted a requote cross on the wire. The order's fills come from the stream as usual; the bot
 * counts these apart from other rejections and logs them at info.
 */
export function isLateAmend(e: { code: number; intent: Intent }): boolean {
  return e.code === ErrorCodes.ORDER_FINAL && e.intent.kind === 'amend';
}

/** What perpkit/testing's WorldRefusalError says of an order the venue ended REJECTED as it arrived (`isRejectedOnArrival`). */
export const REJECTED_ON_ARRIVAL = 'rejected on arrival: makerOnly order would have taken liquidity';

/**
 * A strategy's order that the venue took and ended REJECTED at once: a makerOnly order whose price
 * reached the other side of the book, so that it would have taken liquidity. No error code, so no
 * rejection: the order record just comes back REJECTED. The bot counts these (`ordersRejected`),
 * as do a backtest's summary, the metrics and perpkit/testing's refusals.
 */
export function isRejectedOnArrival(e: { executionType: string }): boolean {
  return e.executionType === 'REJECTED';
}

/** What the bot, the backtest's counters and the metrics call an order that came to nothing. */
export const EXPIRED_UNFILLED = 'expired with nothing filled (a MARKET, IOC or FOK order that found no liquidity, or a reduce-only order with nothing left to reduce)';

/**
 * A strategy's order that the venue took and ended EXPIRED with nothing filled: a MARKET, IOC or
 * FOK order that found no liquidity (in a backtest: no tape quote on that side at the time), a
 * reduce-only order whose position was gone. No error code, so no rejection; the strategy asked
 * for a trade and got none.
 */
export function isExpiredUnfilled(e: { executionType: string; order: { executedQty: string } }): boolean {
  return e.executionType === 'EXPIRED' && /^0(?:\.0*)?$/.test(e.order.executedQty);
}

/** What the bot and the backtest's summary call a triggered order that came to nothing. */
export const TRIGGERED_EXPIRED_UNFILLED = 'placed by a triggered stop or take-profit order and expired with nothing filled: the position it was to close stayed open';

/**
 * An order expired with nothing filled (`isExpiredUnfilled`) that a condition order placed when it
 * triggered: a stop-loss (a bracket's too) or take-profit that closed nothing. The position it
 * protected is as open as before; a backtest whose stops do this shows losses it never took.
 */
export function isTriggeredExpiredUnfilled(e: { executionType: string; order: { executedQty: string; conditionId?: string } }): boolean {
  return isExpiredUnfilled(e) && e.order.conditionId !== undefined && e.order.conditionId !== '' && e.order.conditionId !== '0';
}

/** What the bot's log, the backtest's counters and its notes call a leg that never stood. */
export const UNPLACED_AFTER_FILL = 'was never placed although the leg that was to place it traded (a bracket whose entry ended partly filled: that part of the position has no take-profit or stop-loss on the venue)';

/**
 * The legs of a strategy order that ended CANCELED without ever being placed although a leg that
 * was to place them had traded: an OTOCO bracket places its exits only when the entry is FILLED,
 * so an entry cancelled or expired after a partial fill leaves that position with no exit at all.
 */
export function unplacedAfterFill(so: StrategyOrderRecord): StrategySubOrderRecord[] {
  return so.subOrders.filter((leg) => leg.status === 'CANCELED' && !leg.orderId && !leg.conditionId && (placedBy(so, leg.firstDrivenId, leg.firstTrigger) || placedBy(so, leg.secondDrivenId, leg.secondTrigger)));
}

/** Whether the leg at position `driverId` (1-based, as the venue numbers drivers) was to place another and traded. */
function placedBy(so: StrategyOrderRecord, driverId: number, action: string): boolean {
  const driver = driverId > 0 ? so.subOrders[driverId - 1] : undefined;
  return action === 'PLACE_ORDER' && driver !== undefined && !/^0(?:\.0*)?$/.test(driver.executedQty);
}

/** A leg of a strategy order that will never stand: refused (REJECTED), or never placed though its driver traded. */
export interface LegNeverStood {
  leg: StrategySubOrderRecord;
  /** `strategyId:strategySubId`: a strategy order's updates repeat every leg, so readers say or count each once by it. */
  key: string;
  rejected: boolean;
}

/** The legs of `so` that will never stand (the bot's log and a backtest's counts read the same ones). */
export function legsNeverStood(so: StrategyOrderRecord): LegNeverStood[] {
  const unplaced = unplacedAfterFill(so);
  return so.subOrders.flatMap((leg) => (leg.status === 'REJECTED' || unplaced.includes(leg) ? [{ leg, key: `${so.strategyId}:${leg.strategySubId}`, rejected: leg.status === 'REJECTED' }] : []));
}
