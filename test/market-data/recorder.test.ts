import { mkdtempSync } from 'node:fs';
import pino from 'pino';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock, SystemScheduler } from '../../src/core/clock';
import type { PerpClient } from '../../src/client';
import { Recorder, type RecorderVenue } from '../../src/market-data/recorder';
import { readRecording } from '../../src/market-data/reader';
import { inspectRecording } from '../../src/market-data/inspect';
import { inspectionText } from '../../src/cli/data';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { Subject } from 'rxjs';
import type { PublicPush } from '../../src/protocol/ws';
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

  // Gap and positions lines were stamped by the recorder's clock, pushes by the venue's: with the
  // local clock 5 s ahead a reconnect wrote a gap line 5 s after the events that followed it (and
  // every reader refused the file); 5 s behind, the gap claimed a 1 s outage for a 6 s one.
  it.each([5000, -5000])('with the local clock %i ms off the venue, gap and poll lines stay in time order, in the venue time', async (skew) => {
    const a = await env.keyClient();
    const out = join(mkdtempSync(join(tmpdir(), 'perpkit-rec-skew-')), 'rec.jsonl.gz');
    const system = new SystemClock();
    const clock = { now: (): number => system.now() + skew };
    const rec = new Recorder({ venue: venueOf(a.client), source: env.ex.url, symbols: ['BTCUSDT'], private: true, pollPositionsMs: 50, out, flushMs: 50, clock, scheduler: new SystemScheduler() });
    await rec.start();
    const core = env.ex.server.core;
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50100', indexPrice: '50090' });
    await waitFor(() => rec.stats.events >= 3, 5000, 'first events');
    rec.publicStream?.reconnectNow();
    await waitFor(() => rec.stats.gaps >= 1, 10000, 'gap line');
    await core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50200', indexPrice: '50190' });
    await new Promise((r) => setTimeout(r, 300));
    await rec.stop();
    const { events } = await readAll(rec.stats.files);
    for (let i = 1; i < events.length; i++) expect([i, events[i].k, events[i].t >= events[i - 1].t]).toEqual([i, events[i].k, true]);
    const gap = events.find((e) => e.k === 'gap');
    if (gap?.k !== 'gap') throw new Error('no gap line');
    // The outage as the venue's clock measures it: well under the skew either way.
    expect(gap.t - gap.from).toBeGreaterThanOrEqual(0);
    expect(gap.t - gap.from).toBeLessThan(3000);
    const venueNow = system.now();
    for (const e of events) expect(Math.abs(e.t - venueNow)).toBeLessThan(4000);
  }, 30000);

  // A push is stamped by the venue when it is sent; a gap or poll line by this process when it is
  // written. A push still in flight then (or the other stream's) arrived stamped before the line
  // written ahead of it, and the file went back in time (seen on a loaded CI machine).
  it('a push stamped before the line before it is written at that line\'s time, with the venue\'s stamp in et, and counted', async () => {
    const specs = (await env.client().market.getSymbols({})).symbols;
    const pushes = new Subject<PublicPush>();
    const notices = new Subject<{ type: string; reconnect?: boolean }>();
    let now = 1_000;
    const venue: RecorderVenue = {
      getSymbols: async () => specs,
      getPositions: async () => [],
      publicStream: () => ({ pushes$: pushes, notices$: notices, start: async () => undefined, subscribe: async () => undefined, stop: () => undefined, reconnectNow: () => undefined }),
      privateStream: () => {
        throw new Error('not asked for');
      },
    };
    const out = join(mkdtempSync(join(tmpdir(), 'perpkit-rec-late-')), 'rec.jsonl.gz');
    const rec = new Recorder({ venue, source: 'test', symbols: ['BTCUSDT'], out, flushMs: 0, clock: { now: () => now }, scheduler: new SystemScheduler() });
    await rec.start();
    const trade = (t: number, id: string): PublicPush => ({ event: 'trade', symbol: 'BTCUSDT', eventTime: t, data: { tradeId: id, price: '50000', quantity: '0.01', side: 'BUY', time: t } });
    pushes.next(trade(1_000, '1'));
    now = 1_500;
    notices.next({ type: 'close' });
    notices.next({ type: 'open', reconnect: true });
    pushes.next(trade(1_200, '2'));
    pushes.next(trade(1_600, '3'));
    await rec.stop();
    const { events } = await readAll(rec.stats.files);
    expect(events.map((e) => [e.k, e.t, 'et' in e ? e.et : undefined])).toEqual([
      ['trade', 1_000, undefined],
      ['gap', 1_500, undefined],
      ['trade', 1_500, 1_200],
      ['trade', 1_600, undefined],
    ]);
    expect(rec.stats).toMatchObject({ late: 1, lateMaxMs: 300 });
    // perpkit data inspect called t - et "feed latency" here, which it is not for this recorder.
    const text = inspectionText(await inspectRecording(rec.stats.files));
    expect(text).toContain('  pushes written after a later line, at its time (t is the venue time; et, their own, on those only): 1, late by ms: min 300, p50 300, max 300\n');
    expect(text).not.toMatch(/feed latency/);
  });

  // The venue gone while recording: nothing was said for the whole outage, and a recording
  // stopped before it came back said "0 gaps" though it held only the seconds before the loss.
  it('a venue lost while recording is said at warn, and a stop before it is back ends the file with the open gap', async () => {
    const gone = await startClientEnv();
    let stopped = false;
    try {
      const c = gone.client();
      const out = join(mkdtempSync(join(tmpdir(), 'perpkit-rec-lost-')), 'rec.jsonl.gz');
      const lines: Array<{ level: number; msg: string }> = [];
      const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { level: number; msg: string }) });
      const rec = new Recorder({ venue: venueOf(c), source: gone.ex.url, symbols: ['BTCUSDT'], out, flushMs: 50, clock: new SystemClock(), scheduler: new SystemScheduler(), logger });
      await rec.start();
      await gone.ex.server.core.execute({ k: 'setMarkPrice', symbol: 'BTCUSDT', markPrice: '50100', indexPrice: '50090' });
      await waitFor(() => rec.stats.events >= 1, 5000, 'a mark');
      await gone.stop();
      stopped = true;
      await waitFor(() => lines.some((l) => l.msg.startsWith('public stream lost')), 5000, 'the loss said');
      expect(lines.find((l) => l.msg.startsWith('public stream lost'))?.level).toBe(40);
      await rec.stop();
      expect(rec.stats.gaps).toBe(1);
      const { events } = await readAll(rec.stats.files);
      expect(events[events.length - 1]).toMatchObject({ k: 'gap', stream: 'public', reason: 'stopped while the stream was lost' });
    } finally {
      if (!stopped) await gone.stop();
    }
  });

  it('refuses a symbol the venue does not list', async () => {
    const c = env.client();
    const rec = new Recorder({ venue: venueOf(c), source: env.ex.url, symbols: ['NOPEUSDT'], out: join(tmpdir(), 'never.jsonl.gz'), clock: new SystemClock(), scheduler: new SystemScheduler() });
    await expect(rec.start()).rejects.toThrow(/does not list symbol NOPEUSDT/);
    await rec.stop();
  });
});
