import { VenueError } from '../../src/core/errors';

/** The VenueError a call throws; fails the test when it throws something else or nothing. */
export function errorOf(fn: () => unknown): VenueError {
  try {
    fn();
  } catch (e) {
    if (e instanceof VenueError) return e;
    throw new Error(`expected a VenueError, got ${String(e)}`);
  }
  throw new Error('expected a VenueError, but the call succeeded');
}

/** Parses like a server does, so `__proto__` arrives as an own key. */
export const json = (s: string): unknown => JSON.parse(s);
