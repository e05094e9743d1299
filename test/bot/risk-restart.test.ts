/**
 * The loss limits' references across a restart: the bot saves the UTC day's first equity reading
 * and the peak with its state, and a bot started from that state measures from them. They lived
 * in memory only: each restart began a fresh day's loss budget (a probe: REDUCING at a loss of
 * 5.6 USDT, restarted, bought again, REDUCING at 6.3 more, with maxDailyLoss 1).
 */
import { Bot } from '../../src/bot/bot';
import type { BotStateStore, SavedBotState } from '../../src/bot/state/saved-state';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { Dec } from '../../src/core/decimal';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';
import { silentLogger } from '../../src/testing';

class MemoryStore implements BotStateStore {
  state: SavedBotState | undefined;
  load(): Promise<SavedBotState | undefined> {
    return Promise.resolve(this.state);
  }
  save(state: SavedBotState): Promise<void> {
    this.state = JSON.parse(JSON.stringify(state)) as SavedBotState;
    return Promise.resolve();
  }
}

test('the day start and the peak are saved with the state and taken back at start', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
  engine.createAccount({ userId: 'bot', balance: '100000' });
  const store = new MemoryStore();
  const start = async (): Promise<Bot> => {
    const bot = new Bot({ venue: new SimVenue({ engine, userId: 'bot', clock }), strategies: [], risk: { maxDailyLoss: '5' }, clock, scheduler: new ManualScheduler(clock), logger: silentLogger, store });
    await bot.start();
    return bot;
  };
  const first = await start();
  // The bot's first equity reading (it reads equity at marks when loss limits are set).
  first.risk.observeEquity(new Dec('100000'), clock.now());
  await first.stop();
  expect(store.state?.risk).toEqual({ day: Math.floor(clock.now() / 86_400_000), dayStartEquity: '100000', peakEquity: '100000' });
  clock.advance(60_000);
  const second = await start();
  expect(second.risk.memory()).toEqual(store.state?.risk);
  await second.stop();
});
