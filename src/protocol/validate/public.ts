/** Validators of the public endpoints (SERVICE_SPEC "Public endpoints"). */
import { LEADERBOARD_PERIODS } from '../../core/enums';
import type { ExchangeEmbedTokenRequest, ExchangeTicketRequest, LeaderboardRequest, LoginRequest } from '../rest/public';
import { FieldReader, KeySet, stringProblem } from './fields';
import { CHANNEL_ID, DEVICE_ID, DEVICE_NAME, PASSWORD, SSO_TOKEN, USERNAME } from './rules';

const LOGIN_KEYS = new KeySet(['username', 'password', 'deviceId', 'deviceName']);

/** What login would refuse in a username (undefined: nothing): the rule for anything that creates users. */
export function usernameProblem(v: unknown): string | undefined {
  return stringProblem(v, USERNAME);
}

export function validateLogin(input: unknown): LoginRequest {
  const r = FieldReader.body(input, LOGIN_KEYS);
  return {
    username: r.reqString('username', USERNAME),
    password: r.reqString('password', PASSWORD),
    deviceId: r.optString('deviceId', DEVICE_ID),
    deviceName: r.optString('deviceName', DEVICE_NAME),
  };
}

const TICKET_KEYS = new KeySet(['ticket', 'deviceId']);

export function validateExchangeTicket(input: unknown): ExchangeTicketRequest {
  const r = FieldReader.body(input, TICKET_KEYS);
  return { ticket: r.reqString('ticket', SSO_TOKEN), deviceId: r.optString('deviceId', DEVICE_ID) };
}

const EMBED_KEYS = new KeySet(['embedToken', 'channelId', 'deviceId']);

export function validateExchangeEmbedToken(input: unknown): ExchangeEmbedTokenRequest {
  const r = FieldReader.body(input, EMBED_KEYS);
  return {
    embedToken: r.reqString('embedToken', SSO_TOKEN),
    channelId: r.reqString('channelId', CHANNEL_ID),
    deviceId: r.optString('deviceId', DEVICE_ID),
  };
}

const LEADERBOARD_KEYS = new KeySet(['period']);

export function validateLeaderboard(input: unknown): LeaderboardRequest {
  const r = FieldReader.query(input, LEADERBOARD_KEYS);
  return { period: r.reqEnum('period', LEADERBOARD_PERIODS) };
}
