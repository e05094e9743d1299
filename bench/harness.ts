/**
 * Measurement helpers shared by the benchmark suites.
 *
 * Two kinds of figure, always reported under names that say which they are:
 * - batch throughput: a fixed number of operations timed as a whole, after a warm-up run, so the
 *   clock is read twice per batch and costs nothing per operation;
 * - per-op latency percentiles: each operation timed on its own with process.hrtime.bigint(). Each
 *   reading costs tens of nanoseconds and allocates a BigInt, so these figures include the timer's
 *   overhead (reported separately as `timer overhead`) and the odd scavenge it triggers.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One line of a results file. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

export interface Suite {
  name: string;
  description: string;
  run(): BenchResult[] | Promise<BenchResult[]>;
}

export interface LatencyStats {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/**
 * Operations per second of `batch(start, count)`, which must perform `count` operations numbered
 * from `start`. It is called once with the warm-up count (so the JIT settles on the optimised code)
 * and then timed over `opCount` operations.
 */
export function measureThroughput(
  opCount: number,
  warmupOps: number,
  batch: (start: number, count: number) => void,
): number {
  if (warmupOps > 0) batch(0, warmupOps);
  const t0 = process.hrtime.bigint();
  batch(warmupOps, opCount);
  const ns = Number(process.hrtime.bigint() - t0);
  return (opCount * 1e9) / ns;
}

/**
 * A preallocated buffer of per-operation durations in nanoseconds. Suites time their own loop
 * (`const t = now(); op(); rec.add(now() - t)`) so no closure call sits between the two readings.
 */
export class LatencyRecorder {
  private readonly samples: Float64Array;
  private n = 0;

  constructor(capacity: number) {
    this.samples = new Float64Array(capacity);
  }

  add(ns: bigint): void {
    if (this.n < this.samples.length) this.samples[this.n++] = Number(ns);
  }

  reset(): void {
    this.n = 0;
  }

  get count(): number {
    return this.n;
  }

  stats(): LatencyStats {
    if (this.n === 0) throw new Error('no latency samples were recorded');
    const s = this.samples.slice(0, this.n).sort();
    let sum = 0;
    for (let i = 0; i < s.length; i++) sum += s[i];
    return {
      p50: percentile(s, 0.5),
      p99: percentile(s, 0.99),
      p999: percentile(s, 0.999),
      max: s[s.length - 1],
      mean: sum / s.length,
    };
  }
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, q: number): number {
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** Cost of an empty timed section, to read the per-op percentiles against. */
export function timerOverhead(samples = 200_000): LatencyStats {
  const rec = new LatencyRecorder(samples);
  const now = process.hrtime.bigint;
  for (let i = 0; i < samples; i++) {
    const t = now();
    rec.add(now() - t);
  }
  return rec.stats();
}

/** The three result lines for a latency distribution, in microseconds. */
export function latencyResults(prefix: string, s: LatencyStats): BenchResult[] {
  return [
    { name: `${prefix} p50 (per-op timed)`, value: round(s.p50 / 1000, 3), unit: 'us' },
    { name: `${prefix} p99 (per-op timed)`, value: round(s.p99 / 1000, 3), unit: 'us' },
    { name: `${prefix} p99.9 (per-op timed)`, value: round(s.p999 / 1000, 3), unit: 'us' },
  ];
}

/** The median of some runs (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** Seeded PRNG shared with the rest of perpkit, re-exported for the suites. */
export { mulberry32 } from '../src/core/random';

/** A full garbage collection, for heap figures that mean something (the flag is set once, here). */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * A count from the environment variable `name`: a whole number, at least `min`, `fallback` when
 * unset or empty; anything else stops the suite with a message naming the suite, the variable, the
 * rule and what was found.
 */
export function envCount(suite: string, name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${suite} bench: ${name} must be a whole number of at least ${min}, got ${JSON.stringify(raw)}`);
  return n;
}
