import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readRecording } from '../../src/market-data/reader';
import { publish, startArchiveServer, type ArchiveServer } from '../helpers/archive-server';
import { ensureBuilt } from './exchange-proc';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'perpkit.js');

/** The CLI as a child process, without blocking this process (the archive server runs here). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A zip of one CSV made by python's zipfile (deflate), as Binance ships its archives. */
function zipOf(name: string, text: string): Buffer {
  const script = 'import io, sys, zipfile\nb = io.BytesIO()\nz = zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED)\nz.writestr(sys.argv[1], sys.argv[2])\nz.close()\nsys.stdout.buffer.write(b.getvalue())';
  return execFileSync('python3', ['-c', script, name, text]);
}

const T = Date.parse('2024-08-01T00:00:00Z');
const AGG = 'data/futures/um/daily/aggTrades/BTCUSDT/BTCUSDT-aggTrades-2024-08-01.zip';
const BOOK = 'data/futures/um/daily/bookTicker/BTCUSDT/BTCUSDT-bookTicker-2024-08-01.zip';

describe('perpkit download binance-futures (compiled CLI, local archive server)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  let root: string;
  let out: string;
  let server: ArchiveServer;
  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'perpkit-archive-cli-'));
    out = mkdtempSync(path.join(tmpdir(), 'perpkit-download-cli-'));
    publish(root, AGG, zipOf('BTCUSDT-aggTrades-2024-08-01.csv', `agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\n1,64000.1,0.010,1,1,${T + 500},false\n2,64000.0,0.020,2,3,${T + 1500},true\n`));
    publish(root, BOOK, zipOf('BTCUSDT-bookTicker-2024-08-01.csv', `update_id,best_bid_price,best_bid_qty,best_ask_price,best_ask_qty,transaction_time,event_time\n7,64000.0,1.500,64000.1,0.700,${T + 100},${T + 101}\n8,64000.0,1.000,64000.1,0.600,${T + 1200},${T + 1201}\n`));
    server = await startArchiveServer(root);
  });
  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('downloads, verifies and shows progress; the files import as they are', async () => {
    const r = await cli(['download', 'binance-futures', '--symbol', 'BTCUSDT', '--from', '2024-08-01', '--to', '2024-08-01', '--kinds', 'aggTrades,bookTicker', '--out', out, '--base-url', server.url]);
    expect(r.stderr).toContain('[1/2] BTCUSDT-aggTrades-2024-08-01.zip: downloaded');
    expect(r.stderr).toContain('[2/2] BTCUSDT-bookTicker-2024-08-01.zip: downloaded');
    expect(r.stdout).toMatch(/^download: 2 files in [\d.]+ s: 2 downloaded \([\d.]+ MB\), 0 already there, 0 missing, 0 failed\n/);
    expect(r.code).toBe(0);
    const rec = path.join(out, 'btc.jsonl.gz');
    const imp = await cli(['import', 'binance-futures', path.join(out, AGG), path.join(out, BOOK), '--out', rec]);
    expect(imp.code).toBe(0);
    const kinds: string[] = [];
    for await (const e of readRecording([rec])) if ('k' in e) kinds.push(e.k);
    expect(kinds.filter((k) => k === 'trade')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'quote')).toHaveLength(2);
  });

  it('a day the archive lacks: the others are fetched, the missing one is listed, exit 1', async () => {
    const r = await cli(['download', 'binance-futures', '--symbol', 'BTCUSDT', '--from', '2024-07-31', '--to', '2024-08-01', '--kinds', 'aggTrades', '--out', out, '--base-url', server.url, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('1 downloaded');
    expect(r.stdout).toContain('1 missing');
    expect(r.stdout).toMatch(/ {2}missing: data\/futures\/um\/daily\/aggTrades\/BTCUSDT\/BTCUSDT-aggTrades-2024-07-31\.zip: not in the archive \(HTTP 404\)/);
    expect(existsSync(path.join(out, AGG))).toBe(true);
  });

  it.each([
    [['--symbol', 'BTCUSDT', '--from', '2024-08-02', '--to', '2024-08-01'], '--to 2024-08-01 is before --from 2024-08-02'],
    [['--symbol', 'BTCUSDT', '--from', '2024-08-01'], '--to is required'],
    [['--symbol', 'BTCUSDT', '--from', '2024-08-01', '--to', '2024-08-01', '--kinds', 'depth'], "unknown kind 'depth' in --kinds"],
    [['--symbol', 'BTCUSDT', '--from', '2024-08-01', '--to', '2024-08-01', '--base-url', 'ftp://x'], '--base-url must be an http(s) URL'],
    [['--symbol', 'BTCUSDT', '--from', '2024-08-01', '--to', '2024-08-01', '--bogus'], "Unknown option '--bogus'"],
  ])('bad input %j: one line on stderr, exit 2, nothing fetched', async (args, msg) => {
    const base = args.includes('--base-url') ? [] : ['--base-url', server.url];
    const r = await cli(['download', 'binance-futures', ...args, '--out', out, ...base]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(msg);
    expect(server.hits.size).toBe(0);
  });
});
