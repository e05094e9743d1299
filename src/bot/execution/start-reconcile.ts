/**
 * The start's reconciliation (open orders and positions over REST) must succeed before any
 * strategy trades: orders of an earlier run that it does not adopt would be left beside the new
 * ones, never repriced and never cancelled, while the bot counts only its own. A venue that is busy
 * or briefly unreachable is asked again after growing pauses; a refusal no retry changes
 * (credentials, a key without TRADE permission, a clock outside the receive window) and a venue
 * still failing after the last pause fail the start, with nothing placed.
 */
import { ErrorCodes } from '../../core/errors';
import type { StrategyLogger } from '../strategy/api';
import { venueCodeOf } from './refusals';

/** Pauses between attempts: six attempts over about 15 s. */
export const START_RECONCILE_PAUSES_MS: readonly number[] = [500, 1000, 2000, 4000, 8000];

/** A failed call worth asking again: no venue code (the network), rate limited, busy, internal. */
function transient(e: unknown): boolean {
  const code = venueCodeOf(e);
  return code === undefined || code === ErrorCodes.RATE_LIMITED || code === ErrorCodes.BUSY || code === ErrorCodes.INTERNAL;
}

export async function reconcileAtStart(reconcile: () => Promise<void>, sleep: (ms: number) => Promise<void>, log: StrategyLogger, pauses: readonly number[] = START_RECONCILE_PAUSES_MS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await reconcile();
      return;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const pause = pauses[attempt - 1];
      if (!transient(e) || pause === undefined) {
        throw new Error(`could not reconcile with the venue at start (its open orders and positions), ${attempt === 1 ? 'and asking again would not help' : `${attempt} attempts in all`}: ${why}; nothing was placed`, { cause: e });
      }
      log.warn({ attempt, of: pauses.length + 1, err: why, retryInMs: pause }, 'reconciliation with the venue at start failed: asking again before any strategy trades');
      await sleep(pause);
    }
  }
}
