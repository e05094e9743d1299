/**
 * A strategy under test, in-process: the matching engine as the venue (SimVenue, no network), a
 * virtual clock and scheduler, and the bot runtime with its risk engine and executor. Tests move
 * the market, advance time and assert on the orders and fills the strategy made.
 */
import { ManualClock, ManualScheduler } from '../core/clock';
import { Bot, type StrategySlot } from '../bot/bot';
import type { BotEvent, BotEventOf, Fill } from '../bot/bus/events';
import { isLateAmend, isRejectedOnArrival, REJECTED_ON_ARRIVAL } from '../bot/execution/refusals';
import { countsAsDenial } from '../bot/strategy/controls';
import { strategyErrorLine, strategyFrame } from '../bot/strategy/errors';
import type { RiskLimits } from '../bot/risk/limits';
import { defineStrategy, type AnyStrategyDefinition, type Strategy, type StrategyContext } from '../bot/strategy/api';
import { SimVenue } from '../bot/venue/sim-venue';
import type { Venue } from '../bot/venue/venue';
import { Engine } from '../exchange/engine/engine';
import { DEFAULT_SYMBOLS } from '../exchange/engine/symbols';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER } from '../exchange/engine/market/tape-sink';
import type { OrderRecord, PositionRecord } from '../protocol/records';

/** A logger that drops everything (the bot's logger in tests). */
export const silentLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** The time a world starts at (2023-11-14T22:13:20Z). */
export const WORLD_START = 1_700_000_000_000;
/** The account the bot trades as, and the one other market participants use. */
export const BOT_USER = 'bot';
export const OTHER_USER = 'other';

export interface BotWorld {
  /** The matching engine: the bot trades as 'bot', anyone else as 'other'. */
  engine: Engine;
  clock: ManualClock;
  scheduler: ManualScheduler;
  venue: SimVenue;
  bot: Bot;
  /** Every event the bot's bus carried, in order. */
  events: BotEvent[];
  /** Lets the promises of the bot's venue calls run. */
  settle(): Promise<void>;
  /** Sets a symbol's mark price, delivers the engine's events to the bot and settles. */
  setMark(symbol: string, markPrice: string): Promise<void>;
  /** Advances the virtual clock (firing the strategy's timers) and settles. */
  advance(ms: number): Promise<void>;
  /** Someone else trades at market against the book (the bot's resting orders fill), then settles. */
  marketOrder(symbol: string, side: 'BUY' | 'SELL', quantity: string): Promise<void>;
  /**
   * A public trade prints at `price` for `quantity` (the taker buying, or selling with `side`
   * 'SELL'), then settles: the bot's `onTrade` and bars see it, and its resting orders the price
   * reaches or passes fill, as a backtest re-enacts a recorded trade (the tape maker joins the back
   * of the queue at `price`, the tape taker sweeps to it, the maker's rest is cancelled). Does not
   * move the mark. Throws when the engine refuses it (a price off the tick grid, a quantity
   * below the minimum).
   */
  trade(symbol: string, price: string, quantity: string, side?: 'BUY' | 'SELL'): Promise<void>;
  /** The bot's open orders on the venue (optionally of one symbol). */
  openOrders(symbol?: string): OrderRecord[];
  /** The bot's fills, in order, from the bus. */
  fills(): Fill[];
  /** The bot's positions on the venue. */
  positions(symbol?: string): PositionRecord[];
  /** Stops the bot (strategies' onStop, orders left as they are). */
  stop(): Promise<void>;
  /** The strategies' errors so far (throws and refused intents), in order. */
  strategyErrors(): Array<BotEventOf<'strategyError'>>;
  /** The strategies' intents refused so far (denied by the risk engine, rejected by the venue, orders ended REJECTED on arrival), in order: what fails a world without `allowRefusals`. */
  refusals(): WorldRefusal[];
}

/**
 * An intent of a strategy that did not go out, as a world counts it: denied by the risk engine
 * (not the bot's own stop, `BOT_STOPPING`), rejected by the venue (not an amend that came after
 * its order had ended, a race the bot counts apart and logs at info), or an order the venue took
 * and ended REJECTED on arrival (a makerOnly order that would have taken liquidity: no error code,
 * the `order` event the bot counts in `stats.ordersRejected`).
 */
export type WorldRefusal = BotEventOf<'denial'> | BotEventOf<'rejection'> | BotEventOf<'order'>;

function isWorldRefusal(e: BotEvent): e is WorldRefusal {
  return (e.type === 'denial' && countsAsDenial(e.code)) || (e.type === 'rejection' && !isLateAmend(e)) || (e.type === 'order' && e.strategyId !== undefined && isRejectedOnArrival(e));
}

/** One refusal in words: who refused it, its code and reason, and the intent (or the order, for one rejected on arrival). */
function refusalText(e: WorldRefusal): string {
  if (e.type === 'denial') return `[${e.strategyId}] denied by the risk engine, ${e.code}: ${e.reason}; intent ${JSON.stringify(e.intent)}`;
  if (e.type === 'rejection') return `[${e.strategyId}] rejected by the venue, ${e.code}: ${e.message}; intent ${JSON.stringify(e.intent)}`;
  const o = e.order;
  const order = { clientOrderId: o.clientOrderId, symbol: o.symbol, side: o.side, type: o.type, price: o.price, quantity: o.quantity, makerOnly: o.makerOnly };
  return `[${e.strategyId ?? '?'}] ${REJECTED_ON_ARRIVAL}; order ${JSON.stringify(order)}`;
}

/**
 * What a world's methods reject with when, since the last call, an intent of a strategy was
 * denied by the risk engine or rejected by the venue, or its order ended REJECTED on arrival
 * (unless `allowRefusals`): a strategy whose every order is refused trades nothing, and its test
 * must not pass without saying so.
 */
export class WorldRefusalError extends Error {
  readonly code = 'REFUSALS';

  constructor(readonly refusals: readonly WorldRefusal[]) {
    const denied = refusals.filter((e) => e.type === 'denial').length;
    const rejected = refusals.filter((e) => e.type === 'rejection').length;
    const onArrival = refusals.length - denied - rejected;
    const counts = `${denied} denied by the risk engine, ${rejected} rejected by the venue${onArrival > 0 ? `, ${onArrival} rejected on arrival` : ''}`;
    super(`${refusals.length} intent(s) refused while the test ran (${counts}); first: ${refusalText(refusals[0])}. A test that expects refusals passes { allowRefusals: true } and reads w.refusals()`);
    this.name = 'WorldRefusalError';
  }
}

/** An error of a strategy or of the bot's own pipeline, as a world reports it. */
export type WorldErrorEvent = BotEventOf<'strategyError'> | BotEventOf<'botError'>;

/**
 * What a world's methods reject with when, since the last call, a strategy threw or returned a
 * malformed intent (unless `allowStrategyErrors`), or the bot's own pipeline threw (always): a
 * test never passes over an error it did not look at. Its stack is the first error's.
 */
export class WorldStrategyError extends Error {
  readonly code = 'STRATEGY_ERRORS';

  constructor(readonly errors: readonly WorldErrorEvent[]) {
    const first = errors[0];
    const line = first.type === 'strategyError' ? strategyErrorLine({ ...first, at: strategyFrame(first.stack, undefined) }) : `bot pipeline, ${first.context}: ${first.message}`;
    const strategy = errors.filter((e) => e.type === 'strategyError').length;
    const bot = errors.length - strategy;
    const counts = [strategy > 0 ? `${strategy} strategy error(s)` : '', bot > 0 ? `${bot} error(s) of the bot's own pipeline` : ''].filter((x) => x !== '').join(' and ');
    super(`${counts} while the test ran; first: ${line}. A test that expects strategy errors passes { allowStrategyErrors: true } and reads w.strategyErrors()`);
    this.name = 'WorldStrategyError';
    const frames = first.stack.split('\n').filter((l) => l.trimStart().startsWith('at '));
    if (frames.length > 0) this.stack = `${this.name}: ${this.message}\n${frames.join('\n')}`;
  }
}

export interface BotWorldOptions {
  /** Risk limits of the bot (docs/risk.md); none by default. */
  risk?: RiskLimits;
  /** The bot account's balance in USDT (default 100000). */
  balance?: string;
  /** Wraps the venue the bot sees (fault injection, latency). */
  wrap?: (v: SimVenue) => Venue;
  /** Waits for the strategies' first intents to settle before returning (default true). */
  waitIdle?: boolean;
  /**
   * Strategy errors (a throw, a malformed intent) do not fail the world's methods: for tests that
   * assert on them (`w.strategyErrors()`). By default the first method after one rejects with a
   * WorldStrategyError. Errors of the bot's own pipeline fail it either way.
   */
  allowStrategyErrors?: boolean;
  /**
   * Intents denied by the risk engine or rejected by the venue, and orders ended REJECTED on
   * arrival (makerOnly orders that would have taken liquidity), do not fail the world's methods:
   * for tests that expect them (`w.refusals()`). By default the first method after one rejects
   * with a WorldRefusalError.
   */
  allowRefusals?: boolean;
}

/** A strategy driven by a test: `onStart` and `onEvent` are whatever the test sets. */
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

/**
 * Starts a bot running `slots` against an in-process engine (mark 50000 on the default symbols,
 * the clock at WORLD_START). `botWorld(slots, risk, wrap, waitIdle)` is the older positional form.
 */
export async function botWorld(slots: StrategySlot[], riskOrOptions: RiskLimits | BotWorldOptions = {}, wrap?: (v: SimVenue) => Venue, waitIdle = true): Promise<BotWorld> {
  const o: BotWorldOptions = isOptions(riskOrOptions) ? riskOrOptions : { risk: riskOrOptions, wrap, waitIdle };
  const clock = new ManualClock(WORLD_START);
  const scheduler = new ManualScheduler(clock);
  const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '1000000' });
  engine.createAccount({ userId: BOT_USER, balance: o.balance ?? '100000' });
  engine.createAccount({ userId: OTHER_USER, balance: '100000' });
  // The two sides of w.trade(): the rest of the market, never short of margin (as in a backtest).
  engine.createAccount({ userId: TAPE_MAKER, balance: TAPE_BALANCE });
  engine.createAccount({ userId: TAPE_TAKER, balance: TAPE_BALANCE });
  let trades = 0;
  const venue = new SimVenue({ engine, userId: BOT_USER, clock });
  const bot = new Bot({ venue: o.wrap ? o.wrap(venue) : venue, strategies: slots, risk: o.risk ?? {}, clock, scheduler, logger: silentLogger });
  const events: BotEvent[] = [];
  bot.bus.subscribeAll((e) => events.push(e));
  /** Events up to this index have been looked at for errors, and up to this one for refusals. */
  let checked = 0;
  let refusalsChecked = 0;
  const check = (): void => {
    const found: WorldErrorEvent[] = [];
    for (; checked < events.length; checked++) {
      const e = events[checked];
      if (e.type === 'botError' || (e.type === 'strategyError' && o.allowStrategyErrors !== true)) found.push(e);
    }
    // Errors first: the refusals since the last call stay to be raised by the next one.
    if (found.length > 0) throw new WorldStrategyError(found);
    if (o.allowRefusals === true) return;
    const refused: WorldRefusal[] = [];
    for (; refusalsChecked < events.length; refusalsChecked++) {
      const e = events[refusalsChecked];
      if (isWorldRefusal(e)) refused.push(e);
    }
    if (refused.length > 0) throw new WorldRefusalError(refused);
  };
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) {
      await bot.idle();
      await new Promise((r) => setImmediate(r));
    }
    check();
  };
  await bot.start();
  if (o.waitIdle ?? true) await settle();
  else {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    check();
  }
  return {
    engine,
    clock,
    scheduler,
    venue,
    bot,
    events,
    settle,
    async setMark(symbol, markPrice) {
      engine.setMarkPrice(symbol, markPrice);
      venue.pump();
      await settle();
    },
    async advance(ms) {
      scheduler.advance(ms);
      await settle();
    },
    async marketOrder(symbol, side, quantity) {
      engine.placeOrder(OTHER_USER, { symbol, type: 'MARKET', side, quantity });
      venue.pump();
      await settle();
    },
    async trade(symbol, price, quantity, side = 'BUY') {
      const n = ++trades;
      let refused: unknown;
      try {
        engine.placeOrder(TAPE_MAKER, { symbol, type: 'LIMIT', side: side === 'BUY' ? 'SELL' : 'BUY', price, quantity, timeInForce: 'GTC', clientOrderId: `world-trade-m-${n}` });
        engine.placeOrder(TAPE_TAKER, { symbol, type: 'LIMIT', side, price, quantity, timeInForce: 'IOC', clientOrderId: `world-trade-t-${n}` });
      } catch (e) {
        refused = e;
      }
      // What the taker did not take of the maker's order leaves the book: it was this one trade.
      if (engine.currentOrders(TAPE_MAKER, {}).total > 0) engine.cancelAll(TAPE_MAKER, {});
      venue.pump();
      if (refused !== undefined) throw new Error(`trade(${symbol}, ${price}, ${quantity}, ${side}): the engine refused it: ${refused instanceof Error ? refused.message : String(refused)}`);
      await settle();
    },
    openOrders: (symbol) => engine.currentOrders(BOT_USER, symbol === undefined ? {} : { symbol }).list,
    fills: () => events.flatMap((e) => (e.type === 'fill' ? [e.fill] : [])),
    positions: (symbol) => engine.positions(BOT_USER, symbol),
    async stop() {
      await bot.stop();
      check();
    },
    strategyErrors: () => events.flatMap((e) => (e.type === 'strategyError' ? [e] : [])),
    refusals: () => events.filter(isWorldRefusal),
  };
}

/** One strategy with its parameters (id 's'), as `botWorld` runs it. */
export function strategyWorld(definition: AnyStrategyDefinition, params: Record<string, unknown> = {}, options: BotWorldOptions = {}): Promise<BotWorld> {
  return botWorld([{ id: 's', definition, params }], options);
}

function isOptions(v: RiskLimits | BotWorldOptions): v is BotWorldOptions {
  return ['risk', 'balance', 'wrap', 'waitIdle', 'allowStrategyErrors', 'allowRefusals'].some((k) => k in v);
}
