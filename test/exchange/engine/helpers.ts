import { ManualClock } from '../../../src/core/clock';
import { Engine } from '../../../src/exchange/engine/engine';
import type { EngineEvent } from '../../../src/exchange/engine/events';
import { DEFAULT_SYMBOLS } from '../../../src/exchange/engine/symbols';
import { VenueError } from '../../../src/core/errors';

export const T0 = 1_700_000_000_000;

export interface World {
  engine: Engine;
  clock: ManualClock;
  events: EngineEvent[];
  /** Drains the engine into `events` and returns what was new. */
  drain(): EngineEvent[];
}

/** An engine on the default symbols with users a, b, c (100 000 USDT each, one-way) and h (hedge). */
export function world(opts: { balance?: string; insuranceFund?: string } = {}): World {
  const clock = new ManualClock(T0);
  const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: opts.insuranceFund ?? '1000000' });
  const balance = opts.balance ?? '100000';
  for (const u of ['a', 'b', 'c']) engine.createAccount({ userId: u, balance });
  engine.createAccount({ userId: 'h', balance, positionMode: 'HEDGE' });
  const events: EngineEvent[] = [];
  const w: World = {
    engine,
    clock,
    events,
    drain() {
      const e = engine.drain();
      events.push(...e);
      return e;
    },
  };
  w.drain();
  return w;
}

/** The venue error code a call throws (fails the test if it does not throw one). */
export function codeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    if (e instanceof VenueError) return e.code;
    throw e;
  }
  throw new Error('expected a VenueError, but the call succeeded');
}

/** The refusal a call throws, as "code message"; 'accepted' when it throws nothing. */
export function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof VenueError) return `${e.code} ${e.message}`;
    throw e;
  }
  return 'accepted';
}

export function orderEvents(evs: EngineEvent[], userId?: string): Array<{ exec: string; status: string; orderId: string }> {
  const out: Array<{ exec: string; status: string; orderId: string }> = [];
  for (const e of evs) {
    if (e.kind === 'order' && (userId === undefined || e.userId === userId)) out.push({ exec: e.executionType, status: e.order.status, orderId: e.order.orderId });
  }
  return out;
}

export const limit = (side: 'BUY' | 'SELL', price: string, quantity: string, extra: Record<string, unknown> = {}) => ({
  symbol: 'BTCUSDT',
  type: 'LIMIT' as const,
  side,
  price,
  quantity,
  ...extra,
});
