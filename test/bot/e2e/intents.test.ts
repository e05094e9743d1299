/**
 * A strategy's intents become the right venue calls, read off the HTTP requests the bot's client
 * writes to the local exchange: batches of at most 20, one batch-cancel per tick, batch-move per
 * symbol, and a bracket as one OTOCO strategy order whose exits exist once the entry fills.
 */
import { World, bid, controllable, until, venueTruth, type Account } from './e2e';

describe('e2e: intents become batched venue calls (LiveVenue on the local exchange)', () => {
  let w: World;
  let other: Account;

  beforeAll(async () => {
    w = await World.start();
    other = await w.account();
  });

  afterAll(async () => {
    await w.stop();
  });

  it('45 places in one tick go out as batch-place calls of 20, 20 and 5, all resting on the venue', async () => {
    const a = await w.account();
    const s = controllable(['BTCUSDT'], () => Array.from({ length: 45 }, (_, i) => bid(String(49000 - i))));
    const { bot } = await w.bot(a.client, [{ id: 'grid', definition: s.definition, params: {} }]);
    expect(a.transport.of('/batch-place').map((c) => (c.body?.orders as unknown[]).length)).toEqual([20, 20, 5]);
    expect(a.transport.of('/place')).toHaveLength(0);
    expect((await venueTruth(a.client)).open).toHaveLength(45);
    await until(() => bot.tracker.live('grid').filter((o) => o.state === 'NEW').length === 45, '45 tracked NEW');
  });

  it('the cancels of one tick are one batch-cancel; the amends of one tick are one batch-move per symbol', async () => {
    const a = await w.account();
    const s = controllable(['BTCUSDT', 'ETHUSDT'], () => [
      ...Array.from({ length: 6 }, (_, i) => bid(String(48000 - i))),
      ...Array.from({ length: 3 }, (_, i) => bid(String(2900 - i), '0.1', 'ETHUSDT')),
    ]);
    const { bot } = await w.bot(a.client, [{ id: 's', definition: s.definition, params: {} }]);
    await until(() => bot.tracker.live('s').every((o) => o.state === 'NEW'), 'all acknowledged');
    const btc = bot.tracker.live('s', 'BTCUSDT');
    const eth = bot.tracker.live('s', 'ETHUSDT');
    a.transport.clear();

    // Amends: 2 BTC + 2 ETH in one tick -> one batch-move per symbol.
    s.ctx().emit([
      { kind: 'amend', clientOrderId: btc[0].clientOrderId, price: '47000', quantity: '0.02' },
      { kind: 'amend', clientOrderId: eth[0].clientOrderId, price: '2800', quantity: '0.2' },
      { kind: 'amend', clientOrderId: btc[1].clientOrderId, price: '47001', quantity: '0.01' },
      { kind: 'amend', clientOrderId: eth[1].clientOrderId, price: '2801', quantity: '0.1' },
    ]);
    await bot.idle();
    const moves = a.transport.of('/batch-move').map((c) => [c.body?.symbol, (c.body?.orders as unknown[]).length]);
    expect(moves.sort()).toEqual([
      ['BTCUSDT', 2],
      ['ETHUSDT', 2],
    ]);
    const onVenue = await a.client.orders.getOrder({ symbol: 'BTCUSDT', clientOrderId: btc[0].clientOrderId });
    expect([onVenue.price, onVenue.quantity]).toEqual(['47000', '0.02']);

    // Cancels: 4 BTC + 1 ETH, one by one in the same tick -> one batch-cancel of 5.
    a.transport.clear();
    s.ctx().emit([...btc.slice(0, 4), eth[2]].map((o) => ({ kind: 'cancel' as const, clientOrderId: o.clientOrderId })));
    await bot.idle();
    expect(a.transport.of('/batch-cancel').map((c) => (c.body?.orders as unknown[]).length)).toEqual([5]);
    expect(a.transport.calls.filter((c) => c.path.endsWith('/cancel'))).toHaveLength(0);
    const truth = await venueTruth(a.client);
    expect(truth.open).toHaveLength(4);
    await until(() => bot.tracker.live('s').length === 4, 'tracker down to 4');
  });

  it('a bracket is one place-strategy (OTOCO); after the entry fills, its take-profit and stop-loss exist on the venue', async () => {
    const a = await w.account();
    const s = controllable(['BTCUSDT'], () => [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000' }]);
    const { bot } = await w.bot(a.client, [{ id: 'trend', definition: s.definition, params: {} }]);
    const strategyCalls = a.transport.of('/place-strategy');
    expect(strategyCalls).toHaveLength(1);
    expect(strategyCalls[0].body).toMatchObject({ strategyType: 'OTOCO' });
    expect(a.transport.of('/batch-place')).toHaveLength(0);
    // Before the fill: only the entry works on the venue.
    expect((await venueTruth(a.client)).open.map((c) => c.slice(-1))).toEqual(['e']);

    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
    await until(() => bot.cache.position('BTCUSDT')?.quantity === '0.01', 'position from the entry fill');
    const open = await a.client.orders.getCurrentOrders({ symbol: 'BTCUSDT' });
    expect(open.list.map((o) => [o.clientOrderId.slice(-1), o.side, o.price, o.reduceOnly])).toEqual([['t', 'SELL', '51000', true]]);
    const conds = await a.client.orders.getCurrentConditionOrders({ symbol: 'BTCUSDT' });
    expect(conds.list.map((c) => [c.type, c.side, c.stopPrice])).toEqual([['STOP_MARKET', 'SELL', '49000']]);
    // The take-profit is attributed to the strategy that sent the bracket.
    await until(() => bot.tracker.live('trend').some((o) => o.clientOrderId.endsWith('t') && o.state === 'NEW'), 'take-profit tracked');
  });

  it("a stop with cancelOnStop cancels a bracket's stop-loss (a condition order) too, and one left is reported", async () => {
    const bracket = { kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000' } as const;
    const conditions = async (a: Account) => (await a.client.orders.getCurrentConditionOrders({ symbol: 'BTCUSDT' })).list;
    for (const cancelOnStop of [true, false]) {
      const a = await w.account();
      const s = controllable(['BTCUSDT'], () => [bracket]);
      const { bot } = await w.bot(a.client, [{ id: 'trend', definition: s.definition, params: {} }], {}, { cancelOnStop });
      await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
      await until(() => bot.tracker.live('trend').some((o) => o.clientOrderId.endsWith('t') && o.state === 'NEW'), 'take-profit tracked');
      expect(await conditions(a)).toHaveLength(1);
      const left = await bot.stop();
      if (cancelOnStop) {
        // Before the fix the take-profit went and the stop-loss stayed, working, unreported.
        expect(await conditions(a)).toEqual([]);
        expect((await venueTruth(a.client)).open).toEqual([]);
        expect(left.conditionOrders).toEqual([]);
      } else {
        expect(left.conditionOrders.map((c) => [c.type, c.side, c.stopPrice])).toEqual([['STOP_MARKET', 'SELL', '49000']]);
      }
      expect(left.positions.map((p) => p.quantity)).toEqual(['0.01']);
    }
  });

  it('a bracket the venue refuses is a rejection under the venue code (30003), not code 0, and no bot error', async () => {
    // 100 BTC at 50,000 at 20x needs far more margin than the account's 100,000 USDT.
    const a = await w.account();
    const s = controllable(['BTCUSDT'], () => [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '100', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000' }]);
    const { bot, events } = await w.bot(a.client, [{ id: 'big', definition: s.definition, params: {} }]);
    await until(() => events.some((e) => e.type === 'rejection'), 'the rejection');
    const rejections = events.flatMap((e) => (e.type === 'rejection' ? [{ strategy: e.strategyId, kind: e.intent.kind, code: e.code }] : []));
    expect(rejections).toEqual([{ strategy: 'big', kind: 'bracket', code: 30003 }]);
    expect(bot.stats.errors).toBe(0);
    expect(bot.tracker.live('big')).toHaveLength(0);
    expect((await venueTruth(a.client)).open).toEqual([]);
  });

  it('amends of one order in a tick go out as one, the last; an order cancelled in the same tick is not amended', async () => {
    const a = await w.account();
    const s = controllable(['BTCUSDT'], () => [bid('48000'), bid('47990')]);
    const { bot, events } = await w.bot(a.client, [{ id: 'q', definition: s.definition, params: {} }]);
    await until(() => bot.tracker.live('q').filter((o) => o.state === 'NEW').length === 2, 'both acknowledged');
    const [x, y] = bot.tracker.live('q');
    a.transport.clear();
    s.ctx().emit([
      { kind: 'amend', clientOrderId: x.clientOrderId, price: '47000', quantity: '0.01' },
      { kind: 'amend', clientOrderId: y.clientOrderId, price: '47001', quantity: '0.01' },
      { kind: 'amend', clientOrderId: x.clientOrderId, price: '47005', quantity: '0.02' },
      { kind: 'cancel', clientOrderId: y.clientOrderId },
    ]);
    await bot.idle();
    expect(a.transport.of('/batch-move').map((c) => c.body?.orders)).toEqual([[{ orderId: x.orderId, price: '47005', quantity: '0.02' }]]);
    const onVenue = await a.client.orders.getOrder({ symbol: 'BTCUSDT', clientOrderId: x.clientOrderId });
    expect([onVenue.price, onVenue.quantity]).toEqual(['47005', '0.02']);
    expect((await venueTruth(a.client)).open).toEqual([x.clientOrderId]);
    expect(events.filter((e) => e.type === 'rejection')).toEqual([]);
  });

  it('an amend of an order that has filled is not sent: a rejection 30007 counted as a late amend, apart from other rejections', async () => {
    const a = await w.account();
    const s = controllable(['BTCUSDT'], () => [bid('50000')]);
    const { bot, events } = await w.bot(a.client, [{ id: 'late', definition: s.definition, params: {} }]);
    await until(() => bot.tracker.live('late').some((o) => o.state === 'NEW'), 'acknowledged');
    const [o] = bot.tracker.live('late');
    await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
    await until(() => bot.tracker.get(o.clientOrderId)?.state === 'FILLED', 'the fill reaches the bot');
    a.transport.clear();
    s.ctx().emit([{ kind: 'amend', clientOrderId: o.clientOrderId, price: '49990', quantity: '0.01' }]);
    await bot.idle();
    expect(a.transport.of('/batch-move')).toEqual([]);
    const rejections = events.flatMap((e) => (e.type === 'rejection' ? [{ kind: e.intent.kind, code: e.code }] : []));
    expect(rejections).toEqual([{ kind: 'amend', code: 30007 }]);
    expect(s.seen.some((e) => e.type === 'rejection' && e.code === 30007)).toBe(true);
    expect([bot.stats.rejections, bot.stats.lateAmends]).toEqual([1, 1]);
  });

  it('once the venue refused an amend with 30007, later amends of that order are not sent while the stream catches up', async () => {
    const a = await w.account();
    const s = controllable(['BTCUSDT'], () => [bid('50000')]);
    const { bot, events } = await w.bot(a.client, [{ id: 'race', definition: s.definition, params: {} }]);
    await until(() => bot.tracker.live('race').some((o) => o.state === 'NEW'), 'acknowledged');
    const [o] = bot.tracker.live('race');
    // The fill happens while the stream is silent: the bot still holds the order live.
    w.ex.server.ws.silence(a.userId, true);
    try {
      await other.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
      a.transport.clear();
      s.ctx().emit([{ kind: 'amend', clientOrderId: o.clientOrderId, price: '49990', quantity: '0.01' }]);
      await bot.idle();
      expect(a.transport.of('/batch-move')).toHaveLength(1);
      // A quoting strategy requotes on every mark: the next amends are refused without asking.
      for (const price of ['49980', '49970', '49960']) {
        s.ctx().emit([{ kind: 'amend', clientOrderId: o.clientOrderId, price, quantity: '0.01' }]);
        await bot.idle();
      }
      expect(a.transport.of('/batch-move')).toHaveLength(1);
      const rejections = events.flatMap((e) => (e.type === 'rejection' ? [e.code] : []));
      expect(rejections).toEqual([30007, 30007, 30007, 30007]);
      expect([bot.stats.rejections, bot.stats.lateAmends]).toEqual([4, 4]);
    } finally {
      w.ex.server.ws.silence(a.userId, false);
    }
    // 1 s after the 30007 with the stream still silent, the bot reconciles and learns of the fill.
    await until(() => bot.tracker.get(o.clientOrderId)?.state === 'FILLED', 'the end reconciled', 10_000);
  });

  it('a bracket whose answer never came is not called refused: an error, and its entry asked for by client id', async () => {
    const a = await w.account();
    // The socket is cut before the venue applies the command: no bracket exists, but the bot
    // cannot know that from the call, only by asking.
    const on = await w.ex.call('POST', '/v1/admin/faults', { headers: { 'x-admin-token': w.ex.adminToken }, body: { fault: 'rejectDropResponse', userId: a.userId, pathPrefix: '/v1/private/order/place-strategy', count: 1 } });
    expect(on.body.code).toBe(0);
    const s = controllable(['BTCUSDT'], () => [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '49000', takeProfitPrice: '51000', stopLossPrice: '48000' }]);
    const { bot, events } = await w.bot(a.client, [{ id: 'lost', definition: s.definition, params: {} }]);
    await until(() => a.transport.of('/place-strategy').length === 1, 'the bracket sent');
    const cid = (a.transport.of('/place-strategy')[0].body?.subOrderList as Array<{ clientOrderId: string }>)[0].clientOrderId;
    // The SDK asks first and gives up (UnknownOrderOutcomeError); the executor then asks again and
    // ends the entry as never placed. No rejection: the venue never said no.
    await until(() => bot.tracker.get(cid)?.state === 'REJECTED', 'the entry settled as never placed', 25_000);
    expect(events.filter((e) => e.type === 'rejection')).toEqual([]);
    expect(bot.stats.errors).toBeGreaterThan(0);
    expect((await venueTruth(a.client)).open).toEqual([]);
  }, 40_000);
});

