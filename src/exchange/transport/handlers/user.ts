/** User and account resource: info, asset, listenKeys, change log, statistics, favourites. */
import { ErrorCodes, VenueError } from '../../../core/errors';
import { assetTrend, balanceHistory, overviewSummary, volumeStats } from '../../service/stats';
import { userOf, type HandlerMap, type RequestContext } from './context';

const now = (ctx: RequestContext): number => ctx.deps.core.wallClock.now();
const history = (ctx: RequestContext) => ctx.deps.core.engine.accountData(userOf(ctx));

export const userHandlers = {
  getUserInfo: (ctx) => {
    const userId = userOf(ctx);
    const u = ctx.deps.core.accounts.users.get(userId);
    if (!u) throw new VenueError(ErrorCodes.NOT_AUTHENTICATED, 'user no longer exists');
    const last = ctx.deps.core.accounts.lastLogin.get(userId);
    return { userInfo: { userId, username: u.username, agentId: u.agentId, vipLevel: u.vipLevel, lastLoginAt: last?.at ?? 0, lastLoginIp: last?.ip ?? '' } };
  },
  getUserAsset: (ctx) => ({ userAsset: ctx.deps.core.engine.asset(userOf(ctx)) }),
  createListenKey: (ctx) => {
    const k = ctx.deps.listenKeys.create(userOf(ctx));
    return { listenKey: k.listenKey, expireAt: k.expireAt };
  },
  extendListenKey: (ctx, req) => {
    const k = ctx.deps.listenKeys.extend(userOf(ctx), req.listenKey);
    return { listenKey: k.listenKey, expireAt: k.expireAt };
  },
  closeListenKey: (ctx, req) => {
    ctx.deps.listenKeys.close(userOf(ctx), req.listenKey);
    return {};
  },
  getAccountChangeLog: (ctx, req) => ctx.deps.core.engine.accountChanges(userOf(ctx), req),
  getVolumeStats: (ctx) => volumeStats(history(ctx), now(ctx)),
  getBalanceHistory: (ctx, req) => ({ items: balanceHistory(history(ctx), req.period, req.limit, now(ctx)) }),
  getTradeOverview: (ctx, req) => {
    const h = history(ctx);
    return { ...overviewSummary(h, now(ctx)), items: assetTrend(h, req.type, now(ctx)) };
  },
  getAssetSummary: (ctx) => overviewSummary(history(ctx), now(ctx)),
  getAssetTrend: (ctx, req) => ({ items: assetTrend(history(ctx), req.type, now(ctx)) }),
  saveFavoriteSymbols: async (ctx, req) => {
    const known = new Set(ctx.deps.core.engine.symbolSpecs().map((s) => s.name));
    req.symbols.forEach((s, i) => {
      if (!known.has(s)) throw new VenueError(ErrorCodes.UNKNOWN_SYMBOL, `symbols[${i}]: unknown symbol '${s}'; known symbols: ${[...known].join(', ')}`, `symbols[${i}]`);
    });
    await ctx.deps.core.execute({ k: 'setFavorites', userId: userOf(ctx), symbols: req.symbols });
    return { symbols: [...req.symbols] };
  },
  getFavoriteSymbols: (ctx) => ({ symbols: [...(ctx.deps.core.accounts.favorites.get(userOf(ctx)) ?? [])] }),
} satisfies Partial<HandlerMap>;
