/**
 * `perpkit/testing`: test a strategy in your own project. It runs against the matching engine
 * in-process (no network, a virtual clock); move the market, advance time, assert on orders and
 * fills. Works with any test runner (node:test, jest, vitest). docs/strategies.md#testing-a-strategy
 */
export { botWorld, strategyWorld, scripted, silentLogger, WORLD_START, BOT_USER, OTHER_USER, WorldStrategyError, WorldRefusalError, type BotWorld, type BotWorldOptions, type WorldErrorEvent, type WorldRefusal } from './world';
export { StrategyCreateError } from '../bot/strategy/errors';
export { Engine } from '../exchange/engine/engine';
export { DEFAULT_SYMBOLS } from '../exchange/engine/symbols';
export { SimVenue } from '../bot/venue/sim-venue';
export { ManualClock, ManualScheduler } from '../core/clock';
