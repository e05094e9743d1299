/**
 * Building blocks of the config file schemas (bot, backtest with its sweep block, exchange,
 * record). Each config's schema is its one description: the loaders take their key lists, ranges
 * and defaults from it (so a key or a bound is written once), and the same schema, being JSON
 * Schema, is published in schema/*.json for editors (`# yaml-language-server: $schema=...`).
 * The loaders still walk the document themselves to keep their one-line errors (file:line, key
 * path, expected, got) and the rules a schema cannot say (unique ids, paths, time ranges).
 */
import { Type } from './typebox';
import type { TInteger, TObject, TOptional, TProperties, TSchema } from '@sinclair/typebox';

/** The properties with every key but the required ones optional (as a config's keys are). */
export type ConfigProperties<T extends TProperties, R extends keyof T> = { [K in keyof T]: K extends R ? T[K] : TOptional<T[K]> };

interface Doc<T> {
  default?: T;
  description?: string;
}

const opts = <T>(d: Doc<T>): Record<string, unknown> => ({ ...(d.default !== undefined ? { default: d.default } : {}), ...(d.description !== undefined ? { description: d.description } : {}) });

/** A plain decimal as YAML writes it: a string ("0.01") or a number (0.01). */
const DECIMAL = '^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?$';
const POSITIVE_DECIMAL = '^(?=.*[1-9])(?:0|[1-9]\\d*)(?:\\.\\d+)?$';
const NON_NEGATIVE_DECIMAL = '^(?:0|[1-9]\\d*)(?:\\.\\d+)?$';

export const c = {
  /** A mapping of these keys only (unknown keys refused), of which `required` must be there. */
  object: <T extends TProperties, R extends keyof T & string = never>(properties: T, d: Doc<never> & { required?: readonly R[] } = {}): TObject<ConfigProperties<T, R>> => {
    // A config key is optional unless listed as required.
    const required: readonly string[] = d.required ?? [];
    const props: TProperties = {};
    for (const [k, s] of Object.entries(properties)) props[k] = required.includes(k) ? s : Type.Optional(s);
    return Type.Object(props, { additionalProperties: false, ...opts(d) }) as TObject<ConfigProperties<T, R>>;
  },
  int: (min: number, max: number, d: Doc<number> = {}): TInteger => Type.Integer({ minimum: min, maximum: max, ...opts(d) }),
  number: (d: Doc<number> & { exclusiveMinimum?: number; maximum?: number } = {}) => Type.Number({ ...(d.exclusiveMinimum !== undefined ? { exclusiveMinimum: d.exclusiveMinimum } : {}), ...(d.maximum !== undefined ? { maximum: d.maximum } : {}), ...opts(d) }),
  bool: (d: Doc<boolean> = {}) => Type.Boolean(opts(d)),
  string: (d: Doc<string> & { pattern?: string } = {}) => Type.String({ minLength: 1, ...(d.pattern !== undefined ? { pattern: d.pattern } : {}), ...opts(d) }),
  /** The name of an environment variable (the config names secrets, never holds them). */
  envName: (d: Doc<string> = {}) => Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', ...opts(d) }),
  oneOf: <const T extends readonly string[]>(values: T, d: Doc<T[number]> = {}) => Type.Union(values.map((v) => Type.Literal(v)), opts(d)),
  /** A decimal, written as a string or a YAML number. */
  decimal: (sign: 'positive' | 'nonNegative' | 'signed', d: Doc<string> = {}) => {
    const pattern = sign === 'positive' ? POSITIVE_DECIMAL : sign === 'nonNegative' ? NON_NEGATIVE_DECIMAL : DECIMAL;
    const num = sign === 'positive' ? Type.Number({ exclusiveMinimum: 0 }) : sign === 'nonNegative' ? Type.Number({ minimum: 0 }) : Type.Number();
    return Type.Union([Type.String({ pattern }), num], opts(d));
  },
  /** A decimal that must be a quoted string (no YAML number: never a binary float). */
  decimalString: (sign: 'positive' | 'nonNegative' | 'signed', d: Doc<string> = {}) => Type.String({ pattern: sign === 'positive' ? POSITIVE_DECIMAL : sign === 'nonNegative' ? NON_NEGATIVE_DECIMAL : DECIMAL, ...opts(d) }),
  list: <T extends TSchema>(item: T, d: Doc<never> & { minItems?: number } = {}) => Type.Array(item, { ...(d.minItems !== undefined ? { minItems: d.minItems } : {}), ...opts(d) }),
  /** A mapping of any keys (strategy parameters: checked by the strategy's own schema). */
  anyMapping: (d: Doc<never> = {}) => Type.Record(Type.String(), Type.Unknown(), opts(d)),
};

/** The keys a mapping schema allows, in declaration order. */
export function keysOf(s: { properties: TProperties }): string[] {
  return Object.keys(s.properties);
}

/** The bounds and default of an integer schema: what a loader enforces. */
export function intRange(s: TSchema): { min: number; max: number; dflt: number | undefined } {
  const x = s as TSchema & { minimum?: number; maximum?: number; default?: number };
  if (x.minimum === undefined || x.maximum === undefined) throw new Error('intRange: the schema has no minimum/maximum');
  return { min: x.minimum, max: x.maximum, dflt: x.default };
}

/** The default a schema declares. */
export function defaultOf<T>(s: TSchema): T {
  return (s as TSchema & { default: T }).default;
}

/** A config file's JSON Schema, as published (draft 2020-12, with title and description). */
export function fileSchema(id: string, title: string, description: string, s: TObject): Record<string, unknown> {
  const json = JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: id, title, description, ...json };
}
