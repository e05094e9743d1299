/**
 * Query strings, parsed with URLSearchParams into a record the validators read. A key given twice
 * is refused (10001): which of the two values would win is a guess we do not make.
 */
import { ErrorCodes, VenueError } from '../../../core/errors';

export function parseQuery(rawQuery: string): Record<string, string> {
  // A null-prototype record: a key named "__proto__" is then an ordinary own key, which the
  // validators refuse by name, rather than a prototype setter.
  const out = Object.create(null) as Record<string, string>;
  if (rawQuery.length === 0) return out;
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    if (Object.prototype.hasOwnProperty.call(out, k)) {
      throw new VenueError(ErrorCodes.INVALID_PARAMETER, `query parameter '${k}' is given more than once; give it once`, k);
    }
    out[k] = v;
  }
  return out;
}

/** Splits a request target into the raw path and raw query, both exactly as sent. */
export function splitTarget(url: string): { path: string; rawQuery: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, rawQuery: '' } : { path: url.slice(0, q), rawQuery: url.slice(q + 1) };
}
