import { Dec, Grid } from '../../src/index';
import { botWorld } from '../../test/bot/harness';
import marketMaker from './index';

async function mmWorld(params: Record<string, unknown> = {}, options: { allowRefusals?: boolean } = {}) {
  const w = await botWorld([{ id: 'mm', definition: marketMaker, params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '4', refreshMs: 1000, ...params } }], options);
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
    // A jump wider than the spread (49990 / 50010 to 50100): the ask moves first, so the bid's amend
    // does not cross the strategy's own ask (a makerOnly amend that would take is refused, 10001,
    // and the bid stayed at 49990 while the ask moved). No refusal: the world would fail on one.
    expect(new Dec(bid[1]).gt('50010')).toBe(true);
  });

  it("bookAware: a quote the mark would put through the book's other side goes one tick off it instead of being refused", async () => {
    const run = async (bookAware: boolean) => {
      const w = await mmWorld({ bookAware }, { allowRefusals: true });
      // Someone offers inside the spread (quotes 49990 / 50010); then the mark jumps past that offer.
      w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50005', quantity: '0.01' });
      w.venue.pump();
      await w.settle();
      await w.setMark('BTCUSDT', '50100');
      const rejections = w.events.filter((e) => e.type === 'rejection').map((e) => (e.type === 'rejection' ? `${e.code} ${e.intent.kind}` : ''));
      return { quotes: w.quotes(), rejections };
    };
    // The bid's target, 50100 less 2 bps (50089.9), would take the 50005 offer: a makerOnly amend the venue refuses.
    const plain = await run(false);
    expect(plain.rejections).toEqual(['10001 amend']);
    expect(plain.quotes).toEqual([
      ['BUY', '49990'],
      ['SELL', '50110.1'],
    ]);
    const aware = await run(true);
    expect(aware.rejections).toEqual([]);
    expect(aware.quotes).toEqual([
      ['BUY', '50004.9'],
      ['SELL', '50110.1'],
    ]);
  });

  it('widens the spread when mark moves a lot', async () => {
    // Jumps wider than the spread both ways: the side moving away goes first, nothing is refused.
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

const exactParams = { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '1.4', volMultiplier: '3', maxInventory: '0.03', skewBps: '7', refreshMs: 1000 };
const tick = new Grid('0.1');

/** The quotes by the decimal formula alone, with the strategy's volatility (a double, as it keeps it). */
function expected(mark: string, variance: number, pos: Dec): { BUY: string; SELL: string } {
  const min = new Dec(exactParams.minSpreadBps);
  const spread = variance === 0 ? min : Dec.max(min, new Dec(exactParams.volMultiplier).times(Math.sqrt(variance) * 10000));
  const lean = Dec.min(new Dec(1), Dec.max(new Dec(-1), pos.div(exactParams.maxInventory))).times(exactParams.skewBps);
  const half = spread.times('0.5');
  const at = (bps: Dec, mode: 'down' | 'up'): string => tick.fromUnits(tick.unitsOfDec(new Dec(mark).times(new Dec(10000).plus(bps).minus(lean)).div(10000), mode));
  return { BUY: at(half.negated(), 'down'), SELL: at(half, 'up') };
}

describe('market-maker quote prices (worked out in doubles, settled exactly by the grid)', () => {
  it('are the exact decimal prices, on and off the tick boundaries, with and without inventory', async () => {
    const w = await botWorld([{ id: 'mm', definition: marketMaker, params: exactParams }], { balance: '100000' });
    // 50000 x (1 -+ 0.7 bps) = 49996.5 / 50003.5, exactly on ticks (where doubles alone give 49996.4
    // and 50003.6); the others land between ticks
    const marks = ['50000', '50000', '50002.7', '49998.3', '50001', '50004.4', '50004.4', '50002.9', '50005'];
    let variance = 0;
    let last: number | undefined;
    let pos = new Dec(0);
    const seen: string[] = [];
    for (const [i, mark] of marks.entries()) {
      const m = Number(mark);
      if (last !== undefined) variance = variance * 0.94 + ((m - last) / last) ** 2 * 0.06;
      last = m;
      await w.setMark('BTCUSDT', mark);
      const want = expected(mark, variance, pos);
      const open = Object.fromEntries(w.openOrders('BTCUSDT').map((o) => [o.side, o.price]));
      expect(open).toEqual(want);
      seen.push(`${want.BUY}/${want.SELL}`);
      if (i === 4) {
        // a taker sells into the bid: the market maker is long 0.01 and leans its quotes down
        await w.marketOrder('BTCUSDT', 'SELL', '0.01');
        pos = new Dec(w.positions('BTCUSDT')[0]?.quantity ?? '0');
        expect(pos.toFixed()).toBe('0.01');
      }
    }
    expect(seen[0]).toBe('49996.5/50003.5');
    await w.stop();
  });
});
