import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { RecordingWriter, partPath } from '../../src/market-data/writer';
import { readRecording, recordingFiles } from '../../src/market-data/reader';
import type { RecordedEvent } from '../../src/market-data/format';

const dir = mkdtempSync(join(tmpdir(), 'perpkit-writer-'));
const trade = (t: number, i: number): RecordedEvent => ({ t, k: 'trade', s: 'BTCUSDT', id: String(i), p: '50000.1', q: '0.01', side: i % 2 ? 'BUY' : 'SELL' });

async function collect(files: string[], opts?: { allowTornTail?: boolean }): Promise<Array<{ part?: number; t?: number }>> {
  const out: Array<{ part?: number; t?: number }> = [];
  for await (const x of readRecording(files, opts)) out.push('type' in x ? { part: x.part } : { t: x.t });
  return out;
}

describe('RecordingWriter', () => {
  it('round-trips through the reader, rotating by event time with a header per part', async () => {
    const path = join(dir, 'time.jsonl.gz');
    const w = new RecordingWriter({ path, source: 'test', symbols: [], startTime: 0, rotateMs: 1000 });
    for (let i = 0; i < 30; i++) w.write(trade(i * 100, i));
    await w.close();
    expect(w.files).toEqual([path, partPath(path, 1), partPath(path, 2)]);
    expect(partPath(path, 2)).toBe(join(dir, 'time.2.jsonl.gz'));
    expect(await recordingFiles(path)).toEqual(w.files);
    const got = await collect(w.files);
    expect(got.filter((x) => x.part !== undefined).map((x) => x.part)).toEqual([0, 1, 2]);
    expect(got.filter((x) => x.t !== undefined).map((x) => x.t)).toEqual(Array.from({ length: 30 }, (_, i) => i * 100));
  });

  it('rotates by compressed size', async () => {
    const path = join(dir, 'size.jsonl.gz');
    const w = new RecordingWriter({ path, source: 'test', symbols: [], startTime: 0, rotateBytes: 20_000, level: 1 });
    for (let i = 0; i < 60_000; i++) {
      if (!w.write({ t: i, k: 'trade', s: 'BTCUSDT', id: `${i}-${(i * 7919) % 10007}`, p: String(50000 + ((i * 31) % 997)), q: '0.01', side: 'BUY' })) await w.drained();
      // Give gzip a turn now and then so the size is known while writing.
      if (i % 5000 === 0) await w.flush();
    }
    await w.close();
    expect(w.files.length).toBeGreaterThan(1);
    const got = await collect(w.files);
    expect(got.filter((x) => x.t !== undefined)).toHaveLength(60_000);
  });

  it('flush makes written events readable before close; a torn tail is refused unless allowed', async () => {
    const path = join(dir, 'flush.jsonl.gz');
    const w = new RecordingWriter({ path, source: 'test', symbols: [], startTime: 0 });
    for (let i = 0; i < 10; i++) w.write(trade(i, i));
    await w.flush();
    // The file now holds a complete prefix but no gzip trailer, as after a crash.
    const crashed = join(dir, 'crashed.jsonl.gz');
    writeFileSync(crashed, readFileSync(path));
    await w.close();
    await expect(collect([crashed])).rejects.toThrow(/gzip stream ends early/);
    expect((await collect([crashed], { allowTornTail: true })).filter((x) => x.t !== undefined)).toHaveLength(10);
    expect(gunzipSync(readFileSync(path)).toString().split('\n')).toHaveLength(12);
  });

  it('drops events beyond the memory bound and reports them with a gap line', async () => {
    const path = join(dir, 'bound.jsonl.gz');
    const w = new RecordingWriter({ path, source: 'test', symbols: [], startTime: 0, maxBufferedBytes: 2000 });
    let refused = 0;
    for (let i = 0; i < 200; i++) if (!w.write(trade(i, i))) refused++;
    expect(refused).toBeGreaterThan(0);
    expect(w.dropped).toBeGreaterThan(0);
    await w.drained();
    w.write(trade(1000, 1000));
    await w.close();
    const lines = gunzipSync(readFileSync(path)).toString().trim().split('\n').map((l) => JSON.parse(l) as { k?: string; reason?: string });
    const gap = lines.find((l) => l.k === 'gap');
    expect(gap?.reason).toBe(`writer overflow: ${w.dropped} events dropped`);
    expect(lines.length).toBe(1 + w.written);
  });

  // A recorder stopped while the disk was behind wrote no gap line for the last events dropped.
  it('a close while events are being dropped ends the file with the gap line that says so', async () => {
    const path = join(dir, 'bound-close.jsonl.gz');
    const w = new RecordingWriter({ path, source: 'test', symbols: [], startTime: 0, maxBufferedBytes: 2000 });
    for (let i = 0; i < 200; i++) w.write(trade(i, i));
    expect(w.dropped).toBeGreaterThan(0);
    await w.close();
    const lines = gunzipSync(readFileSync(path)).toString().trim().split('\n').map((l) => JSON.parse(l) as { k?: string; t?: number; from?: number; reason?: string });
    const last = lines[lines.length - 1];
    expect(last).toMatchObject({ k: 'gap', t: 199, reason: `writer overflow: ${w.dropped} events dropped` });
    expect(last.from).toBe(200 - w.dropped);
  });
});
