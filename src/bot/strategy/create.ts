/**
 * Calling a definition's `create()`: where a strategy's own code first runs. What it throws (or a
 * missing return) is a StrategyCreateError naming the strategy, its module and `create()`, for the
 * bot's start and for `perpkit run --check`, which constructs every strategy without a venue.
 */
import type { Clock } from '../../core/clock';
import { StateCache } from '../state/cache';
import type { AnyStrategyDefinition, GridRounding, Market, Strategy, StrategyContext, StrategyDefinition, StrategyLogger } from './api';
import { symbolAccess } from './context';
import { StrategyCreateError } from './errors';
import { StrategyHooks, strategyProblems } from './hooks';
import { checkParams } from './params-check';

/** `create(ctx)` of one strategy; throws StrategyCreateError for what it throws or a missing strategy. */
export function createStrategy(id: string, module: string | undefined, definition: StrategyDefinition<unknown>, ctx: StrategyContext<unknown>): Strategy {
  let strategy: unknown;
  try {
    strategy = definition.create(ctx);
  } catch (e) {
    throw new StrategyCreateError(id, module, e);
  }
  if (typeof strategy !== 'object' || strategy === null) {
    throw new StrategyCreateError(id, module, new Error(`create() returned ${strategy === null ? 'null' : typeof strategy}; it must return the strategy's hooks, e.g. { onMark(e) { ... } }`));
  }
  const problems = strategyProblems(strategy as Record<string, unknown>);
  if (problems.length > 0) throw new StrategyCreateError(id, module, new Error(`create() returned a strategy whose ${problems.join('; ')}`));
  return strategy as Strategy;
}

/** Thrown by a dry context where the venue's data would be needed (symbol specs). */
export class VenueDataNeeded extends Error {
  constructor(what: string) {
    super(`${what} comes from the venue, which a check does not contact`);
    this.name = 'VenueDataNeeded';
  }
}

export interface SlotToCreate {
  id: string;
  definition: AnyStrategyDefinition;
  params: Record<string, unknown>;
  module?: string;
}

/**
 * Constructs every strategy as the bot's start would, with no venue: the context has the
 * parameters, the clock and the logger; an empty state; timers and intents are ignored; symbol
 * specs are unknown (a `create()` that reads them throws VenueDataNeeded, which is not a failure:
 * the ids of those strategies are returned, they are checked at start). Nothing is sent anywhere;
 * the strategies' own code runs, as it would at start. Throws StrategyCreateError.
 */
export function dryCreateStrategies(slots: readonly SlotToCreate[], clock: Clock, log: StrategyLogger): { needVenue: string[] } {
  const needVenue: string[] = [];
  for (const slot of slots) {
    const def = slot.definition as unknown as StrategyDefinition<unknown>;
    const params = checkParams(slot.definition, slot.params).params;
    const symbols = def.symbols(params);
    const state = new StateCache();
    const access = symbolAccess(slot.id, symbols, new Map(), state);
    const unknownGrid = (which: string): GridRounding => ({
      get grid(): never {
        throw new VenueDataNeeded(`the ${which} grid`);
      },
      round: () => {
        throw new VenueDataNeeded(`the ${which} grid`);
      },
    });
    const ctx: StrategyContext<unknown> = {
      id: slot.id,
      params: params as Readonly<unknown>,
      clock,
      log,
      state,
      symbols: new Map(),
      ...access,
      market: (): Market => {
        throw new VenueDataNeeded('a symbol spec');
      },
      price: unknownGrid('price'),
      quantity: unknownGrid('quantity'),
      myOrders: () => [],
      emit: () => undefined,
      every: () => undefined,
      cancelTimer: () => undefined,
      halt: () => undefined,
    };
    let strategy: Strategy;
    try {
      strategy = createStrategy(slot.id, slot.module, def, ctx);
    } catch (e) {
      if (e instanceof StrategyCreateError && e.cause instanceof VenueDataNeeded) {
        needVenue.push(slot.id);
        continue;
      }
      throw e;
    }
    // Bar builders made as at start.
    new StrategyHooks(strategy, new Set(symbols));
  }
  return { needVenue };
}
