/**
 * The points of a sweep: the full grid (cartesian product, keys in sorted order, last key varying
 * fastest) or `samples` points drawn by a seeded generator. A point is the list of parameter
 * values; its index is its identity, so results can be ranked the same way whoever ran them.
 */
import { mulberry32 } from '../../core/random';
import { valueCount, type SweepConfig, type SweepParamSpec } from '../backtest/config';

export type ParamValue = string | number | boolean;
export type Point = Record<string, ParamValue>;


/** Decimal-safe rendering of a range value: 0.1 + 0.2 must not become 0.30000000000000004. */
const tidy = (v: number): number => Number(v.toPrecision(12));

/** The `i`th value of a range with a step. */
const stepValue = (spec: { min: number; step?: number; integer: boolean }, i: number): number => {
  const v = spec.min + i * (spec.step as number);
  return spec.integer ? Math.round(v) : tidy(v);
};

/** The values a parameter takes on a grid, in order (a list as given, repeats and all). */
export function gridValues(spec: SweepParamSpec): ParamValue[] {
  if ('values' in spec) return spec.values;
  const out: number[] = [];
  for (let i = 0, n = valueCount(spec); i < n; i++) out.push(stepValue(spec, i));
  return out;
}

function draw(spec: SweepParamSpec, u: number): ParamValue {
  if ('values' in spec) return spec.values[Math.min(spec.values.length - 1, Math.floor(u * spec.values.length))];
  // Drawn by index, not from a list of every value: a fine range of a random search costs nothing.
  if (spec.step !== undefined) return stepValue(spec, Math.min(valueCount(spec) - 1, Math.floor(u * valueCount(spec))));
  // Each whole number of min..max alike (rounding min + u x (max - min) gave the two ends half the chance).
  if (spec.integer) return spec.min + Math.min(spec.max - spec.min, Math.floor(u * (spec.max - spec.min + 1)));
  return tidy(spec.min + u * (spec.max - spec.min));
}

export function sweepPoints(s: SweepConfig): Point[] {
  return [...eachPoint(s)];
}

/**
 * The points one at a time, in the order of sweepPoints: a caller that builds a large grid can
 * turn the event loop between two (and see Ctrl+C), which one call building them all cannot.
 */
export function* eachPoint(s: SweepConfig): Generator<Point, void, undefined> {
  if (s.method === 'grid') {
    const values = s.params.map((p) => gridValues(p.spec));
    // An odometer over the values, the last key turning fastest (the first key outermost).
    const at = values.map(() => 0);
    const n = values.reduce((product, v) => product * v.length, 1);
    for (let i = 0; i < n; i++) {
      const p: Point = {};
      for (let k = 0; k < values.length; k++) p[s.params[k].key] = values[k][at[k]];
      yield p;
      for (let k = at.length - 1; k >= 0; k--) {
        if (++at[k] < values[k].length) break;
        at[k] = 0;
      }
    }
    return;
  }
  const rnd = mulberry32(s.seed);
  for (let i = 0; i < s.samples; i++) {
    const p: Point = {};
    for (const { key, spec } of s.params) p[key] = draw(spec, rnd());
    yield p;
  }
}

/** Seed of job `index`: derived, so a job carries everything it needs to be rerun alone. */
export function jobSeed(sweepSeed: number, index: number): number {
  return Math.floor(mulberry32((sweepSeed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)() * 2 ** 31);
}
