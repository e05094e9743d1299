/**
 * Public endpoints: version, time, sign-in, token refresh, agent SSO, leaderboard
 * (SERVICE_SPEC "Public endpoints", PROTOCOL.md sections 2 and 3).
 */
import type { LeaderboardPeriod } from '../../core/enums';
import type { EmptyParams } from './common';

export type VersionParams = EmptyParams;
export interface VersionResult {
  version: string;
  apiVersion: 'v1';
}

export type TimeParams = EmptyParams;
export interface TimeResult {
  /** Epoch ms. */
  serverTime: number;
}

/** Access token answer of login, refresh and both SSO exchanges. */
export interface AccessTokenResult {
  accessToken: string;
  /** Epoch ms. */
  accessExpire: number;
}

export interface LoginParams {
  /** 3..32 characters. */
  username: string;
  /** 1..64 characters. */
  password: string;
  /** Up to 64 characters. */
  deviceId?: string;
  /** Up to 128 characters. */
  deviceName?: string;
}
export type LoginRequest = LoginParams;
export type LoginResult = AccessTokenResult;

/** The refresh token travels in the `refreshToken` cookie, not in the body. */
export type RefreshTokenParams = EmptyParams;
export type RefreshTokenResult = AccessTokenResult;

export interface ExchangeTicketParams {
  ticket: string;
  deviceId?: string;
}
export type ExchangeTicketRequest = ExchangeTicketParams;
export interface ExchangeTicketResult extends AccessTokenResult {
  redirectPath: string;
}

export interface ExchangeEmbedTokenParams {
  embedToken: string;
  /** 1..128 characters; the embed token is bound to it. */
  channelId: string;
  deviceId?: string;
}
export type ExchangeEmbedTokenRequest = ExchangeEmbedTokenParams;
export type ExchangeEmbedTokenResult = AccessTokenResult;

export interface LeaderboardParams {
  period: LeaderboardPeriod;
}
export type LeaderboardRequest = LeaderboardParams;
export interface LeaderboardEntry {
  rank: number;
  userId: string;
  /** Masked name. */
  trader: string;
  volume: string;
  pnlAmount: string;
  /** Decimal 0 to 1. */
  pnlPct: string;
}
export interface LeaderboardResult {
  list: LeaderboardEntry[];
  /** 0 when unauthenticated or not ranked. */
  myRank: number;
}
