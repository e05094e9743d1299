/**
 * The response envelope of PROTOCOL.md section 1: every response, success or error, on every
 * endpoint, has this shape, so a client needs exactly one decoding path.
 */
import { ErrorCodes, type ErrorCode } from '../core/errors';

export interface Envelope<T> {
  /** 0 on success, otherwise a code of PROTOCOL.md section 8. */
  code: number;
  message: string;
  data: T | null;
  /** Unique per request; also sent as header `X-Request-Id`. */
  requestId: string;
}

export interface SuccessEnvelope<T> extends Envelope<T> {
  code: 0;
  data: T;
}

export interface ErrorEnvelope extends Envelope<never> {
  data: null;
}

export const SUCCESS_MESSAGE = 'success';

export function successEnvelope<T>(data: T, requestId: string): SuccessEnvelope<T> {
  return { code: ErrorCodes.SUCCESS, message: SUCCESS_MESSAGE, data, requestId };
}

/** Accepts a VenueError or anything shaped like one, so callers need not construct an error to answer. */
export function errorEnvelope(error: { code: ErrorCode; message: string }, requestId: string): ErrorEnvelope {
  return { code: error.code, message: error.message, data: null, requestId };
}

/**
 * Shape check for a decoded response body. It looks only at the envelope, not at `data`: the
 * caller knows which endpoint it called and validates `data` against that.
 */
export function isEnvelope(value: unknown): value is Envelope<unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.code === 'number' &&
    Number.isInteger(v.code) &&
    typeof v.message === 'string' &&
    typeof v.requestId === 'string' &&
    'data' in v &&
    (v.data === null || typeof v.data === 'object')
  );
}

export function isSuccess<T>(env: Envelope<T>): env is SuccessEnvelope<T> {
  return env.code === ErrorCodes.SUCCESS && env.data !== null;
}
