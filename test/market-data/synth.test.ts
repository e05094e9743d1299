import { mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecording } from '../../src/market-data/reader';
import { synthesize, SYNTH_EPOCH } from '../../src/market-data/synth';
import { synthSymbolsOf } from '../../src/exchange/market/synth-symbols';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';

const dir = mkdtempSync(join(tmpdir(), 'perpkit-synth-'));

describe('synth', () => {
  it('is byte-identical for the same seed and differs for another', async () => {
    const a = join(dir, 'a.jsonl.gz');
    const b = join(dir, 'b.jsonl.gz');
    const c = join(dir, 'c.jsonl.gz');
    await synthesize({ out: a, market: synthSymbolsOf(), symbols: ['BTCUSDT', 'ETHUSDT'], hours: 0.5, seed: 7 });
    await synthesize({ out: b, market: synthSymbolsOf(), symbols: ['BTCUSDT', 'ETHUSDT'], hours: 0.5, seed: 7 });
    await synthesize({ out: c, market: synthSymbolsOf(), symbols: ['BTCUSDT', 'ETHUSDT'], hours: 0.5, seed: 8 });
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
    expect(readFileSync(a).equals(readFileSync(c))).toBe(false);
  });

  // Rotation by size read the compressed bytes zlib had handed over, none during the run: a 3 h
  // run with --rotate-mb 0.1 wrote one 1.4 MB file.
  it('rotates by size into parts, the same parts on every run', async () => {
    const a = join(dir, 'rot-a', 'r.jsonl.gz');
    const b = join(dir, 'rot-b', 'r.jsonl.gz');
    const run = (out: string) => synthesize({ out, market: synthSymbolsOf(), symbols: ['BTCUSDT'], hours: 2, seed: 1, rotateBytes: 100_000 });
    mkdirSync(join(dir, 'rot-a'));
    mkdirSync(join(dir, 'rot-b'));
    const ra = await run(a);
    const rb = await run(b);
    expect(ra.files.length).toBeGreaterThanOrEqual(5);
    expect(rb.files.map((f) => f.replace('rot-b', 'rot-a'))).toEqual(ra.files);
    for (let i = 0; i < ra.files.length; i++) expect(readFileSync(ra.files[i]).equals(readFileSync(rb.files[i]))).toBe(true);
    // Each part but the last is about the size asked for (rotation is checked every 1,000 s of data).
    for (const f of ra.files.slice(0, -1)) expect(statSync(f).size).toBeLessThan(200_000);
  });

  it('writes every kind in time order with a header, and funding every 8 h', async () => {
    const f = join(dir, 'kinds.jsonl.gz');
    await synthesize({ out: f, market: synthSymbolsOf(), symbols: ['BTCUSDT'], hours: 9, seed: 3, tradeRate: 0.5 });
    const counts = new Map<string, number>();
    let header: RecordingHeader | undefined;
    let last = 0;
    const fundings: RecordedEvent[] = [];
    // The kinds written at each millisecond, in file order.
    let kindsAt: string[] = [];
    let marksBeforeTheirBook = 0;
    // The first event that goes back in time, if any (one expect at the end: an expect per event
    // took seconds over its ~81,000 events).
    let backwards: string | undefined;
    for await (const x of readRecording([f])) {
      if ('type' in x) {
        header = x;
        continue;
      }
      if (backwards === undefined && x.t < last) backwards = `${JSON.stringify(x)} after t ${last}`;
      if (x.t !== last) kindsAt = [];
      kindsAt.push(x.k);
      if (x.k === 'depth' && kindsAt.includes('mark')) marksBeforeTheirBook++;
      last = x.t;
      counts.set(x.k, (counts.get(x.k) ?? 0) + 1);
      if (x.k === 'funding') fundings.push(x);
    }
    expect(backwards).toBeUndefined();
    expect(header).toMatchObject({ source: 'synth:3', startTime: SYNTH_EPOCH, part: 0 });
    expect(header?.symbols.map((s) => s.symbol)).toEqual(['BTCUSDT']);
    expect(counts.get('mark')).toBe(9 * 3600);
    // A depth line a second, as marks: the book is never older than the mark a stop triggers on.
    expect(counts.get('depth')).toBe(9 * 3600);
    // The book of a moment comes before its mark: a stop triggered by the mark meets that book.
    expect(marksBeforeTheirBook).toBe(0);
    expect(counts.get('trade')).toBeGreaterThan(9 * 3600 * 0.4);
    // 2024-01-01T00:00Z is a funding boundary: the next one is at 08:00.
    expect(fundings.map((e) => e.t)).toEqual([SYNTH_EPOCH + 8 * 3600_000]);
    // ~15 s on an idle machine, over 30 s on a loaded one: room, not a speed bound.
  }, 120_000);
});
