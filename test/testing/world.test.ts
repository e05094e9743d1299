/**
 * perpkit/testing's shortcuts (src/testing/world.ts), on a strategy scripted here: each settles the
 * bot, and the readers show what the venue holds. The scaffold of `perpkit init` uses them from
 * the package (test/package/install.test.ts).
 */
import { strategyWorld, scripted, WorldStrategyError, WorldRefusalError, StrategyCreateError, BOT_USER, WORLD_START } from '../../src/testing';
import { defineStrategy, param, params, type Strategy } from '../../src/index';

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

  it('trade prints a public trade: onTrade and time bars see it, and a resting order it reaches fills as in a backtest', async () => {
    // A strategy of the docs' kind: one-second bars; after two bars it bids 100 below the last close.
    const seen: string[] = [];
    const def = defineStrategy({
      name: 'bars',
      params: params({ symbol: param.string({ default: 'BTCUSDT' }) }),
      symbols: (p) => [p.symbol],
      create(ctx): Strategy {
        let bars = 0;
        return {
          bars: { time: 1000 },
          onTrade(e) {
            seen.push(`trade ${e.trade.price} ${e.trade.quantity}`);
          },
          onBar(bar) {
            seen.push(`bar ${bar.open} ${bar.high} ${bar.low} ${bar.close} ${bar.trades}`);
            if (++bars === 2) return [{ kind: 'place', symbol: ctx.symbol, side: 'BUY', type: 'LIMIT', price: ctx.price.round(bar.close - 100), quantity: '0.01' }];
          },
        };
      },
    });
    const w = await strategyWorld(def);
    await w.trade('BTCUSDT', '50000', '0.002');
    await w.trade('BTCUSDT', '50010', '0.001', 'SELL');
    await w.advance(1000);
    await w.trade('BTCUSDT', '49990', '0.001');
    await w.advance(1000);
    expect(seen).toEqual(['trade 50000 0.002', 'trade 50010 0.001', 'bar 50000 50010 50000 50010 2', 'trade 49990 0.001', 'bar 49990 49990 49990 49990 1']);
    expect(w.openOrders('BTCUSDT').map((o) => o.price)).toEqual(['49890']);
    // Printed above the bid: nothing fills. At the bid: the bid, ahead of the tape in the queue, fills first.
    await w.trade('BTCUSDT', '49900', '0.01', 'SELL');
    expect(w.fills()).toEqual([]);
    await w.trade('BTCUSDT', '49890', '0.004', 'SELL');
    expect(w.fills().map((f) => [f.side, f.price, f.quantity])).toEqual([['BUY', '49890', '0.004']]);
    // Through it: the rest fills at the bid's own price.
    await w.trade('BTCUSDT', '49800', '0.05', 'SELL');
    expect(w.fills().map((f) => [f.price, f.quantity])).toEqual([
      ['49890', '0.004'],
      ['49890', '0.006'],
    ]);
    expect(w.positions('BTCUSDT').map((p) => p.quantity)).toEqual(['0.01']);
    // Nothing of the trades stays on the book, and the mark did not move.
    expect(w.engine.currentOrders('tape-maker', {}).total).toBe(0);
    expect(w.events.filter((e) => e.type === 'markPrice' && e.mark.markPrice !== '50000')).toEqual([]);
    await expect(w.trade('BTCUSDT', '49800.05', '0.01')).rejects.toThrow(/^trade\(BTCUSDT, 49800\.05, 0\.01, BUY\): the engine refused it: /);
    await w.stop();
  });

  it('a strategy symbol the venue does not list: the bot does not start, and the error names the symbols it does list', async () => {
    const def = defineStrategy({ name: 'sym', params: params({ symbol: param.string({ default: 'BTCUSDT' }) }), symbols: (p) => [p.symbol], create: (): Strategy => ({}) });
    await expect(strategyWorld(def, { symbol: 'BTCUSD' })).rejects.toThrow(/^strategy s: the venue has no symbol BTCUSD \(it lists BTCUSDT, ETHUSDT\)$/);
  });

  it('advance moves the virtual clock and fires the strategy timers', async () => {
    const b = bidder();
    const w = await strategyWorld(b.def);
    await w.advance(3500);
    expect(w.clock.now()).toBe(WORLD_START + 3500);
    expect(b.timers()).toBe(3);
    await w.stop();
  });

  it('a strategy that throws fails the world method that ran it, with the first error and its stack; allowStrategyErrors lets a test read them', async () => {
    const thrower = scripted(['BTCUSDT'], {
      event: (e) => {
        if (e.type === 'markPrice') throw new Error(`boom at ${e.mark.markPrice}`);
      },
    });
    const w = await strategyWorld(thrower);
    const err = await w.setMark('BTCUSDT', '50100').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorldStrategyError);
    expect((err as WorldStrategyError).errors.map((e) => e.type)).toEqual(['strategyError']);
    expect((err as Error).message).toMatch(/^1 strategy error\(s\) while the test ran; first: \[s\] onEvent\(markPrice\): boom at 50100 \(at .*world\.test\.ts:\d+:\d+\)\)\. A test that expects strategy errors passes \{ allowStrategyErrors: true \}/);
    // The stack points at the strategy's code, where a test runner shows it.
    expect((err as Error).stack?.split('\n')[1]).toMatch(/world\.test\.ts:\d+:\d+/);
    // Reported once: the next call fails only for new errors.
    await w.advance(10);
    await expect(w.setMark('BTCUSDT', '50200')).rejects.toThrow('boom at 50200');
    await w.stop();

    const allowed = await strategyWorld(thrower, {}, { allowStrategyErrors: true });
    await allowed.setMark('BTCUSDT', '50100');
    expect(allowed.strategyErrors().map((e) => `${e.where}: ${e.message}`)).toEqual(['onEvent(markPrice): boom at 50100']);
    await allowed.stop();
  });

  it('an intent denied by the risk engine or rejected by the venue fails the world method that ran it, in one line; allowRefusals lets a test read them', async () => {
    // Every mark: a bid below the minimum notional (denied) and a reduce-only sell with no position (the venue rejects it).
    const refused = scripted(['BTCUSDT'], {
      event: (e) =>
        e.type === 'markPrice'
          ? [
              { kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '4000', quantity: '0.001' },
              { kind: 'place', symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '60000', quantity: '0.001', reduceOnly: true },
            ]
          : [],
    });
    const w = await strategyWorld(refused);
    const err = await w.setMark('BTCUSDT', '50100').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorldRefusalError);
    expect((err as WorldRefusalError).refusals.map((e) => e.type)).toEqual(['denial', 'rejection']);
    expect((err as Error).message).toBe(
      '2 intent(s) refused while the test ran (1 denied by the risk engine, 1 rejected by the venue); first: [s] denied by the risk engine, MIN_NOTIONAL: order notional 4 (price 4000 x quantity 0.001) is below the minimum notional 5 of BTCUSDT; intent {"kind":"place","symbol":"BTCUSDT","side":"BUY","type":"LIMIT","price":"4000","quantity":"0.001"}. A test that expects refusals passes { allowRefusals: true } and reads w.refusals()',
    );
    // Reported once: the next call fails for the new refusals only.
    await w.advance(10);
    const again = await w.setMark('BTCUSDT', '50200').catch((e: unknown) => e);
    expect((again as WorldRefusalError).refusals).toHaveLength(2);
    expect((again as Error).message).toMatch(/^2 intent\(s\) refused while the test ran/);
    await w.stop();

    const allowed = await strategyWorld(refused, {}, { allowRefusals: true });
    await allowed.setMark('BTCUSDT', '50100');
    expect(allowed.refusals().map((e) => (e.type === 'order' ? `order ${e.executionType}` : `${e.type} ${e.code}`))).toEqual(['denial MIN_NOTIONAL', `rejection 30004`]);
    await allowed.stop();
  });

  it('a makerOnly order the venue ends REJECTED on arrival (it would have taken liquidity) fails the world like a refusal; allowRefusals lets a test read it', async () => {
    // Every mark: a makerOnly bid at the best ask another user rests (it would take, so the venue ends it REJECTED, no error code).
    const crossing = scripted(['BTCUSDT'], {
      event: (e) => (e.type === 'markPrice' ? [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50100', quantity: '0.01', makerOnly: true }] : []),
    });
    const w = await strategyWorld(crossing);
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50100', quantity: '1', timeInForce: 'GTC' });
    const err = await w.setMark('BTCUSDT', '50050').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorldRefusalError);
    const refusals = (err as WorldRefusalError).refusals;
    expect(refusals.map((e) => (e.type === 'order' ? `${e.strategyId} ${e.executionType} ${e.order.side} ${e.order.price}` : e.type))).toEqual(['s REJECTED BUY 50100']);
    expect(w.bot.stats.ordersRejected).toBe(1);
    const cid = refusals[0].type === 'order' ? refusals[0].order.clientOrderId : '';
    expect((err as Error).message).toBe(
      `1 intent(s) refused while the test ran (0 denied by the risk engine, 0 rejected by the venue, 1 rejected on arrival); first: [s] rejected on arrival: makerOnly order would have taken liquidity; order {"clientOrderId":"${cid}","symbol":"BTCUSDT","side":"BUY","type":"LIMIT","price":"50100","quantity":"0.01","makerOnly":true}. A test that expects refusals passes { allowRefusals: true } and reads w.refusals()`,
    );
    await w.stop();

    const allowed = await strategyWorld(crossing, {}, { allowRefusals: true });
    allowed.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50100', quantity: '1', timeInForce: 'GTC' });
    await allowed.setMark('BTCUSDT', '50050');
    await allowed.setMark('BTCUSDT', '50060');
    expect(allowed.refusals().map((e) => (e.type === 'order' ? `order ${e.executionType}` : e.type))).toEqual(['order REJECTED', 'order REJECTED']);
    expect(allowed.openOrders()).toEqual([]);
    await allowed.stop();
  });

  it('an onStart that throws fails the world as it starts', async () => {
    const def = scripted(['BTCUSDT'], {
      start: () => {
        throw new Error('no start');
      },
    });
    await expect(strategyWorld(def)).rejects.toThrow(/first: \[s\] onStart: no start/);
  });

  it('a create() that throws rejects the world with a StrategyCreateError, exported for tests to expect', async () => {
    const def = defineStrategy({
      name: 'broken',
      params: params({ symbol: param.string({ default: 'BTCUSDT' }) }),
      symbols: (p) => [p.symbol],
      create: (): Strategy => {
        throw new Error('no create');
      },
    });
    const err = await strategyWorld(def).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StrategyCreateError);
    expect((err as StrategyCreateError).strategyId).toBe('s');
    expect((err as Error).message).toMatch(/create\(\): no create/);
  });
});
