/**
 * clientOrderIds that say which strategy an order belongs to: `<strategyId>-<run><seq>`, at most
 * 36 characters of [A-Za-z0-9_-] (PROTOCOL.md). The run part (the start time in milliseconds, base
 * 36, 7 characters: it repeats after about 2.5 years) keeps ids unique across restarts without
 * persisting a counter; brackets add a one-letter suffix. 16 + 1 + 7 + seq + 1 leaves the
 * sequence 11 characters. Seconds were not enough: a bot restarted within the same second
 * reused the ids of the orders it had just adopted (found by test/bot/e2e/restart.test.ts).
 */
export const STRATEGY_ID_PATTERN = /^[A-Za-z0-9_]{1,16}$/;

export class ClientIdAllocator {
  private seq = 0;
  private readonly run: string;
  private readonly known = new Set<string>();

  constructor(startTime: number) {
    this.run = Math.floor(startTime).toString(36).slice(-7);
  }

  /** Registers a strategy id; refuses ids that could not be told apart in a clientOrderId. */
  register(strategyId: string): void {
    if (!STRATEGY_ID_PATTERN.test(strategyId)) {
      throw new Error(`strategy id '${strategyId}' must be 1..16 characters of letters, digits or _`);
    }
    if (this.known.has(strategyId)) throw new Error(`strategy id '${strategyId}' is used twice`);
    this.known.add(strategyId);
  }

  next(strategyId: string): string {
    this.seq++;
    return `${strategyId}-${this.run}${this.seq.toString(36)}`;
  }

  /** The strategy an order belongs to, by its clientOrderId; undefined when it is not ours. */
  strategyOf(clientOrderId: string): string | undefined {
    const dash = clientOrderId.indexOf('-');
    if (dash <= 0) return undefined;
    const sid = clientOrderId.slice(0, dash);
    return this.known.has(sid) ? sid : undefined;
  }
}
