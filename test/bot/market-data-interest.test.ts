/** Strategies choose their market data (`marketData`); nothing is published for nobody. */
import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { Bot } from '../../src/bot/bot';
import type { BotEvent } from '../../src/bot/bus/events';
import { defineStrategy, type MarketDataType } from '../../src/bot/strategy/api';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';
import { silentLogger } from './harness';

function recorder(seen: string[], marketData?: readonly MarketDataType[]) {
  return defineStrategy<Record<string, unknown>>({
    name: 'recorder',
    symbols: () => ['BTCUSDT'],
    params: (raw) => raw,
    ...(marketData ? { marketData: () => marketData } : {}),
    create: () => ({
      onEvent: (e: BotEvent) => {
        seen.push(e.type);
      },
    }),
  });
}

async function world(slots: ConstructorParameters<typeof Bot>[0]['strategies']) {
  const clock = new ManualClock(1_700_000_000_000);
  const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '1000000' });
  for (const u of ['bot', 'x', 'y']) engine.createAccount({ userId: u, balance: '100000' });
  const venue = new SimVenue({ engine, userId: 'bot', clock });
  const bot = new Bot({ venue, strategies: slots, risk: {}, clock, scheduler: new ManualScheduler(clock), logger: silentLogger });
  await bot.start();
  await bot.idle();
  /** x sells to y at `price`: one public trade and depth changes; then a mark. */
  const trade = (price: string): void => {
    engine.placeOrder('x', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price, quantity: '0.01' });
    engine.placeOrder('y', { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price, quantity: '0.01' });
    engine.setMarkPrice('BTCUSDT', price);
    venue.pump();
  };
  return { bot, trade };
}

const market = (types: string[]): string[] => types.filter((t) => t === 'trade' || t === 'markPrice' || t === 'depth' || t === 'ticker');

describe('market-data interest', () => {
  it('a strategy that asks for marks gets marks only; trades are not published, yet the cache follows them', async () => {
    const seen: string[] = [];
    const { bot, trade } = await world([{ id: 'm', definition: recorder(seen, ['markPrice']), params: {} }]);
    expect(bot.wants('trade')).toBe(false);
    expect(bot.wants('depth')).toBe(false);
    expect(bot.wants('markPrice')).toBe(true);
    const published: string[] = [];
    const stop = bot.bus.subscribe('markPrice', (e) => published.push(e.type));
    trade('50010');
    expect(market(seen)).toEqual(['markPrice']);
    expect(bot.cache.lastPrice('BTCUSDT')).toBe('50010');
    expect(published).toEqual(['markPrice']);
    // A bus subscriber for trades is someone who wants them: they are published to it, and still
    // not handed to the strategy that did not ask for them.
    const trades: string[] = [];
    const stopTrades = bot.bus.subscribe('trade', (e) => trades.push(e.trade.price));
    expect(bot.wants('trade')).toBe(true);
    trade('50020');
    expect(trades).toEqual(['50020']);
    expect(market(seen)).toEqual(['markPrice', 'markPrice']);
    stopTrades();
    stop();
    expect(bot.wants('trade')).toBe(false);
    await bot.stop();
  });

  it('an unknown kind in marketData is refused at start, naming the strategy and the allowed kinds', async () => {
    const bad = recorder([], ['trades' as MarketDataType]);
    await expect(world([{ id: 'typo', definition: bad, params: {} }])).rejects.toThrow("strategy typo: marketData lists 'trades'; each entry must be one of trade, markPrice, depth, ticker");
  });

  it('without `marketData` a strategy gets every kind, and a second strategy only what it asked for', async () => {
    const all: string[] = [];
    const marks: string[] = [];
    const { bot, trade } = await world([
      { id: 'a', definition: recorder(all), params: {} },
      { id: 'b', definition: recorder(marks, ['markPrice']), params: {} },
    ]);
    expect(bot.wants('trade')).toBe(true);
    trade('50010');
    expect(new Set(market(all))).toEqual(new Set(['trade', 'depth', 'markPrice']));
    expect(market(marks)).toEqual(['markPrice']);
    await bot.stop();
  });
});
