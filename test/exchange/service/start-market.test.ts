/**
 * `startExchange({ market })` runs the market it names, as `perpkit exchange --market` does. It
 * used to run none: a synthetic or replayed market stood still, and nothing said so.
 */
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
