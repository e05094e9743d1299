/** Liquidation (src/exchange/engine/liquidation): isolated and cross accounts, the insurance fund's takeover. */
import { Dec } from '../../../../src/core/decimal';
import { overviewSummary } from '../../../../src/exchange/service/stats';
import { limit, world, type World } from '../helpers';

/** Net PnL by the account change log (every change but deposits), as the overviews count it. */
function changeLogPnl(w: World, user: string): Dec {
  return w.engine.accountChanges(user, { pageSize: 100 }).list.filter((c) => c.changeType !== 'DEPOSIT').reduce((sum, c) => sum.plus(c.amount), new Dec(0));
}

describe('liquidation', () => {
  it('an isolated long is liquidated when mark reaches its liquidation price; the log and history show it', () => {
    const w = world();
    w.engine.setMarginMode('b', { symbol: 'BTCUSDT', marginMode: 2 });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    expect(w.engine.positions('b')[0].liqPrice).toBe('47690.8');
    w.engine.placeOrder('c', limit('BUY', '47600', '2'));
    w.engine.setMarkPrice('BTCUSDT', '47700');
    expect(w.engine.positions('b')).toHaveLength(1);
    w.drain();
    w.engine.setMarkPrice('BTCUSDT', '47690');
    const evs = w.drain();
    expect(evs.some((e) => e.kind === 'liquidation' && e.userId === 'b')).toBe(true);
    expect(w.engine.positions('b')).toEqual([]);
    const h = w.engine.positionHistory('b', {}).list[0];
    expect(h.triggerMode).toBe(2);
    const liq = w.engine.orderHistory('b', {}).list[0];
    expect(liq).toMatchObject({ placeType: 'LIQUIDATION', type: 'MARKET', status: 'FILLED', avgPrice: '47600' });
    expect(w.engine.accountChanges('b', { changeType: 'LIQUIDATION' }).total).toBeGreaterThan(0);
    // isolated: the loss is limited to the position's margin (2500) plus fees
    const wallet = new Dec(w.engine.asset('b').walletBalance);
    expect(wallet.gte(new Dec(100000).minus(2500).minus(25).minus('22.61'))).toBe(true);
  });

  it('with no bids the insurance fund takes the position over at mark price and covers a loss beyond margin', () => {
    const w = world({ balance: '3000' });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1')); // b: 20x cross, wallet 2975 after fee
    w.engine.setMarkPrice('BTCUSDT', '45000'); // loss 5000 > wallet
    expect(w.engine.positions('b')).toEqual([]);
    expect(new Dec(w.engine.asset('b').walletBalance).gte(0)).toBe(true);
    const audit = w.engine.audit();
    expect(audit.netQtyBySymbol.BTCUSDT).toBe(0);
    expect(new Dec(audit.walletsMinusCost).plus(audit.fees).eq(audit.deposits)).toBe(true);
  });

  /**
   * The insurance fund's cover is part of the closed position's PnL: the position history, the
   * account change log and the overviews all show what the wallet lost. (The record showed the
   * loss before the cover: -5047.5 where the wallet lost 3000, -3048.5 where it lost 2525.)
   */
  it.each([
    // Cross, wallet 3000: fee 25, then the fund takes the long over at 45000 (loss 5000, fee 22.5);
    // the wallet stops at 0, the fund covering 2047.5.
    { name: 'cross long on 3,000 USDT', balance: '3000', mode: 1, mark: '45000', pnl: '-3000' },
    // Isolated, margin 2500: fee 25, then taken over at 47000 (loss 3000, fee 23.5); the wallet
    // loses the margin, the fund covering 523.5.
    { name: 'isolated long, margin 2,500', balance: '100000', mode: 2, mark: '47000', pnl: '-2525' },
  ])('the position history pnl of a liquidation covered by the insurance fund is what the wallet lost: $name', ({ balance, mode, mark, pnl }) => {
    const w = world({ balance });
    w.engine.setMarginMode('b', { symbol: 'BTCUSDT', marginMode: mode as 1 | 2 });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.setMarkPrice('BTCUSDT', mark);
    expect(w.engine.positions('b')).toEqual([]);
    expect(w.engine.accountChanges('b', { changeType: 'LIQUIDATION' }).list.some((c) => c.referenceId === 'insurance-cover')).toBe(true);
    const [h] = w.engine.positionHistory('b', {}).list;
    expect(h).toMatchObject({ triggerMode: 2, pnl, roe: new Dec(pnl).div(2500).toString() });
    const walletChange = new Dec(w.engine.asset('b').walletBalance).minus(balance);
    expect(walletChange.toString()).toBe(pnl);
    expect(changeLogPnl(w, 'b').toString()).toBe(pnl);
    expect(overviewSummary(w.engine.accountData('b'), w.clock.now()).totalPnl).toBe(pnl);
  });

  it('a cross liquidation of two positions shares the cover between their records: together they show what the wallet lost', () => {
    const w = world({ balance: '3000' });
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.placeOrder('a', { symbol: 'ETHUSDT', type: 'LIMIT', side: 'SELL', price: '3000', quantity: '1' });
    w.engine.placeOrder('b', { symbol: 'ETHUSDT', type: 'LIMIT', side: 'BUY', price: '3000', quantity: '1' });
    w.engine.setMarkPrice('BTCUSDT', '45000');
    expect(w.engine.positions('b')).toEqual([]);
    const list = w.engine.positionHistory('b', {}).list;
    expect(list.map((h) => [h.symbol, h.triggerMode])).toEqual(expect.arrayContaining([['BTCUSDT', 2], ['ETHUSDT', 2]]));
    const total = list.reduce((sum, h) => sum.plus(h.pnl), new Dec(0));
    // The wallet went from 3000 to 0.
    expect(w.engine.asset('b').walletBalance).toBe('0');
    expect(total.toString()).toBe('-3000');
    expect(changeLogPnl(w, 'b').toString()).toBe('-3000');
    // Each record shows a loss no larger than its loss before the cover.
    for (const h of list) expect(new Dec(h.pnl).lte(0)).toBe(true);
  });

  it('a cross account is liquidated on its total margin; its open orders are cancelled first', () => {
    const w = world({ balance: '5000' });
    w.engine.placeOrder('b', limit('BUY', '40000', '0.01'));
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('b', limit('BUY', '50000', '1'));
    w.engine.placeOrder('c', limit('BUY', '45000', '1'));
    // wallet 4975, uPnL -4700 at 45300: equity 275 > MM 181.2 — still alive
    w.engine.setMarkPrice('BTCUSDT', '45300');
    expect(w.engine.positions('b')).toHaveLength(1);
    // at 45200: equity 175 <= MM 180.8 — liquidated
    w.engine.setMarkPrice('BTCUSDT', '45200');
    expect(w.engine.currentOrders('b', {}).total).toBe(0);
    expect(w.engine.positions('b')).toEqual([]);
  });

  /**
   * The price a position shows is the last tick at which the liquidation check spares it, also when
   * that price lies in another margin tier than today's mark: the tier of the current mark gave a
   * short of 1 BTC at 50,000 (tier 1 at the liquidation price) 52,290.8, and the check liquidated
   * it from 52,288.6 on; a long of 1.04 BTC (tier 2 now, tier 1 there) 47,690.4, liquidated from
   * 47,690.7 down. (Tiers counted from 1, as docs/engine.md does.)
   */
  it.each([
    { name: 'isolated short 1 BTC at 50000, 20x (liquidated in the next tier up)', side: 'SELL' as const, qty: '1', mode: 2, leverage: 20, liq: '52288.5' },
    { name: 'isolated long 1.04 BTC at 50000, 20x (liquidated in the tier below)', side: 'BUY' as const, qty: '1.04', mode: 2, leverage: 20, liq: '47690.8' },
    { name: 'isolated long 1 BTC at 50000, 20x (one tier all the way)', side: 'BUY' as const, qty: '1', mode: 2, leverage: 20, liq: '47690.8' },
    // Cross: (19,877.5 + 245,000 + 1,300) / (4.9 x 1.01) = 53,784.098 in tier 3, not 53,797.8 of tier 2.
    { name: 'cross short 4.9 BTC at 50000, 20x on 20,000 USDT (tier 2 now, tier 3 at its liquidation price)', side: 'SELL' as const, qty: '4.9', mode: 1, leverage: 20, balance: '20000', liq: '53784' },
  ])('the liquidation price shown is the last tick the check spares: $name', ({ side, qty, mode, leverage, balance, liq }) => {
    const w = world({ balance: balance ?? '100000' });
    w.engine.setMarginMode('b', { symbol: 'BTCUSDT', marginMode: mode as 1 | 2 });
    w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage });
    w.engine.placeOrder('a', limit(side === 'BUY' ? 'SELL' : 'BUY', '50000', qty));
    w.engine.placeOrder('b', limit(side, '50000', qty));
    const shown = w.engine.positions('b')[0].liqPrice;
    if (liq !== undefined) expect(shown).toBe(liq);
    const at = new Dec(shown);
    expect(at.gt(0)).toBe(true);
    // The other side of the trade must not be what the mark moves liquidate.
    w.engine.deposit('a', '100000000');
    w.engine.setMarkPrice('BTCUSDT', shown);
    expect(w.engine.positions('b')).toHaveLength(1);
    const beyond = side === 'BUY' ? at.minus('0.1') : at.plus('0.1');
    w.engine.setMarkPrice('BTCUSDT', beyond.toFixed(1));
    expect(w.engine.positions('b')).toEqual([]);
  });

  it.each([
    // Net short: equity falls as the mark rises; both legs show the account's one price.
    { name: 'LONG 0.1 and SHORT 0.2 at 50000 on 15,000 USDT', long: '0.1', short: '0.2', balance: '15000', above: true },
    // Net long, large: the price is below the mark.
    { name: 'LONG 3 and SHORT 1 at 50000 on 12,000 USDT', long: '3', short: '1', balance: '12000', above: false },
    // Flat in net: only the maintenance margin grows with the mark.
    // (At 10,500 USDT the price is 325,000 exactly, a tick: the check liquidates at equality.)
    { name: 'LONG 2 and SHORT 2 at 50000 on 10,500.03 USDT', long: '2', short: '2', balance: '10500.03', above: true },
  ])('hedge mode, cross: both legs show where the account is liquidated, with the other leg moving too: $name', ({ long, short, balance, above }) => {
    const w = world({ balance });
    w.engine.deposit('a', '100000000');
    const order = (user: string, side: 'BUY' | 'SELL', qty: string, positionSide?: 'LONG' | 'SHORT') =>
      w.engine.placeOrder(user, { symbol: 'BTCUSDT', type: 'LIMIT', side, price: '50000', quantity: qty, ...(positionSide ? { positionSide } : {}) });
    order('a', 'SELL', long);
    order('h', 'BUY', long, 'LONG');
    order('a', 'BUY', short);
    order('h', 'SELL', short, 'SHORT');
    const legs = w.engine.positions('h');
    expect(legs.map((p) => p.positionSide)).toEqual(['LONG', 'SHORT']);
    const shown = legs[0].liqPrice;
    expect(legs[1].liqPrice).toBe(shown);
    const at = new Dec(shown);
    expect(at.gt(0)).toBe(true);
    expect(at.gt(50000)).toBe(above);
    w.engine.setMarkPrice('BTCUSDT', shown);
    expect(w.engine.positions('h')).toHaveLength(2);
    w.engine.setMarkPrice('BTCUSDT', (above ? at.plus('0.1') : at.minus('0.1')).toFixed(1));
    expect(w.engine.positions('h')).toEqual([]);
  });
});

