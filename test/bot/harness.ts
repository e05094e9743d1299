import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { Bot, type StrategySlot } from '../../src/bot/bot';
import type { BotEvent } from '../../src/bot/bus/events';
import type { RiskLimits } from '../../src/bot/risk/limits';
import { defineStrategy, type Strategy, type StrategyContext } from '../../src/bot/strategy/api';
import { SimVenue } from '../../src/bot/venue/sim-venue';
import type { Venue } from '../../src/bot/venue/venue';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../../src/exchange/engine/symbols';

export const silentLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export interface BotWorld {
  engine: Engine;
  clock: ManualClock;
  scheduler: ManualScheduler;
  venue: SimVenue;
  bot: Bot;
  events: BotEvent[];
  /** Lets the promises of the bot's venue calls run. */
  settle(): Promise<void>;
}

/** A strategy driven by a test: `onEvent` is whatever the test sets. */
export function scripted(symbols: string[], handlers: { start?: (ctx: StrategyContext) => ReturnType<NonNullable<Strategy['onStart']>>; event?: (e: BotEvent, ctx: StrategyContext) => ReturnType<NonNullable<Strategy['onEvent']>> }) {
  return defineStrategy<Record<string, unknown>>({
    name: 'scripted',
    symbols: () => symbols,
    params: (raw) => raw,
    create: (ctx) => ({
      onStart: handlers.start ? () => handlers.start?.(ctx) : undefined,
      onEvent: handlers.event ? (e) => handlers.event?.(e, ctx) : undefined,
    }),
  });
}

export async function botWorld(slots: StrategySlot[], risk: RiskLimits = {}, wrap?: (v: SimVenue) => Venue, waitIdle = true): Promise<BotWorld> {
  const clock = new ManualClock(1_700_000_000_000);
  const scheduler = new ManualScheduler(clock);
  const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '1000000' });
  engine.createAccount({ userId: 'bot', balance: '100000' });
  engine.createAccount({ userId: 'other', balance: '100000' });
  const venue = new SimVenue({ engine, userId: 'bot', clock });
  const bot = new Bot({ venue: wrap ? wrap(venue) : venue, strategies: slots, risk, clock, scheduler, logger: silentLogger });
  const events: BotEvent[] = [];
  bot.bus.subscribeAll((e) => events.push(e));
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      await bot.idle();
      await new Promise((r) => setImmediate(r));
    }
  };
  await bot.start();
  if (waitIdle) await settle();
  else for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return { engine, clock, scheduler, venue, bot, events, settle };
}
