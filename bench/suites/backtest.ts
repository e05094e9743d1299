/**
 * backtest: replay throughput on a large synthetic recording (default 10 million events, made by
 * the suite itself with the synth generator into a temporary directory; BENCH_BACKTEST_EVENTS
 * changes the size). Reports, for the binary cache and for the JSON-lines file:
 *  - decode only (the limit): read and decode every event, nothing else;
 *  - end to end: read, decode, the tape fill model and engine, the bus, and a simple strategy
 *    (one resting bid 0.5 % under mark, amended every 60th mark, so the executor and engine see
 *    orders without the strategy's own arithmetic dominating);
 * and RSS after a quarter of the recording and after all of it (memory must stay flat).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Dec, defineStrategy, type Intent } from '../../src/index';
import { parseBacktestConfig } from '../../src/backtest/backtest/config';
import { buildCache, cachePathFor, CacheSource } from '../../src/backtest/backtest/cache';
import { JsonlSource } from '../../src/backtest/backtest/jsonl-source';
import { runBacktest } from '../../src/backtest/backtest/run';
import type { EventSource } from '../../src/backtest/backtest/source';
import { synthesize, SYNTH_EPOCH } from '../../src/backtest/recording/synth';
import { round, type BenchResult } from '../harness';
import { registerSuite } from './registry';

export const simple = defineStrategy<{ symbol: string }>({
  name: 'bench-simple',
  symbols: (p) => [p.symbol],
  params: () => ({ symbol: 'BTCUSDT' }),
  // It reads marks only; without this it would be handed every recorded trade as well.
  marketData: () => ['markPrice'],
  create: (ctx) => {
    let marks = 0;
    return {
      onEvent(e): Intent[] | void {
        if (e.type !== 'markPrice' || marks++ % 60 !== 0) return;
        const info = ctx.symbols.get('BTCUSDT');
        if (!info) return;
        const price = info.tick.fromUnits(info.tick.unitsOfDec(new Dec(e.mark.markPrice).times('0.995'), 'down'));
        const o = ctx.myOrders('BTCUSDT')[0];
        if (!o) return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price, quantity: '0.001', tag: 'bid' }];
        if (o.state === 'NEW' && o.price !== price) return [{ kind: 'amend', clientOrderId: o.clientOrderId, price, quantity: o.quantity }];
      },
    };
  },
});

export async function decodeOnly(src: EventSource, full: boolean): Promise<{ events: number; seconds: number }> {
  const t0 = process.hrtime.bigint();
  let n = 0;
  let sink = 0;
  for (;;) {
    const b = await src.next();
    if (!b) break;
    for (let i = 0; i < b.count; i++) {
      sink += b.time(i);
      if (full) {
        const e = b.event(i);
        if (e.k === 'trade') sink += e.p.length;
      }
      n++;
    }
  }
  await src.close();
  if (sink === 42) process.stdout.write('');
  return { events: n, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

export async function endToEnd(file: string, fromCache: boolean, header: Awaited<ReturnType<typeof JsonlSource.open>>['header'], toMs?: number): Promise<{ events: number; seconds: number; rssMB: number; fills: number; quietTrades: number }> {
  const cfg = parseBacktestConfig({ data: { files: [file], to: toMs }, account: { balance: '100000' }, strategies: [{ id: 's', module: 'market-maker' }] }, { file: path.join(path.dirname(file), 'bench.yaml') });
  const source: EventSource = fromCache ? CacheSource.open([cachePathFor(file)], header) : await JsonlSource.open([file]);
  const t0 = process.hrtime.bigint();
  const r = await runBacktest(cfg, { slots: [{ id: 's', definition: simple, params: {} }], source });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
  return { events: r.events.read, seconds, rssMB: Math.round(process.memoryUsage().rss / 1e6), fills: r.fills.length, quietTrades: r.quietTrades };
}

registerSuite({
  name: 'backtest',
  description: 'replay throughput: decode-only limits and end-to-end events/s from the binary cache and from JSON lines, RSS',
  async run(): Promise<BenchResult[]> {
    const target = Number(process.env.BENCH_BACKTEST_EVENTS ?? 10_000_000);
    const tradeRate = 40;
    // Events per hour of synth output at this rate: marks each second, trades, depth every 10 s.
    const hours = target / (3600 * (1 + tradeRate) + 360);
    const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-bench-bt-'));
    const file = path.join(dir, 'big.jsonl.gz');
    const out: BenchResult[] = [];
    try {
      let t = process.hrtime.bigint();
      const syn = await synthesize({ out: file, symbols: ['BTCUSDT'], hours, seed: 1, tradeRate });
      out.push({ name: 'recording events (synth)', value: syn.events, unit: 'events' });
      out.push({ name: 'recording size (gzip JSON lines)', value: round(statSync(file).size / 1e6, 1), unit: 'MB' });
      out.push({ name: 'synth write', value: round(Number(process.hrtime.bigint() - t) / 1e9, 1), unit: 's' });
      t = process.hrtime.bigint();
      await buildCache(file, cachePathFor(file));
      out.push({ name: 'cache build (one time)', value: round(Number(process.hrtime.bigint() - t) / 1e9, 1), unit: 's' });
      out.push({ name: 'cache size', value: round(statSync(cachePathFor(file)).size / 1e6, 1), unit: 'MB' });
      const header = (await JsonlSource.open([file])).header;
      out.push({ name: 'rss before replay', value: Math.round(process.memoryUsage().rss / 1e6), unit: 'MB' });

      const dj = await decodeOnly(await JsonlSource.open([file]), true);
      out.push({ name: 'decode only, JSON lines (gunzip+split+parse+validate, batch timed)', value: Math.round(dj.events / dj.seconds), unit: 'events/s' });
      const dc = await decodeOnly(CacheSource.open([cachePathFor(file)], header), true);
      out.push({ name: 'decode only, binary cache (read+decode, batch timed)', value: Math.round(dc.events / dc.seconds), unit: 'events/s' });

      const quarter = SYNTH_EPOCH + Math.round((hours * 3600_000) / 4);
      const q = await endToEnd(file, true, header, quarter);
      out.push({ name: 'rss after end to end on 1/4 of the recording (cache)', value: q.rssMB, unit: 'MB' });
      const ec = await endToEnd(file, true, header);
      out.push({ name: 'end to end from cache (batch timed)', value: Math.round(ec.events / ec.seconds), unit: 'events/s' });
      out.push({ name: 'rss after end to end on all of it (cache)', value: ec.rssMB, unit: 'MB' });
      out.push({ name: 'fills of the simple strategy', value: ec.fills, unit: 'fills' });
      const ej = await endToEnd(file, false, header);
      out.push({ name: 'end to end from JSON lines (batch timed)', value: Math.round(ej.events / ej.seconds), unit: 'events/s' });
      out.push({ name: 'end to end / decode limit, cache', value: round(ec.events / ec.seconds / (dc.events / dc.seconds), 3), unit: 'ratio' });
      out.push({ name: 'end to end / decode limit, JSON lines', value: round(ej.events / ej.seconds / (dj.events / dj.seconds), 3), unit: 'ratio' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return out;
  },
});
