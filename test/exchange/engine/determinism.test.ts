/** The engine as a whole: the same commands at the same clock readings give the same events. */
import { ManualClock } from '../../../src/core/clock';
import { Engine } from '../../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../../src/exchange/engine/symbols';
import { limit } from './helpers';

describe('determinism', () => {
  function script(): string {
    const clock = new ManualClock(1_700_000_000_000);
    const e = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '1000' });
    const out: unknown[] = [];
    e.createAccount({ userId: 'a', balance: '10000' });
    e.createAccount({ userId: 'b', balance: '10000' });
    e.placeOrder('a', limit('SELL', '50000', '0.1'));
    clock.advance(5);
    e.placeOrder('b', limit('BUY', '50010', '0.15'));
    e.placeStrategy('a', {
      strategyType: 'OTOCO',
      subOrderList: [
        { strategySubId: 1, symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '49900', quantity: '0.1' },
        { strategySubId: 2, symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50500', quantity: '0.1', reduceOnly: true },
        { strategySubId: 3, symbol: 'BTCUSDT', type: 'STOP_MARKET', side: 'SELL', stopPrice: '49000', quantity: '0.1', reduceOnly: true },
      ],
    });
    clock.advance(100);
    e.placeOrder('b', limit('SELL', '49900', '0.3'));
    e.setMarkPrice('BTCUSDT', '48000');
    e.settleFunding('BTCUSDT', '0.0003');
    out.push(e.drain(), e.audit());
    return JSON.stringify(out);
  }

  it('the same commands at the same clock readings give byte-identical events', () => {
    const first = script();
    expect(first.length).toBeGreaterThan(1000);
    expect(script()).toBe(first);
  });
});
