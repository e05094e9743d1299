/**
 * The dashboard's built page (index.html and assets/), read from disk once at start and served
 * from memory: only the files that were there are served, so no request path reaches the file
 * system. The page is built at package build time (tools/build-web.cjs into dist/web/dashboard);
 * nothing is fetched at run time, and the page's policy forbids any other origin.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import * as path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

/** Scripts and styles from this server only; data only from its own API. */
const POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** dist/web/dashboard of the package this file belongs to (from src/ under ts-jest, dist/src/ when built). */
export function defaultAssetsDir(name = 'dashboard'): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'web', name);
    dir = path.dirname(dir);
  }
  return path.join(process.cwd(), 'dist', 'web', name);
}

export class DashboardAssets {
  private readonly files = new Map<string, { body: Buffer; type: string }>();
  /** What is missing, when the page is not built. */
  readonly missing: string | undefined;

  constructor(readonly dir: string) {
    const add = (rel: string): void => {
      const type = TYPES[path.extname(rel)];
      if (type !== undefined) this.files.set(`/${rel}`, { body: readFileSync(path.join(dir, rel)), type });
    };
    if (!existsSync(path.join(dir, 'index.html'))) {
      this.missing = `${path.join(dir, 'index.html')} does not exist`;
      return;
    }
    add('index.html');
    const assets = path.join(dir, 'assets');
    if (existsSync(assets)) for (const f of readdirSync(assets)) add(`assets/${f}`);
  }

  get ready(): boolean {
    return this.missing === undefined;
  }

  serve(p: string, res: ServerResponse): void {
    const f = this.files.get(p);
    if (f === undefined) {
      const body = this.ready ? `no file ${p}` : `The dashboard's page is not built: ${this.missing}. Run npm run build.`;
      res.writeHead(this.ready ? 404 : 503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(body);
      return;
    }
    res.writeHead(200, {
      'content-type': f.type,
      'content-length': f.body.length,
      'cache-control': 'no-cache',
      'content-security-policy': POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
    res.end(f.body);
  }
}
