/**
 * Local-exchange administration (PROTOCOL.md section 7): /v1/admin/*, guarded by the
 * `X-ADMIN-TOKEN` header. Not part of the venue a bot trades on live.
 */
import type { Permission, PositionMode } from '../../core/enums';
import type { WithDefaults } from './common';

export const ADMIN_TOKEN_HEADER = 'X-ADMIN-TOKEN';

export interface CreateUserParams {
  /** Same rules as login: 3..32 characters. */
  username: string;
  /** 1..64 characters. */
  password: string;
  /** Initial USDT wallet balance, non-negative. */
  balance: string;
  positionMode?: PositionMode;
}
export type CreateUserRequest = WithDefaults<CreateUserParams, 'positionMode'>;
export interface CreateUserResult {
  userId: string;
}

export interface CreateApiKeyParams {
  userId: string;
  /** Non-empty, no repeats. */
  permissions: Permission[];
}
export type CreateApiKeyRequest = CreateApiKeyParams;
export interface CreateApiKeyResult {
  apiKey: string;
  secret: string;
}

export interface MintTicketParams {
  userId: string;
}
export type MintTicketRequest = MintTicketParams;
export interface MintTicketResult {
  ticket: string;
}

export interface MintEmbedTokenParams {
  userId: string;
  channelId: string;
}
export type MintEmbedTokenRequest = MintEmbedTokenParams;
export interface MintEmbedTokenResult {
  embedToken: string;
}

export interface SetMarkPriceParams {
  symbol: string;
  markPrice: string;
}
export type SetMarkPriceRequest = SetMarkPriceParams;
export interface SetMarkPriceResult {
  symbol: string;
  markPrice: string;
}

export interface SettleFundingParams {
  symbol: string;
  /** Signed: positive rates make longs pay shorts. */
  fundingRate: string;
}
export type SettleFundingRequest = SettleFundingParams;
/** The section leaves `data` open; the round that was settled, so a test can assert on it. */
export interface SettleFundingResult {
  symbol: string;
  fundingRate: string;
  /**
   * Epoch ms of the round: the time it was settled (now; a round that was overdue, its scheduled
   * time), as the payments' account-change records name it (`referenceId` `funding-<fundingTime>`).
   */
  fundingTime: number;
}

// ---- fault injection (docs/reliability.md "Fault injection"; the local exchange only)

/** Switches of the local exchange's fault injection (src/exchange/transport/faults.ts). */
export const FAULT_NAMES = [
  'dropWs',
  'silence',
  'delayMs',
  'http5xx',
  'acceptDropResponse',
  'rejectDropResponse',
  'rateLimit',
  'expireListenKeys',
  'clockSkewMs',
  'duplicateEvents',
  'reorderEvents',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/** halfOpen: stop answering pings and stop sending, socket left open; terminate: cut (1006); close: close frame 1001. */
export const DROP_WS_MODES = ['halfOpen', 'terminate', 'close'] as const;
export type DropWsMode = (typeof DROP_WS_MODES)[number];

/** A fault switch with its scope; fields a switch does not use are refused. */
export interface FaultSetting {
  fault: FaultName;
  /** Only requests / streams of this user (any user when absent). */
  userId?: string;
  /** HTTP switches: only this method. */
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** HTTP switches: only paths starting with this. */
  pathPrefix?: string;
  /** Chance that a matching request / event is hit, 0..1; default 1. */
  probability?: number;
  /** Hits before the switch turns itself off. */
  count?: number;
  /** The switch turns itself off after this long, ms. */
  durationMs?: number;
  /** delayMs, clockSkewMs (may be negative): the amount, ms. */
  ms?: number;
  /** http5xx: 500 (50001) or 503 (50002); default 503. */
  status?: 500 | 503;
  /** rateLimit: Retry-After, seconds; default 1. */
  retryAfterSec?: number;
  /** dropWs: default halfOpen. */
  mode?: DropWsMode;
  /** expireListenKeys: lifetime of keys created or extended while on, instead of expiring them now. */
  ttlMs?: number;
  /** reorderEvents: longest time an event is held back, ms; default 50. */
  windowMs?: number;
}
export type SetFaultParams = FaultSetting & {
  /** false turns the named switch off (every entry, or those of `userId`); `fault: "all"` with false clears everything. */
  on?: boolean;
};
export type SetFaultRequest = { on: true; setting: FaultSetting } | { on: false; fault: FaultName | 'all'; userId: string | undefined };

export interface ActiveFault extends FaultSetting {
  id: number;
  /** Epoch ms when it turns off, when it has a duration. */
  until?: number;
  /** Hits left, when it has a count. */
  remaining?: number;
  hits: number;
}
export interface FaultsResult {
  active: ActiveFault[];
  /** Hits per switch since the exchange started (also counted after a switch turned off). */
  hits: Partial<Record<FaultName, number>>;
}
export type GetFaultsParams = Record<string, never>;
