/**
 * The backtest config (YAML): data, time range, account, fees, latency, risk, strategies, report
 * and an optional sweep block. docs/backtesting.md is the reference.
 *
 * Validation is hand-written for the same reason as the bot's config: every error must name the
 * file, the path (`strategies[0].params`), what was expected and what was found, and unknown keys
 * are refused (a misspelt `maxDrawdown` must not silently switch a limit off). The backtest layer
 * may not import the runtime, so the error type lives here.
 */
import { RANKABLE_METRICS } from '../report/metrics';
import { ConfigError, describeValue, isRecord, joinPath as join } from '../../core/config-errors';
import { readFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parseDocument } from 'yaml';
import { isDecimalString } from '../../core/decimal';
import type { RiskLimits } from '../../bot/risk/limits';

export interface BacktestStrategyConfig {
  id: string;
  /** A built-in name (`market-maker`) or a path relative to the config file. */
  module: string;
  params: Record<string, unknown>;
}

export interface LatencyConfig {
  /** One-way delay from sending a placement to its arrival at the engine, ms. */
  placeMs: number;
  cancelMs: number;
  amendMs: number;
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
  /** Absolute path of the file ('' when built in code). */
  file: string;
  /** Directory relative paths resolve against. */
  baseDir: string;
  data: { files: string[]; from: number | undefined; to: number | undefined; cache: boolean };
  account: { balance: string; leverage: Record<string, number> };
  fees: { maker: string; taker: string } | undefined;
  latency: LatencyConfig;
  /** Fill model switches. `depthQuotes`: recorded best bid/ask rest in the book as tape quotes. */
  fill: { depthQuotes: boolean };
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
const RISK_DECIMALS = ['maxOrderNotional', 'maxPositionNotional', 'maxTotalExposure', 'priceBand', 'maxDailyLoss', 'maxDrawdown'] as const;
const RISK_INTEGERS = ['maxOpenOrders', 'maxOrdersPerSecond'] as const;

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

  int(v: unknown, at: string, min: number, max: number, dflt?: number): number {
    if (v === undefined && dflt !== undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.fail(at, `an integer from ${min} to ${max}`, v);
    return v;
  }

  str(v: unknown, at: string): string {
    if (typeof v !== 'string' || v === '') this.fail(at, 'a non-empty string', v);
    return v;
  }

  /** Decimal strings; numbers are accepted from YAML but must print exactly as written. */
  dec(v: unknown, at: string, allowNegative = false): string {
    const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : v;
    if (typeof s !== 'string' || !isDecimalString(s.startsWith('-') && allowNegative ? s.slice(1) : s) || /e/i.test(s)) this.fail(at, `a ${allowNegative ? '' : 'non-negative '}decimal number as a string (e.g. "0.0002")`, v);
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
  /** Absolute path shown in errors and used to resolve relative paths. */
  file: string;
}

/** Validates a parsed document. */
export function parseBacktestConfig(doc: unknown, opts: ParseOptions): BacktestConfig {
  const r: Reader = new Reader(opts.file);
  const baseDir = opts.file === '' ? process.cwd() : path.dirname(opts.file);
  const top = r.record(doc, '', ['data', 'account', 'fees', 'latency', 'fill', 'risk', 'strategies', 'report', 'sweep']);

  const d = r.record(top.data, 'data', ['files', 'from', 'to', 'cache']);
  const filesRaw = typeof d.files === 'string' ? [d.files] : d.files;
  if (!Array.isArray(filesRaw) || filesRaw.length === 0) r.fail('data.files', 'a recording file or a non-empty list of them (.jsonl.gz)', filesRaw);
  const files = filesRaw.map((f, i) => path.resolve(baseDir, r.str(f, `data.files[${i}]`)));
  const from = r.time(d.from, 'data.from');
  const to = r.time(d.to, 'data.to');
  if (from !== undefined && to !== undefined && to <= from) r.fail('data.to', `a time after data.from (${new Date(from).toISOString()})`, d.to);
  if (d.cache !== undefined && typeof d.cache !== 'boolean') r.fail('data.cache', 'true or false', d.cache);

  const a = r.record(top.account ?? {}, 'account', ['balance', 'leverage']);
  const balance = r.dec(a.balance ?? '10000', 'account.balance');
  const leverage: Record<string, number> = {};
  if (a.leverage !== undefined) {
    const lv = r.record(a.leverage, 'account.leverage', Object.keys(isRecord(a.leverage) ? a.leverage : {}));
    for (const [sym, v] of Object.entries(lv)) leverage[sym] = r.int(v, `account.leverage.${sym}`, 1, 125);
  }

  let fees: BacktestConfig['fees'];
  if (top.fees !== undefined) {
    const f = r.record(top.fees, 'fees', ['maker', 'taker']);
    fees = { maker: r.dec(f.maker, 'fees.maker', true), taker: r.dec(f.taker, 'fees.taker', true) };
  }

  const l = r.record(top.latency ?? {}, 'latency', ['placeMs', 'cancelMs', 'amendMs']);
  const placeMs = r.int(l.placeMs, 'latency.placeMs', 0, 60_000, 0);
  const latency: LatencyConfig = { placeMs, cancelMs: r.int(l.cancelMs, 'latency.cancelMs', 0, 60_000, placeMs), amendMs: r.int(l.amendMs, 'latency.amendMs', 0, 60_000, placeMs) };

  const fl = r.record(top.fill ?? {}, 'fill', ['depthQuotes']);
  if (fl.depthQuotes !== undefined && typeof fl.depthQuotes !== 'boolean') r.fail('fill.depthQuotes', 'true or false', fl.depthQuotes);
  const fill = { depthQuotes: fl.depthQuotes !== false };

  const rk = r.record(top.risk ?? {}, 'risk', [...RISK_DECIMALS, ...RISK_INTEGERS]);
  const risk: RiskLimits = {};
  for (const k of RISK_DECIMALS) if (rk[k] !== undefined) risk[k] = r.dec(rk[k], `risk.${k}`);
  for (const k of RISK_INTEGERS) if (rk[k] !== undefined) risk[k] = r.int(rk[k], `risk.${k}`, 1, 1_000_000);

  if (!Array.isArray(top.strategies) || top.strategies.length === 0) r.fail('strategies', 'a non-empty list of {id, module, params}', top.strategies);
  const ids = new Set<string>();
  const strategies = top.strategies.map((s, i): BacktestStrategyConfig => {
    const at = `strategies[${i}]`;
    const o = r.record(s, at, ['id', 'module', 'params']);
    const id = r.str(o.id, `${at}.id`);
    if (!STRATEGY_ID.test(id)) r.fail(`${at}.id`, '1 to 16 letters, digits or _', o.id);
    if (ids.has(id)) r.fail(`${at}.id`, 'an id no other strategy has', o.id);
    ids.add(id);
    const params = o.params === undefined ? {} : o.params;
    if (!isRecord(params)) r.fail(`${at}.params`, 'a mapping of parameters', params);
    return { id, module: r.str(o.module, `${at}.module`), params: { ...params } };
  });

  const rp = r.record(top.report ?? {}, 'report', ['equityIntervalMs', 'periodMs', 'out']);
  const report = {
    equityIntervalMs: r.int(rp.equityIntervalMs, 'report.equityIntervalMs', 1000, 86_400_000, 60_000),
    periodMs: r.int(rp.periodMs, 'report.periodMs', 60_000, 31 * 86_400_000, 86_400_000),
    out: path.resolve(baseDir, rp.out === undefined ? 'backtest-out' : r.str(rp.out, 'report.out')),
  };

  return {
    file: opts.file,
    baseDir,
    data: { files, from, to, cache: d.cache !== false },
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

/** Sweep keys whose values the sweep validates (src/backtest/sweep/options.ts). */
const SWEEP_SEARCH_KEYS = ['objective', 'minTrades', 'walkForward', 'halving'] as const;

function parseSweep(r: Reader, v: unknown, ids: Set<string>): SweepConfig {
  const s = r.record(v, 'sweep', ['method', 'samples', 'seed', 'metric', 'order', 'params', 'workers', 'jobTimeoutMs', ...SWEEP_SEARCH_KEYS]);
  const method = s.method ?? 'grid';
  if (method !== 'grid' && method !== 'random') r.fail('sweep.method', 'grid or random', method);
  const search: Record<string, unknown> = {};
  for (const k of SWEEP_SEARCH_KEYS) if (s[k] !== undefined) search[k] = s[k];
  const order = s.order ?? 'desc';
  if (order !== 'desc' && order !== 'asc') r.fail('sweep.order', 'desc (larger is better) or asc', order);
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
      if (typeof o.min !== 'number' || typeof o.max !== 'number' || !(o.max >= o.min)) r.fail(at, 'numbers min <= max', val);
      if (o.step !== undefined && (typeof o.step !== 'number' || !(o.step > 0))) r.fail(`${at}.step`, 'a positive number', o.step);
      if (o.integer !== undefined && typeof o.integer !== 'boolean') r.fail(`${at}.integer`, 'true or false', o.integer);
      if (method === 'grid' && o.step === undefined) r.fail(`${at}.step`, 'a step (a grid needs one for a range)', o.step);
      return { key, spec: { min: o.min, max: o.max, step: o.step as number | undefined, integer: o.integer === true } };
    });
  return {
    method,
    samples: r.int(s.samples, 'sweep.samples', 1, 100_000, 20),
    seed: r.int(s.seed, 'sweep.seed', 0, 2 ** 31 - 1, 1),
    metric: s.metric === undefined ? 'sharpe' : rankable(r, s.metric),
    order,
    params,
    workers: s.workers === undefined ? undefined : r.int(s.workers, 'sweep.workers', 1, 256),
    jobTimeoutMs: s.jobTimeoutMs === undefined ? undefined : r.int(s.jobTimeoutMs, 'sweep.jobTimeoutMs', 100, 7 * 86_400_000),
    search,
  };
}

/** The recordings a config names exist: a config error naming the key, not an ENOENT stack later. */
export function checkDataFiles(cfg: BacktestConfig): void {
  cfg.data.files.forEach((f, i) => {
    if (!existsSync(f)) throw new BacktestConfigError(cfg.file, `data.files[${i}]`, 'an existing recording file (relative to the config file)', `${f}: no such file`);
  });
}

/** Reads and validates a config file. */
export function loadBacktestConfig(file: string): BacktestConfig {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw new BacktestConfigError(abs, '', 'a readable YAML file', e instanceof Error ? e.message : String(e));
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new BacktestConfigError(abs, '', 'valid YAML', doc.errors[0].message);
  return parseBacktestConfig(doc.toJS(), { file: abs });
}
