/**
 * Legs of a venue strategy order (a bracket's take-profit and stop-loss) that will never stand:
 * refused when their driver fired, or never placed because an OTOCO places its exits only when the
 * entry is FILLED and this entry ended partly filled. Either leaves a position without the exit
 * the strategy asked for, and both were silent. The bot says each once at warn (with the venue's
 * reason where the venue gives one); a backtest counts them (legsRejected, legsUnplaced).
 */
import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { EventBus } from '../../src/bot/bus/event-bus';
import { CodeLog, RefusalLog } from '../../src/bot/code-log';
import { BusBooks } from '../../src/backtest/backtest/bus-books';
import type { BacktestResult } from '../../src/backtest/backtest/result';
import type { RestingOrders } from '../../src/backtest/backtest/resting-orders';
import { ErrorCodes } from '../../src/core/errors';
import { botWorld, scripted } from './harness';

function logCapture(): { lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }>; bus: EventBus } {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at = (level: string) => (fields: object, msg?: string) => void lines.push({ level, msg: msg ?? '', fields: fields as Record<string, unknown> });
  const bus = new EventBus();
  new RefusalLog(new CodeLog(new ManualScheduler(new ManualClock(0)), 10_000), { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, bus);
  return { lines, bus };
}

const bracket = (entryQty: string) => ({
  strategyType: 'OTOCO' as const,
  subOrderList: [
    { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT' as const, side: 'BUY' as const, price: '50000', quantity: entryQty },
    { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT' as const, side: 'SELL' as const, price: '51000', quantity: entryQty, reduceOnly: true },
    { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET' as const, side: 'SELL' as const, stopPrice: '49000', quantity: entryQty, reduceOnly: true, workingType: 'MARK_PRICE' as const },
  ],
});

test('a bracket whose entry is cancelled partly filled: its exits were never placed; said once at warn, counted once by a backtest', async () => {
  const w = await botWorld([{ id: 's', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  try {
    await w.setMark('BTCUSDT', '50000');
    const s = w.engine.placeStrategy('bot', bracket('0.1'));
    w.venue.pump();
    // 0.04 of the entry fills; then the entry is cancelled: the position is 0.04 long, no exit.
    await w.marketOrder('BTCUSDT', 'SELL', '0.04');
    const entry = w.engine.strategy('bot', s.strategyId).subOrders[0];
    w.engine.cancelOrder('bot', { symbol: 'BTCUSDT', orderId: entry.orderId });
    w.venue.pump();
    await w.settle();
    const final = w.engine.strategy('bot', s.strategyId);
    expect([final.strategyStatus, ...final.subOrders.map((x) => x.status)]).toEqual(['ALL_DONE', 'CANCELED', 'CANCELED', 'CANCELED']);

    const { lines, bus } = logCapture();
    const result = { legsRejected: 0, firstLegRejection: null, legsUnplaced: 0, firstLegUnplaced: null } as unknown as BacktestResult;
    const books = new BusBooks(result, {} as RestingOrders, '/');
    const updates = w.events.filter((e) => e.type === 'strategyOrder');
    for (const e of [...updates, ...updates]) {
      bus.publish(e);
      books.observe(e);
    }
    expect(result.legsUnplaced).toBe(2);
    expect(result.legsRejected).toBe(0);
    expect(result.firstLegUnplaced).toMatchObject({ strategyId: s.strategyId, strategyType: 'OTOCO', strategySubId: 2, type: 'LIMIT' });
    const warned = lines.filter((l) => l.level === 'warn');
    expect(warned).toEqual([{ level: 'warn', msg: 'a strategy order leg was never placed although the leg that was to place it traded (a bracket whose entry ended partly filled: that part of the position has no take-profit or stop-loss on the venue)', fields: { strategyOrder: s.strategyId, type: 'OTOCO', symbol: 'BTCUSDT', leg: 2, legType: 'LIMIT' } }]);
  } finally {
    await w.stop();
  }
});

test('a bracket cancelled before its entry traded, or one whose entry filled: nothing to say', async () => {
  const w = await botWorld([{ id: 's', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  try {
    await w.setMark('BTCUSDT', '50000');
    const idle = w.engine.placeStrategy('bot', bracket('0.1'));
    w.venue.pump();
    w.engine.cancelOrder('bot', { symbol: 'BTCUSDT', orderId: w.engine.strategy('bot', idle.strategyId).subOrders[0].orderId });
    w.engine.placeStrategy('bot', bracket('0.05'));
    w.venue.pump();
    await w.marketOrder('BTCUSDT', 'SELL', '0.05');
    const { lines, bus } = logCapture();
    const result = { legsRejected: 0, firstLegRejection: null, legsUnplaced: 0, firstLegUnplaced: null } as unknown as BacktestResult;
    const books = new BusBooks(result, {} as RestingOrders, '/');
    for (const e of w.events) if (e.type === 'strategyOrder') {
      bus.publish(e);
      books.observe(e);
    }
    expect(w.events.filter((e) => e.type === 'strategyOrder').length).toBeGreaterThan(2);
    expect([result.legsUnplaced, result.legsRejected]).toEqual([0, 0]);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  } finally {
    await w.stop();
  }
});

test('a leg refused when its driver fires: the in-process venue gives the reason with the strategy order; said once at warn, counted once by a backtest', async () => {
  const w = await botWorld([{ id: 's', definition: scripted(['BTCUSDT'], {}), params: {} }]);
  try {
    await w.setMark('BTCUSDT', '50000');
    w.engine.placeStrategy('bot', {
      strategyType: 'OTO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.1' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '40000', quantity: '0.1', reduceOnly: true, priceProtect: true, workingType: 'MARK_PRICE' },
      ],
    });
    w.venue.pump();
    // The entry fills; its stop leg, 20 % from the mark with priceProtect, is refused when placed.
    await w.marketOrder('BTCUSDT', 'SELL', '0.1');
    const updates = w.events.flatMap((e) => (e.type === 'strategyOrder' ? [e] : []));
    expect(updates.filter((e) => e.refusals !== undefined).map((e) => e.refusals)).toEqual([[{ strategySubId: 2, code: ErrorCodes.PRICE_PROTECTION, message: 'priceProtect: stopPrice 40000 is 20 % from mark price 50000, more than 10 %' }]]);
    const { lines, bus } = logCapture();
    const result = { legsRejected: 0, firstLegRejection: null, legsUnplaced: 0, firstLegUnplaced: null } as unknown as BacktestResult;
    const books = new BusBooks(result, {} as RestingOrders, '/');
    // Seen again in later updates of the same strategy order: said and counted once.
    for (const e of [...updates, updates[updates.length - 1]]) {
      bus.publish(e);
      books.observe(e);
    }
    expect(lines.filter((l) => l.level === 'warn')).toEqual([{ level: 'warn', msg: 'a strategy order leg was refused (REJECTED): the order or stop it was to place never stood', fields: expect.objectContaining({ type: 'OTO', leg: 2, legType: 'STOP_MARKET', code: ErrorCodes.PRICE_PROTECTION }) as unknown }]);
    expect([result.legsRejected, result.legsUnplaced]).toEqual([1, 0]);
    expect(result.firstLegRejection).toMatchObject({ symbol: 'BTCUSDT', strategyType: 'OTO', strategySubId: 2, type: 'STOP_MARKET', code: ErrorCodes.PRICE_PROTECTION });
  } finally {
    await w.stop();
  }
});
