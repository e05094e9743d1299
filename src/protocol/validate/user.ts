/** Validators of the user and account resource (SERVICE_SPEC "User and account", PROTOCOL.md section 5). */
import { BALANCE_HISTORY_PERIODS, CHANGE_TYPES, OVERVIEW_TYPES } from '../../core/enums';
import type {
  AccountChangeLogRequest,
  BalanceHistoryRequest,
  FavoriteSymbolsRequest,
  ListenKeyRequest,
  OverviewRequest,
} from '../rest/user';
import { BALANCE_HISTORY_LIMIT_DEFAULT, BALANCE_HISTORY_LIMIT_MAX, FAVORITE_SYMBOLS_MAX } from '../rest/user';
import { FieldReader, KeySet, invalid, jsonTypeOf } from './fields';
import { ASSET_TYPE, ID, PAGING_KEYS, SYMBOL, TIME_RANGE_KEYS, readPaging, readTimeRange } from './rules';

const LISTEN_KEY_KEYS = new KeySet(['listenKey']);

/** Body of PUT and DELETE /v1/private/user/listen-key. */
export function validateListenKeyBody(input: unknown): ListenKeyRequest {
  const r = FieldReader.body(input, LISTEN_KEY_KEYS);
  return { listenKey: r.reqString('listenKey', ID) };
}

const CHANGE_LOG_KEYS = new KeySet(['assetType', 'changeType', ...TIME_RANGE_KEYS, ...PAGING_KEYS]);

export function validateAccountChangeLog(input: unknown): AccountChangeLogRequest {
  const r = FieldReader.query(input, CHANGE_LOG_KEYS);
  const assetType = r.optString('assetType', ASSET_TYPE);
  const changeType = r.optEnum('changeType', CHANGE_TYPES);
  const { startTime, endTime } = readTimeRange(r);
  const { page, pageSize } = readPaging(r);
  return { assetType, changeType, startTime, endTime, page, pageSize };
}

const BALANCE_HISTORY_KEYS = new KeySet(['period', 'limit']);

export function validateBalanceHistory(input: unknown): BalanceHistoryRequest {
  const r = FieldReader.query(input, BALANCE_HISTORY_KEYS);
  return {
    period: r.reqEnum('period', BALANCE_HISTORY_PERIODS),
    limit: r.optInt('limit', 1, BALANCE_HISTORY_LIMIT_MAX) ?? BALANCE_HISTORY_LIMIT_DEFAULT,
  };
}

const OVERVIEW_KEYS = new KeySet(['type']);

/** Query of trade-overview and asset/overview/trend. */
export function validateOverview(input: unknown): OverviewRequest {
  const r = FieldReader.query(input, OVERVIEW_KEYS);
  return { type: r.reqEnum('type', OVERVIEW_TYPES) };
}

const FAVORITES_KEYS = new KeySet(['symbols']);

/** Replaces the whole list; repeats are refused because the stored list is a set. */
export function validateFavoriteSymbols(input: unknown): FavoriteSymbolsRequest {
  const r = FieldReader.body(input, FAVORITES_KEYS);
  const arr = r.reqArray('symbols');
  if (arr.length > FAVORITE_SYMBOLS_MAX) {
    throw invalid(`symbols must hold at most ${FAVORITE_SYMBOLS_MAX} entries, got ${arr.length}`, 'symbols');
  }
  const seen = new Set<string>();
  const symbols: string[] = [];
  for (let i = 0; i < arr.length; i++) {
    const s: unknown = arr[i];
    const f = `symbols[${i}]`;
    if (typeof s !== 'string') throw invalid(`${f} must be a string, got ${jsonTypeOf(s)}`, f);
    if (s.length === 0 || s.length > SYMBOL.max) throw invalid(`${f} must be 1 to ${SYMBOL.max} characters long, got ${s.length}`, f);
    if (seen.has(s)) throw invalid(`${f} repeats "${s}"; each symbol may appear once`, f);
    seen.add(s);
    symbols.push(s);
  }
  return { symbols };
}
