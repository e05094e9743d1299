/**
 * The dashboard's model over a bot on the in-process engine: per-strategy figures from fills, and
 * an equity curve that stays bounded for a run of weeks while still spanning all of it.
 */
import { DashboardView } from '../../../src/runtime/dashboard/view';
import { EventJournal } from '../../../src/runtime/dashboard/journal';
import { StatusTracker } from '../../../src/runtime/status';
import type { PlaceIntent } from '../../../src/bot/strategy/intents';
import { botWorld, scripted } from '../../bot/harness';

const bid: PlaceIntent = { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49990', quantity: '0.01', timeInForce: 'GTC' };

it('counts a strategy fill, fee and position, and keeps the equity curve bounded over the whole run', async () => {
  const w = await botWorld([{ id: 'mm', definition: scripted(['BTCUSDT'], { start: () => [bid] }), params: {} }]);
  const status = new StatusTracker(w.bot);
  const journal = new EventJournal('t');
  const view = new DashboardView({ bot: w.bot, status, strategies: [{ id: 'mm', definition: scripted(['BTCUSDT'], {}), params: { a: 1 } }], journal, clock: w.clock, phase: () => 'running', startedAt: w.clock.now(), maxEquityPoints: 8, equityEveryMs: 1000 });
  const t0 = w.clock.now();
  w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
  w.venue.pump();
  await w.settle();
  const mm = view.live().strategies[0];
  expect(mm).toMatchObject({ id: 'mm', status: 'running', fills: 1, position: { BTCUSDT: '0.01' }, params: { a: 1 } });
  expect(Number(mm.fees)).toBeGreaterThan(0);
  expect(mm.netPnl).toBe(`-${mm.fees}`);
  expect(journal.latest(10, (e) => e.kind === 'fill')[0].text).toMatch(/^BUY 0\.01 BTCUSDT @ 49990 \(maker, fee /);

  // A day of sampling every second: at most 8 points, from the start to the end.
  for (let s = 1; s <= 86_400; s += 1) {
    w.clock.advance(1000);
    view.sampleEquity();
  }
  const curve = view.snapshot({ name: 'b', venue: 'v', auth: 'none' }).equity;
  expect(curve.length).toBeLessThanOrEqual(8);
  expect(curve[0].time).toBe(t0); // the start stays on the curve
  expect(curve[curve.length - 1].time - t0).toBeGreaterThan(86_400_000 * 0.75);
  for (let i = 1; i < curve.length; i++) expect(curve[i].time).toBeGreaterThan(curve[i - 1].time);
  view.close();
});

it("folds the bot's errors: one journal entry per context per 10 s, the next one saying how many were held back", async () => {
  const w = await botWorld([{ id: 'mm', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  const journal = new EventJournal('t');
  const view = new DashboardView({ bot: w.bot, status: new StatusTracker(w.bot), strategies: [], journal, clock: w.clock, phase: () => 'running', startedAt: w.clock.now() });
  const fail = (context: string) => w.bot.bus.publish({ type: 'errorReported', time: w.clock.now(), context, message: '50002 service busy' });
  for (let i = 0; i < 5; i++) fail('poll positions');
  fail('query');
  w.clock.advance(10_000);
  fail('poll positions');
  const texts = journal.latest(10, (e) => e.kind === 'botError').map((e) => e.text);
  expect(texts).toEqual(['poll positions failed: 50002 service busy', 'query failed: 50002 service busy', 'poll positions failed: 50002 service busy (and 4 more since the last entry)']);
  view.close();
});

it("says what a reconciliation did in words: 'corrected' alone did not say what it corrected", async () => {
  const w = await botWorld([{ id: 'mm', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  const journal = new EventJournal('t');
  const view = new DashboardView({ bot: w.bot, status: new StatusTracker(w.bot), strategies: [], journal, clock: w.clock, phase: () => 'running', startedAt: w.clock.now() });
  w.bot.bus.publish({ type: 'reconciled', time: w.clock.now(), reason: 'stream gap', adopted: 1, corrected: 2 });
  expect(journal.latest(10, (e) => e.kind === 'reconciled').map((e) => [e.level, e.text])).toEqual([['warn', "reconciled (stream gap): 1 order(s) adopted, 2 order(s) the bot had otherwise set to the venue's state and fills"]]);
  view.close();
});
