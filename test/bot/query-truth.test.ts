/**
 * An order the tracker has concluded was never placed (REJECTED after queries found nothing) that
 * the venue does hold: the venue's answer to a query is the truth. Before, the tracker refused
 * the move (REJECTED -> NEW is not in the table), asked the venue again, got the same answer and
 * asked again, for ever: a loop of queries that outlived the bot and kept the process alive.
 */
import type { Venue } from '../../src/bot/venue/venue';
import type { SimVenue } from '../../src/bot/venue/sim-venue';
import { botWorld, scripted } from './harness';

test('a query that contradicts a final state is taken as the truth, once', async () => {
  let queries = 0;
  const counting = (v: SimVenue): Venue =>
    Object.assign(Object.create(v) as SimVenue, {
      queryOrder: (ref: Parameters<Venue['queryOrder']>[0]) => {
        queries++;
        if (queries > 20) throw new Error('queried more than 20 times');
        return v.queryOrder(ref);
      },
    });
  const s = scripted(['BTCUSDT'], { start: () => [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '49000', quantity: '0.01' }] });
  const w = await botWorld([{ id: 's', definition: s, params: {} }], {}, counting);
  const [o] = w.bot.tracker.live('s');
  expect(o.state).toBe('NEW');
  // As after queries that found nothing (the order reached the venue late).
  w.bot.tracker.transition(o.clientOrderId, 'notFound', w.clock.now());
  expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('REJECTED');

  await w.bot.executor.settle(o.clientOrderId);
  await w.settle();
  expect(queries).toBe(1);
  expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('NEW');
  expect(w.bot.tracker.live('s').map((x) => x.clientOrderId)).toEqual([o.clientOrderId]);
  // The contradiction is still reported.
  expect(w.events.filter((e) => e.type === 'illegalTransition')).toHaveLength(1);
  await w.bot.stop();
});
