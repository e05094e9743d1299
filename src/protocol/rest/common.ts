/** Shapes shared by several resources: paging, lists, batch results, defaults. */
import type { VenueError } from '../../core/errors';

/** Flattens an intersection so editors show one object type. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The validated form of a request: the fields in K, optional on the wire, are always present
 * because the validator fills their defaults.
 */
export type WithDefaults<P, K extends keyof P> = Simplify<Omit<P, K> & { [Q in K]-?: Exclude<P[Q], undefined> }>;

/** Query paging of the spec: `page` from 1, `pageSize` 1..100 (PROTOCOL.md section 3). */
export interface PageParams {
  page?: number;
  pageSize?: number;
}

export interface TimeRangeParams {
  /** Epoch ms, inclusive. */
  startTime?: number;
  /** Epoch ms, inclusive. */
  endTime?: number;
}

export const PAGE_DEFAULT = 1;
export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

/** History lists and current condition orders answer `{list, total}` (PROTOCOL.md section 3). */
export interface ListResult<T> {
  list: T[];
  total: number;
}

/**
 * One item of a batch answer, in submission order. `success` false carries the error code and
 * message of that order alone; one bad order never fails the others (PROTOCOL.md section 3).
 */
export interface BatchResultItem {
  index: number;
  success: boolean;
  /** 0 on success. */
  code: number;
  message: string;
  /** "" when the order was not accepted and no id is known. */
  orderId: string;
  clientOrderId: string;
  /** Order status after the operation; "" when the operation failed. */
  status: string;
}

/** Answer of batch-place, batch-move and batch-cancel. */
export interface BatchResult {
  successCount: number;
  failedCount: number;
  results: BatchResultItem[];
}

/** Maximum items in batch-place, batch-move and batch-cancel (PROTOCOL.md section 3). */
export const BATCH_MAX = 20;

/** Body of the endpoints that take none. */
export type EmptyParams = Record<string, never>;

/**
 * A validated batch item. Item-level mistakes do not fail the request: the server answers them as
 * failed `results[]` entries, with the error's code and message, next to the good orders.
 */
/** A batch item as validated; a refused one keeps the clientOrderId it was sent with (a string, echoed in its result). */
export type BatchItem<T> = { ok: true; value: T } | { ok: false; error: VenueError; clientOrderId?: string };
