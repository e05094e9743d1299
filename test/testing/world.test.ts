/**
 * perpkit/testing's shortcuts (src/testing/world.ts), on a strategy scripted here: each settles the
 * bot, and the readers show what the venue holds. The scaffold of `perpkit init` uses them from
 * the package (test/package/install.test.ts).
 */
import { strategyWorld, scripted, BOT_USER, WORLD_START } from '../../src/testing';

/** Bids 10 below every new mark, cancelling the previous bid; counts its timer firings. */
function bidder() {
  let timers = 0;
  const def = scripted(['BTCUSDT'], {
    start: (ctx) => {
      ctx.every('tick', 1000);
    },
    event: (e, ctx) => {
      if (e.type === 'timer') timers++;
      if (e.type !== 'markPrice' || e.symbol !== 'BTCUSDT') return;
      const price = String(Number(e.mark.markPrice) - 10);
      return [...ctx.myOrders().map((o) => ({ kind: 'cancel' as const, clientOrderId: o.clientOrderId })), { kind: 'place' as const, symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT' as const, price, quantity: '0.01' }];
    },
  });
  return { def, timers: () => timers };
}

describe('perpkit/testing', () => {
  it('setMark moves the market and the strategy answers on the venue; marketOrder fills it', async () => {
    const { def } = bidder();
    const w = await strategyWorld(def, {}, { balance: '5000' });
    expect(w.clock.now()).toBe(WORLD_START);
    expect(w.engine.asset(BOT_USER).walletBalance).toBe('5000');
    await w.setMark('BTCUSDT', '50000');
    expect(w.openOrders('BTCUSDT').map((o) => o.price)).toEqual(['49990']);
    await w.setMark('BTCUSDT', '50100');
    expect(w.openOrders().map((o) => o.price)).toEqual(['50090']);
    expect(w.fills()).toEqual([]);
    await w.marketOrder('BTCUSDT', 'SELL', '0.01');
    expect(w.fills().map((f) => [f.side, f.price, f.quantity])).toEqual([['BUY', '50090', '0.01']]);
    expect(w.positions('BTCUSDT').map((p) => p.quantity)).toEqual(['0.01']);
    expect(w.openOrders()).toEqual([]);
    await w.stop();
  });

  it('advance moves the virtual clock and fires the strategy timers', async () => {
    const b = bidder();
    const w = await strategyWorld(b.def);
    await w.advance(3500);
    expect(w.clock.now()).toBe(WORLD_START + 3500);
    expect(b.timers()).toBe(3);
    await w.stop();
  });
});
