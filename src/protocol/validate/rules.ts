/** Field rules shared by several validators, so the same field is checked the same way everywhere. */
import { PAGE_DEFAULT, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../rest/common';
import { FieldReader, invalid, type StringRule } from './fields';

/**
 * Symbols are only length-checked here: whether one exists is the engine's answer (10003), which
 * is more useful to the caller than a pattern error would be.
 */
export const SYMBOL: StringRule = { max: 32 };

/** Server-issued ids (orders, conditions, strategies, users, listenKeys, tickets). */
export const ID: StringRule = { max: 64 };

/**
 * Our decision (the spec gives no rule): 1..36 characters of [A-Za-z0-9_-]. 36 fits a UUID with
 * dashes; the restricted alphabet keeps ids safe in query strings, logs and file names.
 */
export const CLIENT_ORDER_ID: StringRule = {
  max: 36,
  pattern: /^[A-Za-z0-9_-]+$/,
  patternText: 'made of letters, digits, "_" and "-" only',
};

/** Free-form marker echoed back in the order record. */
/**
 * A user's placeType: free text, but not the venue's own marker of its liquidation orders
 * (LIQUIDATION), which books the order's realized PnL as a liquidation in the account's records.
 */
export const PLACE_TYPE: StringRule = { max: 32, pattern: /^(?!LIQUIDATION$)[\s\S]*$/, patternText: 'other than LIQUIDATION (the venue marks its own liquidation orders so)' };

export const DEVICE_ID: StringRule = { max: 64 };
export const DEVICE_NAME: StringRule = { max: 128 };
export const CHANNEL_ID: StringRule = { max: 128 };
export const USERNAME: StringRule = { min: 3, max: 32 };
export const PASSWORD: StringRule = { min: 1, max: 64 };
/** Opaque one-time tokens minted by the agent service. */
export const SSO_TOKEN: StringRule = { max: 512 };
export const ASSET_TYPE: StringRule = { max: 16 };

export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;
const MS_MAX = Number.MAX_SAFE_INTEGER;

export interface Paging {
  page: number;
  pageSize: number;
}

export function readPaging(r: FieldReader): Paging {
  return {
    page: r.optInt('page', 1, MS_MAX) ?? PAGE_DEFAULT,
    pageSize: r.optInt('pageSize', 1, PAGE_SIZE_MAX) ?? PAGE_SIZE_DEFAULT,
  };
}

export interface TimeRange {
  startTime: number | undefined;
  endTime: number | undefined;
}

/** Epoch-ms bounds; a range that ends before it starts is refused rather than answered empty. */
export function readTimeRange(r: FieldReader): TimeRange {
  const startTime = r.optInt('startTime', 0, MS_MAX);
  const endTime = r.optInt('endTime', 0, MS_MAX);
  if (startTime !== undefined && endTime !== undefined && endTime < startTime) {
    throw invalid(`endTime must not be before startTime (got startTime ${startTime}, endTime ${endTime})`, 'endTime');
  }
  return { startTime, endTime };
}

export const PAGING_KEYS = ['page', 'pageSize'] as const;
export const TIME_RANGE_KEYS = ['startTime', 'endTime'] as const;
