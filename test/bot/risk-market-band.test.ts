/**
 * The price band holds back a MARKET order that opens, as it does a limit price: a MARKET order
 * has no price, and passed whatever it would fill at (a strategy sweeping a thin book). It is
 * checked at the worst price the bot can see it filling at (the order book it holds, walked for
 * the quantity, or its ticker's best price); a reduce-only one always passes (a stop or a flatten
 * must go out), and one the bot cannot price passes, as before.
 */
import { RiskEngine, type RiskContext } from '../../src/bot/risk/risk-engine';
import { StateCache } from '../../src/bot/state/cache';
import { OrderTracker } from '../../src/bot/execution/order-tracker';
import { toSymbolInfo } from '../../src/bot/strategy/context';
import { ManualClock } from '../../src/core/clock';
import { DEFAULT_SYMBOLS, wireSpecOf } from '../../src/exchange/engine/symbols';
import type { PlaceIntent } from '../../src/bot/strategy/intents';
import type { TickerPushData } from '../../src/protocol/ws';

const btc = DEFAULT_SYMBOLS.find((s) => s.symbol === 'BTCUSDT');
if (btc === undefined) throw new Error('BTCUSDT is a default symbol');

function world(): { risk: RiskEngine; ctx: RiskContext; state: StateCache } {
  const state = new StateCache();
  state.setMark('BTCUSDT', { markPrice: '50000.0', indexPrice: '50000.0', fundingRate: '0', nextFundingTime: 0 });
  const ctx: RiskContext = { state, symbols: new Map([['BTCUSDT', toSymbolInfo(wireSpecOf(btc as NonNullable<typeof btc>))]]), tracker: new OrderTracker(), clock: new ManualClock(0) };
  return { risk: new RiskEngine({ priceBand: '0.05' }), ctx, state };
}

const market = (side: 'BUY' | 'SELL', quantity: string, extra: Partial<PlaceIntent> = {}): PlaceIntent => ({ kind: 'place', symbol: 'BTCUSDT', side, type: 'MARKET', quantity, ...extra });

test('walked through the book the bot holds: within the band it passes, beyond it is denied saying how far it would fill', () => {
  const { risk, ctx, state } = world();
  state.setDepth('BTCUSDT', [['49990.0', '0.5'], ['47000.0', '1']], [['50010.0', '0.5'], ['52500.0', '0.5'], ['53000.0', '1']]);
  expect(risk.check(market('BUY', '0.5'), ctx).ok).toBe(true);
  // 52500 is 5 % from mark: on the band's edge, inside.
  expect(risk.check(market('BUY', '1'), ctx).ok).toBe(true);
  const over = risk.check(market('BUY', '1.2'), ctx);
  expect(over).toMatchObject({ ok: false, code: 'PRICE_BAND', reason: 'a MARKET BUY of 1.2 would fill up to 53000.0 (the order book the bot holds), 6.00 % from mark 50000.0, beyond the band of 5 %' });
  expect(risk.check(market('SELL', '0.6'), ctx)).toMatchObject({ ok: false, code: 'PRICE_BAND' });
  // Reduce-only goes out whatever the price: a stop or a flatten must not be held back.
  expect(risk.check(market('SELL', '0.6', { reduceOnly: true }), ctx).ok).toBe(true);
  // More than the book the bot holds: checked at its last level, said as a lower bound.
  expect(risk.check(market('BUY', '5'), ctx)).toMatchObject({ ok: false, reason: 'a MARKET BUY of 5 would fill up to 53000.0 (at least: the 3 levels of the order book the bot holds have 2), 6.00 % from mark 50000.0, beyond the band of 5 %' });
});

test("with no book, the ticker's best price; with neither, it passes as it did", () => {
  const { risk, ctx, state } = world();
  expect(risk.check(market('BUY', '1'), ctx).ok).toBe(true);
  state.setTicker('BTCUSDT', { bestBid: '49990.0', bestAsk: '53000.0' } as TickerPushData);
  expect(risk.check(market('BUY', '0.001'), ctx)).toMatchObject({ ok: false, code: 'PRICE_BAND', reason: 'a MARKET BUY of 0.001 would fill up to 53000.0 (at least: the best price of the ticker), 6.00 % from mark 50000.0, beyond the band of 5 %' });
  expect(risk.check(market('SELL', '0.001'), ctx).ok).toBe(true);
});
