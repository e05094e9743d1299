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
  test('a missing file or a folder rejects, and nothing else fails later (no stream left with an unheard error)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpkit-reader-'));
    for (const path of [join(dir, 'missing.jsonl.gz'), dir]) {
      await expect(readRecording([path]).next()).rejects.toThrow(/ENOENT|EISDIR/);
    }
    // A ReadStream opened before the sniffing threw would emit its ENOENT here, uncaught.
    await new Promise((r) => setTimeout(r, 100));
  });

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

describe('format v2', () => {
  const v2 = (): RecordingHeader => ({ ...header(), version: 2, sources: [{ file: 'in.gz', sha256: 'ab', bytes: 3 }], marks: { BTCUSDT: { source: 'derived', method: 'mid' } }, skipped: { 'depth before snapshot': 6 } });
  const kinds: RecordedEvent[] = [
    { t: 1001, et: 2271, k: 'trade', s: 'BTCUSDT', id: '7', p: '100', q: '1', side: 'SELL' },
    { t: 1002, et: 2272, k: 'quote', s: 'BTCUSDT', bp: '99.9', bq: '1', ap: '100.1', aq: '2', u: 55 },
    { t: 1003, k: 'snapshot', s: 'BTCUSDT', u: 50, b: [['99.9', '1']], a: [['100.1', '2']] },
    { t: 1004, et: 2274, k: 'book', s: 'BTCUSDT', U: 51, u: 55, pu: 50, b: [['99.9', '0']], a: [] },
    { t: 1005, k: 'gap', stream: 'public', from: 1004, reason: 'pu 54 does not follow u 55', s: 'BTCUSDT' },
  ];

  it('reads every v2 kind and a v1 file beside it', async () => {
    const a = join(dir, 'v2.jsonl.gz');
    const b = join(dir, 'v1.jsonl');
    writeFileSync(a, gzipSync(text([v2(), ...kinds])));
    writeFileSync(b, text([header(1), ev[0]]));
    expect(await all([a, b])).toEqual([v2(), ...kinds, header(1), ev[0]]);
  });

  it('refuses v2 kinds in a v1 file, malformed v2 events and unknown versions, naming file and line', async () => {
    const f = join(dir, 'v2bad.jsonl');
    writeFileSync(f, text([header(), kinds[1]]));
    await expect(all([f])).rejects.toThrow(`${f}:2: event kind quote needs format version 2, the header says version 1`);
    writeFileSync(f, text([v2(), { ...kinds[3], u: 'x' }]));
    await expect(all([f])).rejects.toThrow(`${f}:2: book event: expected`);
    writeFileSync(f, text([v2(), { ...kinds[0], et: '5' }]));
    await expect(all([f])).rejects.toThrow(`${f}:2: trade event: expected "et"`);
    writeFileSync(f, text([{ ...header(), version: 3 }]));
    await expect(all([f])).rejects.toThrow(`${f}:1: recording format version 3 is not supported; this reader reads versions 1 and 2`);
  });
});

describe('values', () => {
  const v2 = (): RecordingHeader => ({ ...header(), version: 2 });
  const lineOf = async (e: unknown): Promise<unknown[]> => {
    const f = join(dir, 'values.jsonl');
    writeFileSync(f, text([v2(), e]));
    return all([f]);
  };

  it('refuses a price, quantity or rate that is not a plain decimal, naming the field and what it holds', async () => {
    const f = join(dir, 'values.jsonl');
    await expect(lineOf({ ...ev[0], p: 'abc' })).rejects.toThrow(`${f}:2: trade event: "p" must be a plain decimal string such as "61800.2" (not negative), got "abc"`);
    await expect(lineOf({ ...ev[0], p: '-5' })).rejects.toThrow('"p" must be a plain decimal string such as "61800.2" (not negative), got "-5"');
    await expect(lineOf({ ...ev[0], q: '1e-3' })).rejects.toThrow('trade event: "q" must be a plain decimal');
    await expect(lineOf({ ...ev[0], q: '1.' })).rejects.toThrow('trade event: "q" must be a plain decimal');
    await expect(lineOf({ ...ev[1], i: '' })).rejects.toThrow('mark event: "i" must be a plain decimal');
    await expect(lineOf({ ...ev[1], r: '0.0001x' })).rejects.toThrow('mark event: "r" must be a plain decimal string such as "-0.0001", got "0.0001x"');
    await expect(lineOf({ t: 1003, k: 'quote', s: 'BTCUSDT', bp: 'x1', bq: '1', ap: '100.1', aq: '2' })).rejects.toThrow('quote event: "bp" must be a plain decimal');
    await expect(lineOf({ t: 1003, k: 'funding', s: 'BTCUSDT', r: '-0.0001', p: '.5' })).rejects.toThrow('funding event: "p" must be a plain decimal');
    await expect(lineOf({ t: 1003, k: 'snapshot', s: 'BTCUSDT', u: 5, b: [['99.9', '1']], a: [['100.1', '2'], ['100.2', '-1']] })).rejects.toThrow(
      'snapshot event: level 1 of "a" must be [price, quantity] as plain non-negative decimal strings, got ["100.2","-1"]',
    );
    await expect(lineOf({ t: 1003, k: 'depth', s: 'BTCUSDT', b: [['abc', '1']], a: [] })).rejects.toThrow('depth event: level 0 of "b"');
  });

  it('takes negative funding rates, zero quantities and trailing zeros', async () => {
    const ok: RecordedEvent[] = [
      { ...ev[1], r: '-0.00012' } as RecordedEvent,
      { t: 1003, k: 'funding', s: 'BTCUSDT', r: '-0.0001', p: '100.10' },
      { t: 1004, k: 'book', s: 'BTCUSDT', U: 1, u: 2, b: [['99.90', '0']], a: [['100.1', '0.000']] },
    ];
    const f = join(dir, 'values-ok.jsonl');
    writeFileSync(f, text([v2(), ...ok]));
    expect(await all([f])).toEqual([v2(), ...ok]);
  });
});
