/**
 * Resolves the credentials of a request to a Principal, or refuses with the codes of PROTOCOL.md
 * section 8. Bearer tokens win when a request carries both a token and an API key: the header a
 * browser session sets is the more specific one.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../../core/clock';
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { AccountsState } from '../../service/accounts-state';
import { RECV_WINDOW_DEFAULT, RECV_WINDOW_MAX, sign } from './api-key-signature';
import { constantTimeEqual } from './constant-time';
import type { JwtSigner } from './jwt';
import { ALL_PERMISSIONS, type Principal } from './principal';

export interface RequestCredentials {
  method: string;
  path: string;
  rawQuery: string;
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
}

const header = (h: IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

const notAuthenticated = (why: string): VenueError => new VenueError(ErrorCodes.NOT_AUTHENTICATED, why);
const INTEGER_RE = /^(?:0|[1-9]\d{0,15})$/;
const KNOWN_BEARERS_PER_CONNECTION = 8;

/** What a Bearer header sent on a connection resolved to (see Authenticator.bearer). */
interface KnownBearer {
  header: string;
  /** The token's expiry, epoch ms. */
  expMs: number;
  principal: Principal;
}

export class Authenticator {
  /**
   * Per connection (the socket object), the last few Bearer headers and their principals. A
   * keep-alive client sends the same header or one of a few (a gateway carrying several users)
   * on every request: then the header regex, the token-cache lookup (which hashes a
   * ~250-character string) and a new Principal per request are skipped. Expiry and the user's
   * existence are still checked on every request, as verify() does.
   */
  private readonly knownBearers = new WeakMap<object, KnownBearer[]>();

  constructor(
    private readonly clock: Clock,
    private readonly accounts: AccountsState,
    private readonly jwt: JwtSigner,
  ) {}

  /** Whether the request carries any user credential (for optional-auth endpoints). */
  static hasCredentials(h: IncomingHttpHeaders): boolean {
    return header(h, 'authorization') !== undefined || header(h, 'x-api-key') !== undefined;
  }

  /** `connection`: the request's socket, for the per-connection Bearer cache (optional). */
  authenticate(c: RequestCredentials, connection?: object): Principal {
    const auth = header(c.headers, 'authorization');
    if (auth !== undefined) return this.bearer(auth, connection);
    if (header(c.headers, 'x-api-key') !== undefined) return this.apiKey(c);
    throw notAuthenticated('authentication required: send "Authorization: Bearer <accessToken>" or API-key signing headers (X-API-KEY, X-TIMESTAMP, X-SIGNATURE)');
  }

  private bearer(value: string, connection: object | undefined): Principal {
    const known = connection === undefined ? undefined : this.knownBearers.get(connection);
    if (known !== undefined) {
      for (let i = 0; i < known.length; i++) {
        const k = known[i];
        if (k.header === value) {
          if (k.expMs > this.clock.now() && this.accounts.users.has(k.principal.userId)) return k.principal;
          break;
        }
      }
    }
    const m = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(value.trim());
    if (!m) throw notAuthenticated('Authorization header must be "Bearer <accessToken>"');
    const claims = this.jwt.verify(m[1], this.clock.now());
    // A token of a user that no longer exists (state reset) is as good as a forged one.
    if (!claims || !this.accounts.users.has(claims.sub)) throw notAuthenticated('access token is invalid or expired; log in or refresh the token');
    const principal: Principal = { userId: claims.sub, via: 'jwt', permissions: ALL_PERMISSIONS };
    if (connection !== undefined) this.remember(connection, known, { header: value, expMs: claims.exp * 1000, principal });
    return principal;
  }

  /** Keeps at most KNOWN_BEARERS_PER_CONNECTION, the newest first. */
  private remember(connection: object, known: KnownBearer[] | undefined, entry: KnownBearer): void {
    if (known === undefined) {
      this.knownBearers.set(connection, [entry]);
      return;
    }
    const same = known.findIndex((k) => k.header === entry.header);
    if (same >= 0) known.splice(same, 1);
    else if (known.length >= KNOWN_BEARERS_PER_CONNECTION) known.pop();
    known.unshift(entry);
  }

  private apiKey(c: RequestCredentials): Principal {
    const apiKey = header(c.headers, 'x-api-key') ?? '';
    const timestamp = header(c.headers, 'x-timestamp');
    const signature = header(c.headers, 'x-signature');
    const recvHeader = header(c.headers, 'x-recv-window');
    if (timestamp === undefined) throw notAuthenticated('X-TIMESTAMP header (epoch ms) is required with X-API-KEY');
    if (signature === undefined) throw notAuthenticated('X-SIGNATURE header is required with X-API-KEY');
    if (!INTEGER_RE.test(timestamp)) {
      throw new VenueError(ErrorCodes.INVALID_PARAMETER, `X-TIMESTAMP must be epoch milliseconds as a base-10 integer, got ${JSON.stringify(timestamp.slice(0, 32))}`, 'X-TIMESTAMP');
    }
    let recvWindow = RECV_WINDOW_DEFAULT;
    if (recvHeader !== undefined) {
      recvWindow = INTEGER_RE.test(recvHeader) ? Number(recvHeader) : NaN;
      if (!(recvWindow >= 1 && recvWindow <= RECV_WINDOW_MAX)) {
        throw new VenueError(ErrorCodes.INVALID_PARAMETER, `X-RECV-WINDOW must be an integer from 1 to ${RECV_WINDOW_MAX} (ms), got ${JSON.stringify(recvHeader.slice(0, 32))}`, 'X-RECV-WINDOW');
      }
    }
    const skew = Math.abs(this.clock.now() - Number(timestamp));
    if (skew > recvWindow) {
      throw new VenueError(ErrorCodes.TIMESTAMP_OUTSIDE_RECV_WINDOW, `X-TIMESTAMP is ${skew} ms away from server time, more than the recvWindow of ${recvWindow} ms; sync your clock with GET /v1/time`);
    }
    const key = this.accounts.apiKeys.get(apiKey);
    // An unknown key is checked against a throwaway secret so both failures take the same path.
    const expected = sign(key?.secret ?? 'unknown-key', { timestamp, method: c.method, path: c.path, rawQuery: c.rawQuery, rawBody: c.rawBody });
    const matches = constantTimeEqual(expected, signature);
    if (!key || !matches) throw new VenueError(ErrorCodes.BAD_SIGNATURE, 'signature does not match, or the API key is unknown');
    return { userId: key.userId, via: 'apiKey', permissions: new Set(key.permissions), apiKey: key.apiKey };
  }
}

/** The admin API's guard: the configured token in X-ADMIN-TOKEN, compared in constant time. */
export function checkAdminToken(configured: string, headers: IncomingHttpHeaders): void {
  const given = header(headers, 'x-admin-token');
  if (given === undefined || !constantTimeEqual(given, configured)) {
    throw notAuthenticated('admin API: X-ADMIN-TOKEN header missing or wrong');
  }
}
