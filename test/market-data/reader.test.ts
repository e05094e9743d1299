import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readHeader, readRecording, RecordingFormatError } from '../../src/market-data/reader';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';

const dir = mkdtempSync(join(tmpdir(), 'perpkit-reader-'));
const header = (part = 0): RecordingHeader => ({ type: 'header', format: 'perpkit-recording', version: 1, source: 'test', startTime: 1000, symbols: [], part });
const ev: RecordedEvent[] = [
  { t: 1001, k: 'trade', s: 'BTCUSDT', id: '1', p: '100', q: '1', side: 'BUY' },
  { t: 1002, k: 'mark', s: 'BTCUSDT', p: '100', i: '100', r: '0.0001', n: 28_800_000 },
];
const text = (lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

async function all(paths: string[], opts?: { allowTornTail?: boolean }): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const x of readRecording(paths, opts)) out.push(x);
  return out;
}

describe('readRecording', () => {
  it('reads gzip and plain files in order, header first in each', async () => {
    const a = join(dir, 'a.jsonl.gz');
    const b = join(dir, 'b.jsonl');
    writeFileSync(a, gzipSync(text([header(0), ev[0]])));
    writeFileSync(b, text([header(1), ev[1]]));
    expect(await all([a, b])).toEqual([header(0), ev[0], header(1), ev[1]]);
    expect(await readHeader(b)).toEqual(header(1));
  });

  it('refuses garbage naming the file and line', async () => {
    const f = join(dir, 'bad.jsonl');
    writeFileSync(f, text([header(), ev[0], { t: 5, k: 'trade', s: 'X' }, ev[1]]));
    await expect(all([f])).rejects.toThrow(`${f}:3: trade event`);
    writeFileSync(f, text([ev[0]]));
    await expect(all([f])).rejects.toThrow(`${f}:1: expected a perpkit-recording header`);
    writeFileSync(f, `${text([header()])}{"t":1,\n${text([ev[0]])}`);
    await expect(all([f])).rejects.toBeInstanceOf(RecordingFormatError);
  });

  it('refuses a torn last line unless allowed', async () => {
    const f = join(dir, 'torn.jsonl');
    writeFileSync(f, `${text([header(), ev[0]])}{"t":1002,"k":"ma`);
    await expect(all([f])).rejects.toThrow(`${f}:3: not a JSON line`);
    expect(await all([f], { allowTornTail: true })).toEqual([header(), ev[0]]);
  });
});
