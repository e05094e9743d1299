/**
 * The soak's order-count invariant (DESIGN.md "Invariants, not only end states"): the orders a
 * strategy has working on the venue never exceed what it asked for plus its placements in flight
 * (sent, answer not yet known). Read every 50 ms straight from the in-process engine and the bot's
 * tracker in one synchronous step, so the two views are of the same instant.
 */
import type { Bot } from '../../../src/bot/bot';
import type { TestExchange } from '../../helpers/exchange';

export interface WorkingOrdersWatch {
  /** Working orders now. */
  current(): number;
  /** Most working orders seen. */
  max(): number;
  /** Most placements in flight seen. */
  maxInFlight(): number;
  /** Samples that broke the bound (at most 20 kept), as readable strings. */
  violations(): string[];
  describe(): string;
  stop(): void;
}

export function watchWorkingOrders(ex: TestExchange, userId: string, bot: Bot, strategyId: string, asked: number, everyMs = 50): WorkingOrdersWatch {
  let max = 0;
  let maxInFlight = 0;
  let now = 0;
  const bad: string[] = [];
  let badCount = 0;
  const sample = (): void => {
    const open = ex.server.core.engine.currentOrders(userId, { limit: 1000 }).list.filter((o) => bot.strategyOf(o.clientOrderId) === strategyId);
    const live = bot.tracker.live(strategyId);
    const inFlight = live.filter((o) => o.state === 'PENDING_NEW' || o.state === 'UNKNOWN').length;
    now = open.length;
    max = Math.max(max, now);
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (now > asked + inFlight) {
      badCount++;
      if (bad.length < 20) {
        const states = live.map((o) => `${o.clientOrderId}:${o.state}`).join(' ');
        bad.push(`${new Date().toISOString()} ${now} working > ${asked} + ${inFlight} in flight; venue ${open.map((o) => `${o.clientOrderId}:${o.side}@${o.price}`).join(' ')}; tracker ${states}`);
      }
    }
  };
  const timer = setInterval(sample, everyMs);
  // A failed assertion before stop() must not hold jest open.
  timer.unref();
  sample();
  return {
    current: () => {
      sample();
      return now;
    },
    max: () => max,
    maxInFlight: () => maxInFlight,
    violations: () => (badCount > bad.length ? [...bad, `... ${badCount - bad.length} more`] : bad),
    describe: () => `now ${now}, max ${max}, violations ${badCount}: ${bad.slice(0, 3).join(' | ')}`,
    stop: () => clearInterval(timer),
  };
}
