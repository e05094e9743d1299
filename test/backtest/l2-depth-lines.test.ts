/**
 * `fill.book: l2` over v1 `depth` lines (the shipped synthetic sample, `perpkit synth`, `perpkit
 * record`). A depth line is a whole top-of-book snapshot (best first, N levels a side), so the L2
 * fill model takes each one as a snapshot: the book replaced. It used to ignore them: "0
 * snapshots", the book never known, a market order met only the top level.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportNotices } from '../../src/backtest/report/html';
import type { Level, RecordedEvent } from '../../src/market-data/format';
import { TARGETS, writeConfig } from './fixtures';
import { ensureBuilt, ROOT, runCli } from '../cli/exchange-proc';

jest.setTimeout(120_000);

const SAMPLE = path.join(ROOT, 'data', 'sample', 'btcusdt-2h.jsonl.gz');
const TO = '2024-01-01T00:10:00Z';
/** A market buy of 0.5 BTC at the 5th mark, sold again at the 60th: each more than the top level holds. */
const TAKER = { id: 't', module: './targets.js', params: { targets: [[5, '0.5'], [60, '0']] } };

let dir: string;
/** The sample's depth lines (both symbols) up to TO. */
let depths: Extract<RecordedEvent, { k: 'depth' }>[];
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'perpkit-l2-depth-'));
  writeFileSync(path.join(dir, 'targets.js'), TARGETS);
  const lines = gunzipSync(readFileSync(SAMPLE)).toString('utf8').trim().split('\n').slice(1);
  depths = lines.filter((l) => l.includes('"k":"depth"')).map((l) => JSON.parse(l) as Extract<RecordedEvent, { k: 'depth' }>).filter((d) => d.t < Date.parse(TO));
});

const config = (name: string, doc: Record<string, unknown>): string => writeConfig(dir, name, { data: { files: [SAMPLE], to: TO, cache: false }, latency: { placeMs: 0 }, strategies: [TAKER], ...doc });

/** The BTCUSDT depth line in force at `t` (the last one at or before it). */
const depthAt = (t: number): Extract<RecordedEvent, { k: 'depth' }> => depths.filter((d) => d.s === 'BTCUSDT' && d.t <= t).pop()!;

describe('fill.book l2 over v1 depth lines (the shipped synthetic sample)', () => {
  test('each depth line is a snapshot: a market order walks the recorded levels of the line in force', async () => {
    const { result, report } = await backtest(loadBacktestConfig(config('l2.yaml', { fill: { book: 'l2' } })), { cache: false });
    const l2 = result.tape.l2!;
    // A line a second for BTCUSDT and ETHUSDT: every one of them a snapshot.
    expect(depths.length).toBeGreaterThan(1000);
    expect(l2.depthLines).toBe(depths.length);
    expect(l2.snapshots).toBe(l2.depthLines);
    expect(l2.depthLineLevels).toBe(10);
    expect(l2.takers).toBe(2);
    expect(l2.levelsPlaced).toBeGreaterThan(2);
    // The buy: 0.5 filled in full, level by level at the recorded asks of the line in force, each
    // fill no more than the recorded quantity there.
    const buys = report.fills.filter((f) => f.side === 'BUY');
    const sells = report.fills.filter((f) => f.side === 'SELL');
    for (const [fills, side] of [[buys, 'a'], [sells, 'b']] as const) {
      const sum = fills.reduce((a, f) => a + Number(f.quantity), 0);
      expect(sum).toBeCloseTo(0.5, 9);
      expect(new Set(fills.map((f) => f.time)).size).toBe(1);
      expect(fills.length).toBeGreaterThan(1);
      const levels: Level[] = depthAt(fills[0].time)[side];
      fills.forEach((f, i) => {
        expect(f.price).toBe(levels[i][0]);
        expect(Number(f.quantity)).toBeLessThanOrEqual(Number(levels[i][1]));
      });
    }
    // The levels taken are those beyond the best (the tape quote) that the orders filled at; a
    // market order puts in as many levels as its whole quantity would need, so some stay untouched.
    expect(l2.levelsTaken).toBe(buys.length - 1 + sells.length - 1);
    expect(l2.levelsPlaced).toBeGreaterThanOrEqual(l2.levelsTaken);
    expect(reportNotices(report)).toContain(`The recorded L2 book comes from ${depths.length} depth lines, each a snapshot of the top levels (at most 10 a side) that replaced the book: levels deeper than that are unknown, so an order walking past them finds no recorded liquidity there, and the book between two lines is the earlier one.`);
    expect(reportNotices(report).some((n) => n.includes('no L2 snapshot'))).toBe(false);

    // The top-of-book model on the same data: the first market order meets only the best level
    // (the rest expires, and the strategy tries again at the next marks).
    const top = await backtest(loadBacktestConfig(config('top.yaml', {})), { cache: false });
    const first = top.report.fills.filter((f) => f.side === 'BUY' && f.time === buys[0].time);
    expect(first).toHaveLength(1);
    expect(first[0].price).toBe(depthAt(first[0].time).a[0][0]);
    expect(Number(first[0].quantity)).toBeLessThan(0.5);
  });

  test('a range that starts inside the data begins with the book of the depth line before it', async () => {
    const { result } = await backtest(loadBacktestConfig(config('from.yaml', { data: { files: [SAMPLE], from: '2024-01-01T00:05:00.500Z', to: TO, cache: false }, fill: { book: 'l2' } })), { cache: false });
    const from = Date.parse('2024-01-01T00:05:00.500Z');
    // Both symbols' books handed over at from, then the lines of the range.
    expect(result.booksAtFrom).toBe(2);
    expect(result.tape.l2?.snapshots).toBe(2 + depths.filter((d) => d.t >= from).length);
  });

  test('the CLI summary names what the L2 book came from', () => {
    ensureBuilt();
    const out = path.join(dir, 'out-cli');
    const r = runCli(['backtest', config('cli.yaml', { fill: { book: 'l2' } }), '--out', out, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  fill: l2 book, queue risk-averse: ${depths.length} snapshots (${depths.length} of them depth lines) and 0 deltas applied`);
    // The levels the orders took from, and those put in the book for them: report.json's counts.
    const l2 = (JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { data: { tape: { l2: { levelsTaken: number; levelsPlaced: number } } } }).data.tape.l2;
    expect(l2.levelsTaken).toBeGreaterThan(0);
    expect(r.stdout).toContain(`, 2 taking orders took from ${l2.levelsTaken} levels beyond the best (of ${l2.levelsPlaced} put in the book for them)\n`);
    expect(r.stdout).toContain('  data: the recorded L2 book comes from depth lines, each a snapshot of the top levels (at most 10 a side): deeper levels are unknown\n');
    expect(r.stdout).not.toContain('no L2 snapshot');
  });
});
