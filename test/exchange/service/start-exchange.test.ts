/**
 * `startExchange` runs the exchange its config describes, as `perpkit exchange` does: the market
 * `market` names, and the journal in `dataDir`. Both were ignored, without a word: a synthetic or
 * replayed market stood still, and nothing was kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startExchange, type ExchangeServer, type MarketMode } from '../../../src/exchange';

const ROOT = path.resolve(__dirname, '..', '..', '..');

async function marksMove(server: ExchangeServer, within: number): Promise<{ first: string; moved: boolean }> {
  const mark = (): string => server.core.engine.marketState('BTCUSDT').markPrice;
  const first = mark();
  const until = Date.now() + within;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    if (mark() !== first) return { first, moved: true };
  }
  return { first, moved: false };
}

test.each<[string, MarketMode]>([
  ['synthetic', 'synthetic'],
  ['replay', `replay:${path.join(ROOT, 'data', 'sample', 'btcusdt-2h.jsonl.gz')}`],
])('a %s market moves the mark price', async (_name, market) => {
  const server = await startExchange({ port: 0, market });
  try {
    expect((await marksMove(server, 10_000)).moved).toBe(true);
  } finally {
    await server.stop();
  }
}, 30_000);

test('without a market the mark stays where it was configured', async () => {
  const server = await startExchange({ port: 0 });
  try {
    expect(await marksMove(server, 1500)).toEqual({ first: '50000', moved: false });
  } finally {
    await server.stop();
  }
});

test('a replay of a file that is not there is refused at start, naming it', async () => {
  await expect(startExchange({ port: 0, market: 'replay:/nonexistent/rec.jsonl.gz' })).rejects.toThrow('market replay:/nonexistent/rec.jsonl.gz: no such recording file');
});

test('with a dataDir, what happened is journaled there and restored by the next start', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'perpkit-start-exchange-'));
  try {
    const first = await startExchange({ port: 0, dataDir });
    try {
      await first.core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '51234.5' });
    } finally {
      await first.stop();
    }
    const second = await startExchange({ port: 0, dataDir });
    try {
      expect(second.core.engine.marketState('BTCUSDT').markPrice).toBe('51234.5');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
