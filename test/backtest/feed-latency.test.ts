import { ManualClock } from '../../src/core/clock';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import type { VenueEvent } from '../../src/bot/venue/venue';
import { LatencyVenue } from '../../src/backtest/backtest/latency-venue';
import { VirtualScheduler } from '../../src/backtest/backtest/virtual-scheduler';
import { parseBacktestConfig, type LatencyConfig } from '../../src/backtest/backtest/config';

const T0 = 1_700_000_000_000;

function setup(latency: Partial<LatencyConfig>): { clock: ManualClock; scheduler: VirtualScheduler; venue: LatencyVenue; seen: Array<[number, string]> } {
  const clock = new ManualClock(T0);
  const scheduler = new VirtualScheduler(clock);
  const engine = new Engine({ symbols: [DEFAULT_SYMBOLS[0]], clock });
  engine.createAccount({ userId: 'p', balance: '100000' });
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

describe('LatencyVenue sampled order-entry latency', () => {
  /** When each of `n` placements sent at T0 reached the engine (ms after T0), in the order sent. */
  async function arrivals(placeMs: number[], seed: number, n: number): Promise<number[]> {
    const { clock, scheduler, venue } = setup({ placeMs, seed });
    const inner = venue.inner as SimVenue;
    const sent: Array<Promise<unknown>> = [];
    const price = inner.engine.marketState('BTCUSDT').markPrice;
    for (let i = 0; i < n; i++) {
      sent.push(venue.placeOrders([{ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.001', clientOrderId: `o${i}` }]));
    }
    expect(inner.engine.currentOrders('p', {}).total).toBe(0);
    runTo(clock, scheduler, 1000);
    await Promise.all(sent);
    // Each order's time in the engine is when it arrived.
    return Array.from({ length: n }, (_, i) => inner.engine.queryOrder('p', { symbol: 'BTCUSDT', clientOrderId: `o${i}` }).updateTime - T0);
  }

  it('draws each call from the samples, seeded: the same seed gives the same arrivals, another seed others', async () => {
    const a = await arrivals([5, 50, 200], 7, 12);
    expect(new Set(a)).toEqual(new Set([5, 50, 200]));
    expect(await arrivals([5, 50, 200], 7, 12)).toEqual(a);
    expect(await arrivals([5, 50, 200], 8, 12)).not.toEqual(a);
  });

  it('the config takes a list of samples and refuses an empty one, naming the key', () => {
    const base = { data: { files: ['x.jsonl.gz'] }, strategies: [{ id: 's', module: 'market-maker' }] };
    const cfg = parseBacktestConfig({ ...base, latency: { placeMs: [10, 20], cancelMs: 5, seed: 3 } }, { file: '/tmp/b.yaml' });
    expect(cfg.latency).toMatchObject({ placeMs: [10, 20], cancelMs: 5, amendMs: [10, 20], seed: 3 });
    expect(() => parseBacktestConfig({ ...base, latency: { placeMs: [] } }, { file: '/tmp/b.yaml' })).toThrow(/latency\.placeMs: expected an integer from 0 to 60000 or a non-empty list of them/);
    expect(() => parseBacktestConfig({ ...base, latency: { placeMs: [10, -1] } }, { file: '/tmp/b.yaml' })).toThrow(/latency\.placeMs\[1\]: expected an integer from 0 to 60000, got number -1/);
  });
});
