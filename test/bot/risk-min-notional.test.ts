/**
 * The venue's minimum notional (30006) checked before an order goes out (MIN_NOTIONAL): the risk
 * engine let such an order through and the venue refused it. Here the cases the end-to-end test
 * (e2e/risk.test.ts) does not send: an amend, hedge-mode closes, a MARKET order with no mark yet or
 * a mark off the tick grid. The engine and the bot read the same symbol spec (minNotional 5).
 */
import { RiskEngine, type RiskContext } from '../../src/bot/risk/risk-engine';
import { StateCache } from '../../src/bot/state/cache';
import { OrderTracker } from '../../src/bot/execution/order-tracker';
import { toSymbolInfo } from '../../src/bot/strategy/context';
import { ManualClock } from '../../src/core/clock';
import { DEFAULT_SYMBOLS, wireSpecOf } from '../../src/exchange/engine/symbols';
import type { OrderRecord } from '../../src/protocol/records';
import type { PlaceIntent } from '../../src/bot/strategy/intents';
import { botWorld, scripted } from './harness';

const btc = DEFAULT_SYMBOLS.find((s) => s.symbol === 'BTCUSDT');
if (btc === undefined) throw new Error('BTCUSDT is a default symbol');

function world(): { risk: RiskEngine; ctx: RiskContext; state: StateCache; tracker: OrderTracker } {
  const state = new StateCache();
  const tracker = new OrderTracker();
  const ctx: RiskContext = { state, symbols: new Map([['BTCUSDT', toSymbolInfo(wireSpecOf(btc as NonNullable<typeof btc>))]]), tracker, clock: new ManualClock(0) };
  return { risk: new RiskEngine({}), ctx, state, tracker };
}

const place = (side: 'BUY' | 'SELL', quantity: string, extra: Partial<PlaceIntent> = {}): PlaceIntent => ({ kind: 'place', symbol: 'BTCUSDT', side, type: 'LIMIT', price: '4000', quantity, ...extra });

test('a limit order below the minimum notional is denied naming its notional, price, quantity and the minimum; at the minimum it passes', () => {
  const { risk, ctx } = world();
  expect(risk.check(place('BUY', '0.001'), ctx)).toEqual({ ok: false, code: 'MIN_NOTIONAL', reason: 'order notional 4 (price 4000 x quantity 0.001) is below the minimum notional 5 of BTCUSDT' });
  expect(risk.check(place('BUY', '0.002'), ctx).ok).toBe(true);
  expect(risk.check(place('BUY', '0.001', { price: '5000' }), ctx).ok).toBe(true);
});

test('MARKET: valued at mark; with no mark known it passes (the venue decides); a mark off the tick grid is still valued', () => {
  const { risk, ctx, state } = world();
  const m = place('SELL', '0.001', { type: 'MARKET', price: undefined });
  expect(risk.check(m, ctx).ok).toBe(true);
  state.setMark('BTCUSDT', { markPrice: '4999.95', indexPrice: '4999.95', fundingRate: '0', nextFundingTime: 0 });
  expect(risk.check(m, ctx)).toEqual({ ok: false, code: 'MIN_NOTIONAL', reason: 'order notional 4.99995 (mark 4999.95 x quantity 0.001) is below the minimum notional 5 of BTCUSDT' });
  state.setMark('BTCUSDT', { markPrice: '5000.0', indexPrice: '5000.0', fundingRate: '0', nextFundingTime: 0 });
  expect(risk.check(m, ctx).ok).toBe(true);
  state.setMark('BTCUSDT', { markPrice: '4000.0', indexPrice: '4000.0', fundingRate: '0', nextFundingTime: 0 });
  expect(risk.check({ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.001', takeProfitPrice: '6000', stopLossPrice: '3000' }, ctx)).toEqual({
    ok: false,
    code: 'MIN_NOTIONAL',
    reason: 'bracket entry notional 4 (mark 4000.0 x quantity 0.001) is below the minimum notional 5 of BTCUSDT',
  });
});

test('what only closes is not held to it, as the venue does not: reduce-only, and in hedge mode SELL of LONG or BUY of SHORT', () => {
  const { risk, ctx } = world();
  expect(risk.check(place('SELL', '0.001', { reduceOnly: true }), ctx).ok).toBe(true);
  expect(risk.check(place('SELL', '0.001', { positionSide: 'LONG' }), ctx).ok).toBe(true);
  expect(risk.check(place('BUY', '0.001', { positionSide: 'SHORT' }), ctx).ok).toBe(true);
  expect(risk.check(place('BUY', '0.001', { positionSide: 'LONG' }), ctx)).toMatchObject({ ok: false, code: 'MIN_NOTIONAL' });
  expect(risk.check(place('SELL', '0.001', { positionSide: 'SHORT' }), ctx)).toMatchObject({ ok: false, code: 'MIN_NOTIONAL' });
});

test('an amend is checked at its new price and total quantity, unless its order only closes', () => {
  const { risk, ctx, tracker, state } = world();
  const track = (clientOrderId: string, side: 'BUY' | 'SELL', reduceOnly: boolean): void =>
    tracker.add({ clientOrderId, strategyId: 's', symbol: 'BTCUSDT', side, price: '6000', quantity: '0.001', executedQty: '0', state: 'NEW', orderId: clientOrderId, tag: undefined, reduceOnly, sentAt: 0, updatedAt: 0 });
  track('s-1', 'BUY', false);
  expect(risk.check({ kind: 'amend', clientOrderId: 's-1', price: '4000', quantity: '0.001' }, ctx)).toEqual({
    ok: false,
    code: 'MIN_NOTIONAL',
    reason: 'amended order notional 4 (price 4000 x quantity 0.001) is below the minimum notional 5 of BTCUSDT',
  });
  expect(risk.check({ kind: 'amend', clientOrderId: 's-1', price: '4000', quantity: '0.002' }, ctx).ok).toBe(true);
  track('s-2', 'SELL', true);
  expect(risk.check({ kind: 'amend', clientOrderId: 's-2', price: '4000', quantity: '0.001' }, ctx).ok).toBe(true);
  // A hedge-mode close placed without reduceOnly: its positionSide is on the venue's record.
  track('s-3', 'SELL', false);
  state.applyOrder({ clientOrderId: 's-3', orderId: 's-3', symbol: 'BTCUSDT', side: 'SELL', positionSide: 'LONG', status: 'NEW', executedQty: '0', updateTime: 1 } as OrderRecord);
  expect(risk.check({ kind: 'amend', clientOrderId: 's-3', price: '4000', quantity: '0.001' }, ctx).ok).toBe(true);
});

test('in-process: the order never reaches the venue, and the denial is counted (no 30006 rejection)', async () => {
  const def = scripted(['BTCUSDT'], { start: () => [place('BUY', '0.001'), place('BUY', '0.002')] });
  const w = await botWorld([{ id: 's', definition: def, params: {} }], { allowRefusals: true });
  expect(w.openOrders('BTCUSDT').map((o) => o.quantity)).toEqual(['0.002']);
  expect(w.bot.stats).toMatchObject({ denials: 1, rejections: 0 });
  expect(w.events.flatMap((e) => (e.type === 'denial' ? [e.code] : []))).toEqual(['MIN_NOTIONAL']);
  await w.stop();
});
