/**
 * The report's figures on hand-made inputs whose answers are known: daily-return ratios (and
 * their absence below the minimum), round trips through a position flip, trade statistics, and
 * the returns table's period.
 */
import type { FillRow } from '../../src/backtest/backtest/result';
import type { BacktestResult } from '../../src/backtest/backtest/result';
import { Dec } from '../../src/core/decimal';
import { perStrategy, periodFor, periods, summarize } from '../../src/backtest/report/metrics';
import { money, share } from '../../src/backtest/report/round';
import { DAY_MS, MIN_RATIO_DAYS, dailyEquity, ratios } from '../../src/backtest/report/ratios';
import { roundTrips, tradeStats } from '../../src/backtest/report/trades';
import { usd } from '../../src/backtest/report/format';

const T0 = Date.UTC(2024, 0, 1);

/** Equity at the end of each day from daily returns, with `perDay` samples a day (intraday noise in between). */
function curve(rets: number[], perDay: number): Array<{ time: number; equity: number }> {
  const out: Array<{ time: number; equity: number }> = [];
  let e = 1000;
  rets.forEach((r, d) => {
    for (let k = 1; k < perDay; k++) out.push({ time: T0 + d * DAY_MS + (k * DAY_MS) / perDay - 1, equity: e * (1 + (k % 2 === 0 ? 0.03 : -0.02)) });
    e *= 1 + r;
    out.push({ time: T0 + (d + 1) * DAY_MS - 1, equity: e });
  });
  return out;
}

describe('ratios', () => {
  test('below the minimum number of days: null, and a note that says how much data and how much is needed', () => {
    const two = [{ time: T0 + 3_600_000, equity: 1001 }, { time: T0 + 7_200_000, equity: 999 }];
    const r = ratios(1000, two, 7_200_000, 0.002);
    expect(r).toMatchObject({ sharpe: null, sortino: null, calmar: null, ratioDays: 1, annualReturn: null });
    expect(r.ratioNotes.sharpe).toBe(`n/a: 2 h of data (1 daily return), needs ≥ ${MIN_RATIO_DAYS} days`);
    const short = ratios(1000, curve(new Array<number>(MIN_RATIO_DAYS - 1).fill(0.01), 4), (MIN_RATIO_DAYS - 1) * DAY_MS, 0.01);
    expect(short.sharpe).toBeNull();
    expect(short.ratioNotes.sortino).toMatch(/29 d of data \(29 daily returns\)/);
  });

  test('from daily returns, annualised with sqrt(365): intraday samples do not change them', () => {
    // 40 days alternating +2% and -1%: mean 0.5%, sample stdev known in closed form.
    const rets = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 0.02 : -0.01));
    const mean = 0.005;
    const sd = Math.sqrt((40 * 0.015 ** 2) / 39);
    const down = Math.sqrt((20 * 0.01 ** 2) / 40);
    const coarse = ratios(1000, curve(rets, 1), 40 * DAY_MS, 0.01);
    const fine = ratios(1000, curve(rets, 96), 40 * DAY_MS, 0.01);
    expect(coarse.ratioDays).toBe(40);
    expect(coarse.sharpe).toBeCloseTo((mean / sd) * Math.sqrt(365), 6);
    expect(coarse.sortino).toBeCloseTo((mean / down) * Math.sqrt(365), 6);
    const end = rets.reduce((e, r) => e * (1 + r), 1000);
    expect(coarse.annualReturn).toBeCloseTo((end / 1000) ** (365 / 40) - 1, 6);
    expect(coarse.calmar).toBeCloseTo(((end / 1000) ** (365 / 40) - 1) / 0.01, 4);
    expect(fine).toEqual(coarse);
    expect(dailyEquity(curve(rets, 96))).toHaveLength(40);
  });

  test('a denominator of 0 gives null with the reason, never Infinity', () => {
    const flat = ratios(1000, curve(new Array<number>(40).fill(0.001), 1), 40 * DAY_MS, 0);
    expect(flat.sharpe).toBeNull();
    expect(flat.ratioNotes.sharpe).toMatch(/do not vary/);
    expect(flat.sortino).toBeNull();
    expect(flat.ratioNotes.sortino).toMatch(/no losing day/);
    expect(flat.calmar).toBeNull();
    expect(flat.ratioNotes.calmar).toMatch(/no drawdown/);
  });
});

const fill = (time: number, side: 'BUY' | 'SELL', price: string, quantity: string, realizedPnl: string, fee = '0.3'): FillRow => ({ time, strategyId: 's', symbol: 'BTCUSDT', side, price, quantity, fee, realizedPnl, role: 'maker', orderId: String(time), clientOrderId: '', tradeId: '' });
const position = (quantity: string, entryPrice: string, unrealizedPnl: string): BacktestResult['finalPositions'][number] => ({ symbol: 'BTCUSDT', positionSide: 'BOTH', quantity, entryPrice, unrealizedPnl });
const sample = (time: number, mark: string): { time: number; equity: string; marks: string[]; positions: string[]; grossNotional: string } => ({ time, equity: '0', marks: [mark], positions: ['0'], grossNotional: '0' });

describe('round trips', () => {
  test('a flip closes one trade and opens the next; fees split by quantity; MAE/MFE from marks; funding while open', () => {
    const fills = [
      fill(1000, 'BUY', '100', '1', '0'),
      fill(2000, 'BUY', '110', '1', '0'),
      fill(5000, 'SELL', '120', '3', '30'), // closes 2 (avg 105: +30), opens a short of 1
      fill(9000, 'BUY', '100', '1', '20'), // closes the short at +20
      fill(10_000, 'BUY', '100', '1', '0'), // opens a long still open at the end
    ];
    const samples = [sample(3000, '90'), sample(4000, '125'), sample(7000, '130'), sample(12_000, '104')];
    const funding = [{ time: 4500, symbol: 'BTCUSDT', amount: '-1.5' }, { time: 8000, symbol: 'BTCUSDT', amount: '0.25' }];
    // The engine ends long 1 from 100, marked at 104.
    const trades = roundTrips({ fills, samples, funding, symbols: ['BTCUSDT'], endTime: 12_000, finalPositions: [position('1', '100', '4')] });
    expect(trades).toHaveLength(3);
    expect(trades[0]).toMatchObject({ side: 'LONG', entryTime: 1000, exitTime: 5000, size: '2', entryPrice: '105', exitPrice: '120', pnl: '30', fees: '0.8', funding: '-1.5', netPnl: '27.7', mae: '-30', mfe: '40', durationMs: 4000, fills: 3 });
    expect(trades[1]).toMatchObject({ side: 'SHORT', entryTime: 5000, exitTime: 9000, size: '1', entryPrice: '120', exitPrice: '100', pnl: '20', fees: '0.4', funding: '0.25', netPnl: '19.85', mae: '-10', mfe: '20' });
    expect(trades[2]).toMatchObject({ side: 'LONG', exitTime: null, exitPrice: null, pnl: '4', fees: '0.3', netPnl: '3.7', durationMs: 2000 });
    const st = tradeStats(trades);
    expect(st).toMatchObject({ closed: 2, open: 1, wins: 2, losses: 0, winRate: 1, profitFactor: null, expectancy: '23.775', longestLosingStreak: 0 });
    expect(st.long).toMatchObject({ trades: 1, wins: 1, netPnl: '27.7' });
    expect(st.short).toMatchObject({ trades: 1, wins: 1, netPnl: '19.85' });
  });

  test('statistics: profit factor, averages and the longest losing streak', () => {
    const fills: FillRow[] = [];
    const pnls = ['10', '-4', '-2', '-1', '6', '-3'];
    pnls.forEach((p, i) => {
      fills.push(fill(i * 100 + 1, 'BUY', '100', '1', '0', '0'));
      fills.push(fill(i * 100 + 2, 'SELL', String(100 + Number(p)), '1', p, '0'));
    });
    const st = tradeStats(roundTrips({ fills, samples: [], funding: [], symbols: ['BTCUSDT'], endTime: 1000, finalPositions: [] }));
    expect(st).toMatchObject({ closed: 6, wins: 2, losses: 4, winRate: 0.3333333333, profitFactor: 1.6, avgWin: '8', avgLoss: '-2.5', largestWin: '10', largestLoss: '-4', longestLosingStreak: 3, expectancy: '1' });
  });

  test('no fills: no trades, and every ratio of them is null', () => {
    const st = tradeStats(roundTrips({ fills: [], samples: [sample(1, '100')], funding: [], symbols: ['BTCUSDT'], endTime: 1, finalPositions: [position('0', '0', '0')] }));
    expect(st).toMatchObject({ closed: 0, open: 0, winRate: null, profitFactor: null, expectancy: null, avgWin: null, avgLoss: null, avgDurationMs: null });
  });

  test("an open trade's pnl is its realized PnL plus the engine's unrealized PnL (the engine's cost basis, not the trade's average entry)", () => {
    // Long 1 at 100, half closed at 110 (+5), then 0.5 more at 120: the engine's basis is
    // 50 + 60 = 110 for 1, the trade's average entry (100 + 60) / 1.5 = 106.67. Mark 115 at the end.
    const fills = [fill(1000, 'BUY', '100', '1', '0', '0'), fill(2000, 'SELL', '110', '0.5', '5', '0'), fill(3000, 'BUY', '120', '0.5', '0', '0')];
    const trades = roundTrips({ fills, samples: [sample(4000, '115')], funding: [], symbols: ['BTCUSDT'], endTime: 4000, finalPositions: [position('1', '110', '5')] });
    expect(trades).toHaveLength(1);
    // Realized 5 + unrealized (115 - 110) x 1 = 10, the account's realized + unrealized; against
    // the average entry it was 5 + (115 - 106.67) = 13.33333333.
    expect(trades[0]).toMatchObject({ exitTime: null, entryPrice: '106.666666667', pnl: '10', netPnl: '10' });
  });

  test('fills that leave another position than the engine ends with are refused, not reported', () => {
    const fills = [fill(1000, 'BUY', '100', '1', '0', '0')];
    const at = (finalPositions: BacktestResult['finalPositions']) => () => roundTrips({ fills, samples: [], funding: [], symbols: ['BTCUSDT'], endTime: 1000, finalPositions });
    expect(at([position('0.5', '100', '0')])).toThrow('round trips of BTCUSDT: the fills leave a position of 1, the engine ends with 0.5 (unrealized PnL 0)');
    expect(at([])).toThrow('round trips of BTCUSDT: the fills leave a position of 1, the engine ends with 0 (unrealized PnL 0)');
    expect(() => roundTrips({ fills: [], samples: [], funding: [], symbols: ['BTCUSDT'], endTime: 1000, finalPositions: [position('-2', '100', '3')] })).toThrow('the fills leave a position of 0, the engine ends with -2 (unrealized PnL 3)');
  });
});

test('the returns table period fits the run, and money reads as money', () => {
  expect(periodFor(2 * 3_600_000)).toBe('hour');
  expect(periodFor(10 * DAY_MS)).toBe('day');
  expect(periodFor(200 * DAY_MS)).toBe('month');
  expect(usd('1234567.891234')).toBe('1,234,567.89');
  expect(usd('-0.004')).toBe('-0.004');
  expect(usd('-0.0000001')).toBe('-1e-7');
  expect(usd(null)).toBe('n/a');
});

describe('per-strategy fill totals', () => {
  test('volume, fees, realized PnL and the win rate of closing fills, as Dec sums them, whatever decimal text the fills carry', () => {
    const fills: FillRow[] = [
      fill(1000, 'BUY', '42123.7', '0.013', '0', '0.10952162'),
      fill(2000, 'SELL', '42130.1', '0.013', '0.0832', '0.27384565'),
      fill(3000, 'SELL', '42131.3', '0.007', '-0.000000001', '1e-8'),
      fill(4000, 'BUY', '42000', '0.02', '2.62', '0.42'),
      { ...fill(5000, 'BUY', '1.5e4', '0.001', '0', '0'), strategyId: 'other' },
    ];
    const rows = perStrategy({ strategies: {}, fills } as unknown as BacktestResult);
    const mine = fills.filter((f) => f.strategyId === 's');
    const sum = (k: (f: FillRow) => Dec): Dec => mine.reduce((s, f) => s.plus(k(f)), new Dec(0));
    expect(rows.s).toMatchObject({
      fills: 4,
      volume: money(sum((f) => new Dec(f.price).times(f.quantity))),
      fees: money(sum((f) => new Dec(f.fee))),
      realizedPnl: money(sum((f) => new Dec(f.realizedPnl))),
      closingFills: 3,
      // 0.0832 - 0.27384565 < 0; -0.000000001 - 1e-8 < 0; 2.62 - 0.42 > 0.
      fillWinRate: share(1, 3),
    });
    expect(rows.other).toMatchObject({ fills: 1, volume: money(new Dec(15)), closingFills: 0, fillWinRate: null });
  });
});

describe('max drawdown amount', () => {
  test('is the exact USDT fall from the peak, to the 8th decimal (not a float cut to 10 digits)', () => {
    // The market maker's 2-hour sample run: peak 10000, trough 9808.00528958.
    const equity = ['10000', '9996.69353032', '9808.00528958', '9809.17058878', '10000.5', '9999.99999999'];
    const samples = equity.map((e, i) => ({ time: 60_000 * i, equity: e, marks: ['50000'], positions: ['0'], grossNotional: '0' }));
    const r = {
      initialBalance: '10000',
      startTime: 0,
      endTime: 60_000 * (equity.length - 1),
      samples,
      fills: [],
      funding: [],
      liquidations: 0,
      strategies: {},
      finalAsset: { walletBalance: equity[equity.length - 1], unrealizedPnl: '0' },
      botStats: { pipelineErrors: 0 },
      firstBotError: null,
      gaps: { count: 0, first: [] },
      silences: { count: 0, ms: 0, longest: null, first: [] },
    } as unknown as BacktestResult;
    const s = summarize(r, []);
    expect(s.maxDrawdownAmount).toBe('191.99471042');
    expect(s.maxDrawdown).toBe(0.01919947104);
  });
});

describe('periods (the returns table)', () => {
  // A funding settlement at the run's last millisecond, on a period boundary (a recording that
  // ends at 08:00 with a position): its row was dropped as empty, so the funding column summed
  // short of summary.funding while the row before's pnl held it.
  test("what happened in the run's last millisecond, on a period boundary, is in the row before, whose end equity holds it", () => {
    const H = 3_600_000;
    const sample = (time: number, equity: string) => ({ time, equity, marks: ['50000'], positions: ['0.1'], exposure: '5000' });
    const fill = { time: 8 * H, symbol: 'BTCUSDT', side: 'SELL', price: '50000', quantity: '0.01', fee: '0.25', realizedPnl: '1.5', role: 'taker', strategyId: 's' };
    const r = {
      initialBalance: '10000',
      startTime: 0,
      endTime: 8 * H,
      samples: [sample(0, '10000'), sample(4 * H, '10010'), sample(8 * H, '10012.25')],
      fills: [fill],
      funding: [{ time: 4 * H + 1, symbol: 'BTCUSDT', amount: '0.5' }, { time: 8 * H, symbol: 'BTCUSDT', amount: '1' }],
    } as unknown as BacktestResult;
    const rows = periods(r, { ms: 4 * H });
    expect(rows.map((p) => [p.start, p.end, p.pnl, p.funding, p.fees, p.realizedPnl, p.fills])).toEqual([
      [0, 4 * H, '10', '0', '0', '0', 0],
      [4 * H, 8 * H, '2.25', '1.5', '0.25', '1.5', 1],
    ]);
    expect(rows.reduce((s, p) => s.plus(p.funding), new Dec(0)).toString()).toBe('1.5');
  });
});
