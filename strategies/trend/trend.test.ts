import type { StrategyOrderRecord } from '../../src/index';
import { botWorld } from '../../test/bot/harness';
import trend from './index';

const BAR = 60_000;

/** fast EMA 2, slow EMA 4, ATR 3 on one-minute bars; each scripted bar is one trade at its close. */
async function trendWorld(params: Record<string, unknown> = {}) {
  const w = await botWorld([{ id: 'trend', definition: trend, params: { symbol: 'BTCUSDT', quantity: '0.01', barMs: BAR, fastPeriod: 2, slowPeriod: 4, atrPeriod: 3, takeProfitAtr: '2', stopLossAtr: '1', entryOffsetBps: '5', entryTimeoutBars: 10, ...params } }]);
  w.engine.createAccount({ userId: 'third', balance: '100000' });
  const step = async () => {
    w.venue.pump();
    await w.settle();
  };
  /** Next minute: mark moves to `price` and one 0.001 trade prints there between two other users. */
  const bar = async (price: string) => {
    w.scheduler.advance(BAR);
    await w.settle();
    w.engine.setMarkPrice('BTCUSDT', price);
    w.engine.placeOrder('third', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price, quantity: '0.001' });
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.001', timeInForce: 'IOC' });
    await step();
  };
  /** Lets the last scripted bar close (its minute ends; the strategy's timer closes it). */
  const closeBar = async () => {
    w.scheduler.advance(BAR);
    await w.settle();
  };
  const strategyOrders = (): StrategyOrderRecord[] => {
    const byId = new Map<string, StrategyOrderRecord>();
    for (const e of w.events) if (e.type === 'strategyOrder') byId.set(e.strategyOrder.strategyId, e.strategyOrder);
    return [...byId.values()];
  };
  const denials = () => w.events.filter((e) => e.type === 'denial');
  return { ...w, bar, closeBar, step, strategyOrders, denials };
}

/**
 * Closes 50000 49900 49800 49700 49600 49900: fast EMA (2) crosses above slow (4) on the last
 * bar (49816.67 vs 49810). True ranges 0 100 100 100 100 300 -> Wilder ATR(3) 156.79.
 * Entry 49900 * 1.0005 = 49924.95 -> 49925 (up). The exits are measured from the close 49900 (where
 * the entry is expected to fill), rounded away from it: TP 49900 + 2 ATR = 50213.58 -> 50213.6;
 * SL 49900 - 1 ATR = 49743.21 -> 49743.2.
 */
const UP_CROSS = ['50000', '49900', '49800', '49700', '49600', '49900'];

describe('trend strategy', () => {
  it('a crossover on a closed bar sends one OTOCO bracket: LIMIT entry, reduce-only take-profit and stop-loss', async () => {
    const w = await trendWorld();
    for (const p of UP_CROSS.slice(0, -1)) await w.bar(p);
    await w.closeBar();
    expect(w.strategyOrders()).toHaveLength(0);
    await w.bar(UP_CROSS[5]);
    expect(w.strategyOrders()).toHaveLength(0); // the crossing bar has not closed yet
    await w.closeBar();
    const so = w.strategyOrders();
    expect(so).toHaveLength(1);
    expect(so[0].strategyType).toBe('OTOCO');
    const [entry, tp, sl] = so[0].subOrders;
    expect(entry).toMatchObject({ type: 'LIMIT', side: 'BUY', price: '49925', quantity: '0.01', reduceOnly: false });
    expect(tp).toMatchObject({ type: 'LIMIT', side: 'SELL', price: '50213.6', reduceOnly: true });
    expect(sl).toMatchObject({ type: 'STOP_MARKET', side: 'SELL', stopPrice: '49743.2', reduceOnly: true, workingType: 'MARK_PRICE' });
    expect(w.engine.currentOrders('bot', {}).list.map((o) => `${o.side} ${o.price}`)).toEqual(['BUY 49925']);
    expect(w.denials()).toEqual([]);
  });

  it('when the entry fills the venue holds the exits; the stop-loss closes the position without the strategy', async () => {
    const w = await trendWorld();
    for (const p of UP_CROSS) await w.bar(p);
    await w.closeBar();
    // a seller hits our entry bid
    w.engine.placeOrder('third', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49920', quantity: '0.01' });
    await w.step();
    expect(w.engine.positions('bot', 'BTCUSDT')[0]?.quantity).toBe('0.01');
    expect(w.engine.currentOrders('bot', {}).list.map((o) => [o.side, o.price, o.reduceOnly])).toEqual([['SELL', '50213.6', true]]);
    expect(w.engine.currentConditions('bot', 'BTCUSDT').list.map((c) => [c.type, c.stopPrice])).toEqual([['STOP_MARKET', '49743.2']]);
    // mark falls through the stop; a bid is there to take the stop's market order
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49700', quantity: '1' });
    w.engine.setMarkPrice('BTCUSDT', '49740');
    await w.step();
    expect(w.engine.positions('bot', 'BTCUSDT')[0]?.quantity ?? '0').toBe('0');
    expect(w.engine.currentOrders('bot', {}).list).toEqual([]); // the take-profit went with it (OCO)
    expect(w.strategyOrders()[0].strategyStatus).not.toBe('WORKING');
    // the strategy itself sent nothing but the bracket
    expect(w.engine.orderHistory('bot', {}).list.filter((o) => !o.clientOrderId.startsWith('trend-'))).toEqual([]);
    expect(w.denials()).toEqual([]);
  });

  it('measures the exits from the close, not the entry limit: an offset wider than stopLossAtr x ATR leaves the stop below the fill', async () => {
    // 50 bps: the limit 49900 * 1.005 = 50149.5 is 249.5 through the close, more than 1 ATR (156.79).
    const w = await trendWorld({ entryOffsetBps: '50' });
    for (const p of UP_CROSS) await w.bar(p);
    // an ask at the close for the marketable entry to take, as on a live book
    w.engine.placeOrder('third', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49900', quantity: '0.01' });
    await w.closeBar();
    await w.step();
    const [entry, tp, sl] = w.strategyOrders()[0].subOrders;
    expect(entry.price).toBe('50149.5');
    // From the limit the stop would be at 49992.7: above the close, through the market at the fill.
    expect(tp.price).toBe('50213.6');
    expect(sl.stopPrice).toBe('49743.2');
    // The entry filled at the close and the stop waits below it; it did not trigger at the fill.
    expect(w.engine.orderHistory('bot', {}).list.filter((o) => o.status === 'FILLED').map((o) => [o.side, o.avgPrice])).toEqual([['BUY', '49900']]);
    expect(w.engine.positions('bot', 'BTCUSDT')[0]?.quantity).toBe('0.01');
    expect(w.engine.currentConditions('bot', 'BTCUSDT').list.map((c) => [c.type, c.stopPrice])).toEqual([['STOP_MARKET', '49743.2']]);
    expect(w.denials()).toEqual([]);
  });

  it('keeps each exit at least one tick beyond the close, and the take-profit beyond the entry limit, when its ATR multiple is under a tick', async () => {
    // 0.0001 ATR = 0.016, under the 0.1 tick: the stop goes one tick below the close 49900; the
    // take-profit one tick above the entry limit 49925 (at the close + 1 tick it would be through
    // the limit, where a resting entry fills, and close the position at once).
    const w = await trendWorld({ takeProfitAtr: '0.0001', stopLossAtr: '0.0001' });
    for (const p of UP_CROSS) await w.bar(p);
    await w.closeBar();
    const so = w.strategyOrders();
    expect(so).toHaveLength(1);
    const [entry, tp, sl] = so[0].subOrders;
    expect([entry.price, tp.price, sl.stopPrice]).toEqual(['49925', '49925.1', '49899.9']);
    expect(w.denials()).toEqual([]);
  });

  it('sends no new entry while a bracket is working, however the averages cross', async () => {
    const w = await trendWorld();
    for (const p of UP_CROSS) await w.bar(p);
    await w.closeBar();
    expect(w.strategyOrders()).toHaveLength(1);
    // down-cross, then up-cross again, while the bracket works (the scripted sells partly fill the entry at 49925)
    for (const p of ['49000', '48900', '48800', '49950', '50300']) await w.bar(p);
    await w.closeBar();
    expect(w.strategyOrders()).toHaveLength(1);
  });

  it('cancels an entry left unfilled for entryTimeoutBars bars, then trades the next crossover', async () => {
    const w = await trendWorld({ entryTimeoutBars: 2 });
    for (const p of UP_CROSS) await w.bar(p);
    await w.closeBar();
    expect(w.engine.currentOrders('bot', {}).total).toBe(1);
    await w.bar('49950'); // above our bid: the entry stays unfilled
    await w.bar('49960');
    await w.closeBar();
    expect(w.engine.currentOrders('bot', {}).total).toBe(0);
    expect(w.strategyOrders()[0].strategyStatus).toBe('CANCELLED');
    // falling closes: fast crosses below slow -> a short bracket, exits on the other side
    for (const p of ['49500', '49300']) await w.bar(p);
    await w.closeBar();
    const so = w.strategyOrders();
    expect(so).toHaveLength(2);
    const [entry, tp, sl] = so[1].subOrders;
    expect(entry.side).toBe('SELL');
    expect(Number(tp.price)).toBeLessThan(Number(entry.price));
    expect(Number(sl.stopPrice)).toBeGreaterThan(Number(entry.price));
    expect(w.denials()).toEqual([]);
  });

  it('sends no entry outside ACTIVE', async () => {
    const w = await trendWorld();
    w.bot.risk.setState('REDUCING', 'test');
    await w.settle();
    for (const p of UP_CROSS) await w.bar(p);
    await w.closeBar();
    expect(w.strategyOrders()).toHaveLength(0);
    expect(w.denials()).toEqual([]);
  });

  it('refuses bad parameters by name', () => {
    expect(() => trend.params({ fastPeriod: 30, slowPeriod: 20 })).toThrow(/parameter 'fastPeriod' must be below slowPeriod/);
    expect(() => trend.params({ stopLossAtr: '0' })).toThrow(/parameter 'stopLossAtr' must be a positive decimal/);
    expect(() => trend.params({ barMS: 1000 })).toThrow(/unknown parameter 'barMS'/);
  });
});
