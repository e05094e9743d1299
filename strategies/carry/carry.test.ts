import { botWorld } from '../../test/bot/harness';
import carry from './index';

const MIN = 60_000;

/**
 * Mark 50000, other users quote 49990 / 50010 (1 BTC each). The harness clock starts at
 * 1_700_000_000_000; the next 8-hourly funding is at 1_700_006_400_000, 106 minutes later.
 */
async function carryWorld(params: Record<string, unknown> = {}) {
  const w = await botWorld([{ id: 'carry', definition: carry, params: { symbol: 'BTCUSDT', quantity: '0.01', maxNotional: '1000', enterRate: '0.0003', exitBeforeMs: 30 * MIN, maxSlippageBps: '10', maxLossBps: '200', ...params } }]);
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49990', quantity: '1' });
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50010', quantity: '1' });
  const mark = async (price: string, rate?: string) => {
    if (rate !== undefined) w.engine.setFundingRate('BTCUSDT', rate);
    w.engine.setMarkPrice('BTCUSDT', price);
    w.venue.pump();
    await w.settle();
  };
  const position = () => w.engine.positions('bot', 'BTCUSDT')[0]?.quantity ?? '0';
  const orders = () => [...w.engine.orderHistory('bot', { symbol: 'BTCUSDT' }).list].sort((a, b) => Number(a.orderId) - Number(b.orderId)).map((o) => ({ side: o.side, price: o.price, quantity: o.quantity, timeInForce: o.timeInForce, reduceOnly: o.reduceOnly }));
  const denials = () => w.events.filter((e) => e.type === 'denial');
  return { ...w, mark, position, orders, denials };
}

describe('carry strategy', () => {
  it('stays out while |funding rate| is below enterRate', async () => {
    const w = await carryWorld();
    await w.mark('50000', '0.0002');
    await w.mark('50000', '-0.0002');
    expect(w.orders()).toEqual([]);
  });

  it('goes short when the rate is positive (longs pay shorts), with a marketable IOC limit bounded by maxSlippageBps', async () => {
    const w = await carryWorld();
    await w.mark('50000', '0.0005');
    expect(w.orders()).toEqual([{ side: 'SELL', price: '49950', quantity: '0.01', timeInForce: 'IOC', reduceOnly: false }]);
    expect(w.position()).toBe('-0.01');
    // at the cap: more marks add nothing
    await w.mark('50000');
    await w.mark('50010');
    expect(w.orders()).toHaveLength(1);
    expect(w.denials()).toEqual([]);
  });

  it('goes long when the rate is negative (shorts pay longs)', async () => {
    const w = await carryWorld();
    await w.mark('50000', '-0.0004');
    expect(w.orders()).toEqual([{ side: 'BUY', price: '50050', quantity: '0.01', timeInForce: 'IOC', reduceOnly: false }]);
    expect(w.position()).toBe('0.01');
  });

  it('caps the position at maxNotional valued at mark', async () => {
    const w = await carryWorld({ maxNotional: '300', quantity: '1' });
    await w.mark('50000', '0.0005');
    expect(w.position()).toBe('-0.006'); // 300 / 50000
    await w.mark('49000'); // 300 / 49000 = 0.00612 rounds down to the same 0.006: nothing to add
    expect(w.position()).toBe('-0.006');
    expect(w.orders()).toHaveLength(1);
  });

  it('sends nothing once the mark has risen past the cap (it sent a negative quantity on every mark)', async () => {
    const w = await carryWorld({ maxNotional: '300', quantity: '1', maxLossBps: '10000' });
    await w.mark('50000', '0.0005');
    expect(w.position()).toBe('-0.006');
    for (const m of ['60000', '60010', '60020']) await w.mark(m); // 300 / 60000 = 0.005: 0.001 over the cap
    expect(w.position()).toBe('-0.006');
    expect(w.orders()).toHaveLength(1);
    expect(w.denials()).toEqual([]);
    expect(w.events.filter((e) => e.type === 'strategyError')).toEqual([]);
  });

  it('exits before an adverse funding: rate against the position and funding within exitBeforeMs', async () => {
    const w = await carryWorld();
    await w.mark('50000', '0.0005');
    expect(w.position()).toBe('-0.01');
    // the rate turns negative (shorts would pay) but funding is still 106 minutes away: hold
    await w.mark('50000', '-0.0001');
    expect(w.position()).toBe('-0.01');
    // 80 minutes later funding is 26 minutes away: close with a reduce-only IOC
    w.scheduler.advance(80 * MIN);
    await w.settle();
    expect(w.position()).toBe('0');
    expect(w.orders()[1]).toEqual({ side: 'BUY', price: '50050', quantity: '0.01', timeInForce: 'IOC', reduceOnly: true });
    // |rate| 0.0001 is below enterRate: it does not turn long
    await w.mark('50000');
    expect(w.orders()).toHaveLength(2);
    expect(w.denials()).toEqual([]);
  });

  it('holds through funding time while the rate still pays the position', async () => {
    const w = await carryWorld();
    await w.mark('50000', '0.0005');
    await w.mark('50000', '0.0001'); // below enterRate but still in our favour
    w.scheduler.advance(100 * MIN);
    await w.settle();
    await w.mark('50000');
    expect(w.position()).toBe('-0.01');
    expect(w.orders()).toHaveLength(1);
  });

  it('closes at maxLossBps against the entry and sits out until the funding round has passed', async () => {
    const w = await carryWorld();
    await w.mark('50000', '0.0005'); // short at 49990
    await w.mark('50900'); // 182 bps against: hold
    expect(w.position()).toBe('-0.01');
    await w.mark('51000'); // 202 bps against: stop
    expect(w.position()).toBe('0');
    expect(w.orders()[1]).toMatchObject({ side: 'BUY', reduceOnly: true });
    await w.mark('51000');
    expect(w.orders()).toHaveLength(2);
    // after the funding time it may enter again
    w.scheduler.advance(107 * MIN);
    await w.settle();
    await w.mark('50000');
    expect(w.position()).toBe('-0.01');
  });

  it('refuses bad parameters by name', () => {
    expect(() => carry.params({ enterRate: '0.1' })).toThrow(/parameter 'enterRate' must be below 0.05/);
    expect(() => carry.params({ exitBeforeMs: 10 })).toThrow(/parameter 'exitBeforeMs' must be a whole number/);
    expect(() => carry.params({ maxNotonal: '1' })).toThrow(/unknown parameter 'maxNotonal'/);
  });
});
