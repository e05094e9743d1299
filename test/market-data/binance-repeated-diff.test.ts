/**
 * A depth diff written twice in a row (capture tools that reconnect do this) on the shared Binance
 * capture: the exact repeat is dropped and counted (summary line, header `skipped`), and the `pu`
 * chain holds. It used to break the chain at the repeat: a gap, and every later diff lost for want
 * of a snapshot. A diff with the same ids and other content is no repeat: still a break.
 *
 * The capture's first lines to 1,500 after the repeated diff (its 300th: the snapshot, the diffs
 * before it and ~100 diffs after the repeat) stand for it: each case imports it whole and reads
 * every event back, four times, and what is checked happens around the repeat (the whole capture,
 * 94,000 lines, took ~20 s of CPU here for the same assertions).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { importBinanceFutures, type ImportSummary } from '../../src/market-data/import/binance-futures';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { readRecording } from '../../src/market-data/reader';
import { importSummaryText } from '../../src/cli/import';
import { BINANCE_BTCUSDT, describeWithSharedData } from '../helpers/shared-data';
import { expectSameJson } from '../helpers/same-json';

const R_BEFORE = 'depthUpdate older than the snapshot (u < lastUpdateId)';
const R_REPEATED = 'depthUpdate repeated (the same U, u, pu, E and levels as the diff just taken, as a reconnecting capture writes it)';

async function read(out: string): Promise<{ header: RecordingHeader; events: RecordedEvent[] }> {
  const all: unknown[] = [];
  for await (const x of readRecording([out])) all.push(x);
  return { header: all[0] as RecordingHeader, events: all.slice(1) as RecordedEvent[] };
}

describeWithSharedData('import binance-futures: a depth diff repeated in the shared capture', BINANCE_BTCUSDT, (input) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-binance-repeat-'));
  let lines: string[];
  /** Index of the 300th depth diff line (well after the snapshot). */
  let at: number;
  let original: { summary: ImportSummary; events: RecordedEvent[] };

  /** The capture with `extra` inserted right after line `at`, imported. */
  async function importWith(name: string, extra: string): Promise<{ summary: ImportSummary; header: RecordingHeader; events: RecordedEvent[] }> {
    const f = path.join(dir, `${name}.gz`);
    writeFileSync(f, gzipSync([...lines.slice(0, at + 1), extra, ...lines.slice(at + 1)].join('\n') + '\n'));
    const out = path.join(dir, `${name}.jsonl.gz`);
    const summary = await importBinanceFutures({ files: [f], out });
    return { summary, ...(await read(out)) };
  }

  beforeAll(async () => {
    const all = gunzipSync(readFileSync(input)).toString('utf8').trimEnd().split('\n');
    let n = 0;
    at = all.findIndex((l) => l.includes('@depth') && ++n === 300);
    lines = all.slice(0, at + 1 + 1500);
    const f = path.join(dir, 'original.gz');
    writeFileSync(f, gzipSync(lines.join('\n') + '\n'));
    const out = path.join(dir, 'original.jsonl.gz');
    const summary = await importBinanceFutures({ files: [f], out });
    original = { summary, events: (await read(out)).events };
    // The part taken holds the snapshot, the diffs before it and diffs well after the repeat.
    expect(lines.filter((l) => l.includes('lastUpdateId'))).toHaveLength(1);
    expect(lines.slice(at + 1).filter((l) => l.includes('@depth')).length).toBeGreaterThan(50);
    expect(original.events.filter((e) => e.k === 'book').length).toBeGreaterThan(290);
  }, 60_000);

  test('the exact repeat is dropped and counted; the chain holds and the events are those of the capture without it', async () => {
    const r = await importWith('repeated', lines[at]);
    expect(r.summary.added.gaps).toBe(0);
    expect(r.summary.skipped).toEqual({ [R_BEFORE]: 4, [R_REPEATED]: 1 });
    expect(r.header.skipped).toEqual(r.summary.skipped);
    expect(r.summary.messages).toBe(original.summary.messages + 1);
    expectSameJson(r.events, original.events);
    expect(importSummaryText(r.summary, 1)).toContain(`  skipped 5: ${R_BEFORE} 4, ${R_REPEATED} 1\n`);
  }, 60_000);

  test('a repeat received later (a reconnect) is the same message: dropped and counted', async () => {
    // Its receive time is that of the next line: the same message, received again.
    const next = lines[at + 1].slice(0, lines[at + 1].indexOf(' '));
    const r = await importWith('reconnect', `${next}${lines[at].slice(lines[at].indexOf(' '))}`);
    expect(r.summary.added.gaps).toBe(0);
    expect(r.summary.skipped[R_REPEATED]).toBe(1);
    expect(r.events.filter((e) => e.k === 'book')).toHaveLength(original.events.filter((e) => e.k === 'book').length);
  }, 60_000);

  test('the same ids with other content is no repeat: the strict pu rule breaks the chain there', async () => {
    const msg = JSON.parse(lines[at].slice(lines[at].indexOf(' ') + 1)) as { data: { b: [string, string][]; a: [string, string][] } };
    const side = msg.data.b.length > 0 ? msg.data.b : msg.data.a;
    side[0] = [side[0][0], side[0][1] === '1.000' ? '2.000' : '1.000'];
    const r = await importWith('changed', `${lines[at].slice(0, lines[at].indexOf(' '))} ${JSON.stringify(msg)}`);
    expect(r.summary.added.gaps).toBe(1);
    expect(r.summary.skipped[R_REPEATED]).toBeUndefined();
    const gap = r.events.find((e) => e.k === 'gap');
    expect(gap).toMatchObject({ k: 'gap', s: 'BTCUSDT' });
    expect((gap as Extract<RecordedEvent, { k: 'gap' }>).reason).toMatch(/^book: pu \d+ does not follow the previous diff's u \d+;/);
  }, 60_000);
});
