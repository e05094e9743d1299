/**
 * A bracket's exits pass the same grid rule as a place intent's price, worded the same and naming
 * the field (the take-profit and stop-loss were checked only for being on the tick grid: a zero or
 * negative stop-loss went out and came back from the venue as `30005 subOrderList[2]: stopPrice
 * must be greater than zero`, and an off-tick one was refused as `price ... is not on the tick
 * grid`, not saying which). And an exit on the wrong side is refused before anything is sent: the
 * venue takes it, and places a take-profit that trades at once or a stop that triggers at once.
 * With a LIMIT entry both exits are measured from its price; a MARKET entry has none, and the
 * venue compares its exits with nothing, so only their order is checked.
 */
import { RiskEngine, type RiskContext } from '../../src/bot/risk/risk-engine';
import { StateCache } from '../../src/bot/state/cache';
import { OrderTracker } from '../../src/bot/execution/order-tracker';
import { toSymbolInfo } from '../../src/bot/strategy/context';
import { ManualClock } from '../../src/core/clock';
import { DEFAULT_SYMBOLS, wireSpecOf } from '../../src/exchange/engine/symbols';
import type { BracketIntent, PlaceIntent } from '../../src/bot/strategy/intents';

const btc = DEFAULT_SYMBOLS.find((s) => s.symbol === 'BTCUSDT');
if (btc === undefined) throw new Error('BTCUSDT is a default symbol');

function world(): { risk: RiskEngine; ctx: RiskContext } {
  const state = new StateCache();
  state.setMark('BTCUSDT', { markPrice: '50000.0', indexPrice: '50000.0', fundingRate: '0', nextFundingTime: 0 });
  const ctx: RiskContext = { state, symbols: new Map([['BTCUSDT', toSymbolInfo(wireSpecOf(btc as NonNullable<typeof btc>))]]), tracker: new OrderTracker(), clock: new ManualClock(0) };
  return { risk: new RiskEngine({}), ctx };
}

const buy = (extra: Partial<BracketIntent> = {}): BracketIntent => ({ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000', ...extra });
const sell = (extra: Partial<BracketIntent> = {}): BracketIntent => ({ kind: 'bracket', symbol: 'BTCUSDT', side: 'SELL', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '49000', stopLossPrice: '51000', ...extra });
const { entryPrice: _entry, ...marketBuy } = buy();
const { entryPrice: _entry2, ...marketSell } = sell();
const place = (price: string): PlaceIntent => ({ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, quantity: '0.01' });

describe('bracket intents in the risk engine', () => {
  it.each([
    ['a BUY with a LIMIT entry', buy()],
    ['a SELL with a LIMIT entry', sell()],
    ['exits one tick either side of the entry', buy({ takeProfitPrice: '50000.1', stopLossPrice: '49999.9' })],
    ['a SELL with exits one tick either side of the entry', sell({ takeProfitPrice: '49999.9', stopLossPrice: '50000.1' })],
    ['a BUY with a MARKET entry', marketBuy],
    ['a SELL with a MARKET entry', marketSell],
  ])('%s passes', (_what, intent) => {
    const { risk, ctx } = world();
    expect(risk.check(intent, ctx)).toEqual({ ok: true });
  });

  it.each([
    ['a zero stop-loss', buy({ stopLossPrice: '0' }), 'stopLossPrice 0 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['a negative stop-loss', buy({ stopLossPrice: '-100' }), 'stopLossPrice -100 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['a zero stop-loss under a MARKET entry', { ...marketBuy, stopLossPrice: '0' }, 'stopLossPrice 0 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['a zero take-profit of a SELL', sell({ takeProfitPrice: '0.0' }), 'takeProfitPrice 0.0 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['an off-tick take-profit', buy({ takeProfitPrice: '51000.05' }), 'takeProfitPrice 51000.05 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['an off-tick stop-loss', buy({ stopLossPrice: '48999.95' }), 'stopLossPrice 48999.95 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['an off-tick entry', buy({ entryPrice: '50000.05' }), 'entryPrice 50000.05 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
    ['a zero entry', buy({ entryPrice: '0' }), 'entryPrice 0 is not a positive multiple of the tick size 0.1 of BTCUSDT'],
  ])('%s is OFF_GRID, naming the field and the value', (_what, intent, reason) => {
    const { risk, ctx } = world();
    expect(risk.check(intent, ctx)).toEqual({ ok: false, code: 'OFF_GRID', reason });
  });

  it("words the grid rule as a place intent's price denial does, with the field's name", () => {
    const { risk, ctx } = world();
    const placed = risk.check(place('51000.05'), ctx);
    const bracket = risk.check(buy({ takeProfitPrice: '51000.05' }), ctx);
    expect(placed).toMatchObject({ ok: false, code: 'OFF_GRID', reason: 'price 51000.05 is not a positive multiple of the tick size 0.1 of BTCUSDT' });
    expect(bracket).toEqual({ ...placed, reason: `takeProfitPrice${(placed as { reason: string }).reason.slice('price'.length)}` });
  });

  const tpBelow = (side: string, entry: string, tp: string, side2: string) =>
    `takeProfitPrice ${tp} must be ${side2} entryPrice ${entry} for a ${side} bracket: the entry may fill at its limit, and a take-profit at or ${side2 === 'above' ? 'below' : 'above'} it would then close the position at once, at no gain or at a loss`;
  const slAbove = (side: string, entry: string, sl: string, side2: string) =>
    `stopLossPrice ${sl} must be ${side2} entryPrice ${entry} for a ${side} bracket: the entry fills at its limit or better, and a stop-loss at or ${side2 === 'below' ? 'above' : 'below'} it would trigger as soon as it does`;

  it.each([
    ['a BUY take-profit below the entry', buy({ takeProfitPrice: '49500' }), tpBelow('BUY', '50000', '49500', 'above')],
    ['a BUY take-profit at the entry', buy({ takeProfitPrice: '50000.0' }), tpBelow('BUY', '50000', '50000.0', 'above')],
    ['a BUY stop-loss above the entry', buy({ stopLossPrice: '50500' }), slAbove('BUY', '50000', '50500', 'below')],
    ['a BUY stop-loss at the entry', buy({ stopLossPrice: '50000' }), slAbove('BUY', '50000', '50000', 'below')],
    ['a SELL take-profit above the entry', sell({ takeProfitPrice: '50500' }), tpBelow('SELL', '50000', '50500', 'below')],
    ['a SELL take-profit at the entry', sell({ takeProfitPrice: '50000' }), tpBelow('SELL', '50000', '50000', 'below')],
    ['a SELL stop-loss below the entry', sell({ stopLossPrice: '49500' }), slAbove('SELL', '50000', '49500', 'above')],
    ['a SELL stop-loss at the entry', sell({ stopLossPrice: '50000' }), slAbove('SELL', '50000', '50000', 'above')],
    [
      'a BUY whose exits are swapped under a MARKET entry',
      { ...marketBuy, takeProfitPrice: '49000', stopLossPrice: '51000' },
      'takeProfitPrice 49000 must be above stopLossPrice 51000 for a BUY bracket: wherever the MARKET entry fills, one of the two would be at or through that price and close the position at once',
    ],
    [
      'a SELL whose exits are equal under a MARKET entry',
      { ...marketSell, takeProfitPrice: '50000', stopLossPrice: '50000' },
      'takeProfitPrice 50000 must be below stopLossPrice 50000 for a SELL bracket: wherever the MARKET entry fills, one of the two would be at or through that price and close the position at once',
    ],
  ])('%s is BRACKET_EXITS, naming the field, the rule and the values', (_what, intent, reason) => {
    const { risk, ctx } = world();
    expect(risk.check(intent, ctx)).toEqual({ ok: false, code: 'BRACKET_EXITS', reason });
  });

  it('does not compare the exits of a MARKET entry with mark: the venue does not either, and it decides where the entry fills', () => {
    const { risk, ctx } = world();
    // Mark is 50000: both exits are below it, in their right order.
    expect(risk.check({ ...marketBuy, takeProfitPrice: '49500', stopLossPrice: '49000' }, ctx)).toEqual({ ok: true });
  });
});
