/**
 * The stable error codes of PROTOCOL.md section 8, with their HTTP statuses, and the one error type
 * that carries them through every layer.
 */
export const ErrorCodes = {
  SUCCESS: 0,
  INVALID_PARAMETER: 10001,
  MISSING_PARAMETER: 10002,
  UNKNOWN_SYMBOL: 10003,
  INVALID_ENUM: 10004,
  BODY_NOT_OBJECT: 10005,
  NO_SUCH_ENDPOINT: 10006,
  NOT_AUTHENTICATED: 20001,
  BAD_SIGNATURE: 20002,
  TIMESTAMP_OUTSIDE_RECV_WINDOW: 20003,
  PERMISSION_DENIED: 20004,
  WRONG_CREDENTIALS: 20005,
  REFRESH_TOKEN_INVALID: 20006,
  TICKET_INVALID: 20007,
  LISTEN_KEY_NOT_FOUND: 20008,
  ORDER_NOT_FOUND: 30001,
  DUPLICATE_CLIENT_ORDER_ID: 30002,
  INSUFFICIENT_MARGIN: 30003,
  REDUCE_ONLY_WOULD_INCREASE: 30004,
  OFF_GRID_OR_OUT_OF_RANGE: 30005,
  BELOW_MIN_NOTIONAL: 30006,
  ORDER_FINAL: 30007,
  TOO_MANY_IN_BATCH: 30008,
  LEVERAGE_OUT_OF_RANGE: 30009,
  TOO_MANY_OPEN_ORDERS: 30010,
  POSITION_SIDE_MISMATCH: 30011,
  MARGIN_MODE_LOCKED: 30012,
  PRICE_PROTECTION: 30013,
  CONDITION_NOT_FOUND: 30015,
  STRATEGY_NOT_FOUND: 30016,
  INVALID_STRATEGY: 30017,
  RATE_LIMITED: 40001,
  INTERNAL: 50001,
  BUSY: 50002,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;
export type ErrorCode = (typeof ErrorCodes)[ErrorCodeName];

const HTTP_STATUS: Record<ErrorCode, number> = {
  0: 200,
  10001: 400,
  10002: 400,
  10003: 400,
  10004: 400,
  10005: 400,
  10006: 404,
  20001: 401,
  20002: 401,
  20003: 401,
  20004: 403,
  20005: 401,
  20006: 401,
  20007: 401,
  20008: 404,
  30001: 404,
  30002: 409,
  30003: 400,
  30004: 400,
  30005: 400,
  30006: 400,
  30007: 400,
  30008: 400,
  30009: 400,
  30010: 400,
  30011: 400,
  30012: 400,
  30013: 400,
  30015: 404,
  30016: 404,
  30017: 400,
  40001: 429,
  50001: 500,
  50002: 503,
};

/** HTTP status that goes with a venue error code (PROTOCOL.md section 8). */
export function httpStatusOf(code: ErrorCode): number {
  return HTTP_STATUS[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'number' && Object.prototype.hasOwnProperty.call(HTTP_STATUS, value);
}

/**
 * A venue error: a stable numeric code from PROTOCOL.md, and a message that says what was wrong
 * and what was expected. `field` names the offending request field when there is one.
 */
export class VenueError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'VenueError';
    this.code = code;
    this.field = field;
  }

  get httpStatus(): number {
    return httpStatusOf(this.code);
  }
}

/** Shorthand used by validators and the engine: `fail(10001, 'price must be ...', 'price')`. */
export function venueError(code: ErrorCode, message: string, field?: string): VenueError {
  return new VenueError(code, message, field);
}

/** The message of a thrown value: an error's (of any realm: node's own under jest are no `instanceof Error`), or its text. */
export function errMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(e);
}
