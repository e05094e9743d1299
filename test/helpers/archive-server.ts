/**
 * A local HTTP server with the directory layout of Binance's public archive (data.binance.vision),
 * for the downloader's tests: no venue is reachable from CI. Serves files of a root directory,
 * honours `Range: bytes=N-` (206), counts requests per path, and can be told to answer 404, to
 * serve other bytes than the file (a corrupted download) or to cut the connection after some
 * bytes (an interrupted one).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

export interface ArchiveServer {
  url: string;
  /** GET requests per path (without the leading slash). */
  hits: Map<string, number>;
  /** Range headers seen per path. */
  ranges: Map<string, string[]>;
  /** Paths that answer with these bytes instead of the file's. */
  corrupt: Map<string, Buffer>;
  /**
   * Paths whose next N answers are cut after `bytes` bytes (the connection is closed). With
   * `when`, the cut waits (up to 10 s) until it returns true, e.g. until the client has saved the
   * bytes: a client's HTTP stack may drop bytes it received but had not handed on when the
   * connection ends, so without it the point of the cut depends on the machine's load.
   */
  cut: Map<string, { bytes: number; times: number; when?: () => boolean }>;
  close(): Promise<void>;
}

/** Writes `<root>/<rel>` and its `<rel>.CHECKSUM` as Binance publishes them. */
export function publish(root: string, rel: string, body: Buffer): void {
  const file = path.join(root, ...rel.split('/'));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, body);
  writeFileSync(`${file}.CHECKSUM`, `${createHash('sha256').update(body).digest('hex')}  ${path.basename(file)}\n`);
}

export async function startArchiveServer(root: string): Promise<ArchiveServer> {
  const hits = new Map<string, number>();
  const ranges = new Map<string, string[]>();
  const corrupt = new Map<string, Buffer>();
  const cut = new Map<string, { bytes: number; times: number; when?: () => boolean }>();
  const server: Server = createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? '/').split('?')[0]).replace(/^\/+/, '');
    hits.set(rel, (hits.get(rel) ?? 0) + 1);
    let body: Buffer;
    try {
      body = corrupt.get(rel) ?? readFileSync(path.join(root, ...rel.split('/')));
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let status = 200;
    const range = req.headers.range;
    if (range !== undefined) {
      ranges.set(rel, [...(ranges.get(rel) ?? []), range]);
      const m = /^bytes=(\d+)-$/.exec(range);
      if (m && Number(m[1]) < body.length) {
        body = body.subarray(Number(m[1]));
        status = 206;
      }
    }
    const c = cut.get(rel);
    if (c !== undefined && c.times > 0) {
      c.times--;
      res.writeHead(status, { 'content-length': String(body.length) });
      const end = (): void => {
        res.socket?.end();
      };
      res.write(body.subarray(0, c.bytes), () => {
        const when = c.when;
        if (when === undefined) return end();
        const deadline = Date.now() + 10_000;
        const poll = (): void => {
          if (when() || Date.now() > deadline) end();
          else setTimeout(poll, 10);
        };
        poll();
      });
      return;
    }
    res.writeHead(status, { 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    ranges,
    corrupt,
    cut,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
