/**
 * An order the venue takes and ends REJECTED at once (a makerOnly order that would have taken
 * liquidity) is no refused request and has no error code: it used to be counted nowhere, not as
 * a rejection, not as an accepted order. The bot counts it (stats.ordersRejected, which metrics,
 * `perpkit run`'s closing line and a backtest's summary show).
 */
import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { EventBus } from '../../src/bot/bus/event-bus';
import { CodeLog, RefusalLog } from '../../src/bot/code-log';
import { botWorld, scripted } from './harness';

test('a makerOnly order that would take ends REJECTED on arrival: counted by the bot, not as a venue rejection', async () => {
  let sent = false;
  const strategy = scripted(['BTCUSDT'], {
    event: (e) => {
      if (e.type !== 'markPrice' || sent) return [];
      sent = true;
      return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50010', quantity: '0.01', makerOnly: true }];
    },
  });
  // perpkit/testing counts it as a refusal (test/testing/world.test.ts): this test expects it.
  const w = await botWorld([{ id: 's', definition: strategy, params: {} }], { allowRefusals: true });
  // Someone offers at 50005: a makerOnly bid at 50010 would take it.
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50005', quantity: '0.01' });
  await w.setMark('BTCUSDT', '50001');
  expect(sent).toBe(true);
  const orders = w.events.filter((e) => e.type === 'order' && e.strategyId === 's').map((e) => (e.type === 'order' ? e.executionType : ''));
  expect(orders).toEqual(['REJECTED']);
  expect(w.bot.stats.ordersRejected).toBe(1);
  expect(w.bot.stats.rejections).toBe(0);
  expect(w.openOrders('BTCUSDT')).toEqual([]);
});

test('logged at info, one line per strategy per interval with the count of the rest', async () => {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: object, msg?: string) => void lines.push({ level, msg: msg ?? '', fields: fields as Record<string, unknown> });
  const bus = new EventBus();
  const scheduler = new ManualScheduler(new ManualClock(0));
  const refusals = new RefusalLog(new CodeLog(scheduler, 10_000), { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, bus);
  const w = await botWorld([{ id: 's', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50005', quantity: '0.01' });
  const rejected = w.engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50010', quantity: '0.01', makerOnly: true });
  expect(rejected.status).toBe('REJECTED');
  for (let i = 0; i < 3; i++) expect(refusals.order({ type: 'order', time: 0, order: rejected, executionType: 'REJECTED', strategyId: 's' })).toBe('rejected');
  // Another user's order (no strategy) is not the bot's to count.
  expect(refusals.order({ type: 'order', time: 0, order: rejected, executionType: 'REJECTED', strategyId: undefined })).toBe(undefined);
  expect(lines).toEqual([{ level: 'info', msg: 'an order ended REJECTED on arrival (a makerOnly order that would have taken liquidity)', fields: { strategy: 's', symbol: 'BTCUSDT', side: 'BUY', price: '50010', makerOnly: true } }]);
  scheduler.advance(10_000);
  expect(lines[1]).toMatchObject({ level: 'info', msg: 'an order ended REJECTED on arrival (a makerOnly order that would have taken liquidity) (2 more of this code in the last 10 s)', fields: { repeats: 2 } });
});

// A MARKET order that found no liquidity ended EXPIRED with nothing filled and no error code:
// counted nowhere (a backtest on the synthetic sample had 67 of 95 such orders unseen).
test('an order that ends EXPIRED with nothing filled is counted and logged at info; one that filled in part is not', async () => {
  let sent = 0;
  const strategy = scripted(['BTCUSDT'], {
    event: (e) => {
      if (e.type !== 'markPrice' || sent >= 2) return [];
      sent++;
      return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.02' }];
    },
  });
  const w = await botWorld([{ id: 's', definition: strategy, params: {} }]);
  // Nobody offers: the first MARKET buy finds nothing.
  await w.setMark('BTCUSDT', '50001');
  // 0.01 offered: the second fills in part, its rest expires.
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50005', quantity: '0.01' });
  await w.setMark('BTCUSDT', '50002');
  expect(sent).toBe(2);
  const ended = w.events.filter((e) => e.type === 'order' && e.strategyId === 's' && e.executionType === 'EXPIRED').map((e) => (e.type === 'order' ? e.order.executedQty : ''));
  expect(ended).toEqual(['0', '0.01']);
  expect(w.bot.stats.ordersExpiredUnfilled).toBe(1);
  expect([w.bot.stats.ordersRejected, w.bot.stats.rejections]).toEqual([0, 0]);
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: object, msg?: string) => void lines.push({ level, msg: msg ?? '', fields: fields as Record<string, unknown> });
  const refusals = new RefusalLog(new CodeLog(new ManualScheduler(new ManualClock(0)), 10_000), { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, new EventBus());
  const expired = w.events.find((e) => e.type === 'order' && e.executionType === 'EXPIRED');
  if (expired?.type !== 'order') throw new Error('no EXPIRED order event');
  expect(refusals.order(expired)).toBe('expiredUnfilled');
  expect(lines).toEqual([{ level: 'info', msg: 'an order expired with nothing filled (a MARKET, IOC or FOK order that found no liquidity, or a reduce-only order with nothing left to reduce)', fields: { strategy: 's', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', timeInForce: 'GTC', quantity: '0.02', reduceOnly: false } }]);
});

// A stop-loss whose triggered MARKET order found no bid: the position it was to close stays open.
// It was one more info line among MARKET orders that found no liquidity.
test('an order a triggered stop placed that expires with nothing filled is logged at warn, saying the position stayed open', async () => {
  const w = await botWorld([{ id: 's', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  // The bot's account buys 0.01 from someone, then a stop-loss sells it at a mark of 49,000.
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
  w.engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.01' });
  w.engine.placeCondition('bot', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000', workingType: 'MARK_PRICE', quantity: '0.01', reduceOnly: true });
  w.engine.drain();
  w.engine.setMarkPrice('BTCUSDT', '48900');
  const expired = w.engine.drain().find((e) => e.kind === 'order' && e.userId === 'bot' && e.executionType === 'EXPIRED');
  if (expired?.kind !== 'order') throw new Error('the stop placed no order that expired');
  expect(expired.order.conditionId).toMatch(/^\d+$/);
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: object, msg?: string) => void lines.push({ level, msg: msg ?? '', fields: fields as Record<string, unknown> });
  const refusals = new RefusalLog(new CodeLog(new ManualScheduler(new ManualClock(0)), 10_000), { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, new EventBus());
  expect(refusals.order({ type: 'order', time: 0, order: expired.order, executionType: 'EXPIRED', strategyId: 's' })).toBe('expiredUnfilled');
  expect(lines).toEqual([
    {
      level: 'warn',
      msg: 'an order placed by a triggered stop or take-profit order and expired with nothing filled: the position it was to close stayed open',
      fields: { strategy: 's', symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: '0.01', conditionId: expired.order.conditionId },
    },
  ]);
  expect(w.engine.positions('bot').map((p) => p.quantity)).toEqual(['0.01']);
});
