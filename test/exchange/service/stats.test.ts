/** The statistics definitions on hand-made account histories (table-driven, no server). */
import type { AccountChangeRecord, TradeRecord } from '../../../src/protocol/records';
import { ChangeLog, TradeLog } from '../../../src/exchange/engine/accounts/history';
import { maskName } from '../../../src/exchange/service/leaderboard';
import { DAY, assetTrend, balanceHistory, maxDrawdown30d, overviewSummary, volumeStats, type AccountHistory } from '../../../src/exchange/service/stats';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

function change(createdAt: number, changeType: string, amount: string, after: string): AccountChangeRecord {
  return { assetType: 'USDT', amount, walletBalanceBefore: '0', walletBalanceAfter: after, frozenBalanceBefore: '0', frozenBalanceAfter: '0', changeType, referenceId: '', createdAt, symbol: '' };
}

function trade(createdAt: number, tradeValue: string, handlingFee: string): TradeRecord {
  return { fillId: '1', tradeId: '1', orderId: '1', symbol: 'BTCUSDT', side: 'BUY', roleType: 'taker', price: '1', quantity: '1', tradeValue, handlingFee, realizedPnl: '0', positionSide: 'BOTH', createdAt };
}

// Deposit 1000 ten days ago, +200 eight days ago, -300 five days ago, +50 today, deposit 500 today.
// As the engine hands them out after a restore: records read from a snapshot, in the engine's logs.
const h: AccountHistory = {
  changes: new ChangeLog([
    change(NOW - 10 * DAY, 'DEPOSIT', '1000', '1000'),
    change(NOW - 8 * DAY, 'REALIZED_PNL', '200', '1200'),
    change(NOW - 5 * DAY, 'REALIZED_PNL', '-300', '900'),
    change(NOW - 3600_000, 'TRADE_FEE', '50', '950'),
    change(NOW - 60_000, 'DEPOSIT', '500', '1450'),
  ]),
  trades: new TradeLog([trade(NOW - 40 * DAY, '999', '9'), trade(NOW - 5 * DAY, '100', '1'), trade(NOW - 1000, '50', '0.5')]),
  transferIn: '1500',
  wallet: '1450',
};

describe('stats', () => {
  it('volume and fees over 30 days only', () => {
    expect(volumeStats(h, NOW)).toEqual({ volume30d: '150', feeTotal30d: '1.5' });
  });

  it('daily balance history: end-of-day balance and net PnL per day, transfers excluded from PnL', () => {
    const items = balanceHistory(h, '1D', 11, NOW);
    expect(items).toHaveLength(11);
    expect(items[0]).toEqual({ date: '2026-01-05', balance: '1000', pnl: '0' });
    expect(items[2]).toEqual({ date: '2026-01-07', balance: '1200', pnl: '200' });
    expect(items[10]).toEqual({ date: '2026-01-15', balance: '1450', pnl: '50' });
  });

  it('weekly buckets start on Monday, monthly on the 1st', () => {
    expect(balanceHistory(h, '1W', 2, NOW).map((i) => i.date)).toEqual(['2026-01-05', '2026-01-12']);
    expect(balanceHistory(h, '1M', 2, NOW).map((i) => i.date)).toEqual(['2025-12-01', '2026-01-01']);
  });

  it('drawdown from daily closes: 1200 → 900 is 300 and 25 %', () => {
    const dd = maxDrawdown30d(h, NOW);
    expect(dd.amount.toString()).toBe('300');
    expect(dd.rate.toString()).toBe('0.25');
  });

  it('summary: today, totals, transfers', () => {
    expect(overviewSummary(h, NOW)).toEqual({
      todayPnl: '50', todayVolume: '50', totalVolume: '1149', totalPnl: '-50', maxDrawdown30d: '300', maxDrawdown30dRate: '0.25', transferIn: '1500', transferOut: '0',
    });
  });

  it('trend: cumulative PnL and rate over the bucket-start balance', () => {
    const items = assetTrend(h, '1M', NOW);
    expect(items).toHaveLength(30);
    const last = items[29];
    expect(last).toMatchObject({ snapshotTime: NOW, balance: '1450', pnl: '50', totalPnl: '-50', pnlRate: '0.05555556' });
  });

  it('names are masked', () => {
    expect([maskName('alice'), maskName('bob'), maskName('abcd'), maskName('traderjoe')]).toEqual(['al***ce', 'b***b', 'a***d', 'tr***oe']);
  });
});
