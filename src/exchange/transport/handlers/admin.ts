/** Local-exchange administration (PROTOCOL.md section 7). */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, VenueError } from '../../../core/errors';
import { hashPassword } from '../auth/password';
import type { HandlerMap, RequestContext } from './context';

function requireUser(ctx: RequestContext, userId: string): void {
  if (!ctx.deps.core.accounts.users.has(userId)) throw new VenueError(ErrorCodes.INVALID_PARAMETER, `no user with userId '${userId}'`, 'userId');
}

export const adminHandlers = {
  adminCreateUser: async (ctx, req) => {
    const { core } = ctx.deps;
    if (core.accounts.byUsername.has(req.username)) throw new VenueError(ErrorCodes.INVALID_PARAMETER, `username '${req.username}' is taken`, 'username');
    const passwordHash = await hashPassword(req.password);
    // The id is taken right before execute, in the same tick: two concurrent creations cannot
    // both read the same next id across the await above.
    const userId = core.accounts.nextUserId();
    await core.execute({ k: 'createUser', userId, username: req.username, passwordHash, balance: req.balance, positionMode: req.positionMode });
    return { userId };
  },
  adminCreateApiKey: async (ctx, req) => {
    requireUser(ctx, req.userId);
    const apiKey = randomBytes(24).toString('base64url');
    const secret = randomBytes(32).toString('hex');
    await ctx.deps.core.execute({ k: 'createApiKey', userId: req.userId, apiKey, secret, permissions: req.permissions });
    return { apiKey, secret };
  },
  adminMintTicket: (ctx, req) => {
    requireUser(ctx, req.userId);
    return { ticket: ctx.deps.sessions.mintTicket(req.userId) };
  },
  adminMintEmbedToken: (ctx, req) => {
    requireUser(ctx, req.userId);
    return { embedToken: ctx.deps.sessions.mintEmbedToken(req.userId, req.channelId) };
  },
  adminSetMarkPrice: async (ctx, req) => {
    await ctx.deps.core.execute({ k: 'setMarkPrice', symbol: req.symbol, markPrice: req.markPrice });
    return { symbol: req.symbol, markPrice: ctx.deps.core.engine.marketState(req.symbol).markPrice };
  },
  adminSettleFunding: async (ctx, req) => {
    // The round as the engine settled it: its time is the one its payments' referenceId names.
    const round = await ctx.deps.core.execute<{ fundingRate: string; fundingTime: number }>({ k: 'settleFunding', symbol: req.symbol, rate: req.fundingRate });
    return { symbol: req.symbol, fundingRate: round.fundingRate, fundingTime: round.fundingTime };
  },
  // Fault injection (faults.ts, docs/reliability.md "Fault injection").
  adminSetFault: (ctx, req) => {
    const { faults } = ctx.deps;
    if (req.on) {
      if (req.setting.userId !== undefined) requireUser(ctx, req.setting.userId);
      faults.set(req.setting);
    } else faults.clear(req.fault, req.userId);
    return faults.list();
  },
  adminGetFaults: (ctx) => ctx.deps.faults.list(),
} satisfies Partial<HandlerMap>;
