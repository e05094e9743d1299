import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { ensureBuilt, runCli, startCli, type Proc } from '../../cli/exchange-proc';

interface Envelope<T> {
  code: number;
  data: T;
}

async function get<T>(url: string): Promise<T> {
  const r = await request(url);
  const body = (await r.body.json()) as Envelope<T>;
  if (body.code !== 0) throw new Error(`GET ${url}: ${JSON.stringify(body)}`);
  return body.data;
}

async function until<T>(fn: () => Promise<T | undefined>, ms = 20000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('perpkit exchange --market replay:<file> (compiled CLI)', () => {
  beforeAll(() => ensureBuilt(), 120000);
  let proc: Proc | undefined;
  afterEach(() => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    proc = undefined;
  });

  it('replays the sample recording: public trades and the mark price move', async () => {
    proc = await startCli(['--port', '0', '--market', 'replay:data/sample/btcusdt-2h.jsonl.gz', '--replay-speed', 'max']);
    const url = proc.url;
    const trades = await until(async () => {
      const d = await get<{ list?: Array<{ price: string; quantity: string; side: string }> } | Array<{ price: string }>>(`${url}/v1/public/market/trades?symbol=BTCUSDT`);
      const list = Array.isArray(d) ? d : d.list ?? [];
      return list.length >= 5 ? list : undefined;
    });
    expect(trades.length).toBeGreaterThanOrEqual(5);
    // The sample starts at 50000 and its trades are a spread or more away from mark.
    expect(trades.every((t) => Number(t.price) !== 0)).toBe(true);
    const mark = await until(async () => {
      const m = await get<{ markPrice?: string } | Array<{ markPrice: string }>>(`${url}/v1/public/market/mark-price?symbol=BTCUSDT`);
      const p = Array.isArray(m) ? m[0]?.markPrice : m.markPrice;
      return p !== undefined && p !== '50000' ? p : undefined;
    });
    expect(Number(mark)).toBeGreaterThan(40000);
    expect(Number(mark)).toBeLessThan(60000);
  }, 60000);

  it('refuses a recording whose symbols the exchange does not list', () => {
    const f = join(mkdtempSync(join(tmpdir(), 'perpkit-replay-')), 'doge.jsonl');
    const spec = { symbol: 'DOGEUSDT', baseAsset: 'DOGE', quoteAsset: 'USDT', tickSize: '0.0001', stepSize: '1', minQty: '1', maxQty: '1000000', minNotional: '5', maxLeverage: 50, makerFee: '0.0002', takerFee: '0.0005', marginTiers: [] };
    writeFileSync(f, `${JSON.stringify({ type: 'header', format: 'perpkit-recording', version: 1, source: 'test', startTime: 0, symbols: [spec], part: 0 })}\n`);
    const r = runCli(['exchange', '--port', '0', '--market', `replay:${f}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/symbols DOGEUSDT that this exchange does not list/);
  });

  it('refuses a bad --replay-speed', () => {
    const r = runCli(['exchange', '--market', 'replay:data/sample/btcusdt-2h.jsonl.gz', '--replay-speed', 'fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--replay-speed must be a positive number or max/);
  });
});
