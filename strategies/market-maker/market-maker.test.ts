import { Dec } from '../../src/index';
import { botWorld } from '../../test/bot/harness';
import marketMaker from './index';

async function mmWorld(params: Record<string, unknown> = {}) {
  const w = await botWorld([{ id: 'mm', definition: marketMaker, params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '4', refreshMs: 1000, ...params } }]);
  const quotes = () =>
    w.engine
      .currentOrders('bot', { symbol: 'BTCUSDT' })
      .list.map((o) => [o.side, o.price])
      .sort();
  return { ...w, quotes };
}

describe('market-maker strategy', () => {
  it('quotes both sides around mark at the minimum spread, as makerOnly limits', async () => {
    const w = await mmWorld();
    // mark 50000, 4 bps: 49990 / 50010
    expect(w.quotes()).toEqual([
      ['BUY', '49990'],
      ['SELL', '50010'],
    ]);
    expect(w.engine.currentOrders('bot', {}).list.every((o) => o.makerOnly)).toBe(true);
  });

  it('moves quotes with mark through amends (batch-move), not cancel and replace', async () => {
    const w = await mmWorld();
    const ids = w.engine.currentOrders('bot', {}).list.map((o) => o.orderId).sort();
    w.engine.setMarkPrice('BTCUSDT', '50100');
    w.venue.pump();
    await w.settle();
    expect(w.engine.currentOrders('bot', {}).list.map((o) => o.orderId).sort()).toEqual(ids);
    const [bid, ask] = w.quotes();
    expect(new Dec(bid[1]).lt('50100')).toBe(true);
    expect(new Dec(ask[1]).gt('50100')).toBe(true);
  });

  it('widens the spread when mark moves a lot', async () => {
    const w = await mmWorld({ volMultiplier: '3' });
    for (const m of ['50500', '49600', '50400', '49700', '50300']) {
      w.engine.setMarkPrice('BTCUSDT', m);
      w.venue.pump();
      await w.settle();
    }
    const [bid, ask] = w.quotes();
    const spreadBps = new Dec(ask[1]).minus(bid[1]).div('50300').times(10000);
    expect(spreadBps.gt(20)).toBe(true);
  });

  it('leans against inventory and stops adding at the limit', async () => {
    const w = await mmWorld({ maxInventory: '0.01', skewBps: '5' });
    // someone sells into our bid: we are long 0.01 = max inventory
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    w.venue.pump();
    await w.settle();
    w.scheduler.advance(1000);
    await w.settle();
    const q = w.quotes();
    expect(q.map((x) => x[0])).toEqual(['SELL']);
    // ask leans down by 5 bps: 50000 * (1 + 2/10000 - 5/10000) = 49985
    expect(q[0][1]).toBe('49985');
  });

  it('pulls all quotes when the risk engine leaves ACTIVE', async () => {
    const w = await mmWorld();
    w.bot.risk.setState('REDUCING', 'test');
    await w.settle();
    expect(w.quotes()).toEqual([]);
    w.bot.risk.setState('ACTIVE', 'test over');
    await w.settle();
    expect(w.quotes()).toHaveLength(2);
  });

  it('refuses unknown or malformed parameters by name', () => {
    expect(() => marketMaker.params({ symbol: 'BTCUSDT', quantiy: '1' })).toThrow(/unknown parameter 'quantiy'/);
    expect(() => marketMaker.params({ quantity: '-1' })).toThrow(/parameter 'quantity' must be a positive decimal/);
  });
});
