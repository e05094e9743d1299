/**
 * Binance's public data archives (data.binance.vision) for USD-M futures: the files of a symbol,
 * a date range and a set of kinds, each verified against its published CHECKSUM (sha256), kept in
 * the archive's own directory layout under an output directory so that
 * `perpkit import binance-futures` recognises each file's kind from its path.
 *
 *   daily   <base>/data/futures/um/daily/<kind>/<SYMBOL>/<SYMBOL>-<kind>-<YYYY-MM-DD>.zip
 *   klines  <base>/data/futures/um/daily/<kind>/<SYMBOL>/<interval>/<SYMBOL>-<interval>-<YYYY-MM-DD>.zip
 *           (klines, markPriceKlines, indexPriceKlines, premiumIndexKlines)
 *   monthly <base>/data/futures/um/monthly/fundingRate/<SYMBOL>/<SYMBOL>-fundingRate-<YYYY-MM>.zip
 *   each with <file>.CHECKSUM: "<sha256 hex>  <file name>"
 *
 * Resuming: a file already there whose sha256 matches its CHECKSUM is not fetched again; a
 * partial download (`<file>.part`) continues with an HTTP Range request where the server allows
 * it. A file the archive does not have (404) is counted as missing, a checksum mismatch after a
 * retry as failed; nothing is left half-written under the final name.
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { request } from 'undici';
import { ARCHIVE_KINDS, DEFAULT_BASE_URL, KLINE_KINDS, MONTHLY_KINDS } from './archive-kinds';
import { makeDir } from '../../core/dirs';

export class DownloadInputError extends Error {}

export interface DownloadOptions {
  symbol: string;
  /** First and last day, inclusive, YYYY-MM-DD (UTC). */
  from: string;
  to: string;
  kinds: string[];
  /** Bar interval of the kline kinds (default 1m). */
  interval?: string;
  outDir: string;
  baseUrl?: string;
  /** Attempts per file on network errors and checksum mismatches (default 3). */
  attempts?: number;
  onProgress?: (p: DownloadProgress) => void;
  /** Bytes of the current file received so far (called per chunk; the caller throttles). */
  onBytes?: (file: ArchiveFile, received: number) => void;
}

export interface ArchiveFile {
  kind: string;
  /** Path below the base URL and below the output directory. */
  rel: string;
}

export type FileOutcome = 'downloaded' | 'present' | 'missing' | 'failed';

export interface DownloadProgress {
  index: number;
  total: number;
  file: ArchiveFile;
  outcome?: FileOutcome;
  bytes?: number;
  resumedFrom?: number;
  error?: string;
}

export interface DownloadSummary {
  files: Array<{ rel: string; outcome: FileOutcome; bytes: number; error?: string }>;
  downloaded: number;
  present: number;
  missing: number;
  failed: number;
  bytes: number;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

function day(name: string, v: string): number {
  if (!DAY_RE.test(v)) throw new DownloadInputError(`--${name} must be a day YYYY-MM-DD, got '${v}'`);
  const t = Date.parse(`${v}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== v) throw new DownloadInputError(`--${name} is not a calendar day: '${v}'`);
  return t;
}

/** The archive files of a request, in order: by kind as given, then by date. Throws DownloadInputError. */
export function planDownload(o: Pick<DownloadOptions, 'symbol' | 'from' | 'to' | 'kinds' | 'interval'>): ArchiveFile[] {
  if (!/^[A-Z0-9]{2,30}$/.test(o.symbol)) throw new DownloadInputError(`--symbol must be a Binance symbol in capitals such as BTCUSDT, got '${o.symbol}'`);
  const from = day('from', o.from);
  const to = day('to', o.to);
  if (to < from) throw new DownloadInputError(`--to ${o.to} is before --from ${o.from}`);
  if ((to - from) / 86_400_000 > 3660) throw new DownloadInputError(`--from ${o.from} to --to ${o.to} spans more than ten years`);
  if (o.kinds.length === 0) throw new DownloadInputError(`--kinds is empty; known kinds: ${ARCHIVE_KINDS.join(', ')}`);
  const interval = o.interval ?? '1m';
  if (!/^(1s|1m|3m|5m|15m|30m|1h|2h|4h|6h|8h|12h|1d)$/.test(interval)) throw new DownloadInputError(`--interval must be a Binance kline interval such as 1m or 1h, got '${interval}'`);
  const s = o.symbol;
  const out: ArchiveFile[] = [];
  for (const kind of o.kinds) {
    if (!ARCHIVE_KINDS.includes(kind)) throw new DownloadInputError(`unknown kind '${kind}' in --kinds; known kinds: ${ARCHIVE_KINDS.join(', ')}`);
    if ((MONTHLY_KINDS as readonly string[]).includes(kind)) {
      const months = new Set<string>();
      for (let t = from; t <= to; t += 86_400_000) months.add(new Date(t).toISOString().slice(0, 7));
      for (const m of months) out.push({ kind, rel: `data/futures/um/monthly/${kind}/${s}/${s}-${kind}-${m}.zip` });
      continue;
    }
    for (let t = from; t <= to; t += 86_400_000) {
      const d = new Date(t).toISOString().slice(0, 10);
      const rel = (KLINE_KINDS as readonly string[]).includes(kind)
        ? `data/futures/um/daily/${kind}/${s}/${interval}/${s}-${interval}-${d}.zip`
        : `data/futures/um/daily/${kind}/${s}/${s}-${kind}-${d}.zip`;
      out.push({ kind, rel });
    }
  }
  return out;
}

async function sha256Of(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await fsp.stat(file)).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** "<64 hex>  <name>" -> the hex; throws when the text is not a CHECKSUM for `name`. */
export function parseChecksum(text: string, name: string): string {
  const m = /^([0-9a-fA-F]{64})\s+\*?(\S+)\s*$/.exec(text.trim());
  if (!m) throw new Error(`CHECKSUM of ${name} is not '<sha256>  <file name>': '${text.trim().slice(0, 100)}'`);
  if (m[2] !== name) throw new Error(`CHECKSUM of ${name} names another file: ${m[2]}`);
  return m[1].toLowerCase();
}

class NotFound extends Error {}

async function fetchText(url: string): Promise<string> {
  const r = await request(url, { method: 'GET', headersTimeout: 30_000, bodyTimeout: 60_000 });
  if (r.statusCode === 404) {
    await r.body.dump();
    throw new NotFound(url);
  }
  if (r.statusCode !== 200) {
    await r.body.dump();
    throw new Error(`GET ${url}: HTTP ${r.statusCode}`);
  }
  return r.body.text();
}

/** Appends the body of `url` to `part` from byte `offset` (a Range request when offset > 0). Returns bytes written. */
async function fetchInto(url: string, part: string, offset: number, onBytes?: (received: number) => void): Promise<{ written: number; restarted: boolean }> {
  const headers: Record<string, string> = offset > 0 ? { range: `bytes=${offset}-` } : {};
  const r = await request(url, { method: 'GET', headers, headersTimeout: 30_000, bodyTimeout: 60_000 });
  if (r.statusCode === 404) {
    await r.body.dump();
    throw new NotFound(url);
  }
  let restarted = false;
  if (offset > 0 && r.statusCode === 200) restarted = true; // the server ignored the Range: start over
  else if (r.statusCode !== 200 && r.statusCode !== 206) {
    await r.body.dump();
    throw new Error(`GET ${url}: HTTP ${r.statusCode}`);
  }
  const fh = await fsp.open(part, restarted || offset === 0 ? 'w' : 'a');
  let written = 0;
  try {
    for await (const chunk of r.body) {
      await fh.write(chunk as Buffer);
      written += (chunk as Buffer).length;
      onBytes?.((restarted ? 0 : offset) + written);
    }
  } finally {
    await fh.close();
  }
  return { written, restarted };
}

/** Downloads and verifies every planned file; never throws for one file's failure (it is counted). */
export async function downloadBinanceArchives(o: DownloadOptions): Promise<DownloadSummary> {
  const files = planDownload(o);
  const base = (o.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const attempts = o.attempts ?? 3;
  const summary: DownloadSummary = { files: [], downloaded: 0, present: 0, missing: 0, failed: 0, bytes: 0 };
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    const target = path.join(o.outDir, ...f.rel.split('/'));
    const name = path.basename(target);
    const part = `${target}.part`;
    const url = `${base}/${f.rel}`;
    o.onProgress?.({ index: i + 1, total: files.length, file: f });
    let outcome: FileOutcome = 'failed';
    let bytes = 0;
    let error: string | undefined;
    let resumedFrom: number | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const checksumText = await fetchText(`${url}.CHECKSUM`);
        const expected = parseChecksum(checksumText, name);
        await makeDir(path.dirname(target));
        if ((await sizeOf(target)) !== undefined && (await sha256Of(target)) === expected) {
          outcome = 'present';
          bytes = (await sizeOf(target)) ?? 0;
          await fsp.writeFile(`${target}.CHECKSUM`, checksumText);
          break;
        }
        const have = (await sizeOf(part)) ?? 0;
        if (have > 0) resumedFrom = have;
        const got = await fetchInto(url, part, have, o.onBytes && ((n) => o.onBytes?.(f, n)));
        if (got.restarted) resumedFrom = undefined;
        const actual = await sha256Of(part);
        if (actual !== expected) {
          await fsp.rm(part, { force: true });
          throw new Error(`sha256 of ${name} is ${actual}, its CHECKSUM says ${expected}`);
        }
        await fsp.rename(part, target);
        await fsp.writeFile(`${target}.CHECKSUM`, checksumText);
        bytes = (await sizeOf(target)) ?? 0;
        outcome = 'downloaded';
        error = undefined;
        break;
      } catch (e) {
        if (e instanceof NotFound) {
          outcome = 'missing';
          error = `not in the archive (HTTP 404): ${e.message}`;
          break;
        }
        error = e instanceof Error ? e.message : String(e);
        // A network error leaves the .part to resume from; a mismatch removed it.
      }
    }
    summary[outcome]++;
    summary.bytes += outcome === 'downloaded' ? bytes : 0;
    summary.files.push({ rel: f.rel, outcome, bytes, ...(error !== undefined && outcome !== 'downloaded' && outcome !== 'present' ? { error } : {}) });
    o.onProgress?.({ index: i + 1, total: files.length, file: f, outcome, bytes, ...(resumedFrom !== undefined ? { resumedFrom } : {}), ...(error !== undefined && (outcome === 'failed' || outcome === 'missing') ? { error } : {}) });
  }
  return summary;
}
