/**
 * Suite `import-tardis`: `perpkit import tardis` throughput on generated Tardis.dev CSV files
 * (made by the suite, seeded, into a temporary directory): an incremental_book_L2 file of
 * BENCH_TARDIS_ROWS rows (default 1,000,000; messages of 1-6 rows around a fixed mid, a fifth of
 * them removing a level) and a trades file of a third as many rows, gzipped as Tardis ships them.
 *
 * Figures, in the same run: the limit (gunzip and split into lines of both files, nothing else),
 * the import end to end (parse, merge by local_timestamp, book rebuild, derived marks, JSON and
 * gzip of the output), the import as a share of the limit, and RSS after the import (memory must
 * stay flat: one read batch per file).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileLineBatches } from '../../src/market-data/import/common';
import { importTardis } from '../../src/market-data/import/tardis';
import { mulberry32, round, type BenchResult } from '../harness';
import { registerSuite } from './registry';

const ROWS = Number(process.env.BENCH_TARDIS_ROWS ?? 1_000_000);
const T0 = 1_722_470_400_000_000;

function generate(dir: string): string[] {
  const rnd = mulberry32(14);
  const int = (n: number): number => Math.floor(rnd() * n);
  const price = (side: 'bid' | 'ask', i: number): string => (side === 'bid' ? (640000 - i) / 10 : (640001 + i) / 10).toFixed(1);
  const l2: string[] = ['exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount'];
  let ts = T0;
  for (let i = 0; i < 200; i++) {
    l2.push(`binance-futures,BTCUSDT,${ts},${ts + 5000},true,bid,${price('bid', i)},${(1 + int(5000)) / 1000}`);
    l2.push(`binance-futures,BTCUSDT,${ts},${ts + 5000},true,ask,${price('ask', i)},${(1 + int(5000)) / 1000}`);
  }
  while (l2.length < ROWS) {
    ts += 1000 + int(19000);
    for (let k = 1 + int(6); k > 0; k--) {
      const side = rnd() < 0.5 ? 'bid' : 'ask';
      const amount = rnd() < 0.2 ? '0' : String((1 + int(5000)) / 1000);
      l2.push(`binance-futures,BTCUSDT,${ts},${ts + 5000},false,${side},${price(side, int(200))},${amount}`);
    }
  }
  const trades: string[] = ['exchange,symbol,timestamp,local_timestamp,id,side,price,amount'];
  ts = T0;
  for (let i = 0; i < ROWS / 3; i++) {
    ts += 3000 + int(54000);
    trades.push(`binance-futures,BTCUSDT,${ts},${ts + 3000},${i + 1},${rnd() < 0.5 ? 'buy' : 'sell'},${rnd() < 0.5 ? '64000' : '64000.1'},${(1 + int(500)) / 1000}`);
  }
  const files = [path.join(dir, 'binance-futures_incremental_book_L2_2024-08-01_BTCUSDT.csv.gz'), path.join(dir, 'binance-futures_trades_2024-08-01_BTCUSDT.csv.gz')];
  writeFileSync(files[0], gzipSync(`${l2.join('\n')}\n`));
  writeFileSync(files[1], gzipSync(`${trades.join('\n')}\n`));
  return files;
}

/** Gunzip and split into lines, nothing else: rows/s. */
async function limit(files: string[]): Promise<{ rows: number; perSec: number }> {
  const t0 = performance.now();
  let rows = 0;
  for (const f of files) {
    for await (const batch of fileLineBatches(f).batches) rows += batch.length;
  }
  return { rows, perSec: rows / ((performance.now() - t0) / 1000) };
}

registerSuite({
  name: 'import-tardis',
  description: 'perpkit import tardis on generated incremental_book_L2 + trades files, beside gunzip+split of the same files',
  async run(): Promise<BenchResult[]> {
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bench-tardis-'));
    try {
      const files = generate(dir);
      const base = await limit(files);
      const t0 = performance.now();
      const s = await importTardis({ files, out: path.join(dir, 'out.jsonl.gz') });
      const seconds = (performance.now() - t0) / 1000;
      const rss = process.memoryUsage().rss;
      const rows = base.rows - files.length;
      const perSec = rows / seconds;
      return [
        { name: 'input rows (both files, without headers)', value: rows, unit: 'rows' },
        { name: 'gunzip + split into lines (the limit)', value: round(base.perSec, 0), unit: 'rows/s' },
        { name: 'import end to end', value: round(perSec, 0), unit: 'rows/s' },
        { name: 'import end to end, events written', value: round(Object.values(s.events).reduce((a, b) => a + b, 0) / seconds, 0), unit: 'events/s' },
        { name: 'import as a share of the limit', value: round((100 * perSec) / base.perSec, 1), unit: '%' },
        { name: 'RSS after the import', value: round(rss / 1048576, 0), unit: 'MiB' },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
