/** Validators of the local exchange's admin API (PROTOCOL.md section 7). */
import { PERMISSIONS, POSITION_MODES, type Permission } from '../../core/enums';
import {
  DROP_WS_MODES,
  FAULT_NAMES,
  type FaultName,
  type FaultSetting,
  type SetFaultRequest,
  type CreateApiKeyRequest,
  type CreateUserRequest,
  type MintEmbedTokenRequest,
  type MintTicketRequest,
  type SetMarkPriceRequest,
  type SettleFundingRequest,
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

// ---- fault injection (src/exchange/transport/faults.ts)

const FAULT_FIELDS = ['fault', 'on', 'userId', 'method', 'pathPrefix', 'probability', 'count', 'durationMs', 'ms', 'status', 'retryAfterSec', 'mode', 'ttlMs', 'windowMs'];
const FAULT_KEYS = new KeySet(FAULT_FIELDS);
const SETTING_KEYS = new KeySet(FAULT_FIELDS.filter((k) => k !== 'on'));
const HTTP_FAULTS: readonly FaultName[] = ['delayMs', 'http5xx', 'acceptDropResponse', 'rejectDropResponse', 'rateLimit'];
/** The parameters each switch reads; any other parameter given is refused rather than ignored. */
const FAULT_PARAMS: Readonly<Record<FaultName, readonly string[]>> = {
  dropWs: ['mode'],
  silence: [],
  delayMs: ['ms'],
  http5xx: ['status'],
  acceptDropResponse: [],
  rejectDropResponse: [],
  rateLimit: ['retryAfterSec'],
  expireListenKeys: ['ttlMs'],
  clockSkewMs: ['ms'],
  duplicateEvents: [],
  reorderEvents: ['windowMs'],
};
const ALL_PARAMS = ['ms', 'status', 'retryAfterSec', 'mode', 'ttlMs', 'windowMs'];
const DAY_MS = 24 * 3600 * 1000;

/**
 * POST /v1/admin/faults: `{fault, ...scope, ...parameters}` turns a switch on; `{fault, on: false}`
 * turns it off (`fault: "all"` clears every switch). Also the shape of the config's `faults:` list.
 */
export function validateSetFault(input: unknown): SetFaultRequest {
  const r = FieldReader.body(input, FAULT_KEYS);
  const on = r.optBool('on', true);
  if (!on) {
    for (const k of FAULT_FIELDS) {
      if (k !== 'fault' && k !== 'on' && k !== 'userId' && r.has(k)) throw invalid(`${k} has no meaning when turning a switch off`, k);
    }
    return { on, fault: r.reqEnum('fault', [...FAULT_NAMES, 'all'] as const), userId: r.optString('userId', ID) };
  }
  return { on, setting: readFaultSetting(r) };
}

/** One entry of the exchange config's `faults:` list (a switch that is on from the start). */
export function validateFaultSetting(input: unknown): FaultSetting {
  return readFaultSetting(FieldReader.body(input, SETTING_KEYS, '', () => invalid(`a fault setting must be a mapping, got ${jsonTypeOf(input)}`)));
}

function readFaultSetting(r: FieldReader): FaultSetting {
  const fault = r.reqEnum('fault', FAULT_NAMES);
  for (const k of ALL_PARAMS) {
    if (r.has(k) && !FAULT_PARAMS[fault].includes(k)) throw invalid(`${k} is not a parameter of ${fault} (it takes ${FAULT_PARAMS[fault].join(', ') || 'none'})`, k);
  }
  const http = HTTP_FAULTS.includes(fault);
  for (const k of ['method', 'pathPrefix']) {
    if (r.has(k) && !http) throw invalid(`${k} scopes HTTP switches only (${HTTP_FAULTS.join(', ')}), not ${fault}`, k);
  }
  const s: FaultSetting = { fault };
  const userId = r.optString('userId', ID);
  if (userId !== undefined) s.userId = userId;
  const method = r.optEnum('method', ['GET', 'POST', 'PUT', 'DELETE'] as const);
  if (method !== undefined) s.method = method;
  const pathPrefix = r.optString('pathPrefix', { min: 1, max: 200, pattern: /^\/[\x21-\x7e]*$/, patternText: 'a path starting with /' });
  if (pathPrefix !== undefined) s.pathPrefix = pathPrefix;
  const p = r.raw('probability');
  if (p !== undefined) {
    if (typeof p !== 'number' || !(p > 0 && p <= 1)) throw invalid(`probability must be a JSON number above 0 and at most 1, got ${jsonTypeOf(p)} ${String(p)}`, 'probability');
    s.probability = p;
  }
  const count = r.optInt('count', 1, 1_000_000_000);
  if (count !== undefined) s.count = count;
  const durationMs = r.optInt('durationMs', 1, DAY_MS);
  if (durationMs !== undefined) s.durationMs = durationMs;
  if (fault === 'delayMs') s.ms = r.reqInt('ms', 1, 120_000);
  if (fault === 'clockSkewMs') s.ms = r.reqInt('ms', -DAY_MS, DAY_MS);
  const status = r.optIntEnum('status', [500, 503] as const);
  if (status !== undefined) s.status = status;
  const retryAfterSec = r.optInt('retryAfterSec', 0, 3600);
  if (retryAfterSec !== undefined) s.retryAfterSec = retryAfterSec;
  const mode = r.optEnum('mode', DROP_WS_MODES);
  if (mode !== undefined) s.mode = mode;
  const ttlMs = r.optInt('ttlMs', 100, DAY_MS);
  if (ttlMs !== undefined) s.ttlMs = ttlMs;
  const windowMs = r.optInt('windowMs', 1, 10_000);
  if (windowMs !== undefined) s.windowMs = windowMs;
  return s;
}
