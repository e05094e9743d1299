/** Validators of endpoints that take no input. */
import type { EmptyParams } from '../rest/common';
import { FieldReader, KeySet } from './fields';

const NO_KEYS = new KeySet([]);

/**
 * A body-less endpoint still refuses a body with fields in it: the caller meant something we would
 * otherwise silently ignore. No body and `{}` are both fine.
 */
export function validateEmptyBody(input: unknown): EmptyParams {
  FieldReader.optionalBody(input, NO_KEYS);
  return {};
}

/** Same for a query string: no parameters is the only acceptable one. */
export function validateEmptyQuery(input: unknown): EmptyParams {
  FieldReader.query(input, NO_KEYS);
  return {};
}
