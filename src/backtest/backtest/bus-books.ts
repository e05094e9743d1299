/**
 * What a backtest books from the bot's bus: the participant's fills, each strategy's counters
 * (orders, cancels, denials and rejections by code, errors, stops), the bot's first error, and the
 * participant's resting orders (for the tape shortcut).
 */
import type { BotEvent, BotEventType } from '../../bot/bus/events';
import { stackTop, strategyFrame } from '../../bot/strategy/errors';
import { countsAsDenial } from '../../bot/strategy/controls';
import { isExpiredUnfilled, isRejectedOnArrival, isTriggeredExpiredUnfilled, legsNeverStood } from '../../bot/execution/refusals';
import type { BacktestResult } from './result';
import type { RestingOrders } from './resting-orders';

/**
 * Bus event types booked (see `BusBooks.observe`). Only these: a catch-all handler would count as
 * a listener for market data, and the bot would publish every recorded trade for nobody.
 */
export const BOOKED = ['order', 'fill', 'denial', 'rejection', 'strategyError', 'strategyStopped', 'botError', 'condition', 'strategyOrder'] as const satisfies readonly BotEventType[];

export class BusBooks {
  /** Strategy-order legs already counted (refusals.ts legsNeverStood keys): a record repeats its legs. */
  private readonly legsCounted = new Set<string>();

  constructor(
    private readonly result: BacktestResult,
    private readonly resting: RestingOrders,
    /** The config's folder: stack frames are named relative to it. */
    private readonly baseDir: string,
  ) {}

  observe(e: BotEvent): void {
    switch (e.type) {
      case 'order': {
        this.resting.onOrder(e.order);
        const c = e.strategyId === undefined ? undefined : this.result.strategies[e.strategyId];
        if (c && e.executionType === 'NEW') c.ordersAccepted++;
        // Not a refused request (no error code): the venue took the order and ended it at once.
        if (c && isRejectedOnArrival(e)) c.ordersRejected++;
        if (c && isExpiredUnfilled(e)) c.ordersExpiredUnfilled++;
        if (c && isTriggeredExpiredUnfilled(e)) c.triggeredExpiredUnfilled++;
        // Filled in part, the rest expired: apart from those that filled nothing.
        if (c && e.executionType === 'EXPIRED' && !isExpiredUnfilled(e)) c.ordersExpiredPartial++;
        if (c && e.executionType === 'CANCELED') c.cancels++;
        return;
      }
      case 'fill': {
        const f = e.fill;
        this.result.fills.push({
          time: e.time,
          strategyId: e.strategyId ?? '(venue)',
          symbol: f.symbol,
          side: f.side,
          price: f.price,
          quantity: f.quantity,
          fee: f.fee,
          realizedPnl: f.realizedPnl,
          role: f.role,
          orderId: f.orderId,
          clientOrderId: f.clientOrderId,
          tradeId: f.tradeId,
        });
        return;
      }
      case 'denial': {
        // As the bot's own count (controls.ts countsAsDenial).
        if (!countsAsDenial(e.code)) return;
        const c = this.result.strategies[e.strategyId];
        c.denials++;
        c.denialsByCode[e.code] = (c.denialsByCode[e.code] ?? 0) + 1;
        c.firstDenialByCode[e.code] ??= { time: e.time, intent: e.intent.kind, message: e.reason };
        return;
      }
      case 'rejection': {
        const c = this.result.strategies[e.strategyId];
        c.rejections++;
        const code = String(e.code);
        c.rejectionsByCode[code] = (c.rejectionsByCode[code] ?? 0) + 1;
        c.firstRejectionByCode[code] ??= { time: e.time, intent: e.intent.kind, message: e.message };
        return;
      }
      case 'strategyError': {
        const c = this.result.strategies[e.strategyId];
        c.errors++;
        c.firstError ??= { time: e.time, where: e.where, message: e.message, at: strategyFrame(e.stack, this.baseDir) };
        return;
      }
      case 'strategyStopped':
        this.result.strategies[e.strategyId].stopped = { time: e.time, reason: e.reason };
        return;
      case 'condition': {
        const c = e.condition;
        if (c.conditionStatus !== 'REJECTED') return;
        this.result.conditionsRejected++;
        this.result.firstConditionRejection ??= { time: e.time, symbol: c.symbol, conditionId: c.conditionId, type: c.type, code: e.refusal?.code ?? 0, message: e.refusal?.message ?? '' };
        return;
      }
      case 'strategyOrder': {
        const so = e.strategyOrder;
        for (const { leg, key, rejected } of legsNeverStood(so)) {
          if (this.legsCounted.has(key)) continue;
          this.legsCounted.add(key);
          const why = e.refusals?.find((r) => r.strategySubId === leg.strategySubId);
          const row = { time: e.time, symbol: leg.symbol, strategyId: so.strategyId, strategyType: so.strategyType, strategySubId: leg.strategySubId, type: leg.type, code: why?.code ?? 0, message: why?.message ?? '' };
          const r = this.result;
          if (rejected) {
            r.legsRejected++;
            r.firstLegRejection ??= row;
          } else {
            r.legsUnplaced++;
            r.firstLegUnplaced ??= row;
          }
        }
        return;
      }
      case 'botError':
        this.result.firstBotError ??= { time: e.time, context: e.context, message: e.message, at: stackTop(e.stack, this.baseDir) };
        return;
      default:
    }
  }
}
