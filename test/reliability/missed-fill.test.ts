/**
 * Issue 12 item 2, the soak's `fillMismatches: bot 0 venue 0.005`: a fill the venue made while
 * the bot could not hear its private stream, on an order the bot then cancelled over REST. The
 * cancel's answer makes the order final in the tracker without its fill, and reconciliation after
 * the reconnect only looked at orders still live. Reproduced with the fault switches: the fill must
 * reach the tracker, the state cache's position and the strategy (a `fill` event), through
 * reconciliation.
 */
import { Dec } from '../../src/core/decimal';
import { bid, controllable } from '../bot/e2e/e2e';
import type { TestExchange } from '../helpers/exchange';
import { account, clearFaults, expectConverged, setFault, startBot, startReliabilityExchange, until, type Account, type RelBot } from './support/world';

jest.setTimeout(60_000);

describe('reliability: a fill made while the stream was down, on an order cancelled since', () => {
  let ex: TestExchange;
  let other: Account;
  let a: Account;
  let b: RelBot;

  beforeAll(async () => {
    ex = await startReliabilityExchange();
    other = await account(ex, { balance: '100000000' });
  });

  afterAll(async () => {
    await b?.bot.stop();
    await a?.client.close();
    await other.client.close();
    await ex.stop();
  });

  for (const mode of ['halfOpen', 'silence'] as const) {
    it(`reaches the tracker, the position and the strategy (${mode})`, async () => {
      await clearFaults(ex);
      a = await account(ex);
      const s = controllable(['BTCUSDT'], () => [bid('49000', '0.01')]);
      b = await startBot(a.client, [{ id: 's', definition: s.definition, params: {} }], { silenceTimeoutMs: 1000 });
      await until(() => b.bot.tracker.live('s').filter((o) => o.state === 'NEW').length === 1, 'the bid is acknowledged');
      const [order] = b.bot.tracker.live('s');
      const t0 = Date.now();

      // The bot stops hearing its private stream.
      if (mode === 'halfOpen') await setFault(ex, { fault: 'dropWs', userId: a.userId, mode: 'halfOpen' });
      else await setFault(ex, { fault: 'silence', userId: a.userId, durationMs: 60000 });
      // Half the bid trades; the bot does not hear of it, and cancels the bid over REST.
      await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49000', quantity: '0.005', timeInForce: 'IOC' });
      s.ctx().emit({ kind: 'cancel', clientOrderId: order.clientOrderId });
      await until(() => b.bot.tracker.get(order.clientOrderId)?.state === 'CANCELED', 'the cancel is answered');
      expect(b.bot.tracker.get(order.clientOrderId)?.executedQty).toBe('0');
      if (mode === 'silence') await setFault(ex, { fault: 'silence', on: false, userId: a.userId });

      await until(() => b.events.some((e, i) => i >= 0 && e.type === 'reconciled' && e.time >= t0), 'reconciled after the stream came back', 30000);
      const c = await expectConverged(a, b.bot);
      expect(c.fillMismatches).toEqual([]);
      expect(new Dec(b.bot.tracker.get(order.clientOrderId)?.executedQty ?? '0').toString()).toBe('0.005');
      expect(b.bot.cache.position('BTCUSDT', 'BOTH')?.quantity).toBe('0.005');
      const told = s.seen.filter((e) => e.type === 'fill' && e.fill.clientOrderId === order.clientOrderId);
      expect(told.map((e) => (e.type === 'fill' ? new Dec(e.fill.quantity).toString() : ''))).toEqual(['0.005']);
      await b.bot.stop();
    });
  }
});
