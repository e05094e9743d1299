/**
 * The backtest config (YAML): data, time range, account, fees, latency, risk, strategies, report
 * and an optional sweep block. docs/backtesting.md is the reference.
 *
 * Validation is hand-written for the same reason as the bot's config: every error must name the
 * file, the path (`strategies[0].params`), what was expected and what was found, and unknown keys
 * are refused (a misspelt `maxDrawdown` must not silently switch a limit off). The backtest layer
 * may not import the runtime, so the error type lives here.
 */
import { QUEUE_MODELS, type QueueModelName, type QueueOptions } from '../../exchange/engine/market/queue';
import { RANKABLE_METRICS } from '../report/metrics';
import { ConfigError, describeValue, isRecord, joinPath as join } from '../../core/config-errors';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { readConfigYaml } from '../../core/config-text';
import { withRotatedParts } from '../../market-data/reader';
import * as path from 'node:path';
import { Dec, fractionDigits, isDecimalString, plainNumberText } from '../../core/decimal';
import { MONEY_DP } from '../../core/values';
import { readRiskLimits, type RiskLimits } from '../../bot/risk/limits';
import type { TSchema } from '@sinclair/typebox';
import { defaultOf, intRange, keysOf } from '../../core/config-schema';
import { ACCOUNT, BACKTEST_CONFIG, DATA, DEPTH_LEVELS, FEED_BASE_MS, FEES, FILL, LATENCY, LATENCY_MS, LATENCY_SEED, LEVERAGE, REPORT, SWEEP, SWEEP_KEYS } from './config-schema';
import { RISK, STRATEGY } from '../../bot/config-schema';

export interface BacktestStrategyConfig {
  id: string;
  /** A built-in name (`market-maker`) or a path relative to the config file. */
  module: string;
  params: Record<string, unknown>;
}

export interface LatencyConfig {
  /**
   * One-way delay from sending a placement to its arrival at the engine, ms: a constant, or samples
   * drawn uniformly per call (seeded by `seed`).
   */
  placeMs: number | number[];
  cancelMs: number | number[];
  amendMs: number | number[];
  /** Seed of the draws from sampled latencies (default 1). */
  seed?: number;
  /**
   * Feed latency: market data reaches the strategy this long after the engine's market moved, ms.
   * `data`: per event, the recording's receive minus exchange time above its running minimum
   * (docs/backtesting.md), plus `feedBaseMs`.
   */
  feedMs?: number | 'data';
  /** With `feedMs: data`: a constant added to the data's latency, ms. */
  feedBaseMs?: number;
}

export type SweepParamSpec = { values: Array<string | number | boolean> } | { min: number; max: number; step?: number; integer: boolean };

export interface SweepConfig {
  method: 'grid' | 'random';
  /** Points drawn by random search. */
  samples: number;
  seed: number;
  /** Report metric to rank by, and whether larger is better. */
  metric: string;
  order: 'desc' | 'asc';
  /** `<strategyId>.<param>` -> values or range. Keys sorted for a stable point order. */
  params: Array<{ key: string; spec: SweepParamSpec }>;
  workers: number | undefined;
  /** A job running longer (wall time) is ended and recorded as failed; undefined: no limit. */
  jobTimeoutMs?: number;
  /**
   * The search keys validated by the sweep itself (src/backtest/sweep/options.ts): objective,
   * minTrades, walkForward, halving. Kept raw here so the sweep's options live with the sweep.
   */
  search?: Record<string, unknown>;
}

export interface BacktestConfig {
  /** The file as given to the loader, shown in errors ('' when built in code). */
  file: string;
  /** Directory relative paths resolve against. */
  baseDir: string;
  /**
   * `files`: what the replay reads, each configured file followed by the rotated parts found
   * beside it (`x.1.jsonl.gz`, ...: reader.ts withRotatedParts, as the exchange's replay reads them);
   * `listed`: the files as data.files names them (unset: `files`).
   */
  data: { files: string[]; listed?: string[]; from: number | undefined; to: number | undefined; cache: boolean };
  account: { balance: string; leverage: Record<string, number> };
  fees: { maker: string; taker: string } | undefined;
  latency: LatencyConfig;
  /**
   * Fill model. `depthQuotes`: recorded best bid/ask rest in the book as tape quotes. `book`: `top`
   * (trades re-enacted at the touch) or `l2` (the recorded L2 book, queue positions per `queue`).
   */
  fill: { depthQuotes: boolean; book: 'top' | 'l2'; queue: QueueOptions; depthLevels: number };
  risk: RiskLimits;
  strategies: BacktestStrategyConfig[];
  report: { equityIntervalMs: number; periodMs: number; out: string };
  sweep: SweepConfig | undefined;
}

/** A config that cannot be used: file, path, expected, got. */
export class BacktestConfigError extends ConfigError {
  constructor(file: string, at: string, expected: string, got: string) {
    super(file, at, expected, got);
    this.name = 'BacktestConfigError';
  }
}

export { describeValue };

const STRATEGY_ID = /^[A-Za-z0-9_]{1,16}$/;

class Reader {
  constructor(readonly file: string) {}

  fail(at: string, expected: string, got: unknown): never {
    throw new BacktestConfigError(this.file, at, expected, describeValue(got));
  }

  record(v: unknown, at: string, keys: readonly string[]): Record<string, unknown> {
    if (!isRecord(v)) this.fail(at, 'a mapping', v);
    for (const k of Object.keys(v)) {
      if (!keys.includes(k)) throw new BacktestConfigError(this.file, join(at, k), `one of the keys ${keys.join(', ')}`, `unknown key '${k}'`);
    }
    return v;
  }

  /** A whole number in the schema's bounds; its default (or `fallback`) when absent. */
  int(v: unknown, at: string, schema: TSchema, fallback?: number): number {
    const { min, max } = intRange(schema);
    const dflt = fallback ?? intRange(schema).dflt;
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.fail(at, `an integer from ${min} to ${max}`, v);
    return v;
  }

  str(v: unknown, at: string): string {
    if (typeof v !== 'string' || v === '') this.fail(at, 'a non-empty string', v);
    return v;
  }

  /**
   * Decimal strings; numbers are accepted from YAML but must print exactly as written. `example`
   * is shown in the refusal: a value of the key's kind (a fee, a balance, a limit).
   */
  dec(v: unknown, at: string, allowNegative = false, example = '"0.0002"'): string {
    const s = typeof v === 'number' && Number.isFinite(v) ? plainNumberText(v) : v;
    // isDecimalString takes a sign: '-5' was a "non-negative decimal" (a balance of -5 then failed
    // mid-run, a risk limit of -1 denied every order).
    // The schema (c.decimal) takes a YAML number too: the rule said "as a string" of a number it accepted.
    if (!this.isDec(s, allowNegative)) this.fail(at, `a ${allowNegative ? '' : 'non-negative '}decimal such as ${example} (a string, or a YAML number that prints as written)`, v);
    return s;
  }

  private isDec(s: unknown, allowNegative: boolean): s is string {
    return typeof s === 'string' && isDecimalString(s) && (allowNegative || !s.startsWith('-')) && !/e/i.test(s);
  }

  /** A decimal above zero (a limit: 0 or less would deny every order); one rule for -5 and 0 alike. */
  positiveDec(v: unknown, at: string): string {
    const s = typeof v === 'number' && Number.isFinite(v) ? plainNumberText(v) : v;
    if (!this.isDec(s, false) || new Dec(s).isZero()) this.fail(at, 'a positive decimal such as "20000" or "0.05"', v);
    return s;
  }

  time(v: unknown, at: string): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
    if (v instanceof Date) return v.getTime();
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v)) {
      const ms = Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
      if (Number.isFinite(ms)) return ms;
    }
    this.fail(at, 'epoch milliseconds or an ISO-8601 UTC time such as 2024-01-01T00:00:00Z', v);
  }
}

export interface ParseOptions {
  /** The file as given (shown in errors); relative paths resolve against its folder. */
  file: string;
}

/** Validates a parsed document. */
export function parseBacktestConfig(doc: unknown, opts: ParseOptions): BacktestConfig {
  const r: Reader = new Reader(opts.file);
  const baseDir = opts.file === '' ? process.cwd() : path.dirname(path.resolve(opts.file));
  const top = r.record(doc, '', keysOf(BACKTEST_CONFIG));

  const d = r.record(top.data, 'data', keysOf(DATA));
  const filesRaw = typeof d.files === 'string' ? [d.files] : d.files;
  if (!Array.isArray(filesRaw) || filesRaw.length === 0) r.fail('data.files', 'a recording file or a non-empty list of them (.jsonl.gz)', filesRaw);
  const files = filesRaw.map((f, i) => path.resolve(baseDir, r.str(f, `data.files[${i}]`)));
  // The same file twice replayed once without a word (two overlapping files are refused).
  const real = files.map((f) => (existsSync(f) ? realpathSync(f) : f));
  real.forEach((f, i) => {
    const first = real.indexOf(f);
    if (first !== i) throw new BacktestConfigError(r.file, `data.files[${i}]`, `each recording once (data.files[${first}] names this file too)`, files[i]);
  });
  const from = r.time(d.from, 'data.from');
  const to = r.time(d.to, 'data.to');
  if (from !== undefined && to !== undefined && to <= from) r.fail('data.to', `a time after data.from (${new Date(from).toISOString()})`, d.to);
  if (d.cache !== undefined && typeof d.cache !== 'boolean') r.fail('data.cache', 'true or false', d.cache);

  const a = r.record(top.account ?? {}, 'account', keysOf(ACCOUNT));
  const balance = r.dec(a.balance ?? defaultOf<string>(ACCOUNT.properties.balance), 'account.balance', false, '"10000"');
  if (fractionDigits(balance) > MONEY_DP) r.fail('account.balance', `a USDT amount of at most ${MONEY_DP} decimal places`, a.balance);
  const leverage: Record<string, number> = {};
  if (a.leverage !== undefined) {
    const lv = r.record(a.leverage, 'account.leverage', Object.keys(isRecord(a.leverage) ? a.leverage : {}));
    for (const [sym, v] of Object.entries(lv)) leverage[sym] = r.int(v, `account.leverage.${sym}`, LEVERAGE);
  }

  let fees: BacktestConfig['fees'];
  if (top.fees !== undefined) {
    const f = r.record(top.fees, 'fees', keysOf(FEES));
    fees = { maker: r.dec(f.maker, 'fees.maker', true), taker: r.dec(f.taker, 'fees.taker', true) };
  }

  const l = r.record(top.latency ?? {}, 'latency', keysOf(LATENCY));
  /** A constant or a non-empty list of samples, each an integer from 0 to 60000 ms. */
  const entry = (v: unknown, at: string, dflt: number | number[]): number | number[] => {
    if (v === undefined) return dflt;
    if (!Array.isArray(v)) return r.int(v, at, LATENCY_MS);
    if (v.length === 0) r.fail(at, 'an integer from 0 to 60000 or a non-empty list of them (samples)', v);
    return v.map((x, i) => r.int(x, `${at}[${i}]`, LATENCY_MS));
  };
  const placeMs = entry(l.placeMs, 'latency.placeMs', defaultOf<number>(LATENCY.properties.placeMs));
  const feedMs = l.feedMs === 'data' ? 'data' : typeof l.feedMs === 'string' ? r.fail('latency.feedMs', "an integer from 0 to 60000 or 'data'", l.feedMs) : r.int(l.feedMs, 'latency.feedMs', LATENCY_MS, 0);
  const feedBaseMs = r.int(l.feedBaseMs, 'latency.feedBaseMs', FEED_BASE_MS);
  if (l.feedBaseMs !== undefined && feedMs !== 'data') r.fail('latency.feedBaseMs', 'to be set only with latency.feedMs: data', l.feedBaseMs);
  const latency: LatencyConfig = { placeMs, cancelMs: entry(l.cancelMs, 'latency.cancelMs', placeMs), amendMs: entry(l.amendMs, 'latency.amendMs', placeMs) };
  if (l.seed !== undefined) latency.seed = r.int(l.seed, 'latency.seed', LATENCY_SEED);
  // Only when set: a config without feed latency reads (and reports) as it did before it existed.
  if (l.feedMs !== undefined) latency.feedMs = feedMs;
  if (l.feedBaseMs !== undefined) latency.feedBaseMs = feedBaseMs;

  const fl = r.record(top.fill ?? {}, 'fill', keysOf(FILL));
  if (fl.depthQuotes !== undefined && typeof fl.depthQuotes !== 'boolean') r.fail('fill.depthQuotes', 'true or false', fl.depthQuotes);
  const book = fl.book ?? defaultOf<string>(FILL.properties.book);
  if (book !== 'top' && book !== 'l2') r.fail('fill.book', "'top' or 'l2'", fl.book);
  const model = fl.queue ?? defaultOf<string>(FILL.properties.queue);
  if (typeof model !== 'string' || !(QUEUE_MODELS as readonly string[]).includes(model)) r.fail('fill.queue', `one of ${QUEUE_MODELS.join(', ')}`, fl.queue);
  const shape = fl.queueShape ?? defaultOf<string>(FILL.properties.queueShape);
  if (shape !== 'power' && shape !== 'log') r.fail('fill.queueShape', "'power' or 'log'", fl.queueShape);
  if (fl.queuePower !== undefined && !(typeof fl.queuePower === 'number' && fl.queuePower > 0 && fl.queuePower <= 10)) r.fail('fill.queuePower', 'a number above 0 and at most 10', fl.queuePower);
  for (const k of ['queue', 'queueShape', 'queuePower', 'depthLevels'] as const) {
    if (fl[k] !== undefined && book !== 'l2') r.fail(`fill.${k}`, 'to be set only with fill.book: l2', fl[k]);
  }
  // The shape of the probabilistic queue: with another queue model it was ignored without a word.
  for (const k of ['queueShape', 'queuePower'] as const) {
    if (fl[k] !== undefined && model !== 'probabilistic') r.fail(`fill.${k}`, 'to be set only with fill.queue: probabilistic', fl[k]);
  }
  if (fl.depthQuotes === false && book === 'l2') r.fail('fill.depthQuotes', 'true with fill.book: l2 (the tape quotes are the top of its book)', fl.depthQuotes);
  const queue: QueueOptions = { model: model as QueueModelName, shape: shape as 'power' | 'log', power: typeof fl.queuePower === 'number' ? fl.queuePower : defaultOf<number>(FILL.properties.queuePower) };
  const fill = { depthQuotes: fl.depthQuotes === undefined ? defaultOf<boolean>(FILL.properties.depthQuotes) : fl.depthQuotes === true, book: book as 'top' | 'l2', queue, depthLevels: r.int(fl.depthLevels, 'fill.depthLevels', DEPTH_LEVELS) };

  const risk = readRiskLimits(r.record(top.risk ?? {}, 'risk', keysOf(RISK)), { decimal: (v, at) => r.positiveDec(v, at), int: (v, at, schema) => r.int(v, at, schema), fail: (at, expected, got) => r.fail(at, expected, got) });

  if (!Array.isArray(top.strategies) || top.strategies.length === 0) r.fail('strategies', 'a non-empty list of {id, module, params}', top.strategies);
  const ids = new Set<string>();
  const strategies = top.strategies.map((s, i): BacktestStrategyConfig => {
    const at = `strategies[${i}]`;
    const o = r.record(s, at, keysOf(STRATEGY));
    const id = r.str(o.id, `${at}.id`);
    if (!STRATEGY_ID.test(id)) r.fail(`${at}.id`, '1 to 16 letters, digits or _', o.id);
    if (ids.has(id)) r.fail(`${at}.id`, 'an id no other strategy has', o.id);
    ids.add(id);
    const params = o.params === undefined ? {} : o.params;
    if (!isRecord(params)) r.fail(`${at}.params`, 'a mapping of parameters', params);
    return { id, module: r.str(o.module, `${at}.module`), params: { ...params } };
  });

  const rp = r.record(top.report ?? {}, 'report', keysOf(REPORT));
  const report = {
    equityIntervalMs: r.int(rp.equityIntervalMs, 'report.equityIntervalMs', REPORT.properties.equityIntervalMs),
    periodMs: r.int(rp.periodMs, 'report.periodMs', REPORT.properties.periodMs),
    out: path.resolve(baseDir, rp.out === undefined ? defaultOf<string>(REPORT.properties.out) : r.str(rp.out, 'report.out')),
  };

  return {
    file: opts.file,
    baseDir,
    data: { files: withRotatedParts(files), listed: files, from, to, cache: d.cache !== false },
    account: { balance, leverage },
    fees,
    latency,
    fill,
    risk,
    strategies,
    report,
    sweep: top.sweep === undefined ? undefined : parseSweep(r, top.sweep, ids),
  };
}

/** A metric name a sweep can rank by, checked before any job runs. */
function rankable(r: Reader, v: unknown): string {
  const m = r.str(v, 'sweep.metric');
  if (!(RANKABLE_METRICS as readonly string[]).includes(m)) r.fail('sweep.metric', `one of ${RANKABLE_METRICS.join(', ')}`, m);
  return m;
}

/** The most points a grid may have: as many as a random search may draw (sweep.samples). */
export const MAX_GRID_POINTS = intRange(SWEEP_KEYS.samples).max;

/** How many values a parameter takes on a grid: its list, or its range's steps from min to max. */
export function valueCount(spec: SweepParamSpec): number {
  if ('values' in spec) return spec.values.length;
  return spec.step === undefined ? 1 : Math.floor((spec.max - spec.min) / spec.step + 1e-9) + 1;
}

/** Sweep keys whose values the sweep validates (src/backtest/sweep/options.ts). */
const SWEEP_SEARCH_KEYS = ['objective', 'minTrades', 'walkForward', 'halving'] as const;

function parseSweep(r: Reader, v: unknown, ids: Set<string>): SweepConfig {
  const s = r.record(v, 'sweep', keysOf(SWEEP));
  const method = s.method ?? defaultOf<string>(SWEEP_KEYS.method);
  if (method !== 'grid' && method !== 'random') r.fail('sweep.method', 'grid or random', method);
  const search: Record<string, unknown> = {};
  for (const k of SWEEP_SEARCH_KEYS) if (s[k] !== undefined) search[k] = s[k];
  const order = s.order ?? defaultOf<string>(SWEEP_KEYS.order);
  if (order !== 'desc' && order !== 'asc') r.fail('sweep.order', 'desc (larger is better) or asc', order);
  // An objective ranks larger first and replaces metric and order: an order beside it was ignored without a word.
  if (s.order !== undefined && s.objective !== undefined) r.fail('sweep.order', 'no order with sweep.objective (an objective ranks larger first; to rank smaller first, return the negated figure from a module objective)', s.order);
  const p = r.record(s.params, 'sweep.params', Object.keys(isRecord(s.params) ? s.params : {}));
  if (Object.keys(p).length === 0) r.fail('sweep.params', 'at least one parameter to vary, as <strategyId>.<param>', s.params);
  const params = Object.keys(p)
    .sort()
    .map((key) => {
      const at = `sweep.params.${key}`;
      const dot = key.indexOf('.');
      if (dot <= 0 || !ids.has(key.slice(0, dot))) r.fail(at, `a key <strategyId>.<param> naming one of the strategies ${[...ids].join(', ')}`, key);
      const val = p[key];
      if (Array.isArray(val)) {
        if (val.length === 0) r.fail(at, 'a non-empty list of values', val);
        val.forEach((x, i) => {
          if (typeof x !== 'string' && typeof x !== 'number' && typeof x !== 'boolean') r.fail(`${at}[${i}]`, 'a string, number or boolean', x);
        });
        return { key, spec: { values: val as Array<string | number | boolean> } };
      }
      const o = r.record(val, at, ['min', 'max', 'step', 'integer']);
      for (const k of ['min', 'max'] as const) if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) r.fail(`${at}.${k}`, 'a finite number', o[k]);
      // Both values in the message: "got a mapping with keys min, max" did not say which was off.
      if (typeof o.min !== 'number' || typeof o.max !== 'number' || !(o.max >= o.min)) throw new BacktestConfigError(r.file, at, 'a range with min <= max', `min ${String(o.min)} > max ${String(o.max)}`);
      if (o.step !== undefined && (typeof o.step !== 'number' || !Number.isFinite(o.step) || !(o.step > 0))) r.fail(`${at}.step`, 'a positive finite number', o.step);
      if (o.integer !== undefined && typeof o.integer !== 'boolean') r.fail(`${at}.integer`, 'true or false', o.integer);
      // Rounded after stepping, a fractional min gave values beyond max (1000.5..1000.7 by 0.1: 1001,
      // three times), and in a grid a fractional step gave points twice (1..3 by 0.5: 1, 2, 2, 3, 3).
      if (o.integer === true) {
        for (const k of ['min', 'max'] as const) if (!Number.isInteger(o[k])) r.fail(`${at}.${k}`, 'a whole number (integer: true)', o[k]);
        if (method === 'grid' && o.step !== undefined && !Number.isInteger(o.step)) r.fail(`${at}.step`, 'a whole number (integer: true, in a grid)', o.step);
      }
      if (method === 'grid' && o.step === undefined) r.fail(`${at}.step`, 'a step (a grid needs one for a range)', o.step);
      // 2..3 by 5 quietly became the one point 2.
      if (method === 'grid' && typeof o.step === 'number' && o.max > o.min && o.step > o.max - o.min) r.fail(`${at}.step`, `a step no larger than max - min (${o.max - o.min}), else the range is min alone`, o.step);
      return { key, spec: { min: o.min, max: o.max, step: o.step as number | undefined, integer: o.integer === true } };
    });
  if (method === 'grid') {
    // The grid is the product of every parameter's values: counted here, before it is built, so a
    // range too fine (or a typo in a step) is a config error, not a sweep that hangs or runs out of memory.
    const counts = params.map((p) => ({ key: p.key, n: valueCount(p.spec) }));
    const points = counts.reduce((n, c) => n * c.n, 1);
    if (points > MAX_GRID_POINTS) throw new BacktestConfigError(r.file, 'sweep.params', `a grid of at most ${MAX_GRID_POINTS} points (the product of the parameters' numbers of values)`, `${points} points (${counts.map((c) => `${c.key}: ${c.n} values`).join(', ')})`);
  }
  return {
    method,
    samples: r.int(s.samples, 'sweep.samples', SWEEP_KEYS.samples),
    seed: r.int(s.seed, 'sweep.seed', SWEEP_KEYS.seed),
    metric: s.metric === undefined ? defaultOf<string>(SWEEP_KEYS.metric) : rankable(r, s.metric),
    order,
    params,
    workers: s.workers === undefined ? undefined : r.int(s.workers, 'sweep.workers', SWEEP_KEYS.workers),
    jobTimeoutMs: s.jobTimeoutMs === undefined ? undefined : r.int(s.jobTimeoutMs, 'sweep.jobTimeoutMs', SWEEP_KEYS.jobTimeoutMs),
    search,
  };
}

/** A file as reports name it: relative to the config's folder, with `/` (a report does not depend on where the checkout lives). */
export function configRelative(baseDir: string, file: string): string {
  return path.relative(baseDir, file).split(path.sep).join('/');
}

/**
 * The recordings a config names exist: a config error naming the key, not an ENOENT stack later;
 * then `data.files` is what the replay reads (each with its rotated parts) and `data.listed` what
 * the config (or code) named.
 */
export function checkDataFiles(cfg: BacktestConfig): void {
  // The files as configured (`listed`), unless code set `files` to others after loading.
  const listed = cfg.data.listed;
  const given = listed !== undefined && listed.every((f) => cfg.data.files.includes(f)) ? listed : cfg.data.files;
  given.forEach((f, i) => {
    if (!existsSync(f)) throw new BacktestConfigError(cfg.file, `data.files[${i}]`, 'an existing recording file (relative to the config file)', `${f}: no such file`);
    if (statSync(f).isDirectory()) throw new BacktestConfigError(cfg.file, `data.files[${i}]`, 'an existing recording file (relative to the config file)', `${f}: a folder`);
  });
  // Each with the rotated parts beside it (found again: they may have been written since loading).
  cfg.data.files = withRotatedParts(cfg.data.files);
  cfg.data.listed = given;
}

/**
 * Reads and validates a config file. Errors name it as given (`cfg.yaml`, as the user typed it);
 * relative paths inside it resolve against its folder.
 */
export function loadBacktestConfig(file: string): BacktestConfig {
  const { value } = readConfigYaml(file, (p) => {
    const e = new BacktestConfigError(file, '', p.expected, p.got);
    return p.line === undefined ? e : e.placeAt(p.line, p.column);
  });
  return parseBacktestConfig(value, { file });
}
