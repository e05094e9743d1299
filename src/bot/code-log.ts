/**
 * Log lines that repeat by code (risk denials, venue rejections), at most one per code per
 * interval: the first of a window is logged at once, the rest are counted and logged as one line
 * with the count when the window closes. A strategy denied 2,000 times a minute then gives one
 * line per code and minute instead of silence (debug) or a flood.
 */
import type { Scheduler } from '../core/clock';
import type { EventBus } from './bus/event-bus';
import type { BotEventOf } from './bus/events';
import { EXPIRED_UNFILLED, TRIGGERED_EXPIRED_UNFILLED, UNPLACED_AFTER_FILL, isExpiredUnfilled, isLateAmend, isRejectedOnArrival, isTriggeredExpiredUnfilled, legsNeverStood } from './execution/refusals';
import type { StrategyLogger } from './strategy/api';

type Write = (fields: Record<string, unknown>, msg: string) => void;

interface Window {
  more: number;
  last: Record<string, unknown>;
  cancel: (() => void) | undefined;
  /** Writes the count: the window's own line, at its level. */
  close: () => void;
}

export class CodeLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly intervalMs: number,
  ) {}

  note(key: string, write: Write, fields: Record<string, unknown>, msg: string): void {
    const w = this.windows.get(key);
    if (w !== undefined) {
      w.more++;
      w.last = fields;
      return;
    }
    write(fields, msg);
    const opened: Window = {
      more: 0,
      last: fields,
      cancel: undefined,
      close: () => {
        if (opened.more > 0) write({ ...opened.last, repeats: opened.more, windowMs: this.intervalMs }, `${msg} (${opened.more} more of this code in the last ${this.intervalMs / 1000} s)`);
      },
    };
    this.windows.set(key, opened);
    opened.cancel = this.scheduler.after(this.intervalMs, () => {
      this.windows.delete(key);
      opened.close();
    });
  }

  /**
   * Logs the counts of the open windows now, each as its window would have closed (the same
   * message and level), and stops their timers (at stop). It once wrote the internal key
   * (`denial:mm:BOT_STOPPING: 41 more since the last line`).
   */
  flush(): void {
    for (const w of this.windows.values()) {
      w.cancel?.();
      w.close();
    }
    this.windows.clear();
  }
}

/**
 * Denials and rejections are what a user asks about first when a bot does not trade: logged where
 * they look, one line per code per interval with a count. Risk denials at info; venue rejections
 * at warn, but for an amend that lost the race with its order's fill (no fault of anyone's), an
 * order ended REJECTED on arrival (a makerOnly order that would have taken liquidity, which a
 * quoting strategy meets now and then) and one EXPIRED with nothing filled, all at info.
 */
export class RefusalLog {
  constructor(
    private readonly codeLog: CodeLog,
    private readonly log: StrategyLogger,
    bus: EventBus,
  ) {
    bus.subscribe('denial', (e) => {
      codeLog.note(`denial:${e.strategyId}:${e.code}`, (f, m) => log.info(f, m), { strategy: e.strategyId, code: e.code, reason: e.reason, intent: e.intent.kind }, `risk denied an intent: ${e.code}`);
    });
    bus.subscribe('rejection', (e) => {
      if (isLateAmend(e)) {
        codeLog.note(`late-amend:${e.strategyId}`, (f, m) => log.info(f, m), { strategy: e.strategyId, code: e.code, reason: e.message, intent: e.intent.kind }, 'an amend came after its order had ended (filled or cancelled); its fills come from the stream');
        return;
      }
      codeLog.note(`rejection:${e.strategyId}:${e.code}`, (f, m) => log.warn(f, m), { strategy: e.strategyId, code: e.code, reason: e.message, intent: e.intent.kind }, `the venue rejected an order: ${e.code}`);
    });
    // Legs of strategy orders that will never stand: refused, or never placed though their driver
    // traded. Said once per leg (a strategy order's updates repeat every leg).
    const said = new Set<string>();
    bus.subscribe('strategyOrder', (e) => {
      const so = e.strategyOrder;
      const at = { strategyOrder: so.strategyId, type: so.strategyType, symbol: so.subOrders[0]?.symbol };
      for (const { leg, key, rejected } of legsNeverStood(so)) {
        if (said.has(key)) continue;
        said.add(key);
        if (rejected) {
          const why = e.refusals?.find((r) => r.strategySubId === leg.strategySubId);
          codeLog.note('strategy-leg-rejected', (f, m) => log.warn(f, m), { ...at, leg: leg.strategySubId, legType: leg.type, ...(why ? { code: why.code, reason: why.message } : {}) }, 'a strategy order leg was refused (REJECTED): the order or stop it was to place never stood');
        } else codeLog.note('strategy-leg-unplaced', (f, m) => log.warn(f, m), { ...at, leg: leg.strategySubId, legType: leg.type }, `a strategy order leg ${UNPLACED_AFTER_FILL}`);
      }
      if (so.strategyStatus !== 'WORKING') for (const leg of so.subOrders) said.delete(`${so.strategyId}:${leg.strategySubId}`);
    });
  }

  /**
   * An order event the bot dispatches: logs it when a strategy's order ended REJECTED on arrival,
   * or EXPIRED with nothing filled, and says which (the bot counts those). Called from the bot's
   * dispatch rather than subscribed, so order events, the busiest after market data, get no
   * handler of their own.
   */
  order(e: BotEventOf<'order'>): 'rejected' | 'expiredUnfilled' | undefined {
    if (e.strategyId === undefined) return undefined;
    const o = e.order;
    if (isRejectedOnArrival(e)) {
      this.codeLog.note(`rejected-on-arrival:${e.strategyId}`, (f, m) => this.log.info(f, m), { strategy: e.strategyId, symbol: o.symbol, side: o.side, price: o.price, makerOnly: o.makerOnly }, 'an order ended REJECTED on arrival (a makerOnly order that would have taken liquidity)');
      return 'rejected';
    }
    if (isTriggeredExpiredUnfilled(e)) {
      this.codeLog.note(`triggered-expired-unfilled:${e.strategyId}`, (f, m) => this.log.warn(f, m), { strategy: e.strategyId, symbol: o.symbol, side: o.side, type: o.type, quantity: o.quantity, conditionId: o.conditionId }, `an order ${TRIGGERED_EXPIRED_UNFILLED}`);
      return 'expiredUnfilled';
    }
    if (isExpiredUnfilled(e)) {
      this.codeLog.note(`expired-unfilled:${e.strategyId}`, (f, m) => this.log.info(f, m), { strategy: e.strategyId, symbol: o.symbol, side: o.side, type: o.type, timeInForce: o.timeInForce, quantity: o.quantity, reduceOnly: o.reduceOnly }, `an order ${EXPIRED_UNFILLED}`);
      return 'expiredUnfilled';
    }
    return undefined;
  }
}
