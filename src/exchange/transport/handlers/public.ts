/** Public endpoints: version, time, sign-in, refresh, agent SSO and the leaderboard. */
import { ErrorCodes, VenueError } from '../../../core/errors';
import type { AccessTokenResult } from '../../../protocol/rest/public';
import { decoyHash, verifyPassword } from '../auth/password';
import { REFRESH_COOKIE, readCookie, refreshCookie } from '../http/cookies';
import { leaderboard } from '../../service/leaderboard';
import type { HandlerMap, RequestContext } from './context';

/** Where the ticket exchange suggests the front end goes next. */
export const SSO_REDIRECT_PATH = '/trade';

function accessToken(ctx: RequestContext, userId: string): AccessTokenResult {
  const { token, expireAt } = ctx.deps.jwt.issue(userId, ctx.deps.core.wallClock.now(), ctx.deps.core.config.auth.accessTokenTtlMs);
  return { accessToken: token, accessExpire: expireAt };
}

/** A new session: lastLogin is recorded and a refresh cookie is set, as for a password login. */
function startSession(ctx: RequestContext, userId: string): AccessTokenResult {
  ctx.deps.core.accounts.lastLogin.set(userId, { at: ctx.deps.core.wallClock.now(), ip: ctx.ip });
  ctx.setCookie(refreshCookie(ctx.deps.sessions.issueRefreshToken(userId)));
  return accessToken(ctx, userId);
}

const WRONG_CREDENTIALS = 'wrong username or password';

export const publicHandlers = {
  getVersion: (ctx) => ({ version: ctx.deps.core.config.version, apiVersion: 'v1' as const }),
  // clockSkewMs is 0 unless the clock-skew fault switch is on (faults.ts).
  getTime: (ctx) => ({ serverTime: ctx.deps.core.wallClock.now() + ctx.deps.faults.clockSkewMs }),
  login: async (ctx, req) => {
    const user = ctx.deps.core.accounts.byUsername.get(req.username);
    // An unknown user costs the same scrypt run as a known one, and gets the same answer.
    const ok = await verifyPassword(req.password, user?.passwordHash ?? (await decoyHash()));
    if (!user || !ok) throw new VenueError(ErrorCodes.WRONG_CREDENTIALS, WRONG_CREDENTIALS);
    return startSession(ctx, user.userId);
  },
  refreshToken: (ctx) => {
    const cookieHeader = ctx.headers.cookie;
    const token = readCookie(cookieHeader, REFRESH_COOKIE);
    const rotated = token === undefined ? undefined : ctx.deps.sessions.rotateRefreshToken(token);
    if (!rotated || !ctx.deps.core.accounts.users.has(rotated.userId)) {
      throw new VenueError(ErrorCodes.REFRESH_TOKEN_INVALID, 'refresh token missing, invalid or expired; log in again');
    }
    ctx.setCookie(refreshCookie(rotated.token));
    return accessToken(ctx, rotated.userId);
  },
  exchangeTicket: (ctx, req) => {
    const userId = ctx.deps.sessions.useTicket(req.ticket);
    if (userId === undefined || !ctx.deps.core.accounts.users.has(userId)) {
      throw new VenueError(ErrorCodes.TICKET_INVALID, 'ticket is invalid, already used or expired');
    }
    return { ...startSession(ctx, userId), redirectPath: SSO_REDIRECT_PATH };
  },
  exchangeEmbedToken: (ctx, req) => {
    const userId = ctx.deps.sessions.useEmbedToken(req.embedToken, req.channelId);
    if (userId === undefined || !ctx.deps.core.accounts.users.has(userId)) {
      throw new VenueError(ErrorCodes.TICKET_INVALID, 'embed token is invalid, already used, expired, or bound to another channelId');
    }
    return startSession(ctx, userId);
  },
  getLeaderboard: (ctx, req) => {
    const { core } = ctx.deps;
    return leaderboard(
      {
        userIds: () => core.engine.userIds(),
        history: (id) => core.engine.accountData(id),
        username: (id) => core.accounts.users.get(id)?.username ?? id,
      },
      req.period,
      core.wallClock.now(),
      ctx.principal?.userId,
    );
  },
} satisfies Partial<HandlerMap>;
