/** Positions resource: /v1/private/position/* (SERVICE_SPEC "Positions", PROTOCOL.md section 4). */
import type { MarginModeCode, PositionHistorySide } from '../../core/enums';
import type { PositionHistoryRecord, PositionRecord, PositionSettingsRecord } from '../records';
import type { ListResult, PageParams, TimeRangeParams, WithDefaults } from './common';

export interface SetLeverageParams {
  symbol: string;
  /** Integer from 1; the upper bound is the symbol's (engine, 30009). */
  leverage: number;
}
export type SetLeverageRequest = SetLeverageParams;
export interface SetLeverageResult {
  symbol: string;
  leverage: number;
  timestamp: number;
}

export interface SetMarginModeParams {
  symbol: string;
  /** 1 cross, 2 isolated. */
  marginMode: MarginModeCode;
}
export type SetMarginModeRequest = SetMarginModeParams;
export interface SetMarginModeResult {
  symbol: string;
  marginMode: MarginModeCode;
  timestamp: number;
}

export interface PositionSettingsParams {
  symbol: string;
}
export type PositionSettingsRequest = PositionSettingsParams;
export type PositionSettingsResult = PositionSettingsRecord;

export interface PositionsParams {
  symbol?: string;
}
export type PositionsRequest = PositionsParams;
export interface PositionsResult {
  positions: PositionRecord[];
}

export interface PositionHistoryParams extends PageParams, TimeRangeParams {
  symbol?: string;
  side?: PositionHistorySide;
}
export type PositionHistoryRequest = WithDefaults<PositionHistoryParams, 'page' | 'pageSize'>;
export type PositionHistoryResult = ListResult<PositionHistoryRecord>;
