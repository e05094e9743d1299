/**
 * A tiny schema language for what the venue sends back. Each schema is a function that checks a
 * decoded JSON value and returns it typed, or throws a SchemaError naming the path of the field and
 * what was expected. Checks are shallow-but-complete: every documented field is present with its
 * JSON type, decimals are plain decimal strings, enumerations hold a known value; unknown extra
 * fields are allowed (a newer venue may add some).
 */
export class SchemaError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path} ${problem}`);
    this.name = 'SchemaError';
  }
}

export type Schema<T> = (v: unknown, path: string) => T;
export type Infer<S> = S extends Schema<infer T> ? T : never;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

const fail = (path: string, expected: string, v: unknown): never => {
  throw new SchemaError(path, `must be ${expected}, got ${typeOf(v) === 'string' ? JSON.stringify(String(v).slice(0, 40)) : typeOf(v)}`);
};

export const str: Schema<string> = (v, p) => (typeof v === 'string' ? v : fail(p, 'a string', v));

export const nonEmptyStr: Schema<string> = (v, p) => (typeof v === 'string' && v.length > 0 ? v : fail(p, 'a non-empty string', v));

const DECIMAL_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
/** A plain-notation decimal string (PROTOCOL.md section 1). */
export const dec: Schema<string> = (v, p) => (typeof v === 'string' && DECIMAL_RE.test(v) ? v : fail(p, 'a plain decimal string', v));

/** A decimal string, or "" where the venue leaves a field unset (activatePrice of a stop order). */
export const decOrEmpty: Schema<string> = (v, p) => (typeof v === 'string' && (v === '' || DECIMAL_RE.test(v)) ? v : fail(p, 'a plain decimal string or ""', v));

export const int: Schema<number> = (v, p) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : fail(p, 'an integer', v));

/** Epoch milliseconds. */
export const ms: Schema<number> = (v, p) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : fail(p, 'epoch milliseconds', v));

export const bool: Schema<boolean> = (v, p) => (typeof v === 'boolean' ? v : fail(p, 'a boolean', v));

export function oneOf<T extends string | number>(values: readonly T[]): Schema<T> {
  const set: ReadonlySet<unknown> = new Set(values);
  const words = `one of ${values.join(', ')}`;
  return (v, p) => (set.has(v) ? (v as T) : fail(p, words, v));
}

export function literal<T extends string | number | boolean>(value: T): Schema<T> {
  return (v, p) => (v === value ? value : fail(p, JSON.stringify(value), v));
}

/** Absent (undefined) is fine; present must match. */
export function opt<T>(s: Schema<T>): Schema<T | undefined> {
  return (v, p) => (v === undefined ? undefined : s(v, p));
}

export function arr<T>(item: Schema<T>): Schema<T[]> {
  return (v, p) => {
    if (!Array.isArray(v)) return fail(p, 'an array', v);
    for (let i = 0; i < v.length; i++) item(v[i], `${p}[${i}]`);
    return v as T[];
  };
}

/** A fixed-length array of decimals ([price, quantity] levels). */
export function tuple2(a: Schema<string>, b: Schema<string>): Schema<[string, string]> {
  return (v, p) => {
    if (!Array.isArray(v) || v.length !== 2) return fail(p, 'a [price, quantity] pair', v);
    a(v[0], `${p}[0]`);
    b(v[1], `${p}[1]`);
    return v as [string, string];
  };
}

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: undefined extends Infer<S[K]> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
export type ObjOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };

/** An object with at least these fields. The value is returned as decoded (extra fields kept). */
export function obj<S extends Shape>(shape: S): Schema<ObjOf<S>> {
  const keys = Object.keys(shape);
  const checks = keys.map((k) => shape[k] as Schema<unknown>);
  const n = keys.length;
  return (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(p, 'an object', v);
    const o = v as Record<string, unknown>;
    for (let i = 0; i < n; i++) {
      const k = keys[i] as string;
      (checks[i] as Schema<unknown>)(o[k], `${p}.${k}`);
    }
    return v as ObjOf<S>;
  };
}

/** An object checked by `base` and then by `more` (record plus event-specific fields). */
export function extend<A, B>(base: Schema<A>, more: Schema<B>): Schema<A & B> {
  return (v, p) => {
    base(v, p);
    more(v, p);
    return v as A & B;
  };
}
