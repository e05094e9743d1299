import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { inspectRecording } from '../../src/market-data/inspect';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';

const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-inspect-'));
const T = 1_723_161_255_000;

describe('inspectRecording', () => {
  test('counts crossed and locked books, gaps, latency, and where the rebuilt book and the quotes disagree', async () => {
    const header: RecordingHeader = { type: 'header', format: 'perpkit-recording', version: 2, source: 'test', startTime: T, symbols: [], part: 0 };
    const ev: RecordedEvent[] = [
      { t: T, et: T + 1000, k: 'snapshot', s: 'X', u: 10, b: [['99', '1']], a: [['101', '1']] },
      { t: T + 1, et: T + 1001, k: 'quote', s: 'X', bp: '99', bq: '1', ap: '101', aq: '1', u: 11 }, // before its delta
      { t: T + 2, et: T + 1002, k: 'book', s: 'X', U: 11, u: 11, pu: 10, b: [], a: [] },
      { t: T + 3, et: T + 1013, k: 'book', s: 'X', U: 12, u: 12, pu: 11, b: [['100', '2']], a: [] },
      { t: T + 4, et: T + 1004, k: 'quote', s: 'X', bp: '100', bq: '3', ap: '101', aq: '1', u: 12 }, // disagrees on size
      { t: T + 5, k: 'quote', s: 'X', bp: '101', bq: '1', ap: '101', aq: '1' }, // locked
      { t: T + 6, k: 'quote', s: 'X', bp: '102', bq: '1', ap: '101', aq: '1' }, // crossed
      { t: T + 7, k: 'gap', stream: 'public', from: T + 3, reason: 'book: pu 20 does not follow 12', s: 'X' },
      { t: T + 8, k: 'book', s: 'X', U: 21, u: 22, pu: 20, b: [], a: [] },
    ];
    const f = path.join(dir, 'rec.jsonl.gz');
    writeFileSync(f, gzipSync([header, ...ev].map((l) => JSON.stringify(l)).join('\n') + '\n'));
    const r = await inspectRecording([f]);
    const x = r.symbols.X;
    expect(x.sameUpdateId.compared).toBe(2);
    expect(x.sameUpdateId.agree).toBe(1);
    expect(x.sameUpdateId.firstDisagreement).toBe('update id 12: quote 100 x 3 / 101 x 1, rebuilt book 100 x 2 / 101 x 1');
    expect(x.quotes).toEqual({ crossed: 1, locked: 1 });
    expect(x.book).toEqual({ crossed: 0, locked: 0, deltas: 3, unknownDeltas: 1 });
    expect(r.gaps).toEqual([{ t: T + 7, from: T + 3, reason: 'book: pu 20 does not follow 12', s: 'X' }]);
    expect(r.latencyMs).toEqual({ count: 5, min: -1010, p1: -1010, p50: -1000, p99: -1000, max: -1000 });
    expect(x.receiveOrder.compared).toBe(4);
  });

  test('the longest silence between events, and events earlier than the one before them', async () => {
    const header: RecordingHeader = { type: 'header', format: 'perpkit-recording', version: 2, source: 'test', startTime: T, symbols: [], part: 0 };
    const trade = (t: number): RecordedEvent => ({ t, k: 'trade', s: 'X', id: String(t), p: '100', q: '1', side: 'BUY' });
    const f = path.join(dir, 'silence.jsonl.gz');
    // 2 s, then 60 s of nothing, then 1 s; one event 500 ms back (kept in its place).
    const ev = [trade(T), trade(T + 2000), trade(T + 62_000), trade(T + 61_500), trade(T + 63_000)];
    writeFileSync(f, gzipSync([header, ...ev].map((l) => JSON.stringify(l)).join('\n') + '\n'));
    const r = await inspectRecording([f]);
    expect(r.longestSilence).toEqual({ from: T + 2000, to: T + 62_000, ms: 60_000 });
    expect(r.backInTime).toBe(1);
    expect(r.gaps).toEqual([]);
    writeFileSync(f, gzipSync([header, trade(T)].map((l) => JSON.stringify(l)).join('\n') + '\n'));
    expect((await inspectRecording([f])).longestSilence).toBeNull();
  });
});
