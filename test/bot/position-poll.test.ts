/**
 * The position poll also compares the venue's open orders with the bot's: an order whose last
 * events were lost (its fill and its end, while the account update came through) stayed working in
 * the bot's view for good, every position agreeing (a 60 s fault soak ended with a ghost order that
 * no reconciliation ever asked about). An order the cache holds open that the venue did not list
 * at two polls in a row reconciles; one poll is not enough (its end may still be on the stream).
 */
import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { EventBus } from '../../src/bot/bus/event-bus';
import { PositionPoll } from '../../src/bot/state/position-poll';
import { StateCache } from '../../src/bot/state/cache';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';


/** An engine with the bot's account, its venue, the bot's cache and a poll that records the reconciliations it asks for; the bot's orders are mm-*. */
function world() {
  const clock = new ManualClock(1_700_000_000_000);
  const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
  engine.createAccount({ userId: 'bot', balance: '100000' });
  engine.setMarkPrice('BTCUSDT', '50000');
  const venue = new SimVenue({ engine, userId: 'bot', clock });
  const cache = new StateCache();
  const reconciles: string[] = [];
  const poll = new PositionPoll({ venue, cache, bus: new EventBus(), clock, scheduler: new ManualScheduler(clock), reportError: (e) => { throw e; }, reconcile: (r) => void reconciles.push(r), ours: (cid) => cid.startsWith('mm-') });
  return { engine, venue, cache, reconciles, poll };
}

test('an order the venue ended whose end the bot never heard: reconciled at the second poll that does not list it', async () => {
  const { engine, venue, cache, reconciles, poll } = world();
  const kept = engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49000', quantity: '0.01', clientOrderId: 'mm-kept' });
  const ghost = engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '48000', quantity: '0.01', clientOrderId: 'mm-ghost' });
  cache.applyOrder(kept);
  cache.applyOrder(ghost);
  await poll.poll();
  expect(reconciles).toEqual([]);
  // The venue ends one; the bot's stream never says so.
  engine.cancelOrder('bot', { symbol: 'BTCUSDT', clientOrderId: 'mm-ghost' });
  engine.drain();
  await poll.poll();
  expect(reconciles).toEqual([]);
  await poll.poll();
  expect(reconciles).toEqual(['open orders mismatch']);
  // Once the cache agrees (a reconciliation replaces its open orders), nothing more.
  cache.replaceOpenOrders(await venue.openOrders());
  await poll.poll();
  await poll.poll();
  expect(reconciles).toEqual(['open orders mismatch']);
});

test('an order of ours working at the venue that the bot does not hold open (seen ended, or its NEW lost): reconciled at the second poll; others\' orders are not', async () => {
  const { engine, cache, reconciles, poll } = world();
  // Someone else's order on the account: listed, never held by the bot's cache, never reconciled for.
  engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '47000', quantity: '0.01', clientOrderId: 'manual-1' });
  const back = engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '51000', quantity: '0.01', clientOrderId: 'mm-back' });
  // The bot saw it end (the venue was then restored from an older state and lists it working).
  cache.applyOrder({ ...back, status: 'CANCELED' });
  await poll.poll();
  expect(reconciles).toEqual([]);
  await poll.poll();
  expect(reconciles).toEqual(['open orders mismatch']);
  engine.cancelOrder('bot', { symbol: 'BTCUSDT', clientOrderId: 'mm-back' });
  engine.drain();
  await poll.poll();
  await poll.poll();
  expect(reconciles).toEqual(['open orders mismatch']);
});
