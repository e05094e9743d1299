import { ManualClock } from '../../src/core/clock';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import type { VenueEvent } from '../../src/bot/venue/venue';
import { LatencyVenue } from '../../src/backtest/backtest/latency-venue';
import { VirtualScheduler } from '../../src/backtest/backtest/virtual-scheduler';
import type { LatencyConfig } from '../../src/backtest/backtest/config';

const T0 = 1_700_000_000_000;

function setup(latency: Partial<LatencyConfig>): { clock: ManualClock; scheduler: VirtualScheduler; venue: LatencyVenue; seen: Array<[number, string]> } {
  const clock = new ManualClock(T0);
  const scheduler = new VirtualScheduler(clock);
  const engine = new Engine({ symbols: [DEFAULT_SYMBOLS[0]], clock });
  engine.createAccount({ userId: 'p', balance: '1000' });
  const sim = new SimVenue({ engine, userId: 'p', clock, depthLevels: 0 });
  const venue = new LatencyVenue(sim, scheduler, { placeMs: 0, cancelMs: 0, amendMs: 0, ...latency });
  const seen: Array<[number, string]> = [];
  venue.listen({ next: (e) => seen.push([clock.now() - T0, e.type === 'trade' ? e.data.tradeId : e.type]), error: () => undefined });
  return { clock, scheduler, venue, seen };
}

const trade = (id: string, t: number): VenueEvent => ({ type: 'trade', time: t, symbol: 'BTCUSDT', data: { tradeId: id, price: '100', quantity: '1', side: 'BUY', time: t } });

/** Advances the virtual clock to `t` (ms after T0), running the timers due on the way. */
function runTo(clock: ManualClock, scheduler: VirtualScheduler, t: number): void {
  while (scheduler.runNext(T0 + t)) {
    // each timer sets the clock to its own time
  }
  clock.set(T0 + t);
}

describe('LatencyVenue feed latency', () => {
  it('without feed latency, a recorded event reaches the strategy at once', () => {
    const { venue, seen } = setup({});
    venue.inject(trade('a', T0));
    expect(seen).toEqual([[0, 'a']]);
  });

  it('a constant feed latency delivers each event that long after the market moved, in order', () => {
    const { clock, scheduler, venue, seen } = setup({ feedMs: 30 });
    venue.inject(trade('a', T0));
    clock.set(T0 + 10);
    venue.inject(trade('b', T0 + 10));
    expect(seen).toEqual([]);
    runTo(clock, scheduler, 100);
    expect(seen).toEqual([[30, 'a'], [40, 'b']]);
  });

  it("feedMs: data takes each event's receive minus exchange time above the smallest seen, and never reorders the feed", () => {
    const { clock, scheduler, venue, seen } = setup({ feedMs: 'data', feedBaseMs: 5 });
    // The collector's clock is 1,270 ms behind: receive minus exchange time is about -1,270 + latency.
    venue.inject(trade('a', T0), T0 + 1270 - 2); // lag -1268: the smallest so far: latency 0 + 5
    clock.set(T0 + 1);
    venue.inject(trade('b', T0 + 1), T0 + 1 + 1270 - 52); // 50 ms slower than the fastest: 55
    clock.set(T0 + 2);
    venue.inject(trade('c', T0 + 2), T0 + 2 + 1270 - 2); // as fast as the fastest: 5, but not before b
    runTo(clock, scheduler, 200);
    expect(seen).toEqual([[5, 'a'], [56, 'b'], [56, 'c']]);
  });
});
