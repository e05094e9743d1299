/**
 * A backtest on data imported from Tardis.dev CSV: the hand-made fixtures (test/fixtures/tardis,
 * about six seconds of BTCUSDT around the 08:00 funding of 2024-08-01) imported with
 * `perpkit import tardis`, inspected, and run by the market-maker example with its Binance config
 * (config/backtest-market-maker-binance.yaml, the data file swapped), as a user would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { importTardis } from '../../src/market-data/import/tardis';
import { inspectRecording } from '../../src/market-data/inspect';

const ROOT = path.resolve(__dirname, '..', '..');
const FIX = path.join(ROOT, 'test', 'fixtures', 'tardis');
const fx = (kind: string): string => path.join(FIX, `binance-futures_${kind}_2024-08-01_BTCUSDT.csv`);

describe('backtest on an imported Tardis recording', () => {
  let dir: string;
  let recording: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'perpkit-tardis-bt-'));
    recording = path.join(dir, 'btcusdt-tardis.jsonl.gz');
    await importTardis({ files: ['incremental_book_L2', 'trades', 'quotes', 'derivative_ticker'].map(fx), out: recording });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('inspect, then the market maker runs on it with recorded marks and the funding settlement', async () => {
    const ins = await inspectRecording([recording]);
    expect(ins.counts).toEqual({ mark: 6, snapshot: 2, quote: 8, trade: 6, book: 7, funding: 1 });
    expect(ins.symbols.BTCUSDT.marks?.source).toBe('recorded');
    expect(ins.gaps).toEqual([]);

    const cfg = loadBacktestConfig(path.join(ROOT, 'config', 'backtest-market-maker-binance.yaml'));
    cfg.data.files = [recording];
    cfg.data.cache = false;
    const o = await backtest(cfg);
    const r = o.report;
    expect(r.data.events.read).toBe(30);
    expect(r.data.marks.BTCUSDT.source).toBe('recorded');
    expect(r.summary.strategyErrors).toBe(0);
    expect(r.summary.ordersAccepted).toBeGreaterThan(0);
    expect(o.result.audit.frozenMismatch).toEqual([]);
    // The tape replayed the recorded marks, quotes and the derived settlement.
    expect(r.data.tape).toMatchObject({ marks: 6, fundings: 1, quotes: { depths: 8 } });
  });

  test('carry: short while the recorded rate is positive, it receives the 08:00 settlement derived from derivative_ticker', async () => {
    const cfg = loadBacktestConfig(path.join(ROOT, 'config', 'backtest-carry-binance.yaml'));
    cfg.data.files = [recording];
    cfg.data.cache = false;
    const r = (await backtest(cfg)).report;
    expect(r.fills.map((f) => `${f.side} ${f.quantity} @ ${f.price}`)).toEqual(['SELL 0.015 @ 64000']);
    // 0.015 BTC x mark 64005.1 x rate 0.00012: the rate announced for 08:00, at the last mark before it.
    expect(r.summary.funding).toBe('0.11520918');
    expect(r.data.tape).toMatchObject({ fundings: 1 });
  });
});
