/**
 * The field reader every request validator is built from. One reader wraps one JSON object (a body,
 * a batch item, or a query record) and reads typed fields out of it, throwing a VenueError with the
 * code PROTOCOL.md section 8 assigns to each kind of mistake. Validators copy what they read into a
 * fresh object literal, so only known keys ever reach the engine and no input object is retained.
 */
import { decimalStringProblem } from '../../core/decimal';
import { ErrorCodes, VenueError } from '../../core/errors';

/** Own keys that must never be copied or looked up on objects built from input. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Words for a value's JSON type, for messages such as "must be a string, got number". */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function invalid(message: string, field?: string): VenueError {
  return new VenueError(ErrorCodes.INVALID_PARAMETER, message, field);
}

export function missing(message: string, field: string): VenueError {
  return new VenueError(ErrorCodes.MISSING_PARAMETER, message, field);
}

export function notAllowed(field: string, allowed: readonly (string | number)[], got: unknown): VenueError {
  return new VenueError(
    ErrorCodes.INVALID_ENUM,
    `${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(got)}`,
    field,
  );
}

/** Characters as a user counts them (code points), cheap when there are no surrogate pairs. */
function charCount(s: string): number {
  if (!/[\uD800-\uDFFF]/.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export interface StringRule {
  min?: number;
  max: number;
  /** A pattern the whole string must match, with the words used in the error message. */
  pattern?: RegExp;
  patternText?: string;
}

/**
 * What is wrong with a value under a string rule, worded to follow the field's name (`must be 3
 * to 32 characters long, got 2`); undefined when it passes. The request validators use it, and so
 * does whatever must accept only what a request would (the exchange's configured users).
 */
export function stringProblem(v: unknown, rule: StringRule): string | undefined {
  if (typeof v !== 'string') return `must be a string, got ${jsonTypeOf(v)}`;
  const min = rule.min ?? 1;
  const n = v.length < min || v.length > rule.max ? charCount(v) : v.length;
  if (n < min) return min === 1 ? 'must not be empty' : `must be ${min} to ${rule.max} characters long, got ${n}`;
  if (n > rule.max) return `must be at most ${rule.max} characters long, got ${n}`;
  if (rule.pattern !== undefined && !rule.pattern.test(v)) return `must be ${rule.patternText ?? `a string matching ${String(rule.pattern)}`}, got ${JSON.stringify(v)}`;
  return undefined;
}

/** Sign rule for decimal fields; grid and min/max checks need the symbol and belong to the engine. */
export type DecimalSign = 'positive' | 'nonNegative' | 'any';

/**
 * The set of keys an object may carry. Built once per validator; `names` is kept for the message
 * that lists what would have been accepted.
 */
export class KeySet {
  private readonly set: ReadonlySet<string>;
  readonly names: string;

  constructor(keys: readonly string[]) {
    this.set = new Set(keys);
    this.names = keys.join(', ');
  }

  has(k: string): boolean {
    return this.set.has(k);
  }
}

/**
 * Reads fields from one object. `prefix` is the path of the object inside the request ("" for the
 * top level, "orders[3]." for a batch item) so that errors name the exact field. `query` switches
 * integer fields to the strict base-10 string form that query strings carry.
 */
export class FieldReader {
  private constructor(
    private readonly o: Record<string, unknown>,
    private readonly prefix: string,
    private readonly query: boolean,
  ) {}

  /**
   * Reader over a JSON body (or batch item). Anything but a plain object is refused with `notObject`
   * (10005 at the top level; nested items pass their own message), then every key is checked
   * against `keys` before any value is read, so a typo never goes unnoticed.
   */
  static body(input: unknown, keys: KeySet, prefix = '', notObject?: () => VenueError): FieldReader {
    if (!isPlainObject(input)) {
      if (notObject !== undefined) throw notObject();
      // No body at all reads as `undefined`: say so, and what the body should hold, not "got undefined".
      throw new VenueError(
        ErrorCodes.BODY_NOT_OBJECT,
        input === undefined
          ? `request body is missing; expected a JSON object with ${keys.names === '' ? 'no fields' : `fields ${keys.names}`}`
          : `request body must be a JSON object, got ${jsonTypeOf(input)}`,
      );
    }
    checkKeys(input, keys, prefix);
    return new FieldReader(input, prefix, false);
  }

  /**
   * Reader over a body whose fields are all optional: no body at all (a POST without one) reads as
   * an empty object. A body that is present must still be an object.
   */
  static optionalBody(input: unknown, keys: KeySet): FieldReader {
    if (input === undefined) return new FieldReader(Object.create(null) as Record<string, unknown>, '', false);
    return FieldReader.body(input, keys);
  }

  /**
   * Reader over a query record (`Object.fromEntries(new URLSearchParams(...))`). No query at all is
   * the same as an empty one. Every value must be a string, as URLSearchParams produces.
   */
  static query(input: unknown, keys: KeySet): FieldReader {
    if (input === undefined) return new FieldReader(Object.create(null) as Record<string, unknown>, '', true);
    if (!isPlainObject(input)) {
      throw invalid(`query must be a record of string parameters, got ${jsonTypeOf(input)}`);
    }
    checkKeys(input, keys, '');
    return new FieldReader(input, '', true);
  }

  path(k: string): string {
    return this.prefix + k;
  }

  /** The raw value, or undefined when absent. Only own properties count. */
  raw(k: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.o, k) ? this.o[k] : undefined;
  }

  has(k: string): boolean {
    return this.raw(k) !== undefined;
  }

  // ---- strings

  reqString(k: string, rule: StringRule): string {
    const v = this.raw(k);
    if (v === undefined) throw missing(`${this.path(k)} is required`, this.path(k));
    return this.checkString(k, v, rule);
  }

  optString(k: string, rule: StringRule): string | undefined {
    const v = this.raw(k);
    return v === undefined ? undefined : this.checkString(k, v, rule);
  }

  private checkString(k: string, v: unknown, rule: StringRule): string {
    const f = this.path(k);
    const problem = stringProblem(v, rule);
    if (problem !== undefined) throw invalid(`${f} ${problem}`, f);
    return v as string;
  }

  // ---- decimals

  reqDecimal(k: string, sign: DecimalSign): string {
    const v = this.raw(k);
    if (v === undefined) throw missing(`${this.path(k)} is required`, this.path(k));
    return this.checkDecimal(k, v, sign);
  }

  optDecimal(k: string, sign: DecimalSign): string | undefined {
    const v = this.raw(k);
    return v === undefined ? undefined : this.checkDecimal(k, v, sign);
  }

  private checkDecimal(k: string, v: unknown, sign: DecimalSign): string {
    const f = this.path(k);
    const problem = decimalStringProblem(v);
    if (problem !== undefined) throw invalid(`${f} ${problem}`, f);
    const s = v as string;
    if (sign !== 'any' && s.charCodeAt(0) === 45 /* '-' */) {
      throw invalid(`${f} must not be negative, got "${s}"`, f);
    }
    if (sign === 'positive' && /^0(?:\.0+)?$/.test(s)) throw invalid(`${f} must be greater than zero, got "${s}"`, f);
    return s;
  }

  // ---- booleans

  optBool(k: string, fallback: boolean): boolean {
    const v = this.raw(k);
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') {
      throw invalid(`${this.path(k)} must be a JSON boolean (true or false), got ${jsonTypeOf(v)}`, this.path(k));
    }
    return v;
  }

  // ---- string enumerations

  reqEnum<T extends string>(k: string, allowed: readonly T[]): T {
    const v = this.raw(k);
    if (v === undefined) throw missing(`${this.path(k)} is required (one of ${allowed.join(', ')})`, this.path(k));
    return this.checkEnum(k, v, allowed);
  }

  optEnum<T extends string>(k: string, allowed: readonly T[]): T | undefined {
    const v = this.raw(k);
    return v === undefined ? undefined : this.checkEnum(k, v, allowed);
  }

  private checkEnum<T extends string>(k: string, v: unknown, allowed: readonly T[]): T {
    const f = this.path(k);
    if (typeof v !== 'string') throw invalid(`${f} must be a string (one of ${allowed.join(', ')}), got ${jsonTypeOf(v)}`, f);
    if (!(allowed as readonly string[]).includes(v)) throw notAllowed(f, allowed, v);
    return v as T;
  }

  // ---- integers

  reqInt(k: string, min: number, max: number): number {
    const v = this.raw(k);
    if (v === undefined) throw missing(`${this.path(k)} is required`, this.path(k));
    return this.checkRange(k, this.toInt(k, v, min, max), min, max);
  }

  optInt(k: string, min: number, max: number): number | undefined {
    const v = this.raw(k);
    return v === undefined ? undefined : this.checkRange(k, this.toInt(k, v, min, max), min, max);
  }

  /**
   * An int64 identifier or cursor (lastOrderId), 0 to 2^63-1, as its base-10 text: a JS number
   * would round ids above 2^53. A query value must be plain digits; a JSON value may be such a
   * string or a safe integer number.
   */
  optInt64Id(k: string): string | undefined {
    const v = this.raw(k);
    if (v === undefined) return undefined;
    const f = this.path(k);
    const rule = `a base-10 integer between 0 and ${INT64_MAX}`;
    let s: string;
    if (typeof v === 'string') s = v;
    else if (!this.query && typeof v === 'number' && Number.isSafeInteger(v)) s = String(v);
    else throw invalid(`${f} must be ${rule}${this.query ? '' : ' (a string, or a JSON integer number below 2^53)'}, got ${jsonTypeOf(v)}`, f);
    if (!UINT_RE.test(s)) throw invalid(`${f} must be ${rule} (digits only: no sign, spaces, leading zeros, fraction or exponent), got ${JSON.stringify(s.slice(0, 64))}`, f);
    if (BigInt(s) > INT64_MAX) throw invalid(`${f} must be ${rule}, got ${JSON.stringify(s.slice(0, 64))}`, f);
    return s;
  }

  /**
   * Integer codes such as priceType: a well-formed integer outside the set is an enum error (10004);
   * a value that is no integer at all stays 10001, but its message lists the allowed codes too, so
   * `type=LIMIT` on the history filter tells the caller to send 1 or 2.
   */
  optIntEnum<T extends number>(k: string, allowed: readonly T[]): T | undefined {
    const v = this.raw(k);
    if (v === undefined) return undefined;
    let n: number;
    try {
      n = this.toInt(k, v);
    } catch (e) {
      if (!(e instanceof VenueError)) throw e;
      const f = this.path(k);
      const codes = allowed.join(', ');
      if (this.query) throw invalid(`${f} must be one of ${codes} (an integer code); got ${JSON.stringify(String(v).slice(0, 64))}`, f);
      const got = typeof v === 'string' ? `string ${JSON.stringify(v.slice(0, 64))}` : typeof v === 'number' ? String(v) : jsonTypeOf(v);
      throw invalid(`${f} must be a JSON integer, one of ${codes}; got ${got}`, f);
    }
    if (!(allowed as readonly number[]).includes(n)) throw notAllowed(this.path(k), allowed, n);
    return n as T;
  }

  reqIntEnum<T extends number>(k: string, allowed: readonly T[]): T {
    if (!this.has(k)) throw missing(`${this.path(k)} is required (one of ${allowed.join(', ')})`, this.path(k));
    return this.optIntEnum(k, allowed) as T;
  }

  private toInt(k: string, v: unknown, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
    const f = this.path(k);
    if (this.query) {
      if (typeof v !== 'string') throw invalid(`${f} must be a query string value, got ${jsonTypeOf(v)}`, f);
      return parseQueryInt(v, f, min, max);
    }
    if (typeof v !== 'number') throw invalid(`${f} must be a JSON integer number, got ${jsonTypeOf(v)}`, f);
    if (!Number.isSafeInteger(v)) throw invalid(`${f} must be a whole number within the safe integer range, got ${v}`, f);
    return v;
  }

  private checkRange(k: string, n: number, min: number, max: number): number {
    if (n < min || n > max) {
      const f = this.path(k);
      throw invalid(`${f} must be an integer ${rangeText(min, max)}, got ${n}`, f);
    }
    return n;
  }

  // ---- arrays

  reqArray(k: string): unknown[] {
    const v = this.raw(k);
    const f = this.path(k);
    if (v === undefined) throw missing(`${f} is required`, f);
    if (!Array.isArray(v)) throw invalid(`${f} must be an array, got ${jsonTypeOf(v)}`, f);
    return v;
  }
}

/** Any number of digits: a well-formed integer too large is a range error, not a format error. */
const QUERY_INT_RE = /^(?:0|-?[1-9]\d*)$/;
const UINT_RE = /^(?:0|[1-9]\d*)$/;
const INT64_MAX = 9223372036854775807n;

function rangeText(min: number, max: number): string {
  return `between ${min} and ${max}`;
}

/**
 * Query integers are plain base-10: no sign other than "-", no leading zeros, spaces, fractions or
 * exponents. Number() alone would accept "1e3", " 1", "0x10" and "1.0"; a typo would then pass as
 * some other number. A well-formed integer outside `min`..`max` (by default the safe integer
 * range) is refused naming that range, compared exactly (a 19-digit value is not rounded first).
 */
export function parseQueryInt(s: string, field: string, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  if (!QUERY_INT_RE.test(s)) {
    throw invalid(`${field} must be a base-10 integer such as "20" (digits only: no "+", spaces, leading zeros, fraction or exponent), got ${JSON.stringify(s.slice(0, 64))}`, field);
  }
  const b = BigInt(s);
  if (b < BigInt(min) || b > BigInt(max)) throw invalid(`${field} must be an integer ${rangeText(min, max)}, got ${s.length > 64 ? `${s.slice(0, 64)}...` : s}`, field);
  return Number(s);
}

function checkKeys(o: Record<string, unknown>, keys: KeySet, prefix: string): void {
  for (const k of Object.keys(o)) {
    if (keys.has(k)) continue;
    const f = prefix + k;
    if (RESERVED_KEYS.has(k)) throw invalid(`field '${f}' is a reserved name and is not accepted`, f);
    throw invalid(keys.names === '' ? `unknown field '${f}'; this request takes no fields` : `unknown field '${f}'; accepted fields are: ${keys.names}`, f);
  }
}
