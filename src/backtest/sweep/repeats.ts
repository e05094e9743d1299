/**
 * Points of a sweep that run the same backtest as an earlier point: a list value given twice
 * (`[5, 5, 10]`), a grid range whose steps round to one value, values the strategies' `params()`
 * read alike (`'5'` and `5`), or a random search drawing a point again. Such a point is run again,
 * not refused (a sweep may repeat a point on purpose, to see a job run twice): the sweep says so,
 * once, in the notes of its summary, sweep.json and sweep.html, so that a table holding the same
 * figures twice is not read as two results.
 *
 * Points are compared as the strategies read them (the `decoded` params checkPoints gets from each
 * definition), in a canonical text form; a decoded value with no faithful text form (a function,
 * a Map, a class without toJSON) falls back to the point's own values, compared with their types.
 */
import type { SweepConfig, SweepParamSpec } from '../backtest/config';
import type { SweepJob } from './job';
import { gridValues, type ParamValue, type Point } from './points';

/** Deeper than this a decoded value is not compared as text (its point's own values are). */
const MAX_DEPTH = 20;
/** Jobs named in a note, at most. */
const SHOWN = 5;

/**
 * A text that two values share only when a strategy cannot tell them apart: strings, numbers and
 * booleans with their types, plain objects by sorted key, objects with toJSON (Decimal) by its
 * value and class name. undefined: a value with no such form.
 */
export function canonicalText(v: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'boolean':
    case 'undefined':
      return String(v);
    case 'bigint':
      return `${v}n`;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (const x of v as unknown[]) {
      const t = canonicalText(x, depth + 1);
      if (t === undefined) return undefined;
      parts.push(t);
    }
    return `[${parts.join(',')}]`;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON !== 'function') return undefined;
    const j: unknown = toJSON.call(v);
    if (j === v) return undefined;
    const inner = canonicalText(j, depth + 1);
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    return inner === undefined ? undefined : `${typeof name === 'string' ? name : '?'}(${inner})`;
  }
  const o = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(o).sort()) {
    const t = canonicalText(o[k], depth + 1);
    if (t === undefined) return undefined;
    parts.push(`${JSON.stringify(k)}:${t}`);
  }
  return `{${parts.join(',')}}`;
}

/** The point's own values, with their types (`'5'` and `5` differ). */
export const rawPointText = (point: Point): string => `raw:${canonicalText(point) ?? JSON.stringify(point)}`;

/** A value as a note shows it: a string quoted only where it could pass for a number or a boolean. */
const shown = (v: ParamValue): string => (typeof v === 'string' && (v === '' || /^(true|false)$/.test(v) || Number.isFinite(Number(v))) ? `'${v}'` : String(v));
const times = (n: number): string => (n === 2 ? 'twice' : `${n} times`);

/** Values a parameter takes more than once, with how often (in the order they first come). */
function repeatedValues(values: readonly ParamValue[]): Array<{ value: ParamValue; count: number }> {
  const counts = new Map<string, { value: ParamValue; count: number }>();
  for (const v of values) {
    const k = `${typeof v}:${String(v)}`;
    const c = counts.get(k);
    if (c === undefined) counts.set(k, { value: v, count: 1 });
    else c.count++;
  }
  return [...counts.values()].filter((c) => c.count > 1);
}

const isList = (spec: SweepParamSpec): spec is { values: ParamValue[] } => 'values' in spec;

/**
 * The notes of a sweep whose jobs repeat a point (none when every job's point is its own).
 * `keys[i]`: job i's point as the strategies read it (checkPoints), else its own values.
 */
export function repeatNotes(s: SweepConfig, jobs: readonly SweepJob[], keys: ReadonlyArray<string | undefined>): string[] {
  const notes: string[] = [];
  // What the config itself repeats: a list value given twice, or a grid range stepping onto one value twice.
  for (const { key, spec } of s.params) {
    const values = s.method === 'grid' ? gridValues(spec) : isList(spec) ? spec.values : [];
    for (const { value, count } of repeatedValues(values)) {
      const what = isList(spec) ? `param ${key} lists ${shown(value)} ${times(count)}` : `param ${key} takes ${shown(value)} ${times(count)} (its range's step is finer than the 12 significant digits a value keeps)`;
      if (s.method === 'random') {
        notes.push(`note: ${what}: a random sample draws it ${count} times as often as a value listed once`);
        continue;
      }
      const alone = s.params.every((p) => p.key === key || gridValues(p.spec).length === 1);
      notes.push(`note: ${what}: ${alone ? 'the same point runs' : 'each point with it runs'} ${count} times`);
    }
  }
  // Jobs whose point, as the strategies read it, is an earlier job's.
  const first = new Map<string, number>();
  const readAlike: Array<[number, number]> = [];
  let drawnAgain = 0;
  for (const job of jobs) {
    const k = keys[job.index] ?? rawPointText(job.point);
    const was = first.get(k);
    if (was === undefined) {
      first.set(k, job.index);
      continue;
    }
    const sameValues = rawPointText(job.point) === rawPointText(jobs[was].point);
    // A grid's repeats of the same values are the config's own (said above, per parameter).
    if (sameValues && s.method === 'random') drawnAgain++;
    else if (!sameValues) readAlike.push([job.index, was]);
  }
  if (drawnAgain > 0) notes.push(`note: ${drawnAgain} of the ${jobs.length} random samples draw a point drawn before (${first.size} distinct points): each runs again, with the same figures`);
  if (readAlike.length > 0) {
    const list = readAlike.slice(0, SHOWN).map(([j, was]) => `job ${j} ${JSON.stringify(jobs[j].point)} as job ${was} ${JSON.stringify(jobs[was].point)}`).join(', ');
    notes.push(`note: ${readAlike.length} job(s) run a point the strategies read as an earlier job's (their params() take the values alike): ${list}${readAlike.length > SHOWN ? ', ...' : ''}: the same point runs again`);
  }
  return notes;
}
