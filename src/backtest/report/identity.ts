/**
 * What produced a report: strategy, parameters, data files (sha256, size, the time range
 * replayed), how marks were obtained, the fill and latency models, the perpkit version and the
 * hash of the effective config, and each strategy's code as loaded (strategy-code.ts). Two
 * reports with the same identity came from the same inputs; sweep points differ in their
 * parameters and so in their config hash.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { BacktestConfig } from '../backtest/config';
import type { BacktestResult } from '../backtest/result';
import type { StrategyCode } from '../backtest/strategy-code';

export interface ReportIdentity {
  /** `code`: the module's code as the run loaded it (absent from reports built without loading modules). */
  strategies: Array<{ id: string; module: string; params: Record<string, unknown>; code?: StrategyCode }>;
  data: Array<{ file: string; bytes: number; sha256: string }>;
  /** The time range replayed (first to last event applied), and the one configured. */
  range: { start: number; end: number; from: number | null; to: number | null };
  marks: string[];
  fillModel: string;
  latencyModel: string;
  fees: string;
  perpkitVersion: string;
  /** sha256 of the effective config (report.json's `config`, canonical JSON), 16 hex digits. */
  configHash: string;
}

/** sha256 of files, kept per (path, size, mtime) so a sweep's jobs hash a recording once. */
const hashCache = new Map<string, string>();

export function fileSha256(file: string): string {
  const st = statSync(file);
  const key = `${file}\0${st.size}\0${st.mtimeMs}`;
  let h = hashCache.get(key);
  if (h === undefined) {
    h = createHash('sha256').update(readFileSync(file)).digest('hex');
    hashCache.set(key, h);
  }
  return h;
}

let version: string | undefined;

/** perpkit's version, from the package.json above this module (src or dist alike). */
export function perpkitVersion(): string {
  if (version !== undefined) return version;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'package.json');
    if (existsSync(p)) {
      const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'perpkit') return (version = pkg.version ?? 'unknown');
    }
    if (path.dirname(dir) === dir) return (version = 'unknown');
  }
}

/** JSON with object keys sorted at every level: the same value gives the same text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function identityOf(cfg: BacktestConfig, r: BacktestResult, effectiveConfig: unknown, relFiles: string[], code?: ReadonlyArray<StrategyCode | undefined>): ReportIdentity {
  const marks = r.symbols.map((s) => {
    const m = r.marks[s];
    return m === undefined ? `${s}: recorded from the venue's mark price stream` : `${s}: ${m.source}, ${m.method}`;
  });
  const l = cfg.latency;
  return {
    strategies: cfg.strategies.map((s, i) => ({ id: s.id, module: s.module, params: s.params, ...(code?.[i] !== undefined ? { code: code[i] } : {}) })),
    data: cfg.data.files.map((f, i) => ({ file: relFiles[i], bytes: statSync(f).size, sha256: fileSha256(f) })),
    range: { start: r.startTime, end: r.endTime, from: cfg.data.from ?? null, to: cfg.data.to ?? null },
    marks,
    fillModel: fillModelText(cfg.fill),
    latencyModel: latencyModelText(l),
    fees: cfg.fees ? `maker ${cfg.fees.maker}, taker ${cfg.fees.taker} (config)` : "the recording's symbol specs",
    perpkitVersion: perpkitVersion(),
    configHash: createHash('sha256').update(canonicalJson(effectiveConfig)).digest('hex').slice(0, 16),
  };
}

/** The fill model in words: the book mode, and with the L2 book its queue model and depth. */
export function fillModelText(f: BacktestConfig['fill']): string {
  if (f.book === 'l2') {
    const q = f.queue;
    const shape = q.shape === 'log' ? 'f(x) = ln(1 + x)' : `f(x) = x^${q.power ?? 2}`;
    const queue = q.model === 'none' ? 'none (fill at touch: every trade at its price reaches it)' : q.model === 'risk-averse' ? 'risk-averse (only trades at its price advance it)' : `probabilistic (cancellations ahead with probability by ${shape})`;
    return `l2: the recorded L2 book (snapshot and deltas, its top kept current by quotes); marketable orders walk up to ${f.depthLevels} recorded levels a side; resting orders fill by recorded trades at or through their price after the quantity ahead of them, queue model ${queue}`;
  }
  return `tape: recorded trades fill resting orders they cross (maker, at the order's price); ${f.depthQuotes ? "recorded depth and quotes stand as the market's top of book for taker orders" : 'depth quotes off: taker orders fill only against recorded trades'}`;
}

const msText = (v: number | number[]): string => (typeof v === 'number' ? `${v} ms` : `sampled from [${v.join(', ')}] ms`);

/** The latency model in words: order entry (constant or sampled, with the seed) and the feed. */
export function latencyModelText(l: BacktestConfig['latency']): string {
  const sampled = [l.placeMs, l.cancelMs, l.amendMs].some((v) => typeof v !== 'number');
  const entry = `${sampled ? 'virtual time' : 'fixed, virtual time'}: place ${msText(l.placeMs)}, cancel ${msText(l.cancelMs)}, amend ${msText(l.amendMs)}${sampled ? ` (uniform draws, seed ${l.seed ?? 1})` : ''}`;
  if (l.feedMs === undefined || l.feedMs === 0) return entry;
  const feed = l.feedMs === 'data' ? `receive minus exchange time of each event above its running minimum, plus ${l.feedBaseMs ?? 0} ms` : `${l.feedMs} ms`;
  return `${entry}; market data reaches the strategies after ${feed}`;
}
