/** Validators of the positions resource (SERVICE_SPEC "Positions"). */
import { MARGIN_MODE_CODES, POSITION_HISTORY_SIDES } from '../../core/enums';
import type {
  PositionHistoryRequest,
  PositionSettingsRequest,
  PositionsRequest,
  SetLeverageRequest,
  SetMarginModeRequest,
} from '../rest/positions';
import { FieldReader, KeySet } from './fields';
import { INT32_MAX, INT32_MIN, PAGING_KEYS, SYMBOL, TIME_RANGE_KEYS, readPaging, readTimeRange } from './rules';

const SET_LEVERAGE_KEYS = new KeySet(['symbol', 'leverage']);

/**
 * An int32 here; its range, 1..the symbol's maxLeverage, is the engine's 30009 "leverage out of
 * range" (PROTOCOL.md section 8), for 0 and negative values too (they were 10001).
 */
export function validateSetLeverage(input: unknown): SetLeverageRequest {
  const r = FieldReader.body(input, SET_LEVERAGE_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL), leverage: r.reqInt('leverage', INT32_MIN, INT32_MAX) };
}

const SET_MARGIN_MODE_KEYS = new KeySet(['symbol', 'marginMode']);

export function validateSetMarginMode(input: unknown): SetMarginModeRequest {
  const r = FieldReader.body(input, SET_MARGIN_MODE_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL), marginMode: r.reqIntEnum('marginMode', MARGIN_MODE_CODES) };
}

const SYMBOL_KEYS = new KeySet(['symbol']);

export function validatePositionSettings(input: unknown): PositionSettingsRequest {
  const r = FieldReader.query(input, SYMBOL_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL) };
}

export function validatePositions(input: unknown): PositionsRequest {
  const r = FieldReader.query(input, SYMBOL_KEYS);
  return { symbol: r.optString('symbol', SYMBOL) };
}

const POSITION_HISTORY_KEYS = new KeySet(['symbol', 'side', ...TIME_RANGE_KEYS, ...PAGING_KEYS]);

export function validatePositionHistory(input: unknown): PositionHistoryRequest {
  const r = FieldReader.query(input, POSITION_HISTORY_KEYS);
  const symbol = r.optString('symbol', SYMBOL);
  const side = r.optEnum('side', POSITION_HISTORY_SIDES);
  const { startTime, endTime } = readTimeRange(r);
  const { page, pageSize } = readPaging(r);
  return { symbol, side, startTime, endTime, page, pageSize };
}
