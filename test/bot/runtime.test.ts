import type { OrderRecord } from '../../src/protocol/records';
import type { BatchResult } from '../../src/protocol/rest/common';
import type { PlaceOrderParams } from '../../src/protocol/rest/orders';
import type { Intent } from '../../src/bot/strategy/intents';
import type { SimVenue } from '../../src/bot/venue/sim-venue';
import type { Venue } from '../../src/bot/venue/venue';
import { botWorld, scripted } from './harness';

const bid = (price: string, quantity = '0.01'): Intent => ({ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, quantity });
const ask = (price: string, quantity = '0.01'): Intent => ({ kind: 'place', symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price, quantity });

describe('bot runtime over the in-process venue', () => {
  it('places a strategy order with an attributed clientOrderId and tracks it to FILLED; the cache is written before the fill is published', async () => {
    const seen: string[] = [];
    const def = scripted(['BTCUSDT'], {
      start: () => [bid('49990')],
      event: (e, ctx) => {
        if (e.type === 'fill') seen.push(`fill ${e.fill.quantity} pos=${ctx.state.position('BTCUSDT')?.quantity ?? '0'}`);
      },
    });
    const w = await botWorld([{ id: 'mm', definition: def, params: {} }]);
    const [o] = w.bot.tracker.live('mm');
    expect(o.clientOrderId).toMatch(/^mm-/);
    expect(o.state).toBe('NEW');
    expect(w.bot.strategyOf(o.clientOrderId)).toBe('mm');
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    w.venue.pump();
    await w.settle();
    expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('FILLED');
    // The account update that carries the position follows the fill event in the stream, so the
    // fill handler sees the position the order update produced only via the account event; what
    // matters is that the strategy saw exactly one fill of its own order.
    expect(seen).toHaveLength(1);
    expect(w.bot.cache.position('BTCUSDT')?.quantity).toBe('0.01');
  });

  it('coalesces one tick of intents into batches of at most 20', async () => {
    const calls: number[] = [];
    const wrap = (v: SimVenue): Venue => {
      const orig = v.placeOrders.bind(v);
      v.placeOrders = (orders: PlaceOrderParams[]): Promise<BatchResult> => {
        calls.push(orders.length);
        return orig(orders);
      };
      return v;
    };
    const def = scripted(['BTCUSDT'], { start: () => Array.from({ length: 45 }, (_, i) => bid(String(49000 - i))) });
    const w = await botWorld([{ id: 'grid', definition: def, params: {} }], {}, wrap);
    expect(calls).toEqual([20, 20, 5]);
    expect(w.bot.tracker.live('grid').filter((o) => o.state === 'NEW')).toHaveLength(45);
  });

  it('the risk engine denies what breaks a limit, with a typed code, and sends nothing', async () => {
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990', '1'), bid('49990.05'), bid('40000')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }], { risk: { maxOrderNotional: '1000', priceBand: '0.05' }, allowRefusals: true });
    const denials = w.events.flatMap((e) => (e.type === 'denial' ? [e.code] : []));
    expect(denials).toEqual(['MAX_ORDER_NOTIONAL', 'OFF_GRID', 'PRICE_BAND']);
    expect(w.engine.currentOrders('bot', {}).total).toBe(0);
  });

  it('two strategies keep their orders and fills apart', async () => {
    const fills: Record<string, number> = { a: 0, b: 0 };
    const mk = (id: 'a' | 'b', price: string) =>
      scripted(['BTCUSDT'], {
        start: () => [bid(price)],
        event: (e) => {
          if (e.type === 'fill') fills[id]++;
        },
      });
    const w = await botWorld([
      { id: 'a', definition: mk('a', '49990'), params: {} },
      { id: 'b', definition: mk('b', '49980'), params: {} },
    ]);
    expect(w.bot.tracker.live('a')).toHaveLength(1);
    expect(w.bot.tracker.live('b')).toHaveLength(1);
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '49990', quantity: '0.01', timeInForce: 'IOC' });
    w.venue.pump();
    await w.settle();
    expect(fills).toEqual({ a: 1, b: 0 });
    expect(w.bot.tracker.live('a')).toHaveLength(0);
    expect(w.bot.tracker.live('b')).toHaveLength(1);
  });

  it('a bracket goes out as one OTOCO strategy order; its take-profit is attributed to the strategy', async () => {
    const def = scripted(['BTCUSDT'], {
      start: () => [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '50000', takeProfitPrice: '51000', stopLossPrice: '49000' }],
    });
    const w = await botWorld([{ id: 'trend', definition: def, params: {} }]);
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
    w.venue.pump();
    await w.settle();
    const live = w.bot.tracker.live('trend');
    expect(live.map((o) => [o.clientOrderId.slice(-1), o.side, o.state])).toEqual([['t', 'SELL', 'NEW']]);
    expect(w.engine.currentConditions('bot', 'BTCUSDT').list[0]).toMatchObject({ type: 'STOP_MARKET', stopPrice: '49000' });
  });

  it('a bracket whose entry is cancelled leaves nothing live in the tracker', async () => {
    const def = scripted(['BTCUSDT'], {
      start: () => [{ kind: 'bracket', symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', entryPrice: '49000', takeProfitPrice: '51000', stopLossPrice: '48000' }],
    });
    const w = await botWorld([{ id: 'trend', definition: def, params: {} }]);
    const [entry] = w.bot.tracker.live('trend');
    expect(entry.clientOrderId.endsWith('e')).toBe(true);
    w.bot.executor.enqueue('trend', { kind: 'cancel', clientOrderId: entry.clientOrderId });
    await w.bot.executor.flush();
    await w.settle();
    expect(w.bot.tracker.live('trend')).toEqual([]);
    expect(w.engine.currentOrders('bot', {}).total).toBe(0);
  });

  it('the kill switch halts trading, cancels everything, and then only cancels pass', async () => {
    let ctxEmit: ((i: Intent) => void) | undefined;
    const def = scripted(['BTCUSDT'], {
      start: (ctx) => {
        ctxEmit = (i) => ctx.emit(i);
        return [bid('49990'), ask('50010')];
      },
    });
    const w = await botWorld([{ id: 's', definition: def, params: {} }], { allowRefusals: true });
    expect(w.engine.currentOrders('bot', {}).total).toBe(2);
    await w.bot.kill('test');
    await w.settle();
    expect(w.bot.risk.state).toBe('HALTED');
    expect(w.engine.currentOrders('bot', {}).total).toBe(0);
    ctxEmit?.(bid('49990'));
    await w.settle();
    expect(w.events.filter((e) => e.type === 'denial').map((e) => (e.type === 'denial' ? e.code : ''))).toEqual(['STATE_HALTED']);
  });

  it('an order call with no answer is settled by query, never resent', async () => {
    let placeCalls = 0;
    const wrap = (v: SimVenue): Venue => {
      const orig = v.placeOrders.bind(v);
      v.placeOrders = async (orders: PlaceOrderParams[]): Promise<BatchResult> => {
        placeCalls++;
        await orig(orders); // the venue accepted them...
        throw new Error('socket hang up'); // ...but the answer was lost
      };
      return v;
    };
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990'), bid('49980')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }], {}, wrap);
    await w.settle();
    expect(placeCalls).toBe(1);
    expect(w.engine.currentOrders('bot', {}).total).toBe(2);
    expect(w.bot.tracker.live('s').map((o) => o.state)).toEqual(['NEW', 'NEW']);
  });

  it('an unknown outcome whose order never reached the venue ends REJECTED after bounded queries', async () => {
    const wrap = (v: SimVenue): Venue => {
      v.placeOrders = async (): Promise<BatchResult> => {
        throw new Error('connect ECONNREFUSED');
      };
      return v;
    };
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }], {}, wrap, false);
    expect(w.bot.tracker.live('s').map((o) => o.state)).toEqual(['UNKNOWN']);
    // The executor asks the venue a bounded number of times, spaced on the (virtual) scheduler.
    for (let i = 0; i < 20 && w.bot.tracker.live('s').length > 0; i++) {
      w.scheduler.advance(1000);
      await new Promise((r) => setImmediate(r));
    }
    expect(w.bot.tracker.live('s')).toHaveLength(0);
    expect(w.engine.currentOrders('bot', {}).total).toBe(0);
  });

  it('a stale or duplicated update never moves an order backwards', async () => {
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }]);
    const [o] = w.bot.tracker.live('s');
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    w.venue.pump();
    await w.settle();
    const rec = w.engine.queryOrder('bot', { symbol: 'BTCUSDT', clientOrderId: o.clientOrderId });
    w.bot.executor.onOrderUpdate({ ...rec, status: 'NEW', executedQty: '0' }, (cid) => w.bot.strategyOf(cid));
    await w.settle();
    expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('FILLED');
  });

  it('after a reconnect it reconciles: adopts its orders the venue holds and settles the ones it lost track of', async () => {
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }]);
    const [o] = w.bot.tracker.live('s');
    // While "disconnected": the order is cancelled elsewhere and another one of ours is placed.
    w.engine.cancelOrder('bot', { symbol: 'BTCUSDT', clientOrderId: o.clientOrderId });
    w.engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '51000', quantity: '0.01', clientOrderId: 's-restart1' });
    w.engine.drain();
    (w.venue as unknown as { out: { emit(e: unknown): void } }).out.emit({ type: 'stream', time: w.clock.now(), stream: 'private', status: 'reconnected', detail: 'test' });
    await w.settle();
    expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('CANCELED');
    expect(w.bot.tracker.get('s-restart1')?.state).toBe('NEW');
    const rec = w.events.find((e) => e.type === 'reconciled' && e.reason.startsWith('reconnected'));
    expect(rec).toMatchObject({ adopted: 1 });
  });

  it('an order it saw end that works at the venue again (the venue restored from an older state) is cancelled at the reconciliation, and said', async () => {
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }]);
    const [o] = w.bot.tracker.live('s');
    const older = w.engine.exportState();
    w.engine.cancelOrder('bot', { symbol: 'BTCUSDT', clientOrderId: o.clientOrderId });
    w.venue.pump();
    await w.settle();
    expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('CANCELED');
    w.engine.importState(older);
    expect(w.engine.queryOrder('bot', { symbol: 'BTCUSDT', clientOrderId: o.clientOrderId }).status).toBe('NEW');
    (w.venue as unknown as { out: { emit(e: unknown): void } }).out.emit({ type: 'stream', time: w.clock.now(), stream: 'private', status: 'reconnected', detail: 'test' });
    await w.settle();
    // It worked on at the venue, managed by no strategy, until it filled.
    expect(w.engine.queryOrder('bot', { symbol: 'BTCUSDT', clientOrderId: o.clientOrderId }).status).toBe('CANCELED');
    expect(w.events.find((e) => e.type === 'reconciled' && e.reason.startsWith('reconnected'))).toMatchObject({ adopted: 0, revived: [o.clientOrderId], cancelled: 1 });
    expect(w.bot.tracker.get(o.clientOrderId)?.state).toBe('CANCELED');
  });

  it('an order whose end the bot had, listed by a venue read just before it ended, is not taken for one that came back', async () => {
    const stale: { list?: OrderRecord[] } = {};
    const wrap = (v: SimVenue): Venue => {
      const list = v.openOrders.bind(v);
      v.openOrders = async (...a: Parameters<Venue['openOrders']>) => stale.list ?? list(...a);
      return v;
    };
    const def = scripted(['BTCUSDT'], { start: () => [bid('49990')] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }], {}, wrap);
    const [o] = w.bot.tracker.live('s');
    stale.list = await w.venue.openOrders();
    w.engine.cancelOrder('bot', { symbol: 'BTCUSDT', clientOrderId: o.clientOrderId });
    w.venue.pump();
    await w.settle();
    (w.venue as unknown as { out: { emit(e: unknown): void } }).out.emit({ type: 'stream', time: w.clock.now(), stream: 'private', status: 'reconnected', detail: 'test' });
    await w.settle();
    const rec = w.events.find((e) => e.type === 'reconciled' && e.reason.startsWith('reconnected'));
    expect(rec).toBeDefined();
    expect(rec).not.toHaveProperty('revived');
  });

  it('polled positions that differ from the stream raise a mismatch and a reconciliation', async () => {
    const def = scripted(['BTCUSDT'], { start: () => [] });
    const w = await botWorld([{ id: 's', definition: def, params: {} }]);
    // A fill the stream never delivered (events drained away).
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50000', quantity: '0.01' });
    w.engine.placeOrder('bot', { symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.01' });
    w.engine.drain();
    await w.bot.pollPositions();
    await w.settle();
    expect(w.events.find((e) => e.type === 'positionMismatch')).toMatchObject({ symbol: 'BTCUSDT', local: '0', venue: '0.01' });
    expect(w.bot.cache.position('BTCUSDT')?.quantity).toBe('0.01');
  });
});
