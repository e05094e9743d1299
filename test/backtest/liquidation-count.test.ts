/**
 * The backtest's `liquidations` count (summary, report) from the account's balance changes: one
 * liquidation makes LIQUIDATION changes under several references (the book's fill, the insurance
 * fund's takeover, its cover), and counts once.
 */
import { liquidationCount } from '../../src/backtest/backtest/counters';
import { limit, world } from '../exchange/engine/helpers';

describe('liquidations of a backtest', () => {
  it('one liquidation taken over and covered by the insurance fund counts once; a second one later counts again', () => {
    const w = world({ balance: '3000' });
    const liquidate = (seller: string): void => {
      w.engine.setMarkPrice('BTCUSDT', '50000');
      w.engine.placeOrder(seller, limit('SELL', '50000', '1'));
      w.engine.placeOrder('b', limit('BUY', '50000', '1'));
      // No bids: the fund takes the long over at mark, and covers the loss beyond the wallet.
      w.engine.setMarkPrice('BTCUSDT', '45000');
      expect(w.engine.positions('b')).toEqual([]);
    };
    liquidate('a');
    const changes = (): ReturnType<ReturnType<typeof w.engine.accountData>['changes']['toArray']> => w.engine.accountData('b').changes.toArray();
    const refs = new Set(changes().filter((c) => c.changeType === 'LIQUIDATION').map((c) => c.referenceId));
    // What the count was made of before: the takeover's order and the cover, two references.
    expect(refs.size).toBeGreaterThanOrEqual(2);
    expect(refs.has('insurance-cover')).toBe(true);
    expect(liquidationCount(changes())).toBe(1);

    w.clock.advance(60_000);
    w.engine.deposit('b', '3000');
    liquidate('c');
    expect(liquidationCount(changes())).toBe(2);
  });

  it('no liquidation, none counted', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    expect(liquidationCount(w.engine.accountData('b').changes.toArray())).toBe(0);
  });
});
