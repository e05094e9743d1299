import { ManualClock } from '../../../../src/core/clock';
import { Dec, formatDec } from '../../../../src/core/decimal';
import { Engine } from '../../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../../../src/exchange/engine/symbols';
import { ErrorCodes } from '../../../../src/core/errors';
import { T0, codeOf, limit, world } from '../helpers';

/** a sells to b: b is long `qty` at `price` (taker), a is short (maker). */
function open(w: ReturnType<typeof world>, price: string, qty: string, buyer = 'b', seller = 'a'): void {
  w.engine.placeOrder(seller, limit('SELL', price, qty));
  w.engine.placeOrder(buyer, limit('BUY', price, qty));
}

describe('positions: the worked examples of docs/engine.md', () => {
  it('example 1: long 1 BTC at 50000, 20x cross', () => {
    const w = world();
    open(w, '50000', '1');
    let [p] = w.engine.positions('b');
    expect(p).toMatchObject({ quantity: '1', entryPrice: '50000', leverage: 20, marginMode: 'CROSS', positionMargin: '2500', unrealizedPnl: '0' });
    // break-even = (50000 + 25) / (1 - 0.0005)
    expect(p.breakEvenPrice).toBe(new Dec(50025).div('0.9995').toDecimalPlaces(5).toFixed().replace(/0+$/, ''));
    w.engine.setMarkPrice('BTCUSDT', '51000');
    [p] = w.engine.positions('b');
    expect(p.unrealizedPnl).toBe('1000');
    expect(p.roe).toBe('0.4'); // 1000 / 2500
    expect(p.nextFundingFee).toBe('-5.1'); // pays 1 * 51000 * 0.0001
    const asset = w.engine.asset('b');
    expect(asset).toMatchObject({ walletBalance: '99975', usedMargin: '2500', unrealizedPnl: '1000', availableBalance: '98475' });
  });

  it('example 2: isolated long 1 BTC at 50000, 20x: liquidation price', () => {
    const w = world();
    w.engine.setMarginMode('b', { symbol: 'BTCUSDT', marginMode: 2 });
    open(w, '50000', '1');
    const [p] = w.engine.positions('b');
    expect(p.marginMode).toBe('ISOLATED');
    expect(p.positionMargin).toBe('2500');
    // (50000 - 2500 - 0) / (1 * (1 - 0.004)) = 47690.7630..., rounded up to the tick
    expect(p.liqPrice).toBe('47690.8');
    // margin ratio = MM / (margin + uPnL) = 200 / 2500
    expect(p.marginRatio).toBe('0.08');
  });

  it('a short has a signed negative quantity in one-way mode, and its liquidation price is above', () => {
    const w = world();
    w.engine.setMarginMode('a', { symbol: 'BTCUSDT', marginMode: 2 });
    open(w, '50000', '1');
    const [p] = w.engine.positions('a');
    expect(p.quantity).toBe('-1');
    // Tier 1 (mmr 0.004, cum 0) would give (2500 + 50000 + 0) / (1 * 1.004) = 52290.84, whose
    // notional is beyond tier 1's 50,000: in tier 2 (mmr 0.005, cum 50) it is
    // (2500 + 50000 + 50) / (1 * 1.005) = 52288.5572..., inside tier 2, rounded down to the tick.
    expect(p.liqPrice).toBe('52288.5');
  });

  it('tiers whose maintenance amounts leave MM discontinuous: the liquidation price falls back to the tier of the current mark', () => {
    const clock = new ManualClock(T0);
    const btc = DEFAULT_SYMBOLS[0];
    // MM jumps from 200 to 2,500 at 50,000 of notional: no price is a root inside its own tier.
    const tiers = [
      { maxNotional: '50000', maintenanceMarginRate: '0.004', maintenanceAmount: '0', maxLeverage: 125 },
      { maxNotional: '0', maintenanceMarginRate: '0.05', maintenanceAmount: '0', maxLeverage: 20 },
    ];
    const engine = new Engine({ symbols: [{ ...btc, tiers }], clock, insuranceFund: '0' });
    for (const u of ['a', 'b']) engine.createAccount({ userId: u, balance: '100000' });
    engine.setMarginMode('a', { symbol: 'BTCUSDT', marginMode: 2 });
    engine.placeOrder('a', limit('SELL', '49000', '1'));
    engine.placeOrder('b', limit('BUY', '49000', '1'));
    // The first tier's (mark 50,000 x 1 is in it): (2450 + 49000 + 0) / 1.004 = 51245.01..., down to the tick.
    expect(engine.positions('a')[0].liqPrice).toBe('51245');
  });

  it('a tick of 0.5 and a leverage whose margin never ends (3x): the figures are Dec quotients rounded', () => {
    const clock = new ManualClock(T0);
    const btc = DEFAULT_SYMBOLS[0];
    const engine = new Engine({ symbols: [{ ...btc, tickSize: '0.5', markPrice: '50000' }], clock, insuranceFund: '0' });
    for (const u of ['a', 'b']) engine.createAccount({ userId: u, balance: '100000' });
    engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 3 });
    engine.setMarginMode('a', { symbol: 'BTCUSDT', marginMode: 2 });
    engine.setLeverage('a', { symbol: 'BTCUSDT', leverage: 7 });
    engine.placeOrder('a', limit('SELL', '50000.5', '0.123'));
    engine.placeOrder('b', limit('BUY', '50000.5', '0.123'));
    engine.setMarkPrice('BTCUSDT', '49123.5');
    const D = (x: string | number): Dec => new Dec(x);
    const [long] = engine.positions('b');
    const [short] = engine.positions('a');
    const cost = D('50000.5').times('0.123');
    const upnl = D('49123.5').times('0.123').minus(cost);
    const im = cost.div(3);
    // The long's cross margin: wallet (after the taker fee) + uPnL - own maintenance; tier 1 (mmr 0.004, cum 0).
    const mm = D('49123.5').times('0.123').times('0.004');
    const fee = cost.times('0.0005');
    const equity = D(100000).minus(fee).plus(upnl);
    const margin = equity.minus(upnl);
    const liqLong = cost.minus(margin).div(D('0.123').times(D(1).minus('0.004')));
    expect(long.roe).toBe(formatDec(upnl.div(im), 8));
    expect(long.marginRatio).toBe(formatDec(mm.div(equity), 8));
    expect(long.entryPrice).toBe(formatDec(cost.div('0.123'), 5));
    expect(long.breakEvenPrice).toBe(formatDec(cost.plus(fee).div(D('0.123').times('0.9995')), 5));
    // No positive price liquidates a 3x long with this much margin behind it.
    expect(liqLong.isPositive()).toBe(false);
    expect(long.liqPrice).toBe('0');
    // The isolated 7x short: margin |C| / 7; P = (M + |C| + cum) / (|Q| (1 + mmr)), rounded down to the 0.5 tick.
    const isoMargin = short.positionMargin;
    const liqShort = D(isoMargin).plus(cost).div(D('0.123').times('1.004'));
    expect(short.liqPrice).toBe(formatDec(liqShort.div('0.5').toDecimalPlaces(0, Dec.ROUND_DOWN).times('0.5'), 1));
    expect(Number(short.liqPrice) % 0.5).toBe(0);
  });

  it('realizes PnL on reduce, keeps the entry of the rest, and writes position history on close', () => {
    const w = world();
    open(w, '50000', '1');
    w.clock.advance(1000);
    open(w, '51000', '0.4', 'c', 'b'); // b sells 0.4 at 51000 as maker
    let [p] = w.engine.positions('b');
    expect(p.quantity).toBe('0.6');
    expect(p.entryPrice).toBe('50000');
    const tr = w.engine.tradeHistory('b', {}).list[0];
    expect(tr.realizedPnl).toBe('400');
    open(w, '52000', '0.6', 'c', 'b');
    expect(w.engine.positions('b')).toEqual([]);
    const h = w.engine.positionHistory('b', {}).list[0];
    expect(h).toMatchObject({ symbol: 'BTCUSDT', positionSide: 'BOTH', maxQuantity: '1', entryPrice: '50000', closePrice: '51600', triggerMode: 1 });
    // realized 400 + 1200, minus fees 25 (open, taker) + 4.08 + 6.24 (closes, b was the maker)
    expect(h.pnl).toBe('1564.68');
    // roe = pnl / (entry x maxQuantity / leverage) = 1564.68 / 2500 (docs/engine.md, example 4)
    expect(h.roe).toBe('0.625872');
    expect(w.engine.positionHistory('b', { side: 'long' }).total).toBe(1);
    expect(w.engine.positionHistory('b', { side: 'short' }).total).toBe(0);
    expect(w.engine.positionHistory('a', {}).total).toBe(0);
    [p] = w.engine.positions('a');
    expect(p.quantity).toBe('-1');
  });

  it('a one-way position flips through zero: the close part realizes, the rest opens at the trade price', () => {
    const w = world();
    open(w, '50000', '1');
    open(w, '49000', '1.5', 'c', 'b');
    const [p] = w.engine.positions('b');
    expect(p.quantity).toBe('-0.5');
    expect(p.entryPrice).toBe('49000');
    expect(w.engine.tradeHistory('b', {}).list[0].realizedPnl).toBe('-1000');
  });

  it('hedge mode keeps LONG and SHORT apart, both positive', () => {
    const w = world();
    w.engine.placeOrder('a', limit('SELL', '50000', '1'));
    w.engine.placeOrder('h', limit('BUY', '50000', '1', { positionSide: 'LONG' }));
    w.engine.placeOrder('a', limit('BUY', '50000', '0.5'));
    w.engine.placeOrder('h', limit('SELL', '50000', '0.5', { positionSide: 'SHORT' }));
    const ps = w.engine.positions('h');
    expect(ps.map((p) => [p.positionSide, p.quantity])).toEqual([
      ['LONG', '1'],
      ['SHORT', '0.5'],
    ]);
    // a SELL on LONG closes the long and is capped by it
    w.engine.placeOrder('c', limit('BUY', '50000', '5'));
    const close = w.engine.placeOrder('h', limit('SELL', '50000', '3', { positionSide: 'LONG' }));
    expect(close.quantity).toBe('1');
    expect(w.engine.positions('h').map((p) => p.positionSide)).toEqual(['SHORT']);
  });

  it('leverage: set within range, refused when lowering it would leave negative available margin', () => {
    const w = world({ balance: '3000' });
    expect(w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 50 }).leverage).toBe(50);
    open(w, '50000', '1'); // IM 1000 at 50x
    expect(codeOf(() => w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 10 }))).toBe(ErrorCodes.INSUFFICIENT_MARGIN);
    expect(w.engine.positionSettings('b', 'BTCUSDT').leverage).toBe(50);
    expect(w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 25 }).leverage).toBe(25);
  });

  // The orders kept the margin of the leverage they were placed at: at 1x an order of 2,900 USDT
  // held 145, and once it filled the account's available balance was -1,800.
  it('a change of leverage puts the margin of open orders at the new leverage; lowering it is refused when they cannot have it', () => {
    const w = world({ balance: '1000' });
    const o = w.engine.placeOrder('b', limit('BUY', '49000', '0.01')); // 490 USDT: 24.5 at 20x
    w.engine.placeOrder('b', limit('SELL', '51000', '0.01'));
    expect(w.engine.asset('b').frozenMargin).toBe('50'); // 24.5 + 25.5
    expect(w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 2 }).leverage).toBe(2);
    expect(w.engine.asset('b').frozenMargin).toBe('500'); // 245 + 255
    expect(w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 50 }).leverage).toBe(50);
    expect(w.engine.asset('b').frozenMargin).toBe('20'); // 9.8 + 10.2
    // With a third order, 1x would freeze 1,480 USDT of a balance of 1,000: refused.
    w.engine.placeOrder('b', limit('BUY', '48000', '0.01'));
    let refusal = '';
    try {
      w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 1 });
    } catch (e) {
      refusal = `${(e as { code: number }).code} ${(e as Error).message}`;
    }
    expect(refusal).toBe(`${ErrorCodes.INSUFFICIENT_MARGIN} insufficient margin to lower leverage to 1x with the open BTCUSDT position and orders: available would be -480 USDT`);
    // Refused: nothing changed, the leverage or any order's margin.
    expect(w.engine.positionSettings('b', 'BTCUSDT').leverage).toBe(50);
    expect(w.engine.asset('b').frozenMargin).toBe('29.6'); // 9.8 + 10.2 + 9.6
    expect(w.engine.audit().frozenMismatch).toEqual([]);
    // The order fills at the leverage it now holds: the position's margin is what was frozen.
    w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 2 });
    w.engine.placeOrder('a', { ...limit('SELL', '49000', '0.01'), timeInForce: 'IOC' });
    expect(w.engine.queryOrder('b', { symbol: 'BTCUSDT', orderId: o.orderId }).status).toBe('FILLED');
    const [long] = w.engine.positions('b');
    expect([long.leverage, long.positionMargin]).toEqual([2, '245']);
    expect(new Dec(w.engine.asset('b').availableBalance).isNegative()).toBe(false);
  });

  // The isolated margin stayed at the leverage of the fills: 20x -> 50x showed positionMargin 2500
  // beside a ROE worked out on 1000, and 20x -> 1x took no margin from the wallet at all.
  it('a change of leverage puts an isolated position\'s margin at the new leverage, refused when the wallet or the position cannot have it', () => {
    const w = world({ balance: '3000' });
    w.engine.setMarginMode('b', { symbol: 'BTCUSDT', marginMode: 2 });
    w.engine.deposit('a', '100000');
    open(w, '50000', '1'); // 2500 at 20x, fee 25
    const figures = (): string[] => {
      const [p] = w.engine.positions('b');
      return [p.positionMargin, p.liqPrice, w.engine.asset('b').availableBalance];
    };
    expect(figures()).toEqual(['2500', '47690.8', '475']);
    w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 50 });
    // (50000 - 1000) / (1 - 0.004) = 49196.78..., up to the tick
    expect(figures()).toEqual(['1000', '49196.8', '1975']);
    // 10x needs 5000 of a wallet of 2975: refused, nothing changed.
    expect(codeOf(() => w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 10 }))).toBe(ErrorCodes.INSUFFICIENT_MARGIN);
    expect(w.engine.positionSettings('b', 'BTCUSDT').leverage).toBe(50);
    expect(figures()).toEqual(['1000', '49196.8', '1975']);
    w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 20 });
    expect(figures()).toEqual(['2500', '47690.8', '475']);
    // Mark 48500: uPnL -1500, MM 194. At 30x the margin (1666.67) would leave 166.67 <= 194: refused.
    w.engine.setMarkPrice('BTCUSDT', '48500');
    let refusal = '';
    try {
      w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 30 });
    } catch (e) {
      refusal = `${(e as { code: number }).code} ${(e as Error).message}`;
    }
    expect(refusal).toBe(`${ErrorCodes.INSUFFICIENT_MARGIN} insufficient margin to raise leverage to 30x: the isolated BTCUSDT long position's margin at that leverage plus its unrealized PnL would not cover its maintenance margin`);
    expect(figures()[0]).toBe('2500');
    // 25x: 2000 - 1500 = 500 > 194.
    w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 25 });
    const [p] = w.engine.positions('b');
    expect([p.leverage, p.positionMargin, p.roe]).toEqual([25, '2000', '-0.75']);
    expect(w.engine.audit().frozenMismatch).toEqual([]);
  });

  it('frozen margin covers only the opening part of an order against a position', () => {
    const w = world();
    open(w, '50000', '1');
    w.engine.placeOrder('b', limit('SELL', '51000', '1.5'));
    // 0.5 opens a short: 51000 * 0.5 / 20
    expect(w.engine.asset('b').frozenMargin).toBe('1275');
  });
});

describe('account change log', () => {
  it('records deposit, fee and realized PnL with before/after balances', () => {
    const w = world();
    open(w, '50000', '1');
    open(w, '50100', '1', 'c', 'b');
    const log = w.engine.accountChanges('b', { page: 1, pageSize: 100 }).list.reverse();
    expect(log.map((c) => [c.changeType, c.amount])).toEqual([
      ['DEPOSIT', '100000'],
      ['TRADE_FEE', '-25'],
      ['REALIZED_PNL', '100'],
      ['TRADE_FEE', '-10.02'],
    ]);
    for (const c of log) expect(new Dec(c.walletBalanceBefore).plus(c.amount).eq(c.walletBalanceAfter)).toBe(true);
    expect(w.engine.accountChanges('b', { changeType: 'TRADE_FEE' }).total).toBe(2);
  });
});

describe('account figures are never shown on the wrong side of the limit', () => {
  it('usedMargin is rounded up, availableBalance down, and the shown figures add up', () => {
    const w = world();
    w.engine.setLeverage('b', { symbol: 'BTCUSDT', leverage: 7 });
    // b is long 0.001 at 50000 at 7x: initial margin 50 / 7 = 7.142857142857..., which half-even
    // to 8 places is 7.14285714, below what the position uses.
    open(w, '50000', '0.001');
    const asset = w.engine.asset('b');
    expect(asset.usedMargin).toBe('7.14285715');
    const exact = new Dec(asset.walletBalance).plus(asset.unrealizedPnl).minus(new Dec(50).div(7)).minus(asset.frozenMargin);
    const shown = new Dec(asset.availableBalance);
    expect(shown.lte(exact)).toBe(true);
    expect(exact.minus(shown).lt('0.00000001')).toBe(true);
    // wallet + uPnL - used - frozen, in the figures as shown.
    expect(formatDec(new Dec(asset.walletBalance).plus(asset.unrealizedPnl).minus(asset.usedMargin).minus(asset.frozenMargin))).toBe(asset.availableBalance);
  });

  it('a refusal for margin shows what is needed rounded up and what is available rounded down', () => {
    const w = world();
    w.engine.setLeverage('c', { symbol: 'BTCUSDT', leverage: 7 });
    // c keeps exactly 7.14285714 available; 0.001 at 50000 at 7x needs 7.142857142857...
    w.engine.deposit('c', '-99992.85714286');
    expect(w.engine.asset('c').availableBalance).toBe('7.14285714');
    let message = '';
    try {
      w.engine.placeOrder('c', limit('BUY', '50000', '0.001'));
    } catch (e) {
      message = (e as Error).message;
    }
    // Half-even both read "needs 7.14285714 USDT at 7x, available is 7.14285714 USDT".
    expect(message).toBe('insufficient margin: the order needs 7.14285715 USDT at 7x, available is 7.14285714 USDT');
  });
});
