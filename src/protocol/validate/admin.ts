/** Validators of the local exchange's admin API (PROTOCOL.md section 7). */
import { PERMISSIONS, POSITION_MODES, type Permission } from '../../core/enums';
import type {
  CreateApiKeyRequest,
  CreateUserRequest,
  MintEmbedTokenRequest,
  MintTicketRequest,
  SetMarkPriceRequest,
  SettleFundingRequest,
} from '../rest/admin';
import { FieldReader, KeySet, invalid, jsonTypeOf, notAllowed } from './fields';
import { CHANNEL_ID, ID, PASSWORD, SYMBOL, USERNAME } from './rules';

const CREATE_USER_KEYS = new KeySet(['username', 'password', 'balance', 'positionMode']);

export function validateCreateUser(input: unknown): CreateUserRequest {
  const r = FieldReader.body(input, CREATE_USER_KEYS);
  return {
    username: r.reqString('username', USERNAME),
    password: r.reqString('password', PASSWORD),
    balance: r.reqDecimal('balance', 'nonNegative'),
    positionMode: r.optEnum('positionMode', POSITION_MODES) ?? 'ONE_WAY',
  };
}

const CREATE_API_KEY_KEYS = new KeySet(['userId', 'permissions']);

export function validateCreateApiKey(input: unknown): CreateApiKeyRequest {
  const r = FieldReader.body(input, CREATE_API_KEY_KEYS);
  const userId = r.reqString('userId', ID);
  const arr = r.reqArray('permissions');
  if (arr.length === 0) throw invalid(`permissions must hold at least one of ${PERMISSIONS.join(', ')}`, 'permissions');
  const permissions: Permission[] = [];
  for (let i = 0; i < arr.length; i++) {
    const p: unknown = arr[i];
    const f = `permissions[${i}]`;
    if (typeof p !== 'string') throw invalid(`${f} must be a string (one of ${PERMISSIONS.join(', ')}), got ${jsonTypeOf(p)}`, f);
    if (!(PERMISSIONS as readonly string[]).includes(p)) throw notAllowed(f, PERMISSIONS, p);
    if ((permissions as string[]).includes(p)) throw invalid(`${f} repeats "${p}"; each permission may appear once`, f);
    permissions.push(p as Permission);
  }
  return { userId, permissions };
}

const USER_ID_KEYS = new KeySet(['userId']);

export function validateMintTicket(input: unknown): MintTicketRequest {
  const r = FieldReader.body(input, USER_ID_KEYS);
  return { userId: r.reqString('userId', ID) };
}

const EMBED_KEYS = new KeySet(['userId', 'channelId']);

export function validateMintEmbedToken(input: unknown): MintEmbedTokenRequest {
  const r = FieldReader.body(input, EMBED_KEYS);
  return { userId: r.reqString('userId', ID), channelId: r.reqString('channelId', CHANNEL_ID) };
}

const MARK_PRICE_KEYS = new KeySet(['symbol', 'markPrice']);

export function validateSetMarkPrice(input: unknown): SetMarkPriceRequest {
  const r = FieldReader.body(input, MARK_PRICE_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL), markPrice: r.reqDecimal('markPrice', 'positive') };
}

const FUNDING_KEYS = new KeySet(['symbol', 'fundingRate']);

export function validateSettleFunding(input: unknown): SettleFundingRequest {
  const r = FieldReader.body(input, FUNDING_KEYS);
  return { symbol: r.reqString('symbol', SYMBOL), fundingRate: r.reqDecimal('fundingRate', 'any') };
}
