/**
 * An operator's controls of one strategy (src/bot/strategy/controls.ts) on a bot over the
 * in-process engine: a paused strategy hears its own fills but no market data or timers, its
 * placements are denied with STRATEGY_PAUSED while its cancels go out, resume restores it, and a
 * strategy stopped for its errors is refused with the reason.
 */
import type { BotEvent } from '../../src/bot/bus/events';
import { StrategyControlError } from '../../src/bot/strategy/controls';
import type { StrategyContext } from '../../src/bot/strategy/api';
import type { Intent, PlaceIntent } from '../../src/bot/strategy/intents';
import { botWorld, scripted } from './harness';

const bid = (price: string): PlaceIntent => ({ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, quantity: '0.01', timeInForce: 'GTC' });
const mark = (time: number): BotEvent => ({ type: 'markPrice', time, symbol: 'BTCUSDT', mark: { markPrice: '50000', indexPrice: '50000', fundingRate: '0', nextFundingTime: 0 } });

describe('pause, resume and cancel of one strategy', () => {
  it('a paused strategy keeps its bookkeeping, gets no market data, and may only cancel', async () => {
    const seen: string[] = [];
    let ctx: StrategyContext | undefined;
    const def = scripted(['BTCUSDT'], {
      start: (c) => {
        ctx = c;
        return [bid('49990')];
      },
      event: (e) => {
        seen.push(e.type);
      },
    });
    const other = scripted(['BTCUSDT'], { event: () => undefined });
    const w = await botWorld(
      [
        { id: 'mm', definition: def, params: {} },
        { id: 'o', definition: other, params: {} },
      ],
      { allowRefusals: true },
    );
    expect((await w.bot.control('mm', 'pause', 'by a test')).status).toBe('paused');
    expect(w.bot.strategyHealth().find((h) => h.id === 'mm')?.paused).toBe('by a test');
    seen.length = 0;
    w.bot.bus.publish(mark(w.clock.now()));
    expect(seen).not.toContain('markPrice');
    // Its resting bid fills while paused: it hears of it.
    w.engine.placeOrder('other', { symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    w.venue.pump();
    await w.settle();
    expect(seen).toContain('fill');

    const denied: string[] = [];
    w.bot.bus.subscribe('denial', (e) => denied.push(`${e.strategyId} ${e.code}`));
    const emit = (i: Intent): void => ctx?.emit(i);
    emit(bid('49980'));
    expect(denied).toEqual(['mm STRATEGY_PAUSED']);
    await w.settle();
    expect(w.bot.tracker.live('mm')).toHaveLength(0);
    // A cancel-all still goes out (nothing to cancel here, and nothing is denied).
    emit({ kind: 'cancelAll' });
    expect(denied).toHaveLength(1);

    await expect(w.bot.control('mm', 'pause', 'again')).rejects.toThrow('strategy mm is already paused (by a test)');
    expect((await w.bot.control('mm', 'resume', 'by a test')).status).toBe('running');
    await expect(w.bot.control('mm', 'resume', 'again')).rejects.toThrow('strategy mm is not paused');
    seen.length = 0;
    w.bot.bus.publish(mark(w.clock.now()));
    expect(seen).toContain('markPrice');
    emit(bid('49980'));
    await w.settle();
    expect(w.bot.tracker.live('mm')).toHaveLength(1);

    const r = await w.bot.control('mm', 'cancelOrders', 'by a test');
    expect(r).toEqual({ strategyId: 'mm', action: 'cancelOrders', status: 'running', cancelled: 1 });
    await w.settle();
    expect(w.bot.tracker.live('mm')).toHaveLength(0);
    await expect(w.bot.control('x', 'pause', '')).rejects.toThrow("no strategy 'x' in this bot; its strategies are mm, o");
  });

  it('refuses to act on a strategy stopped for its errors, and on a bot that is not running', async () => {
    const thrower = scripted(['BTCUSDT'], {
      event: (e) => {
        if (e.type === 'markPrice') throw new Error('boom');
      },
    });
    const w = await botWorld([{ id: 't', definition: thrower, params: {} }]);
    for (let i = 0; i < 10; i++) w.bot.bus.publish(mark(w.clock.now()));
    const err = await w.bot.control('t', 'pause', '').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StrategyControlError);
    expect((err as StrategyControlError).code).toBe('STRATEGY_STOPPED');
    expect((err as Error).message).toMatch(/^strategy t was stopped for its errors \(10 errors within 60 s; last in onEvent\(markPrice\): boom\); it gets no events and has no orders, so it cannot be paused\. Restart the bot to run it again$/);
    await w.bot.stop();
    await expect(w.bot.control('t', 'resume', '')).rejects.toThrow('the bot is not running, so strategy t cannot be changed');
  });
});
