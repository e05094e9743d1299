/**
 * What the client authenticates with: an API key (signed requests, PROTOCOL.md section 2) or a
 * JWT session (Bearer token, renewed with the refresh cookie).
 */
export interface ApiKeyCredentials {
  apiKey: string;
  secret: string;
  /** ms, default 5000, max 60000. */
  recvWindow?: number;
}

/** A JWT session: the access token, its expiry, and the rotating refresh cookie when there is one. */
export class JwtSession {
  accessToken: string;
  /** Epoch ms (venue time). */
  accessExpire: number;
  /** `refreshToken=<opaque>` as sent back in the Cookie header; rotated on every refresh. */
  refreshCookie: string | undefined;

  constructor(accessToken: string, accessExpire: number, refreshCookie?: string) {
    this.accessToken = accessToken;
    this.accessExpire = accessExpire;
    this.refreshCookie = refreshCookie;
  }
}

/** The `refreshToken=...` pair of a Set-Cookie header, without its attributes. */
export function refreshCookieFrom(setCookie: string | string[] | undefined): string | undefined {
  const all = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  for (const c of all) {
    const pair = c.split(';', 1)[0]?.trim() ?? '';
    if (pair.startsWith('refreshToken=') && pair.length > 'refreshToken='.length) return pair;
  }
  return undefined;
}
