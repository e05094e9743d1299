/**
 * The local exchange's read-only page (symbols, order books, recent trades, marks) at `/ui/`,
 * for people paper-trading against it. The page reads the exchange's public market API from the
 * browser; the exchange only serves its files (ExchangeServer's `pages` option, mounted by the
 * CLI), so the exchange layer knows nothing of pages.
 *
 * Users' positions, for the exchange's operator: `GET /ui/api/positions` with the exchange's
 * admin token in `X-ADMIN-TOKEN` (the header of the admin API) answers every user's open
 * positions. Without an admin token configured it answers 404 (as the admin API does), with a
 * wrong or missing one 401; the token is compared in constant time and never logged or echoed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCodes } from '../../core/errors';
import type { ExchangeCore } from '../../exchange/service/exchange-core';
import { DashboardAssets, defaultAssetsDir } from './assets';
import type { UserPositionRow } from './types';
import { sameToken } from './auth';

export const EXCHANGE_PAGE_PATH = '/ui/';
export const POSITIONS_PATH = '/ui/api/positions';

export interface ExchangePageAdmin {
  /** The exchange's admin token; undefined when the exchange has no admin API. */
  token: string | undefined;
  positions(): UserPositionRow[];
}

export interface ExchangePage {
  assets: DashboardAssets;
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
}

/** Every user's open positions on the exchange (users in creation order, then by symbol). */
export function userPositions(core: ExchangeCore): UserPositionRow[] {
  const rows: UserPositionRow[] = [];
  for (const u of core.accounts.users.values()) {
    for (const p of core.engine.positions(u.userId)) {
      if (Number(p.quantity) === 0) continue;
      rows.push({ username: u.username, userId: u.userId, symbol: p.symbol, positionSide: p.positionSide, quantity: p.quantity, entryPrice: p.entryPrice, markPrice: p.markPrice, unrealizedPnl: p.unrealizedPnl, liqPrice: p.liqPrice, leverage: p.leverage });
    }
  }
  return rows;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function exchangePage(assetsDir = defaultAssetsDir('exchange'), admin?: ExchangePageAdmin): ExchangePage {
  const assets = new DashboardAssets(assetsDir);
  return {
    assets,
    handle(req, res, path) {
      if (path === '/ui') {
        res.writeHead(308, { location: EXCHANGE_PAGE_PATH, 'content-length': 0 });
        res.end();
        return true;
      }
      if (path === POSITIONS_PATH) {
        const token = admin?.token;
        if (admin === undefined || token === undefined) {
          json(res, 404, { code: ErrorCodes.NO_SUCH_ENDPOINT, message: 'the admin API is off on this exchange (start it with --admin-token)', data: null });
          return true;
        }
        const given = req.headers['x-admin-token'];
        if (typeof given !== 'string' || !sameToken(given, token)) {
          json(res, 401, { code: ErrorCodes.NOT_AUTHENTICATED, message: 'admin API: X-ADMIN-TOKEN header missing or wrong', data: null });
          return true;
        }
        json(res, 200, { code: 0, message: 'success', data: { positions: admin.positions() } });
        return true;
      }
      if (!path.startsWith(EXCHANGE_PAGE_PATH)) return false;
      const rest = path.slice(EXCHANGE_PAGE_PATH.length - 1);
      assets.serve(rest === '/' ? '/index.html' : rest, res);
      return true;
    },
  };
}
