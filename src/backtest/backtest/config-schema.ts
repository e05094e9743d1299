/**
 * The backtest config file (`perpkit backtest`, and `perpkit sweep` with its sweep block),
 * described once: the loader (config.ts) takes its keys, ranges and defaults from here, and
 * schema/backtest.json is generated from it. A new key of the sweep block is a new entry of
 * SWEEP_KEYS (and its reading in config.ts).
 */
import { Type } from '../../core/typebox';
import type { Static } from '@sinclair/typebox';
import { RISK, STRATEGY } from '../../bot/config-schema';
import { c } from '../../core/config-schema';
import { RANKABLE_METRICS } from '../report/metrics';
import { QUEUE_MODELS } from '../../exchange/engine/market/queue';

/** Epoch ms, or an ISO-8601 UTC time ("2024-01-01" or "2024-01-01T00:00:00Z"). */
const time = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$' })], { description });

export const DATA = c.object({
  files: Type.Union([c.string(), c.list(c.string(), { minItems: 1 })], { description: 'Recording files (.jsonl.gz), relative to this file.' }),
  from: time('Start of the replay; the recording start when absent.'),
  to: time('End of the replay; the recording end when absent.'),
  cache: c.bool({ default: true, description: 'Keep a binary cache of the recordings beside them for fast re-runs.' }),
}, { required: ['files'] });

/** One symbol's leverage (the loader reads each entry of `account.leverage` against it). */
export const LEVERAGE = c.int(1, 125);

export const ACCOUNT = c.object({
  balance: c.decimal('nonNegative', { default: '10000', description: 'Starting balance, USDT.' }),
  leverage: Type.Record(Type.String(), LEVERAGE, { description: 'Leverage per symbol.' }),
});

export const FEES = c.object({ maker: c.decimal('signed', { description: 'Maker fee rate (negative: a rebate).' }), taker: c.decimal('signed') }, { description: "Fee rates; the recording's when absent.", required: ['maker', 'taker'] });

/** One latency in ms (the loader reads each constant and each sample against it). */
export const LATENCY_MS = c.int(0, 60_000);
/** A constant latency, or samples drawn uniformly per call (seeded by latency.seed). */
const entryLatency = (description: string, extra: { default?: number } = {}) => Type.Union([c.int(0, 60_000), c.list(LATENCY_MS, { minItems: 1 })], { description, ...extra });

export const LATENCY_SEED = c.int(0, 2 ** 32 - 1, { default: 1, description: 'Seed of the draws from sampled latencies.' });
export const FEED_BASE_MS = c.int(0, 60_000, { default: 0, description: "With feedMs: data, a constant added to the data's latency, ms." });

export const LATENCY = c.object(
  {
    placeMs: entryLatency('One-way delay of a placement, ms, or a list of samples.', { default: 0 }),
    cancelMs: entryLatency('One-way delay of a cancel, ms, or a list of samples; placeMs when absent.'),
    amendMs: entryLatency('One-way delay of an amend, ms, or a list of samples; placeMs when absent.'),
    seed: LATENCY_SEED,
    feedMs: Type.Union([c.int(0, 60_000), Type.Literal('data')], { description: "Feed latency: market data reaches the strategy this long after the market moved, ms; 'data': from the recording's exchange times." }),
    feedBaseMs: FEED_BASE_MS,
  },
  { description: 'Simulated order-entry and feed latency.' },
);

export const DEPTH_LEVELS = c.int(0, 150, { default: 50, description: 'fill.book l2: recorded levels a taking order may walk per side.' });

export const FILL = c.object({
  depthQuotes: c.bool({ default: true, description: 'Recorded best bid/ask rest in the book as tape quotes.' }),
  book: c.oneOf(['top', 'l2'] as const, { default: 'top', description: 'top: trades re-enacted at the touch; l2: the recorded L2 book with queue positions.' }),
  queue: c.oneOf(QUEUE_MODELS, { default: 'risk-averse', description: 'fill.book l2: the queue model of resting orders.' }),
  queueShape: c.oneOf(['power', 'log'] as const, { default: 'power', description: 'probabilistic queue: f(x) = x^n or ln(1 + x).' }),
  queuePower: c.number({ exclusiveMinimum: 0, maximum: 10, default: 2, description: 'probabilistic queue with queueShape power: the exponent n.' }),
  depthLevels: DEPTH_LEVELS,
});

export const REPORT = c.object({
  equityIntervalMs: c.int(1000, 86_400_000, { default: 60_000 }),
  periodMs: c.int(60_000, 31 * 86_400_000, { default: 86_400_000, description: 'Length of a period for the per-period returns (Sharpe, Sortino), ms.' }),
  out: c.string({ default: 'backtest-out', description: 'Output directory, relative to this file.' }),
});

/** A duration: '7d', '12h', '30m', '90s', or milliseconds. */
const DURATION = Type.Union([Type.Integer({ minimum: 1000 }), Type.String({ pattern: '^\\d+(\\.\\d+)?(ms|s|m|h|d|w)$' })]);

const SWEEP_VALUE = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const SWEEP_RANGE = c.object({ min: Type.Number(), max: Type.Number(), step: c.number({ exclusiveMinimum: 0 }), integer: c.bool({ default: false }) }, { required: ['min', 'max'] });

/** The keys of the sweep block. */
export const SWEEP_KEYS = {
  method: c.oneOf(['grid', 'random'] as const, { default: 'grid' }),
  samples: c.int(1, 100_000, { default: 20, description: 'Points drawn by random search.' }),
  seed: c.int(0, 2 ** 31 - 1, { default: 1 }),
  metric: c.oneOf(RANKABLE_METRICS, { default: 'sharpe', description: 'Report metric to rank by.' }),
  order: c.oneOf(['desc', 'asc'] as const, { default: 'desc', description: 'desc: larger is better. Not with objective (an objective ranks larger first).' }),
  params: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,16}\\..+$' }), Type.Union([c.list(SWEEP_VALUE, { minItems: 1 }), SWEEP_RANGE]), {
    minProperties: 1,
    description: '<strategyId>.<param>: a list of values, or a range {min, max, step?, integer?}.',
  }),
  workers: c.int(1, 256, { description: 'Worker threads; the CPU count when absent.' }),
  jobTimeoutMs: c.int(100, 7 * 86_400_000, { description: 'A job running longer (wall time, from its start on a worker thread, not while it waits for one) is ended and recorded as failed.' }),
  // Validated by the sweep itself (src/backtest/sweep/options.ts); described here for editors.
  objective: Type.Union([c.oneOf(['sharpe', 'sortino', 'calmar', 'returnOverDrawdown'] as const), c.object({ module: c.string(), export: c.string() }, { required: ['module'] })], {
    description: 'What ranks the points: a built-in objective or a function exported by a module (relative to this file).',
  }),
  minTrades: c.int(0, 1_000_000_000, { description: 'A point with fewer closed trades (round trips, the report\'s trades; not fills) is not ranked.' }),
  walkForward: c.object({ train: DURATION, test: DURATION, step: DURATION }, { description: 'Walk-forward: the best point of each training window run on the following test window.', required: ['train', 'test'] }),
  halving: c.object({ eta: c.int(2, 16, { default: 3 }), rounds: c.int(2, 8, { default: 3 }) }, { description: 'Successive halving: keep 1/eta of the points each round, on eta times more data.' }),
};

export const SWEEP = c.object(SWEEP_KEYS, { description: 'Runs the backtest over a grid or a random sample of parameters (perpkit sweep).', required: ['params'] });

export const BACKTEST_SECTIONS = {
  data: DATA,
  account: ACCOUNT,
  fees: FEES,
  latency: LATENCY,
  fill: FILL,
  risk: RISK,
  strategies: c.list(STRATEGY, { minItems: 1 }),
  report: REPORT,
  sweep: SWEEP,
};

export const BACKTEST_CONFIG = c.object(BACKTEST_SECTIONS, { required: ['data', 'strategies'] });

/** A backtest config file as written (before defaults), typed from the schema. */
export type BacktestConfigFile = Static<typeof BACKTEST_CONFIG>;
/** The sweep block as written. */
export type SweepConfigFile = Static<typeof SWEEP>;
