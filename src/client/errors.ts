/**
 * Errors of the SDK, undici-style: one base class with a stable string `code`, subclasses with
 * context, and a ccxt-style split between what may be retried (the request had no effect, or
 * asking again is harmless) and what may not (the venue refused the request as it stands).
 */
import { ErrorCodes } from '../core/errors';

export interface ErrorContext {
  /** Endpoint name of the registry (`placeOrder`), when the error belongs to one request. */
  endpoint?: string;
  /** Venue code of PROTOCOL.md section 8, when the venue answered. */
  venueCode?: number;
  httpStatus?: number;
  requestId?: string;
  cause?: unknown;
}

export class PerpkitError extends Error {
  /** Stable machine-readable code, e.g. `PERPKIT_ERR_RATE_LIMITED`. */
  readonly code: string;
  readonly endpoint: string | undefined;
  readonly venueCode: number | undefined;
  readonly httpStatus: number | undefined;
  readonly requestId: string | undefined;
  /** True when sending the same request again later is safe and may succeed. */
  readonly retryable: boolean;

  constructor(code: string, message: string, retryable: boolean, ctx: ErrorContext = {}) {
    super(message, ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = retryable;
    this.endpoint = ctx.endpoint;
    this.venueCode = ctx.venueCode;
    this.httpStatus = ctx.httpStatus;
    this.requestId = ctx.requestId;
  }
}

// ---------------------------------------------------------------- retryable

/** Connection refused, reset or closed before a complete answer. */
export class NetworkError extends PerpkitError {
  /**
   * False when no connection was ever made (refused, no route, name not resolved, connect
   * timeout): the request cannot have reached the venue, so it had no effect, even an order.
   * True when it may have been sent (a connection cut or reset mid-request).
   */
  readonly requestMayHaveBeenSent: boolean;
  constructor(message: string, ctx: ErrorContext = {}, requestMayHaveBeenSent = true) {
    super('PERPKIT_ERR_NETWORK', message, true, ctx);
    this.requestMayHaveBeenSent = requestMayHaveBeenSent;
  }
}

/** No complete answer within the request's timeout. */
export class RequestTimeoutError extends PerpkitError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_TIMEOUT', `no answer within ${timeoutMs} ms${ctx.endpoint ? ` (${ctx.endpoint})` : ''}`, true, ctx);
    this.timeoutMs = timeoutMs;
  }
}

/** 429 / 40001. The whole client waits `retryAfterMs` before its next request. */
export class RateLimitError extends PerpkitError {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_RATE_LIMITED', message, true, ctx);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 500 / 503 (50001, 50002, or a 5xx without the envelope). */
export class ServiceUnavailableError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_SERVICE_UNAVAILABLE', message, true, ctx);
  }
}

// ---------------------------------------------------------------- terminal

/** 10001..10005: the request is wrong as it stands. `field` names the culprit when the venue says. */
export class ValidationError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_VALIDATION', message, false, ctx);
  }
}

/** 20001..20003, 20005..20007: credentials missing, wrong, expired, or badly signed. */
export class AuthenticationError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_AUTHENTICATION', message, false, ctx);
  }
}

/** 20004: authenticated, but the API key lacks the permission. */
export class PermissionDeniedError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_PERMISSION_DENIED', message, false, ctx);
  }
}

/** 10006, 20008, 30001, 30015, 30016: the endpoint, listenKey, order, condition or strategy does not exist. */
export class NotFoundError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_NOT_FOUND', message, false, ctx);
  }
}

/** 30002..30017 (not the not-found ones): the venue refused the order or change by its rules. */
export class OrderRejectedError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_REJECTED', message, false, ctx);
  }
}

/** The venue answered, but not in the shape PROTOCOL.md promises. */
export class MalformedResponseError extends PerpkitError {
  /** Path of the offending field inside the response (`data.list[3].price`), or `body`. */
  readonly field: string;
  constructor(endpoint: string, field: string, problem: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_MALFORMED_RESPONSE', `malformed response from ${endpoint}: ${field} ${problem}`, false, { ...ctx, endpoint });
    this.field = field;
  }
}

/**
 * An order request was sent but its fate could not be learned: the answer was lost and querying
 * by clientOrderId did not find the order within the bounded attempts. The order may still
 * appear; reconcile by `clientOrderIds` (stream or query) before acting again. Never resend it
 * with a new id.
 */
export class UnknownOrderOutcomeError extends PerpkitError {
  readonly clientOrderIds: string[];
  constructor(message: string, clientOrderIds: string[], ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_UNKNOWN_ORDER_OUTCOME', message, false, ctx);
    this.clientOrderIds = clientOrderIds;
  }
}

/** The caller's AbortSignal fired. */
export class RequestAbortedError extends PerpkitError {
  /** `during`: what the request was waiting for when it was aborted (a rate limit's Retry-After, a retry's backoff), when it was not sending. */
  constructor(ctx: ErrorContext = {}, during?: string) {
    super('PERPKIT_ERR_ABORTED', `request aborted by the caller${ctx.endpoint ? ` (${ctx.endpoint})` : ''}${during === undefined ? '' : ` ${during}`}`, false, ctx);
  }
}

/** A venue code this SDK does not know: terminal, since we cannot tell it had no effect. */
export class UnexpectedVenueError extends PerpkitError {
  constructor(message: string, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_VENUE', message, false, ctx);
  }
}

/** The stream could not be used (closed, refused upgrade, listenKey unusable). */
export class StreamError extends PerpkitError {
  constructor(message: string, retryable: boolean, ctx: ErrorContext = {}) {
    super('PERPKIT_ERR_STREAM', message, retryable, ctx);
  }
}

const NOT_FOUND_CODES: ReadonlySet<number> = new Set([
  ErrorCodes.NO_SUCH_ENDPOINT,
  ErrorCodes.LISTEN_KEY_NOT_FOUND,
  ErrorCodes.ORDER_NOT_FOUND,
  ErrorCodes.CONDITION_NOT_FOUND,
  ErrorCodes.STRATEGY_NOT_FOUND,
]);

/**
 * The error for a venue answer with a non-zero code (or a non-envelope HTTP error when `venueCode`
 * is undefined). The class follows the code; the HTTP status decides only when there is no code.
 */
export function errorFromVenue(
  venueCode: number | undefined,
  message: string,
  httpStatus: number,
  ctx: ErrorContext & { retryAfterMs?: number } = {},
): PerpkitError {
  const c: ErrorContext = { ...ctx, venueCode, httpStatus };
  const text = venueCode === undefined ? `HTTP ${httpStatus}: ${message}` : `${venueCode} ${message}`;
  if (venueCode === ErrorCodes.RATE_LIMITED || (venueCode === undefined && httpStatus === 429)) {
    return new RateLimitError(text, ctx.retryAfterMs ?? 1000, c);
  }
  if (venueCode === ErrorCodes.INTERNAL || venueCode === ErrorCodes.BUSY || (venueCode === undefined && httpStatus >= 500)) {
    return new ServiceUnavailableError(text, c);
  }
  if (venueCode === undefined) return new UnexpectedVenueError(text, c);
  if (NOT_FOUND_CODES.has(venueCode)) return new NotFoundError(text, c);
  if (venueCode === ErrorCodes.PERMISSION_DENIED) return new PermissionDeniedError(text, c);
  if (venueCode >= 10001 && venueCode <= 10005) return new ValidationError(text, c);
  if (venueCode >= 20001 && venueCode <= 20007) return new AuthenticationError(text, c);
  if (venueCode >= 30002 && venueCode <= 30017) return new OrderRejectedError(text, c);
  return new UnexpectedVenueError(text, c);
}

/** Whether the venue certainly did not act on the request (so even an order may be sent again). */
export function hadNoEffect(err: unknown): boolean {
  if (!(err instanceof PerpkitError)) return false;
  // No connection was ever made: nothing was sent.
  if (err instanceof NetworkError && !err.requestMayHaveBeenSent) return true;
  if (err instanceof RateLimitError || err instanceof ValidationError || err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
    return true;
  }
  // 50001/50002 in a venue envelope: PROTOCOL.md says the request had no effect. A bare 5xx (a
  // proxy, a crash) promises nothing.
  return err instanceof ServiceUnavailableError && err.venueCode !== undefined;
}
