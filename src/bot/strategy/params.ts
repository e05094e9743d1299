/**
 * Strategy parameters declared once, as a TypeBox schema: the TypeScript type is inferred from it
 * (`Params<typeof schema>`), the config is checked against it (unknown names, types, ranges, with
 * one-line errors naming the parameter), defaults are filled in, decimals become exact `Dec`, and
 * the same schema is plain JSON Schema for editors and docs.
 *
 * TypeBox rather than zod: its schemas *are* JSON Schema (no converter between what we check and
 * what we publish), it has no dependencies, and it ships CommonJS as well as ESM.
 */
import type { Static, StaticDecode, TObject, TProperties, TSchema } from '@sinclair/typebox';
import { TransformDecodeError, Type, Value } from '../../core/typebox';
import { Dec } from '../../core/decimal';

/** The rule text of a parameter, for error messages (`parameter 'x' must be <rule>, got ...`). */
const RULE = 'x-rule';
/** On a `param.quantity`: the parameter naming the symbol whose quantity grid and limits it is checked against. */
const QUANTITY_OF = 'x-quantity-of';

/** A plain decimal (no exponent, no sign): at least one non-zero digit for `positive`. */
const NON_NEGATIVE_DECIMAL = '^(?:0|[1-9]\\d*)(?:\\.\\d+)?$';
const POSITIVE_DECIMAL = '^(?=.*[1-9])(?:0|[1-9]\\d*)(?:\\.\\d+)?$';
/** A whole number as text, in plain notation (no "+", leading zero, point, exponent or "-0"). */
const INTEGER_TEXT = '^(?:0|-?[1-9]\\d*)$';
/** A number as text, in plain notation (no "+", exponent, leading zero or bare point; "-0" neither). */
const NUMBER_TEXT = '^(?:0(?:\\.\\d+)?|-0\\.\\d*[1-9]\\d*|-?[1-9]\\d*(?:\\.\\d+)?)$';

interface Common<T> {
  /** Used when the config does not name the parameter; without it the parameter is required. */
  default?: T;
  description?: string;
}

/**
 * A decimal parameter, read exactly into a `Dec` (written as "0.01" or 0.01 in YAML). `below`: a
 * value it must stay under (basis points of a price below 10000, where the price it sets would
 * reach zero), refused on decoding as a value out of its type is.
 */
function decimal(opts: Common<string> & { min?: 'positive' | 'nonNegative'; below?: string } = {}) {
  const positive = (opts.min ?? 'positive') === 'positive';
  const { below } = opts;
  const rule = `${positive ? 'a positive decimal' : 'a decimal of at least 0'}${below !== undefined ? ` below ${below}` : ''} such as "0.01"`;
  const num = Type.Number({ ...(positive ? { exclusiveMinimum: 0 } : { minimum: 0 }), ...(below !== undefined ? { exclusiveMaximum: Number(below) } : {}) });
  const encoded = Type.Union([Type.String({ pattern: positive ? POSITIVE_DECIMAL : NON_NEGATIVE_DECIMAL }), num], {
    [RULE]: rule,
    ...(opts.default !== undefined ? { default: opts.default } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
  });
  const limit = below === undefined ? undefined : new Dec(below);
  return Type.Transform(encoded)
    .Decode((v) => {
      const d = new Dec(typeof v === 'number' ? String(v) : v);
      if (limit !== undefined && d.gte(limit)) throw new RangeError(`expected ${rule}`);
      return d;
    })
    .Encode((d) => d.toString());
}

/**
 * An order size in the base asset of the symbol another parameter names (`symbol`, by default), read
 * as `decimal` is. Where the symbol's specs are known (the venue at a bot's start, a recording's
 * header in a backtest or sweep), a quantity that rounds down below the symbol's minimum, or one above
 * its maximum, is refused as a config error (quantityProblem): every order of it would be.
 */
function quantity(opts: Common<string> & { symbol?: string } = {}) {
  const { symbol, ...rest } = opts;
  const s = decimal(rest);
  (s as TSchema & { [QUANTITY_OF]?: string })[QUANTITY_OF] = symbol ?? 'symbol';
  return s;
}

/**
 * A number written as a number or as its text: a quoted YAML value is a string, and `levels: "7"`
 * was refused while `quantity: "0.01"` was taken. The text must match `pattern` (plain notation);
 * the range, which a pattern cannot say, is checked on decoding and refused as the number's would
 * be (decodeParams names the parameter and the rule).
 */
function numberOrText(num: TSchema, pattern: string, rule: string, opts: Common<number>, inRange: (n: number) => boolean) {
  const encoded = Type.Union([num, Type.String({ pattern })], {
    [RULE]: rule,
    ...(opts.default !== undefined ? { default: opts.default } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
  });
  return Type.Transform(encoded)
    .Decode((v): number => {
      if (typeof v === 'number') return v;
      const n = Number(v);
      if (!inRange(n)) throw new RangeError(`expected ${rule}`);
      return n;
    })
    .Encode((n) => n);
}

/**
 * A whole number from `min` to `max`, written 7 or "7". A string must be the number in plain
 * notation: no "07", "+7", "7.0" or "7e0".
 */
function integer(opts: Common<number> & { min: number; max: number }) {
  const rule = `a whole number from ${opts.min} to ${opts.max}`;
  return numberOrText(Type.Integer({ minimum: opts.min, maximum: opts.max }), INTEGER_TEXT, rule, opts, (n) => Number.isSafeInteger(n) && n >= opts.min && n <= opts.max);
}

/**
 * A number (not money: use `decimal` for prices and sizes) from `min` to `max`, written 0.5 or
 * "0.5". A string must be the number in plain notation: no "+0.5", ".5", "00.5", "5e-1" or "-0".
 */
function number(opts: Common<number> & { min?: number; max?: number } = {}) {
  const { min, max } = opts;
  const rule = min !== undefined && max !== undefined ? `a number from ${min} to ${max}` : min !== undefined ? `a number of at least ${min}` : max !== undefined ? `a number of at most ${max}` : 'a number';
  const num = Type.Number({ ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) });
  return numberOrText(num, NUMBER_TEXT, rule, opts, (n) => Number.isFinite(n) && (min === undefined || n >= min) && (max === undefined || n <= max));
}

/** A non-empty string (a symbol, a mode name). */
function string(opts: Common<string> = {}) {
  return Type.String({ minLength: 1, [RULE]: 'a non-empty string', ...opts });
}

/** One of a few strings. */
function oneOf<const T extends readonly string[]>(values: T, opts: Common<T[number]> = {}) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { [RULE]: `one of ${values.join(', ')}`, ...opts },
  ) as unknown as TSchema & { static: T[number] };
}

function boolean(opts: Common<boolean> = {}) {
  return Type.Boolean({ [RULE]: 'true or false', ...opts });
}

/**
 * Builders for parameter schemas. Each one is a TypeBox schema with the rule text used in errors;
 * any TypeBox schema works as a parameter too. `param.optional(x)` is a parameter with no default
 * (`undefined` when the config leaves it out).
 */
export const param = {
  decimal,
  quantity,
  integer,
  number,
  string,
  oneOf,
  boolean,
  optional: <T extends TSchema>(s: T) => Type.Optional(s),
};

/** The schema of a strategy's parameters: an object of named parameter schemas. */
export type ParamsSchema = TObject;

/** The parameters a schema describes, as the strategy gets them (decimals as `Dec`). */
export type Params<S extends TSchema> = StaticDecode<S>;
/** The parameters as written in a config (decimals as strings or numbers). */
export type ParamsInput<S extends TSchema> = Static<S>;

/** Declares a strategy's parameters: `params({ symbol: param.string({ default: 'BTCUSDT' }), ... })`. */
export function params<T extends TProperties>(properties: T, description?: string): TObject<T> {
  for (const { name, symbolParam: of } of quantitiesOf(properties)) {
    if (!Object.prototype.hasOwnProperty.call(properties, of)) throw new Error(`parameter '${name}' is a param.quantity of the symbol in parameter '${of}', which these params do not declare: name it with param.quantity({ symbol: '...' })`);
  }
  return Type.Object(properties, { additionalProperties: false, ...(description !== undefined ? { description } : {}) });
}

/** The names a schema declares, sorted. */
export function paramNames(schema: ParamsSchema): string[] {
  return Object.keys(schema.properties).sort();
}

function render(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * The parameters of a config, checked against the schema and decoded; throws an Error
 * `parameter 'name' must be <rule>, got <value>` (or `unknown parameter 'x'; known parameters:
 * ...`) for the first problem.
 */
export function decodeParams<S extends ParamsSchema>(schema: S, raw: Record<string, unknown>): Params<S> {
  const known = paramNames(schema);
  const unknown = Object.keys(raw).filter((k) => !Object.prototype.hasOwnProperty.call(schema.properties, k));
  if (unknown.length > 0) throw new Error(`unknown parameter '${unknown[0]}'; known parameters: ${known.join(', ')}`);
  const value = Value.Default(schema, Value.Clone(raw));
  try {
    // Decode checks the value first: the errors are listed only when it refuses (a sweep decodes
    // every point's parameters, and listing them cost as much as the check).
    return Value.Decode(schema, value);
  } catch (e) {
    const first = Value.Errors(schema, value).First();
    // Or the value had the schema's shape and a decode refused it (an integer as text, out of its range).
    const decodeError = e instanceof TransformDecodeError ? e : undefined;
    const at = first?.path ?? decodeError?.path;
    if (at === undefined) throw e;
    const name = at.split('/')[1] ?? '';
    if (name === '') throw new Error(`parameters must be a mapping of ${known.join(', ')}, got ${render(raw)}`);
    const sub = schema.properties[name] as TSchema & { [RULE]?: string };
    const rule = sub[RULE] ?? (first?.message ?? decodeError?.message ?? '').replace(/^Expected /i, '').toLowerCase();
    const got = (value as Record<string, unknown>)[name];
    throw new Error(`parameter '${name}' must be ${rule}, got ${got === undefined ? 'nothing (it is required)' : render(got)}`);
  }
}

/** JSON Schema of a parameter schema (TypeBox's own keys dropped), for editors and docs. */
export function paramsJsonSchema(schema: ParamsSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The `param.quantity` parameters of a schema, with the parameter naming each one's symbol. */
export function quantityParams(schema: ParamsSchema): Array<{ name: string; symbolParam: string }> {
  return quantitiesOf(schema.properties);
}

function quantitiesOf(properties: TProperties): Array<{ name: string; symbolParam: string }> {
  const out: Array<{ name: string; symbolParam: string }> = [];
  for (const [name, sub] of Object.entries(properties)) {
    const of = (sub as TSchema & { [QUANTITY_OF]?: unknown })[QUANTITY_OF];
    if (typeof of === 'string') out.push({ name, symbolParam: of });
  }
  return out;
}
