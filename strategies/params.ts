/**
 * Parameter readers shared by the example strategies: each names the parameter and the rule when
 * a value is missing or wrong, so a bad config fails at start with a clear message.
 */
import { Dec, isDecimalString } from '../src/index';

export function str(raw: Record<string, unknown>, key: string, fallback?: string): string {
  const v = raw[key] ?? fallback;
  if (typeof v !== 'string' || v.length === 0) throw new Error(`parameter '${key}' must be a non-empty string, got ${JSON.stringify(raw[key])}`);
  return v;
}

/** A positive decimal, given as a string ("0.01") or a number in YAML (converted exactly via its text). */
export function dec(raw: Record<string, unknown>, key: string, fallback?: string): Dec {
  const v = raw[key] ?? fallback;
  const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : v;
  if (typeof s !== 'string' || !isDecimalString(s) || new Dec(s).lte(0)) {
    throw new Error(`parameter '${key}' must be a positive decimal such as "0.01", got ${JSON.stringify(raw[key])}`);
  }
  return new Dec(s);
}

export function int(raw: Record<string, unknown>, key: string, min: number, max: number, fallback?: number): number {
  const v = raw[key] ?? fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new Error(`parameter '${key}' must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw[key])}`);
  }
  return v;
}

/** Refuses parameters the strategy does not know (typos must not be silently ignored). */
export function onlyKeys(raw: Record<string, unknown>, keys: readonly string[]): void {
  for (const k of Object.keys(raw)) {
    if (!keys.includes(k)) throw new Error(`unknown parameter '${k}'; known parameters: ${keys.join(', ')}`);
  }
}
