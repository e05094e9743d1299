import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock, SystemScheduler } from '../../src/core/clock';
import type { PerpClient } from '../../src/client';
import { Recorder, type RecorderVenue } from '../../src/market-data/recorder';
import { readRecording } from '../../src/market-data/reader';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { startClientEnv, waitFor, type ClientEnv } from '../client/support/env';

function venueOf(client: PerpClient): RecorderVenue {
  return {
    getSymbols: async () => (await client.market.getSymbols({})).symbols,
    getPositions: async () => (await client.positions.getPositions({})).positions,
    publicStream: () => client.publicStream(),
    privateStream: () => client.privateStream(),
  };
}

async function readAll(files: string[]): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const events: RecordedEvent[] = [];
  let header: RecordingHeader | undefined;
  for await (const x of readRecording(files)) {
    if ('type' in x) header ??= x;
    else events.push(x);
  }
  return { header: header as RecordingHeader, events };
}

describe('Recorder against the local exchange', () => {
  let env: ClientEnv;
  beforeAll(async () => {
    env = await startClientEnv();
  });
  afterAll(async () => {
    await env.stop();
  });

  it('records trades, marks, depth, funding, private events and positions, with gap lines on reconnects', async () => {
    const a = await env.keyClient();
    const b = await env.keyClient();
    const out = join(mkdtempSync(join(tmpdir(), 'perpkit-rec-')), 'rec.jsonl.gz');
    const rec = new Recorder({ venue: venueOf(a.client), source: env.ex.url, symbols: ['BTCUSDT'], private: true, pollPositionsMs: 100, out, flushMs: 50, clock: new SystemClock(), scheduler: new SystemScheduler() });
    await rec.start();
    const core = env.ex.server.core;
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50100', indexPrice: '50090' });
    await a.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '50000', quantity: '0.01' });
    await b.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'MARKET', side: 'SELL', quantity: '0.01' });
    await waitFor(() => rec.stats.events >= 5, 5000, 'first events');
    // The rate the marks announce is the one recorded when a settlement moves nextFundingTime
    // (the next mark push reveals it).
    await core.execute({ k: 'setFundingRate', symbol: 'BTCUSDT', rate: '0.0002' });
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50150' });
    await waitFor(() => rec.stats.events >= 8, 5000, 'mark with the new rate');
    await core.execute({ k: 'settleFunding', symbol: 'BTCUSDT' });
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50200' });
    await waitFor(() => rec.stats.fundings === 1, 5000, 'funding line');
    // Forced reconnects of both streams.
    rec.publicStream?.reconnectNow();
    env.ex.server.ws.dropUser(a.userId);
    await waitFor(() => rec.stats.gaps >= 2, 10000, 'gap lines');
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50300' });
    await b.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'SELL', price: '50300', quantity: '0.02' });
    await a.client.orders.placeOrder({ symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.02' });
    await waitFor(() => rec.stats.events >= 20, 5000, 'events after reconnect');
    await waitFor(async () => (await readAll(rec.stats.files).catch(() => ({ events: [] as RecordedEvent[] }))).events.some((e) => e.k === 'trade' && e.p === '50300'), 5000, 'trade after reconnect').catch(() => undefined);
    await rec.stop();

    const { header, events } = await readAll(rec.stats.files);
    expect(header).toMatchObject({ source: env.ex.url, part: 0 });
    expect(header.symbols.map((s) => s.symbol)).toEqual(['BTCUSDT']);
    const kinds = new Set(events.map((e) => e.k));
    for (const k of ['trade', 'mark', 'depth', 'ticker', 'funding', 'private', 'positions', 'gap']) expect(kinds).toContain(k);
    const trades = events.filter((e): e is Extract<RecordedEvent, { k: 'trade' }> => e.k === 'trade');
    expect(trades.map((t) => [t.p, t.q, t.side])).toEqual([
      ['50000', '0.01', 'SELL'],
      ['50300', '0.02', 'BUY'],
    ]);
    expect(events.find((e) => e.k === 'funding')).toMatchObject({ s: 'BTCUSDT', r: '0.0002' });
    const gaps = events.filter((e) => e.k === 'gap');
    expect(gaps.map((g) => (g.k === 'gap' ? g.stream : '')).sort()).toEqual(expect.arrayContaining(['private', 'public']));
    expect(events.some((e) => e.k === 'private' && e.e.event === 'ORDER_TRADE_UPDATE')).toBe(true);
    const lastPositions = events.filter((e) => e.k === 'positions').pop();
    expect(lastPositions?.k === 'positions' && lastPositions.list.some((p) => p.symbol === 'BTCUSDT' && p.quantity === '0.03')).toBe(true);
  }, 30000);

  it('refuses a symbol the venue does not list', async () => {
    const c = env.client();
    const rec = new Recorder({ venue: venueOf(c), source: env.ex.url, symbols: ['NOPEUSDT'], out: join(tmpdir(), 'never.jsonl.gz'), clock: new SystemClock(), scheduler: new SystemScheduler() });
    await expect(rec.start()).rejects.toThrow(/does not list symbol NOPEUSDT/);
    await rec.stop();
  });
});
