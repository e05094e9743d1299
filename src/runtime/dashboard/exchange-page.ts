/**
 * The local exchange's read-only page (symbols, order books, recent trades, marks) at `/ui/`,
 * for people paper-trading against it. The page reads the exchange's public market API from the
 * browser; the exchange only serves its files (ExchangeServer's `pages` option, mounted by the
 * CLI), so the exchange layer knows nothing of pages.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DashboardAssets, defaultAssetsDir } from './assets';

export const EXCHANGE_PAGE_PATH = '/ui/';

export interface ExchangePage {
  assets: DashboardAssets;
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean;
}

export function exchangePage(assetsDir = defaultAssetsDir('exchange')): ExchangePage {
  const assets = new DashboardAssets(assetsDir);
  return {
    assets,
    handle(_req, res, path) {
      if (path === '/ui') {
        res.writeHead(308, { location: EXCHANGE_PAGE_PATH, 'content-length': 0 });
        res.end();
        return true;
      }
      if (!path.startsWith(EXCHANGE_PAGE_PATH)) return false;
      const rest = path.slice(EXCHANGE_PAGE_PATH.length - 1);
      assets.serve(rest === '/' ? '/index.html' : rest, res);
      return true;
    },
  };
}
