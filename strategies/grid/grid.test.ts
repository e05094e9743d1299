import { Dec, symbolAccess } from '../../src/index';
import { botWorld } from '../../test/bot/harness';
import grid from './index';

/** Mark starts at 50000; 3 levels 10 bps apart: 49850 49900 49950 | 50050 50100 50150; bounds 49800 / 50200. */
async function gridWorld(params: Record<string, unknown> = {}, options: { allowRefusals?: boolean } = {}) {
  const w = await botWorld([{ id: 'grid', definition: grid, params: { symbol: 'BTCUSDT', quantity: '0.01', levels: 3, spacingBps: '10', refreshMs: 1000, ...params } }], options);
  const book = () =>
    w.engine
      .currentOrders('bot', { symbol: 'BTCUSDT' })
      .list.map((o) => `${o.side} ${o.price}`)
      .sort();
  const position = () => w.engine.positions('bot', 'BTCUSDT')[0]?.quantity ?? '0';
  const step = async () => {
    w.venue.pump();
    await w.settle();
  };
  return { ...w, book, position, step };
}

/** Another grid instance over the same bot's venue state (as after a restart), driven by the test. */
function secondInstance(w: Awaited<ReturnType<typeof gridWorld>>, halt: (reason: string) => void) {
  return grid.create({
    id: 'grid',
    params: grid.params({ symbol: 'BTCUSDT', quantity: '0.01', levels: 3, spacingBps: '10' }),
    clock: w.clock,
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    state: w.bot.cache,
    symbols: w.bot.symbols,
    ...symbolAccess('grid', ['BTCUSDT'], w.bot.symbols, w.bot.cache),
    myOrders: (sym) => w.bot.tracker.live('grid', sym),
    emit: () => undefined,
    every: () => undefined,
    cancelTimer: () => undefined,
    halt,
  });
}

const INITIAL = ['BUY 49850', 'BUY 49900', 'BUY 49950', 'SELL 50050', 'SELL 50100', 'SELL 50150'];

describe('grid strategy', () => {
  it('places a symmetric ladder around the reference: buys below, sells above, none at the centre', async () => {
    const w = await gridWorld();
    expect(w.book()).toEqual(INITIAL);
    const orders = w.engine.currentOrders('bot', {}).list;
    expect(orders.every((o) => o.type === 'LIMIT' && o.quantity === '0.01' && !o.reduceOnly)).toBe(true);
    // symmetric: each buy mirrors a sell around 50000
    const prices = orders.map((o) => new Dec(o.price).minus(50000).toNumber()).sort((a, b) => a - b);
    expect(prices).toEqual([-150, -100, -50, 50, 100, 150]);
  });

  it('centres on referencePrice when given', async () => {
    const w = await gridWorld({ referencePrice: '50020', levels: 1, spacingBps: '10' });
    // 50020 * (1 -/+ 0.001) = 49969.98 -> 49969.9 (down), 50070.02 -> 50070.1 (up)
    expect(w.book()).toEqual(['BUY 49969.9', 'SELL 50070.1']);
  });

  it('re-arms a filled buy as a sell one level up, and a filled sell as a buy one level down', async () => {
    const w = await gridWorld();
    // someone sells into our best bid (49950, level -1)
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    await w.step();
    expect(w.position()).toBe('0.01');
    expect(w.book()).toEqual(['BUY 49850', 'BUY 49900', 'SELL 50000', 'SELL 50050', 'SELL 50100', 'SELL 50150']);
    // someone buys our lowest ask (50000): the round trip earned one spacing; the buy at 49950 comes back
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.01' });
    await w.step();
    expect(w.position()).toBe('0');
    expect(w.book()).toEqual(INITIAL);
    const fills = w.events.filter((e) => e.type === 'fill').map((e) => (e.type === 'fill' ? `${e.fill.side} ${e.fill.price}` : ''));
    expect(fills).toEqual(['BUY 49950', 'SELL 50000']);
  });

  it('walks down the ladder when several buys fill at once, with every level above re-armed as a sell', async () => {
    const w = await gridWorld();
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.02' });
    await w.step();
    expect(w.position()).toBe('0.02');
    expect(w.book()).toEqual(['BUY 49850', 'SELL 49950', 'SELL 50000', 'SELL 50050', 'SELL 50100', 'SELL 50150']);
  });

  it('does not re-arm on a partial fill', async () => {
    const w = await gridWorld();
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.004' });
    await w.step();
    expect(w.book()).toEqual(INITIAL);
  });

  it('outside its bounds it cancels the grid, flattens with a reduce-only market order, and stays stopped', async () => {
    const w = await gridWorld();
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.02' });
    await w.step();
    expect(w.position()).toBe('0.02');
    // liquidity for the flatten, below the bound
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49700', quantity: '1' });
    w.engine.setMarkPrice('BTCUSDT', '49790'); // below 49800
    await w.step();
    expect(w.book()).toEqual([]);
    expect(w.position()).toBe('0');
    const flatten = w.engine.orderHistory('bot', { symbol: 'BTCUSDT' }).list.find((o) => o.type === 'MARKET');
    expect(flatten).toMatchObject({ side: 'SELL', reduceOnly: true, quantity: '0.02', status: 'FILLED' });
    // back inside: still stopped, nothing re-armed
    w.engine.setMarkPrice('BTCUSDT', '50000');
    await w.step();
    w.scheduler.advance(5000);
    await w.settle();
    expect(w.book()).toEqual([]);
    expect(w.events.filter((e) => e.type === 'denial')).toEqual([]);
    // The operator sees why it no longer trades (healthz, dashboard, metrics, run's closing line).
    expect(w.bot.strategyHealth()[0].halted).toBe('mark 49790 left the bounds [49800, 50200]; orders cancelled, position flattened');
  });

  it('stops above the upper bound too (explicit bounds), flat or not', async () => {
    const w = await gridWorld({ lowerBound: '49000', upperBound: '50500' });
    w.engine.setMarkPrice('BTCUSDT', '50400');
    await w.step();
    expect(w.book()).toEqual(INITIAL);
    w.engine.setMarkPrice('BTCUSDT', '50600');
    await w.step();
    expect(w.book()).toEqual([]);
    expect(w.engine.orderHistory('bot', {}).list.some((o) => o.type === 'MARKET')).toBe(false);
  });

  it('pulls the grid while the risk engine is not ACTIVE and re-arms after', async () => {
    const w = await gridWorld();
    w.bot.risk.setState('REDUCING', 'test');
    await w.settle();
    expect(w.book()).toEqual([]);
    w.bot.risk.setState('ACTIVE', 'test over');
    await w.settle();
    expect(w.book()).toEqual(INITIAL);
  });

  it('survives a restart: saved gap and reference, live orders recognised by price', async () => {
    const w = await gridWorld();
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    await w.step();
    // a fresh instance over the same venue state, as after a restart of the bot
    const halted: string[] = [];
    const strat = secondInstance(w, (reason) => halted.push(reason));
    strat.restoreState?.(JSON.parse(JSON.stringify({ reference: '50000', gap: -1, stopped: false })));
    // every level is already held as it should be: nothing to send
    expect(strat.onStart?.()).toEqual([]);
    expect(halted).toEqual([]);
    // A grid that had stopped for good says so again after the restart, with its reason.
    strat.restoreState?.(JSON.parse(JSON.stringify({ reference: '50000', gap: 0, stopped: true, haltReason: 'mark 49790 left the bounds [49800, 50200]' })));
    expect(halted).toEqual(['mark 49790 left the bounds [49800, 50200]']);
  });

  // It placed the new side's order beside the old one it was cancelling: one order over its ladder
  // (2 x levels) until the cancel landed, or until its next event when that cancel was lost.
  it('never more than 2 x levels orders: one being cancelled counts until the venue has cancelled it', async () => {
    // The bot's own instance (gap 0) would re-place what the test cancels: paused, it places nothing
    // (its place is denied STRATEGY_PAUSED, which the test expects).
    const w = await gridWorld({}, { allowRefusals: true });
    await w.bot.control('grid', 'pause', 'the test drives a second instance');
    const strat = secondInstance(w, () => undefined);
    // The gap one level down: the buy at 49950 is now in it, and level 0 wants a sell.
    strat.restoreState?.({ reference: '50000', gap: -1, stopped: false });
    const wrong = w.bot.tracker.live('grid', 'BTCUSDT').find((o) => o.price === '49950');
    // It is cancelled, and the old gap (50000) gets its sell only once it is gone.
    expect(strat.onStart?.()).toEqual([{ kind: 'cancel', clientOrderId: wrong?.clientOrderId }]);
    // Still there: still nothing placed.
    expect(strat.onTimer?.({ type: 'timer', time: w.clock.now(), name: 'grid', strategyId: 'grid' })).toEqual([{ kind: 'cancel', clientOrderId: wrong?.clientOrderId }]);
    w.engine.cancelOrder('bot', { symbol: 'BTCUSDT', clientOrderId: wrong?.clientOrderId });
    await w.step();
    const after = strat.onTimer?.({ type: 'timer', time: w.clock.now(), name: 'grid', strategyId: 'grid' });
    expect(after).toEqual([{ kind: 'place', symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '50000', quantity: '0.01', tag: 'L0' }]);
    expect(w.refusals().map((e) => (e.type === 'order' ? `order ${e.executionType}` : `${e.type} ${e.code} ${e.intent.kind}`))).toEqual(['denial STRATEGY_PAUSED place']);
  });

  it('refuses bad parameters by name', () => {
    expect(() => grid.params({ levles: 3 })).toThrow(/unknown parameter 'levles'/);
    expect(() => grid.params({ levels: 0 })).toThrow(/parameter 'levels' must be a whole number/);
    expect(() => grid.params({ lowerBound: '51000', upperBound: '50000' })).toThrow(/parameter 'lowerBound' must be below upperBound/);
    expect(() => grid.params({ levels: 50, spacingBps: '500' })).toThrow(/parameter 'spacingBps'/);
  });
});
