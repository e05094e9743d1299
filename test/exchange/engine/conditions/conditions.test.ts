import type { ConditionTimeInForce, TimeInForce } from '../../../../src/core/enums';
import { ErrorCodes } from '../../../../src/core/errors';
import type { EngineEvent } from '../../../../src/exchange/engine/events';
import { codeOf, limit, world } from '../helpers';

const conditionStatuses = (evs: EngineEvent[]): string[] =>
  evs.flatMap((e) => (e.kind === 'condition' ? [e.record.conditionStatus] : []));

/** b long 1 BTC at 50000 against a; c keeps bids and asks around so triggered market orders fill. */
function longWithLiquidity(): ReturnType<typeof world> {
  const w = world();
  w.engine.placeOrder('a', limit('SELL', '50000', '1'));
  w.engine.placeOrder('b', limit('BUY', '50000', '1'));
  w.engine.placeOrder('c', limit('BUY', '47000', '5'));
  w.engine.placeOrder('c', limit('SELL', '53000', '5'));
  w.drain();
  return w;
}

describe('condition orders', () => {
  it('STOP_MARKET on MARK_PRICE fires when mark crosses and places a MARKET order', () => {
    const w = longWithLiquidity();
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', workingType: 'MARK_PRICE', closePosition: true });
    expect(c.conditionStatus).toBe('NEW');
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '48500');
    expect(w.engine.currentConditions('b', 'BTCUSDT').total).toBe(1);
    w.engine.setMarkPrice('BTCUSDT', '48000');
    const evs = w.drain();
    expect(conditionStatuses(evs)).toEqual(['TRIGGERED']);
    const rec = w.engine.conditionHistory('b', {}).list[0];
    expect(rec.conditionStatus).toBe('TRIGGERED');
    const o = w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: rec.triggeredOrderId });
    expect(o).toMatchObject({ type: 'MARKET', status: 'FILLED', executedQty: '1', avgPrice: '47000', conditionId: rec.conditionId });
    expect(w.engine.positions('b')).toEqual([]);
  });

  it.each([
    ['no timeInForce', {}, 'GTC', 'FILLED'],
    ['GTE_GTC', { timeInForce: 'GTE_GTC' }, 'GTC', 'FILLED'],
    ['IOC', { timeInForce: 'IOC' }, 'IOC', 'FILLED'],
    ['FOK, more than the book holds', { timeInForce: 'FOK', quantity: '6', reduceOnly: false }, 'FOK', 'EXPIRED'],
  ] as Array<[string, { timeInForce?: ConditionTimeInForce; quantity?: string; reduceOnly?: boolean }, TimeInForce, string]>)(
    "a triggered MARKET order's record is a user's MARKET order's but for its links (%s)",
    (_n, extra, tif, status) => {
      const { timeInForce, quantity = '1', reduceOnly = true } = extra;
      const fired = longWithLiquidity();
      const c = fired.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', workingType: 'MARK_PRICE', quantity, reduceOnly, ...(timeInForce ? { timeInForce } : {}) });
      fired.engine.setMarkPrice('BTCUSDT', '48000');
      const triggered = fired.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: fired.engine.conditionHistory('b', {}).list[0].triggeredOrderId });
      expect(triggered).toMatchObject({ type: 'MARKET', timeInForce: tif, status, conditionId: c.conditionId, clientOrderId: c.clientOrderId });
      // The same order placed by the user at that moment, in a twin world (same ids and times).
      const placed = longWithLiquidity();
      placed.engine.setMarkPrice('BTCUSDT', '48000');
      const user = placed.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity, reduceOnly, ...(timeInForce !== undefined && timeInForce !== 'GTE_GTC' ? { timeInForce } : {}) });
      const links = new Set(['conditionId', 'clientOrderId']);
      const without = (r: object): object => Object.fromEntries(Object.entries(r).filter(([k]) => !links.has(k)));
      expect(without(triggered)).toEqual(without(user));
      expect(Object.keys(without(triggered))).toEqual(Object.keys(without(user)));
    },
  );

  it('TAKE_PROFIT_LIMIT on CONTRACT_PRICE fires on the last trade and places a LIMIT order', () => {
    const w = longWithLiquidity();
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'TAKE_PROFIT_LIMIT', side: 'SELL', stopPrice: '52000', price: '52000', quantity: '1', reduceOnly: true });
    w.engine.setMarkPrice('BTCUSDT', '52500'); // mark does not matter for CONTRACT_PRICE
    expect(w.engine.currentConditions('b', undefined).total).toBe(1);
    w.engine.placeOrder('a', limit('SELL', '52000', '0.01'));
    w.engine.placeOrder('c', limit('BUY', '52000', '0.01')); // last trade 52000
    const rec = w.engine.conditionHistory('b', {}).list.find((x) => x.conditionId === c.conditionId);
    expect(rec?.conditionStatus).toBe('TRIGGERED');
    const o = w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: rec?.triggeredOrderId });
    expect(o).toMatchObject({ type: 'LIMIT', price: '52000', reduceOnly: true });
  });

  it('a condition whose trigger is already met fires at once', () => {
    const w = longWithLiquidity();
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '51000', workingType: 'MARK_PRICE', quantity: '0.5', reduceOnly: true });
    expect(w.engine.positions('b')[0].quantity).toBe('0.5');
  });

  it('TRAILING_STOP activates at activatePrice, follows the high, fires on the callback', () => {
    const w = longWithLiquidity();
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'TRAILING_STOP', side: 'SELL', activatePrice: '51000', callbackRate: '1', workingType: 'MARK_PRICE', quantity: '1', reduceOnly: true });
    w.engine.setMarkPrice('BTCUSDT', '50800'); // not active: nothing
    w.engine.setMarkPrice('BTCUSDT', '49000'); // still not active
    expect(w.engine.currentConditions('b', undefined).total).toBe(1);
    w.engine.setMarkPrice('BTCUSDT', '51000'); // activates, high 51000
    w.engine.setMarkPrice('BTCUSDT', '52000'); // high 52000, fires at <= 51480
    w.engine.setMarkPrice('BTCUSDT', '51500');
    expect(w.engine.currentConditions('b', undefined).total).toBe(1);
    w.engine.setMarkPrice('BTCUSDT', '51480');
    expect(w.engine.currentConditions('b', undefined).total).toBe(0);
    expect(w.engine.positions('b')).toEqual([]);
  });

  it('GTE_GTC is cancelled when the position it closes is gone, and needs one to be placed', () => {
    const w = world();
    expect(codeOf(() => w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', quantity: '1', timeInForce: 'GTE_GTC' }))).toBe(ErrorCodes.REDUCE_ONLY_WOULD_INCREASE);
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '48000', quantity: '1', timeInForce: 'GTE_GTC' });
    w.drain();
    w.engine.placeOrder('c', limit('BUY', '50000', '1'));
    w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '1' });
    expect(conditionStatuses(w.drain())).toEqual(['CANCELED']);
  });

  // PROTOCOL.md: "GTE_GTC: the order is cancelled when the position it closes is gone". The order
  // a triggered GTE_GTC condition placed (a LIMIT left resting, GTC) outlived the position, and a
  // later fill opened a new one the other way.
  it("GTE_GTC: the order a triggered one placed is cancelled when the position it closes is gone", () => {
    const w = world();
    w.engine.placeOrder('a', limit('BUY', '50000', '1'));
    w.engine.placeOrder('b', limit('SELL', '50000', '1'));
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'TAKE_PROFIT_LIMIT', side: 'BUY', stopPrice: '49000', price: '45000', quantity: '1', timeInForce: 'GTE_GTC', workingType: 'MARK_PRICE' });
    w.engine.setMarkPrice('BTCUSDT', '49000');
    const resting = w.engine.currentOrders('b', { symbol: 'BTCUSDT' }).list;
    expect(resting.map((o) => [o.type, o.price, o.status, o.timeInForce])).toEqual([['LIMIT', '45000', 'NEW', 'GTC']]);
    w.drain();
    // b closes the short by hand: the take-profit's order has nothing left to close.
    w.engine.placeOrder('c', limit('SELL', '49000', '1'));
    w.engine.placeOrder('b', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '1' });
    expect(w.engine.currentOrders('b', { symbol: 'BTCUSDT' }).list).toEqual([]);
    // A seller at 45000 later finds nothing of b's: b stays flat.
    w.engine.placeOrder('c', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '1' });
    expect(w.engine.positions('b', 'BTCUSDT').map((p) => p.quantity).filter((q) => q !== '0')).toEqual([]);
  });

  it('priceProtect refuses a trigger more than 10 % from mark (30013)', () => {
    const w = world();
    expect(codeOf(() => w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '56000', quantity: '1', priceProtect: true }))).toBe(ErrorCodes.PRICE_PROTECTION);
    expect(w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '54000', quantity: '1', priceProtect: true }).conditionStatus).toBe('NEW');
  });

  it('a triggered order that cannot be placed leaves the condition REJECTED or EXPIRED', () => {
    const w = world({ balance: '100' });
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '51000', quantity: '1', workingType: 'MARK_PRICE' });
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'TAKE_PROFIT_MARKET', side: 'SELL', stopPrice: '51000', closePosition: true, workingType: 'MARK_PRICE' });
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '51000');
    // the first needs 2550 margin with 100 available; the second has no position to close
    expect(conditionStatuses(w.drain()).sort()).toEqual(['EXPIRED', 'REJECTED']);
  });

  it.each([
    ['stopPrice missing', { type: 'STOP_MARKET', side: 'SELL', quantity: '1' }, ErrorCodes.MISSING_PARAMETER],
    ['limit price missing', { type: 'STOP_LIMIT', side: 'SELL', stopPrice: '49000', quantity: '1' }, ErrorCodes.MISSING_PARAMETER],
    ['callbackRate out of range', { type: 'TRAILING_STOP', side: 'SELL', callbackRate: '20', quantity: '1' }, ErrorCodes.INVALID_PARAMETER],
    ['stopPrice off grid', { type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000.01', quantity: '1' }, ErrorCodes.OFF_GRID_OR_OUT_OF_RANGE],
  ] as const)('refuses: %s', (_n, body, code) => {
    const w = world();
    expect(codeOf(() => w.engine.placeCondition('b', { symbol: 'BTCUSDT', ...body }))).toBe(code);
  });

  it('cancel-condition: own waiting order only', () => {
    const w = world();
    const c = w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '52000', quantity: '1' });
    expect(codeOf(() => w.engine.cancelCondition('a', 'BTCUSDT', c.conditionId))).toBe(ErrorCodes.CONDITION_NOT_FOUND);
    expect(w.engine.cancelCondition('b', 'BTCUSDT', c.conditionId).conditionStatus).toBe('CANCELED');
    expect(codeOf(() => w.engine.cancelCondition('b', 'BTCUSDT', c.conditionId))).toBe(ErrorCodes.ORDER_FINAL);
    expect(w.engine.conditionHistory('b', { status: 'CANCELED' }).total).toBe(1);
  });

  it('the position shows the take-profit and stop-loss prices of its closing conditions', () => {
    const w = longWithLiquidity();
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'TAKE_PROFIT_MARKET', side: 'SELL', stopPrice: '55000', closePosition: true });
    w.engine.placeCondition('b', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '45000', closePosition: true });
    expect(w.engine.positions('b')[0]).toMatchObject({ tpPrice: '55000', slPrice: '45000' });
  });
});

describe('callbackRate of conditions that are not trailing stops', () => {
  it('is "0", also after restoring a snapshot written when it was ""', () => {
    const w = world();
    const rec = w.engine.placeCondition('a', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', quantity: '0.01', stopPrice: '40000' });
    expect(rec.callbackRate).toBe('0');
    const snap = w.engine.exportState();
    // As an older engine wrote it.
    const old = JSON.parse(JSON.stringify(snap).split('"callbackRate":"0"').join('"callbackRate":""')) as typeof snap;
    expect(JSON.stringify(old)).toContain('"callbackRate":""');
    const restored = world();
    restored.engine.importState(old);
    expect(restored.engine.currentConditions('a', 'BTCUSDT').list.map((c) => c.callbackRate)).toEqual(['0']);
  });
});
