/**
 * The strategies' symbols with no market data (trade, mark price, book, ticker) for longer than
 * marketDataStaleMs: a replay that reached its end, a public stream that went silent while
 * connected. The strategies then see a market that no longer moves: /healthz says degraded, and
 * the log says it once at warn when a symbol goes stale, and at info when its data comes again.
 */
import type { Logger } from 'pino';
import type { Clock } from '../core/clock';
import type { Bot } from '../bot/bot';

export class StaleMarketData {
  /** Symbols whose market data is stale now (said once at warn), with the time of their last event. */
  private readonly staleSymbols = new Map<string, number>();

  constructor(
    private readonly bot: Bot,
    private readonly clock: Clock,
    private readonly limitMs: number,
    private readonly log: Logger,
  ) {}

  /** The symbols stale now, for how long, and the time of their last event. */
  stale(): Array<{ symbol: string; forMs: number; last: number }> {
    if (this.limitMs <= 0) return [];
    const now = this.clock.now();
    const out: Array<{ symbol: string; forMs: number; last: number }> = [];
    for (const [symbol, last] of this.bot.lastMarketData()) if (now - last > this.limitMs) out.push({ symbol, forMs: now - last, last });
    return out;
  }

  /** Says once at warn when a symbol's market data goes stale, and at info when it comes again. */
  check(): void {
    const stale = this.stale();
    for (const x of stale) {
      if (this.staleSymbols.has(x.symbol)) continue;
      this.staleSymbols.set(x.symbol, x.last);
      this.log.warn({ symbol: x.symbol, seconds: Math.round(x.forMs / 1000), marketDataStaleMs: this.limitMs }, `no market data for ${x.symbol} for ${Math.round(x.forMs / 1000)} s (marketDataStaleMs ${this.limitMs}): the strategies see a market that does not move; /healthz says degraded`);
    }
    const last = this.bot.lastMarketData();
    for (const [symbol, before] of this.staleSymbols) {
      if (stale.some((x) => x.symbol === symbol)) continue;
      this.staleSymbols.delete(symbol);
      const at = last.get(symbol) ?? before;
      this.log.info({ symbol, seconds: Math.round((at - before) / 1000) }, `market data for ${symbol} again, after ${Math.round((at - before) / 1000)} s without`);
    }
  }
}
