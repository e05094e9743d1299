/**
 * Liquidation after a trade (src/exchange/engine/liquidation, docs/engine.md "Liquidation"): the
 * accounts whose positions an order's fills changed are checked at the current mark once the
 * order's matching is done, so a position opened already past its liquidation price is liquidated
 * in the command that opened it, not at the next mark change (never, with the mark standing still).
 */
import { Dec } from '../../../../src/core/decimal';
import type { EngineEvent } from '../../../../src/exchange/engine/events';
import { limit, world, type World } from '../helpers';

/** Leaves the user's wallet at `wallet` USDT (from the helper's 100 000). */
function walletOf(w: World, user: string, wallet: string): void {
  w.engine.deposit(user, new Dec(wallet).minus(w.engine.asset(user).walletBalance).toString());
}

const market = (side: 'BUY' | 'SELL', quantity: string) => ({ symbol: 'BTCUSDT', type: 'MARKET' as const, side, quantity });

/** Index of the first event `pick` accepts (-1: none). */
function indexOf(evs: EngineEvent[], pick: (e: EngineEvent) => boolean): number {
  return evs.findIndex(pick);
}

const liquidationOf = (user: string) => (e: EngineEvent) => e.kind === 'liquidation' && e.userId === user;

describe('liquidation after a trade', () => {
  it('a MARKET sell sweeping far below mark on thin margin is liquidated in the same command; the insurance fund takes it over at mark and covers the loss beyond the margin', () => {
    const w = world();
    walletOf(w, 'b', '2600');
    // A thin bid near the mark (50 000), the rest far below. b's MARKET sell is checked at the bid it
    // takes first, 49 900: 2 495 at 20x and 100 of open loss, 2 595 of the 2 600.
    w.engine.placeOrder('a', limit('BUY', '49900', '0.1'));
    w.engine.placeOrder('a', limit('BUY', '45000', '0.9'));
    const insuranceBefore = new Dec(w.engine.audit().insurance);
    w.drain();
    const r = w.engine.placeOrder('b', market('SELL', '1'));
    const evs = w.drain();
    // Short 1 at 45 490 (fee 22.745, wallet 2 577.255), at mark 50 000: uPnL -4 510, equity -1 932.745 <= MM 200.
    expect(r).toMatchObject({ status: 'FILLED', avgPrice: '45490' });
    expect(w.engine.positions('b')).toEqual([]);
    // The trades first, then the liquidation.
    const lastTrade = evs.map((e) => e.kind === 'trade').lastIndexOf(true);
    const liq = indexOf(evs, liquidationOf('b'));
    expect(liq).toBeGreaterThan(indexOf(evs, (e) => e.kind === 'trade'));
    expect(evs[liq]).toMatchObject({ positionSide: 'BOTH', quantity: '1', markPrice: '50000' });
    // No asks: the insurance fund takes the short over at mark; the trade of the takeover comes last.
    expect(lastTrade).toBeGreaterThan(liq);
    expect(evs[lastTrade]).toMatchObject({ kind: 'trade', price: '50000', quantity: '1', side: 'BUY' });
    const [liqOrder] = w.engine.orderHistory('b', {}).list;
    expect(liqOrder).toMatchObject({ placeType: 'LIQUIDATION', type: 'MARKET', side: 'BUY', status: 'FILLED', avgPrice: '50000' });
    // Realized -4 510 and fee 25 at the takeover: 1 957.745 beyond the wallet's 2 577.255, covered by the fund.
    const changes = w.engine.accountChanges('b', { changeType: 'LIQUIDATION' }).list;
    expect(changes.find((c) => c.referenceId === 'insurance-cover')?.amount).toBe('1957.745');
    expect(w.engine.asset('b').walletBalance).toBe('0');
    expect(w.engine.positionHistory('b', {}).list[0]).toMatchObject({ triggerMode: 2, pnl: '-2600' });
    // The fund paid the cover and its maker fee (10) and holds the long it took over.
    const audit = w.engine.audit();
    expect(insuranceBefore.minus(audit.insurance).toString()).toBe('1967.745');
    expect(audit.netQtyBySymbol.BTCUSDT).toBe(0);
    expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
  });

  /**
   * 100x, wallet W: b's MARKET sell (checked at the bid 49 000: 490 and 1 000 of open loss) leaves
   * it short 1 at 48 000 (fee 24), uPnL -2 000 at mark 50 000: equity W - 2 024 against MM 200. The
   * check liquidates at equality, as a mark change's.
   */
  it('the threshold: an account left 0.1 above maintenance by its own trade keeps its position; one left at maintenance is liquidated', () => {
    const sellAfter = (wallet: string): { w: World; evs: EngineEvent[] } => {
      const w = world();
      walletOf(w, 'b', wallet);
      w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 100 });
      w.engine.placeOrder('a', limit('BUY', '49000', '0.5'));
      w.engine.placeOrder('a', limit('BUY', '47000', '0.5'));
      w.engine.placeOrder('c', limit('SELL', '50100', '1'));
      w.drain();
      w.engine.placeOrder('b', market('SELL', '1'));
      return { w, evs: w.drain() };
    };
    // Equity 200.1 > MM 200: alive. The price shown is the last tick the check spares, the mark
    // itself; one tick on, the mark change liquidates it.
    const near = sellAfter('2224.1');
    expect(near.evs.some(liquidationOf('b'))).toBe(false);
    expect(near.w.engine.positions('b')).toMatchObject([{ quantity: '-1', entryPrice: '48000', liqPrice: '50000' }]);
    near.w.engine.setMarkPrice('BTCUSDT', '50000.1');
    expect(near.w.engine.positions('b')).toEqual([]);
    // Equity 200 = MM 200: liquidated. The liquidation order bought c's ask: realized -2 100, fee
    // 25.05, within the wallet of 2 200: no cover.
    const at = sellAfter('2224');
    expect(at.evs.some(liquidationOf('b'))).toBe(true);
    expect(at.w.engine.positions('b')).toEqual([]);
    expect(at.w.engine.orderHistory('b', {}).list[0]).toMatchObject({ placeType: 'LIQUIDATION', status: 'FILLED', avgPrice: '50100' });
    expect(at.w.engine.asset('b').walletBalance).toBe('74.95');
    expect(at.w.engine.accountChanges('b', { changeType: 'LIQUIDATION' }).list.map((c) => c.referenceId)).not.toContain('insurance-cover');
  });

  it('an amend that crosses the book is checked as a placement is: the maker it fills past its liquidation price is liquidated', () => {
    const w = world();
    w.engine.createAccount({ userId: 'd', balance: '3000' });
    w.engine.placeOrder('d', limit('BUY', '50000', '1'));
    const o = w.engine.placeOrder('b', limit('SELL', '52000', '1'));
    w.engine.setMarkPrice('BTCUSDT', '46000');
    w.drain();
    // b moves its ask onto d's bid: d long 1 at 50 000 (fee 10) against mark 46 000, equity 2 990 - 4 000 <= MM 184.
    const r = w.engine.moveOrder('b', { symbol: 'BTCUSDT', orderId: o.orderId, price: '50000', quantity: '1' });
    expect(r).toMatchObject({ status: 'FILLED', avgPrice: '50000' });
    const evs = w.drain();
    const fill = indexOf(evs, (e) => e.kind === 'order' && e.userId === 'd' && e.executionType === 'TRADE');
    expect(fill).toBeGreaterThanOrEqual(0);
    expect(indexOf(evs, liquidationOf('d'))).toBeGreaterThan(fill);
    expect(evs.some(liquidationOf('b'))).toBe(false);
    expect(w.engine.positions('d')).toEqual([]);
    expect(w.engine.positions('b')).toMatchObject([{ quantity: '-1' }]);
  });

  it('a maker whose resting order fills at a price past its liquidation price against the current mark is liquidated at once; the taker is not', () => {
    const w = world();
    walletOf(w, 'b', '3000');
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    // The mark falls; b holds no position yet, so nothing to liquidate.
    w.engine.setMarkPrice('BTCUSDT', '46000');
    expect(w.engine.currentOrders('b', {}).total).toBe(1);
    w.drain();
    w.engine.placeOrder('c', market('SELL', '1'));
    const evs = w.drain();
    // b long 1 at 50 000 (maker fee 10), at mark 46 000: equity 2 990 - 4 000 <= MM 184.
    const fill = indexOf(evs, (e) => e.kind === 'order' && e.userId === 'b' && e.executionType === 'TRADE');
    expect(fill).toBeGreaterThanOrEqual(0);
    expect(indexOf(evs, liquidationOf('b'))).toBeGreaterThan(fill);
    expect(evs.some(liquidationOf('c'))).toBe(false);
    expect(w.engine.positions('b')).toEqual([]);
    expect(w.engine.positions('c')).toMatchObject([{ quantity: '-1' }]);
    // Taken over at mark 46 000: realized -4 000, fee 23; the fund covers 1 033 beyond the 2 990.
    expect(w.engine.accountChanges('b', { changeType: 'LIQUIDATION' }).list.find((c) => c.referenceId === 'insurance-cover')?.amount).toBe('1033');
    expect(w.engine.asset('b').walletBalance).toBe('0');
  });

  it("a maker that a liquidation's own order leaves past its liquidation price is liquidated in the same command, after that liquidation", () => {
    const w = world();
    walletOf(w, 'b', '3000');
    w.engine.createAccount({ userId: 'd', balance: '3000' });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.placeOrder('d', limit('BUY', '48000', '1'));
    w.drain();
    // The mark change liquidates b; its liquidation order sells into d's bid at 48 000, leaving d
    // long 1 at 48 000 against mark 44 000 (equity 2 990.4 - 4 000 <= MM 176).
    w.engine.setMarkPrice('BTCUSDT', '44000');
    const evs = w.drain();
    const first = indexOf(evs, liquidationOf('b'));
    const second = indexOf(evs, liquidationOf('d'));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    // d's liquidation starts once b's is over: after b's liquidation order ended.
    const bEnd = evs.map((e) => e.kind === 'order' && e.userId === 'b' && e.order.placeType === 'LIQUIDATION' && e.order.status === 'FILLED').lastIndexOf(true);
    expect(second).toBeGreaterThan(bEnd);
    expect(w.engine.positions('b')).toEqual([]);
    expect(w.engine.positions('d')).toEqual([]);
    // b: realized -2 000, fee 24 at 48 000, within its wallet; d: taken over at 44 000, covered.
    expect(w.engine.asset('b').walletBalance).toBe('951');
    expect(w.engine.asset('d').walletBalance).toBe('0');
    const audit = w.engine.audit();
    expect(audit.netQtyBySymbol.BTCUSDT).toBe(0);
    expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
  });

  it('a margin-exempt account is never checked: filled past its liquidation price beside one that is liquidated, it keeps its position', () => {
    const w = world();
    w.engine.createAccount({ userId: 'tape', balance: '3000' });
    w.engine.exemptFromMargin('tape');
    walletOf(w, 'b', '3000');
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.placeOrder('tape', limit('BUY', '50000', '1'));
    w.engine.setMarkPrice('BTCUSDT', '46000');
    w.drain();
    // Both bids fill at 50 000 against mark 46 000: both long 1, equity about -1 010 <= MM 184.
    w.engine.placeOrder('c', market('SELL', '2'));
    const evs = w.drain();
    expect(evs.some(liquidationOf('b'))).toBe(true);
    expect(evs.some(liquidationOf('tape'))).toBe(false);
    expect(w.engine.positions('b')).toEqual([]);
    expect(w.engine.positions('tape')).toMatchObject([{ quantity: '1', entryPrice: '50000' }]);
    // Nor at a mark change.
    w.engine.setMarkPrice('BTCUSDT', '45000');
    expect(w.drain().some(liquidationOf('tape'))).toBe(false);
    expect(w.engine.positions('tape')).toHaveLength(1);
  });

  it("a sweep through many makers: the taker is liquidated once, after its order's last fill", () => {
    const w = world();
    walletOf(w, 'b', '2600');
    // Checked at the first bid, 49 900: 2 495 and 100 of open loss. Short 1 at 47 180 in the end.
    for (const price of ['49900', '48000', '47000', '46000', '45000']) w.engine.placeOrder('a', limit('BUY', price, '0.2'));
    w.drain();
    w.engine.placeOrder('b', market('SELL', '1'));
    const evs = w.drain();
    expect(evs.filter(liquidationOf('b'))).toHaveLength(1);
    // The liquidation follows the last fill of b's order.
    const lastFill = evs.map((e) => e.kind === 'order' && e.userId === 'b' && e.order.placeType !== 'LIQUIDATION' && e.executionType === 'TRADE').lastIndexOf(true);
    expect(indexOf(evs, liquidationOf('b'))).toBeGreaterThan(lastFill);
    expect(w.engine.positions('b')).toEqual([]);
  });
});
