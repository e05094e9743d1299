/**
 * A condition order that fires and whose order the venue refuses (a stop without the margin for
 * its order) ends REJECTED. In a backtest that was silent: nothing counted it and the reason was
 * nowhere. The in-process venue hands the engine's reason over with the condition's update, and
 * the backtest's books count such conditions and keep the first with its reason (the summary's
 * `conditionsRejected`, a note in the summary and report.html).
 */
import { botWorld, scripted } from '../../src/testing';
import { BusBooks } from '../../src/backtest/backtest/bus-books';
import type { BacktestResult } from '../../src/backtest/backtest/result';
import type { RestingOrders } from '../../src/backtest/backtest/resting-orders';
import { ErrorCodes } from '../../src/core/errors';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportNotices } from '../../src/backtest/report/html';
import { recording, writeConfig } from './fixtures';

test('a fired stop whose order is refused for margin: the bot hears why, the backtest books count it with the reason', async () => {
  const w = await botWorld([{ id: 's', definition: scripted(['BTCUSDT'], {}), params: {} }], { balance: '100' });
  try {
    await w.setMark('BTCUSDT', '50000');
    const c = w.engine.placeCondition('bot', { symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'BUY', stopPrice: '50100', quantity: '1', workingType: 'MARK_PRICE' });
    await w.setMark('BTCUSDT', '50200');
    const rejected = w.events.flatMap((e) => (e.type === 'condition' && e.condition.conditionStatus === 'REJECTED' ? [e] : []));
    expect(rejected.map((e) => [e.condition.conditionId, e.refusal?.code])).toEqual([[c.conditionId, ErrorCodes.INSUFFICIENT_MARGIN]]);
    expect(rejected[0].refusal?.message).toMatch(/^insufficient margin/);

    // The backtest's books, fed the same events.
    const result = { conditionsRejected: 0, firstConditionRejection: null } as unknown as BacktestResult;
    const books = new BusBooks(result, {} as RestingOrders, '/');
    for (const e of w.events) if (e.type === 'condition') books.observe(e);
    expect(result.conditionsRejected).toBe(1);
    expect(result.firstConditionRejection).toMatchObject({ symbol: 'BTCUSDT', conditionId: c.conditionId, type: 'STOP_MARKET', code: ErrorCodes.INSUFFICIENT_MARGIN });
  } finally {
    await w.stop();
  }
});

test('the report says how many strategy order legs were refused, and the first with its reason', async () => {
  const { dir } = await recording(2);
  const { report } = await backtest(loadBacktestConfig(writeConfig(dir, 'bt.yaml', {})), { cache: false });
  expect(reportNotices(report).some((n) => n.includes('leg(s) of strategy orders'))).toBe(false);
  const summary = { ...report.summary, legsRejected: 2, firstLegRejection: { time: Date.UTC(2024, 0, 1), symbol: 'BTCUSDT', strategyId: '7', strategyType: 'OTOCO', strategySubId: 3, type: 'STOP_MARKET', code: ErrorCodes.PRICE_PROTECTION, message: 'priceProtect: stopPrice 40000 is 20 % from mark price 50000, more than 10 %' } };
  expect(reportNotices({ ...report, summary })).toContain('2 leg(s) of strategy orders ended REJECTED: the order or stop each was to place never stood (a bracket\'s exit among them leaves its position unprotected). First: BTCUSDT OTOCO 7 leg 3 (STOP_MARKET) at 2024-01-01T00:00:00.000Z: 30013 priceProtect: stopPrice 40000 is 20 % from mark price 50000, more than 10 %.');
});
