/**
 * An order the venue takes and ends REJECTED at once (a makerOnly order that would have taken
 * liquidity) is no refused request and has no error code: it used to be counted nowhere, not as
 * a rejection, not as an accepted order. The bot counts it (stats.ordersRejected, which metrics,
 * `perpkit run`'s closing line and a backtest's summary show).
 */
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
  const w = await botWorld([{ id: 's', definition: strategy, params: {} }]);
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
