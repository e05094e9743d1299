/**
 * The example market maker's quote prices: worked out in doubles and settled by the grid
 * (Grid.unitsOfEstimate), they must be the prices of the exact decimal formula, also for marks
 * whose quotes land exactly on a tick (where the doubles cannot decide) and with an inventory lean.
 */
import marketMaker from '../../strategies/market-maker';
import { Dec, Grid } from '../../src/core';
import { strategyWorld } from '../../src/testing';

const params = { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '1.4', volMultiplier: '3', maxInventory: '0.03', skewBps: '7', refreshMs: 1000 };
const tick = new Grid('0.1');

/** The quotes by the decimal formula alone, with the strategy's volatility (a double, as it keeps it). */
function expected(mark: string, variance: number, pos: Dec): { BUY: string; SELL: string } {
  const min = new Dec(params.minSpreadBps);
  const spread = variance === 0 ? min : Dec.max(min, new Dec(params.volMultiplier).times(Math.sqrt(variance) * 10000));
  const lean = Dec.min(new Dec(1), Dec.max(new Dec(-1), pos.div(params.maxInventory))).times(params.skewBps);
  const half = spread.times('0.5');
  const at = (bps: Dec, mode: 'down' | 'up'): string => tick.fromUnits(tick.unitsOfDec(new Dec(mark).times(new Dec(10000).plus(bps).minus(lean)).div(10000), mode));
  return { BUY: at(half.negated(), 'down'), SELL: at(half, 'up') };
}

it('quotes the exact decimal prices, on and off the tick boundaries, with and without inventory', async () => {
  const w = await strategyWorld(marketMaker, params, { balance: '100000' });
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
