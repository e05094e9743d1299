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
  /** Epoch ms of the settlement. */
  fundingTime: number;
}
