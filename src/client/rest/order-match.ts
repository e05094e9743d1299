/**
 * Which order (or condition order) found by clientOrderId can be the one a lost request made.
 * A clientOrderId is unique only among orders that are not final (PROTOCOL.md section 3), so an
 * older, finished order may carry the same id: it is taken only when it was created no earlier
 * than the request was sent and matches what the request asked for.
 */

/**
 * How much earlier than the send time (venue clock as the client knows it) an order's `createdAt`
 * may be and still be taken as made by the request, ms. It covers the error of the client's clock
 * offset (half the round trip of the GET /v1/time it was learned from, plus drift since) and the
 * venue stamping orders on its own clock.
 */
export const CREATED_AT_TOLERANCE_MS = 1000;

/** The fields of an order request an order found by clientOrderId must match. */
export interface OrderShape {
  symbol: string;
  side: string;
  type: string;
  quantity?: string;
  price?: string;
  /** Condition orders. */
  stopPrice?: string;
  closePosition?: boolean;
}

/** The fields of an order or condition record the match reads. */
export interface RecordShape {
  symbol: string;
  side: string;
  type: string;
  quantity: string;
  price: string;
  /** Condition records only. */
  stopPrice?: string;
  createdAt: number;
}

/** A plain decimal without insignificant zeros ("0.50" -> "0.5", "010" -> "10"); other text as is. */
export function canonicalDecimal(s: string): string {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(s);
  if (m === null) return s;
  const int = (m[2] as string).replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const body = frac.length > 0 ? `${int}.${frac}` : int;
  return body === '0' ? '0' : `${m[1] as string}${body}`;
}

/**
 * Whether `rec` can be the order made by a request of shape `want` sent at `notBefore` (venue ms,
 * the tolerance already taken off). A price or quantity the request did not give is not compared
 * (a market order, a BBO price type, a closePosition order); a stop price only on a condition record.
 */
export function madeByRequest(rec: RecordShape, want: OrderShape, notBefore: number): boolean {
  if (rec.createdAt < notBefore) return false;
  if (rec.symbol !== want.symbol || rec.side !== want.side || rec.type !== want.type) return false;
  if (want.quantity !== undefined && want.closePosition !== true && canonicalDecimal(rec.quantity) !== canonicalDecimal(want.quantity)) return false;
  if (want.price !== undefined && canonicalDecimal(rec.price) !== canonicalDecimal(want.price)) return false;
  if (want.stopPrice !== undefined && rec.stopPrice !== undefined && canonicalDecimal(rec.stopPrice) !== canonicalDecimal(want.stopPrice)) return false;
  return true;
}
