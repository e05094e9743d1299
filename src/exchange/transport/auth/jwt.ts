/**
 * Access tokens: JWT signed with HS256 (RFC 7519 / 7515), written out here because it is a dozen
 * lines with node:crypto and a library would add surface for algorithm confusion ("alg": "none",
 * RS/HS mixups). Only the exact header we issue is accepted.
 *
 * `iat` and `exp` are NumericDate seconds as the RFC says, with a fraction so that lifetimes
 * shorter than a second (tests) keep millisecond precision.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from './constant-time';

export interface AccessClaims {
  /** userId */
  sub: string;
  iat: number;
  exp: number;
  jti: string;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** Verified tokens kept to skip the HMAC on every request of a session; bounded. */
const VERIFIED_CACHE_MAX = 10000;

export class JwtSigner {
  /** token -> claims of tokens whose signature checked out (expiry is still checked per use). */
  private readonly verified = new Map<string, AccessClaims>();

  constructor(private readonly secret: Buffer) {}

  private mac(input: string): string {
    return createHmac('sha256', this.secret).update(input).digest('base64url');
  }

  /** A token for the user, and its expiry in epoch ms. */
  issue(userId: string, nowMs: number, ttlMs: number): { token: string; expireAt: number } {
    const expireAt = nowMs + ttlMs;
    const claims: AccessClaims = { sub: userId, iat: nowMs / 1000, exp: expireAt / 1000, jti: randomBytes(12).toString('base64url') };
    const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return { token: `${body}.${this.mac(body)}`, expireAt };
  }

  /** The claims of a valid, unexpired token; undefined for anything else. */
  verify(token: string, nowMs: number): AccessClaims | undefined {
    const known = this.verified.get(token);
    if (known !== undefined) {
      if (known.exp * 1000 > nowMs) return known;
      this.verified.delete(token);
      return undefined;
    }
    const claims = this.verifySignature(token, nowMs);
    if (claims !== undefined) {
      if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.clear();
      this.verified.set(token, claims);
    }
    return claims;
  }

  private verifySignature(token: string, nowMs: number): AccessClaims | undefined {
    if (token.length > 4096) return undefined;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
    if (!constantTimeEqual(this.mac(`${parts[0]}.${parts[1]}`), parts[2])) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof claims !== 'object' || claims === null) return undefined;
    const c = claims as Record<string, unknown>;
    if (typeof c.sub !== 'string' || typeof c.exp !== 'number' || typeof c.iat !== 'number' || typeof c.jti !== 'string') return undefined;
    if (!(c.exp * 1000 > nowMs)) return undefined;
    return { sub: c.sub, iat: c.iat, exp: c.exp, jti: c.jti };
  }
}
