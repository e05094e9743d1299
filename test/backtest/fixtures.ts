import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { synthesize } from '../../src/market-data/synth';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';

/** A short synthetic recording in a fresh temporary directory. */
export async function recording(minutes = 15, seed = 3): Promise<{ dir: string; file: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bt-'));
  const file = path.join(dir, 'rec.jsonl.gz');
  await synthesize({ out: file, market: synthSymbolsOf(), symbols: ['BTCUSDT'], hours: minutes / 60, seed, tradeRate: 3 });
  return { dir, file };
}

export const MM = { id: 'mm', module: 'market-maker', params: { symbol: 'BTCUSDT', quantity: '0.01', minSpreadBps: '2', skewBps: '3', refreshMs: 1000 } };

/** Writes a backtest config beside the recording and returns its path. */
export function writeConfig(dir: string, name: string, doc: Record<string, unknown>): string {
  const file = path.join(dir, name);
  writeFileSync(file, stringify({ data: { files: ['rec.jsonl.gz'] }, account: { balance: '10000' }, strategies: [MM], ...doc }));
  return file;
}
