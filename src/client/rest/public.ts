/**
 * Public resource: version, time, sign-in, token refresh, agent SSO, leaderboard. The sign-in
 * methods also install the session on the client (access token and refresh cookie).
 */
import type * as Pub from '../../protocol/rest/public';
import { RequestAbortedError } from '../errors';
import type { RequestOptions, RestCore } from './core';

export class PublicApi {
  constructor(private readonly core: RestCore) {}

  /** GET /v1/version. */
  getVersion(ro?: RequestOptions): Promise<Pub.VersionResult> {
    return this.core.call('getVersion', undefined, ro);
  }

  /** GET /v1/time. Does not change the clock offset; `client.syncTime()` does. */
  getTime(ro?: RequestOptions): Promise<Pub.TimeResult> {
    return this.core.call('getTime', undefined, ro);
  }

  /**
   * POST /v1/public/user/login: installs the session; later requests use and renew it. It does not
   * sign in again by itself when the session ends (`PerpClient.login` with `keepSignedIn` does).
   */
  async login(params: Pub.LoginParams, ro?: RequestOptions): Promise<Pub.LoginResult> {
    const { data, res } = await this.core.callRaw('login', params, ro);
    this.core.relogin = undefined;
    this.core.useApiKey(undefined);
    this.core.adoptSession(data, res);
    return data;
  }

  /**
   * POST /v1/public/user/refresh-token with the session's cookie (rotated by the answer). It shares
   * a refresh already under way. `timeoutMs` bounds the request this call starts; `signal` ends
   * the wait (RequestAbortedError) but not the request itself: the venue rotates the cookie, and a
   * refresh whose answer were thrown away would leave the session unable to renew.
   */
  async refreshToken(ro: RequestOptions = {}): Promise<Pub.RefreshTokenResult> {
    const { signal } = ro;
    if (signal?.aborted === true) throw new RequestAbortedError({ endpoint: 'refreshToken' });
    const refreshing = this.core.refreshSession(true, ro.timeoutMs);
    if (signal === undefined) await refreshing;
    else {
      refreshing.catch(() => undefined);
      let onAbort = (): void => undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(new RequestAbortedError({ endpoint: 'refreshToken' }));
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        await Promise.race([refreshing, aborted]);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    }
    const s = this.core.session;
    return { accessToken: s?.accessToken ?? '', accessExpire: s?.accessExpire ?? 0 };
  }

  /** POST /v1/public/agent-sso/exchange-ticket: a one-time ticket for a session. */
  async exchangeTicket(params: Pub.ExchangeTicketParams, ro?: RequestOptions): Promise<Pub.ExchangeTicketResult> {
    const { data, res } = await this.core.callRaw('exchangeTicket', params, ro);
    this.core.relogin = undefined;
    this.core.useApiKey(undefined);
    this.core.adoptSession(data, res);
    return data;
  }

  /** POST /v1/public/agent-sso/exchange-embed-token: an embed token bound to `channelId` for a session. */
  async exchangeEmbedToken(params: Pub.ExchangeEmbedTokenParams, ro?: RequestOptions): Promise<Pub.ExchangeEmbedTokenResult> {
    const { data, res } = await this.core.callRaw('exchangeEmbedToken', params, ro);
    this.core.relogin = undefined;
    this.core.useApiKey(undefined);
    this.core.adoptSession(data, res);
    return data;
  }

  /** GET /v1/public/leaderboard/pnl; `myRank` is filled when the client is signed in. */
  getLeaderboard(params: Pub.LeaderboardParams, ro?: RequestOptions): Promise<Pub.LeaderboardResult> {
    return this.core.call('getLeaderboard', params, ro);
  }
}
