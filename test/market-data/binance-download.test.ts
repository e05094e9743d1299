import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DownloadInputError, downloadBinanceArchives, planDownload, type DownloadProgress } from '../../src/market-data/download/binance-archives';
import { publish, startArchiveServer, type ArchiveServer } from '../helpers/archive-server';

const AGG = (d: string): string => `data/futures/um/daily/aggTrades/BTCUSDT/BTCUSDT-aggTrades-${d}.zip`;
const BOOK = (d: string): string => `data/futures/um/daily/bookTicker/BTCUSDT/BTCUSDT-bookTicker-${d}.zip`;
const MARKS = (d: string): string => `data/futures/um/daily/markPriceKlines/BTCUSDT/1m/BTCUSDT-1m-${d}.zip`;
const FUNDING = (m: string): string => `data/futures/um/monthly/fundingRate/BTCUSDT/BTCUSDT-fundingRate-${m}.zip`;

describe('Binance archive downloads (against a local server with the archive layout)', () => {
  let root: string;
  let out: string;
  let server: ArchiveServer;
  const bodies = new Map<string, Buffer>();

  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'perpkit-archive-'));
    out = mkdtempSync(path.join(tmpdir(), 'perpkit-download-'));
    for (const rel of [AGG('2024-07-31'), AGG('2024-08-01'), BOOK('2024-07-31'), BOOK('2024-08-01'), MARKS('2024-07-31'), MARKS('2024-08-01'), FUNDING('2024-07'), FUNDING('2024-08')]) {
      const body = randomBytes(rel.includes('aggTrades') ? 300_000 : 2_000);
      bodies.set(rel, body);
      publish(root, rel, body);
    }
    server = await startArchiveServer(root);
  });
  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  const run = (kinds: string[], extra: { from?: string; to?: string; onProgress?: (p: DownloadProgress) => void } = {}) =>
    downloadBinanceArchives({ symbol: 'BTCUSDT', from: extra.from ?? '2024-07-31', to: extra.to ?? '2024-08-01', kinds, outDir: out, baseUrl: server.url, ...(extra.onProgress ? { onProgress: extra.onProgress } : {}) });

  it('plans daily, kline and monthly files in the archive layout across a month boundary', () => {
    expect(planDownload({ symbol: 'BTCUSDT', from: '2024-07-31', to: '2024-08-01', kinds: ['aggTrades', 'markPriceKlines', 'fundingRate'] }).map((f) => f.rel)).toEqual([
      AGG('2024-07-31'), AGG('2024-08-01'), MARKS('2024-07-31'), MARKS('2024-08-01'), FUNDING('2024-07'), FUNDING('2024-08'),
    ]);
  });

  it.each([
    [{ to: '2024-07-30' }, '--to 2024-07-30 is before --from 2024-07-31'],
    [{ from: '2024-02-30' }, '--from is not a calendar day'],
    [{ from: '31.07.2024' }, '--from must be a day YYYY-MM-DD'],
    [{ kinds: ['aggTrade'] }, "unknown kind 'aggTrade' in --kinds; known kinds: aggTrades, trades"],
    [{ symbol: 'btcusdt' }, '--symbol must be a Binance symbol in capitals'],
  ])('refuses bad input before fetching anything: %j', (o, msg) => {
    expect(() => planDownload({ symbol: 'BTCUSDT', from: '2024-07-31', to: '2024-08-01', kinds: ['aggTrades'], ...o })).toThrow(DownloadInputError);
    expect(() => planDownload({ symbol: 'BTCUSDT', from: '2024-07-31', to: '2024-08-01', kinds: ['aggTrades'], ...o })).toThrow(msg);
  });

  it('downloads every file with its CHECKSUM, byte for byte, and a second run fetches no archive again', async () => {
    const s = await run(['aggTrades', 'bookTicker', 'markPriceKlines', 'fundingRate']);
    expect(s).toMatchObject({ downloaded: 8, present: 0, missing: 0, failed: 0 });
    for (const [rel, body] of bodies) {
      expect(readFileSync(path.join(out, rel)).equals(body)).toBe(true);
      expect(readFileSync(path.join(out, `${rel}.CHECKSUM`), 'utf8')).toMatch(/^[0-9a-f]{64} {2}BTCUSDT-/);
      expect(existsSync(path.join(out, `${rel}.part`))).toBe(false);
    }
    const zipGets = (): number => [...server.hits].filter(([p]) => p.endsWith('.zip')).reduce((a, [, n]) => a + n, 0);
    expect(zipGets()).toBe(8);
    const again = await run(['aggTrades', 'bookTicker', 'markPriceKlines', 'fundingRate']);
    expect(again).toMatchObject({ downloaded: 0, present: 8, missing: 0, failed: 0 });
    expect(zipGets()).toBe(8);
  });

  it('an interrupted download resumes with a Range request and ends verified', async () => {
    // Cut once the client has saved the 100,000 bytes it was sent (see ArchiveServer.cut).
    const part = `${path.join(out, AGG('2024-07-31'))}.part`;
    server.cut.set(AGG('2024-07-31'), { bytes: 100_000, times: 1, when: () => existsSync(part) && statSync(part).size >= 100_000 });
    const seen: DownloadProgress[] = [];
    const s = await run(['aggTrades'], { onProgress: (p) => seen.push(p) });
    expect(s).toMatchObject({ downloaded: 2, failed: 0 });
    expect(server.ranges.get(AGG('2024-07-31'))).toEqual(['bytes=100000-']);
    expect(seen.find((p) => p.outcome === 'downloaded' && p.file.rel === AGG('2024-07-31'))?.resumedFrom).toBe(100_000);
    expect(readFileSync(path.join(out, AGG('2024-07-31'))).equals(bodies.get(AGG('2024-07-31')) as Buffer)).toBe(true);
  });

  it('a partial file left by an earlier run is continued, not fetched again from the start', async () => {
    const rel = AGG('2024-08-01');
    const body = bodies.get(rel) as Buffer;
    const target = path.join(out, rel);
    await run(['aggTrades'], { from: '2024-07-31', to: '2024-07-31' });
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(`${target}.part`, body.subarray(0, 123_456));
    const s = await run(['aggTrades'], { from: '2024-08-01', to: '2024-08-01' });
    expect(s).toMatchObject({ downloaded: 1 });
    expect(server.ranges.get(rel)).toEqual(['bytes=123456-']);
    expect(readFileSync(target).equals(body)).toBe(true);
  });

  it('bytes that do not match the CHECKSUM are refused: counted as failed, nothing under the final name', async () => {
    server.corrupt.set(BOOK('2024-08-01'), randomBytes(2_000));
    const s = await run(['bookTicker']);
    expect(s).toMatchObject({ downloaded: 1, failed: 1 });
    const failed = s.files.find((f) => f.outcome === 'failed');
    expect(failed?.rel).toBe(BOOK('2024-08-01'));
    expect(failed?.error).toMatch(/^sha256 of BTCUSDT-bookTicker-2024-08-01\.zip is [0-9a-f]{64}, its CHECKSUM says [0-9a-f]{64}$/);
    expect(existsSync(path.join(out, BOOK('2024-08-01')))).toBe(false);
    expect(existsSync(path.join(out, `${BOOK('2024-08-01')}.part`))).toBe(false);
    expect(server.hits.get(BOOK('2024-08-01'))).toBe(3);
  });

  it('a day the archive does not have is counted as missing (404), the others still come', async () => {
    const s = await run(['aggTrades'], { from: '2024-07-30', to: '2024-08-01' });
    expect(s).toMatchObject({ downloaded: 2, missing: 1, failed: 0 });
    expect(s.files[0]).toMatchObject({ rel: AGG('2024-07-30'), outcome: 'missing' });
    expect(s.files[0].error).toMatch(/not in the archive \(HTTP 404\)/);
  });
});
