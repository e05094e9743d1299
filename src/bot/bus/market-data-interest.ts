/**
 * Whether a market-data event of a type has anyone to go to: a strategy that handles it, or a bus
 * subscriber other than the bot's own dispatcher (metrics, a user's `bus.on(type)`). When not, the
 * bot updates its state cache and publishes nothing.
 */
import { MARKET_DATA_TYPES, type MarketDataType } from '../strategy/api';
import type { EventBus } from './event-bus';
import type { BotEventType } from './events';

export class MarketDataInterest {
  /** Market-data event types at least one strategy handles. */
  private readonly strategies = new Set<BotEventType>();
  /** `wants` of each market data type, as of a handlers version and a count of strategy market data types. */
  private readonly wanted: Record<MarketDataType, boolean> & { version: number; strategies: number } = { version: -1, strategies: -1, trade: false, markPrice: false, depth: false, ticker: false };

  constructor(
    private readonly bus: EventBus,
    /** The bus handlers of all types that are the bot's own (its dispatcher to the strategies). */
    private readonly ownHandlers: number,
  ) {}

  /** Types a strategy handles. */
  addStrategy(types: Iterable<BotEventType>): void {
    for (const t of types) this.strategies.add(t);
  }

  wants(type: MarketDataType): boolean {
    // Asked per recorded event by a backtest: worked out again only when a handler or a strategy's market data changed.
    const c = this.wanted;
    if (c.version !== this.bus.handlersVersion || c.strategies !== this.strategies.size) {
      c.version = this.bus.handlersVersion;
      c.strategies = this.strategies.size;
      for (const t of MARKET_DATA_TYPES) c[t] = this.strategies.has(t) || this.bus.listenerCount(t) > this.ownHandlers;
    }
    return c[type];
  }
}
