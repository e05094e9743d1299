/**
 * A rotated recording (`rot.jsonl.gz`, then `rot.1.jsonl.gz`, `rot.2.jsonl.gz` beside it) named by
 * its first file is read whole by `perpkit backtest` (cache on and off) and `perpkit data inspect`,
 * as the exchange's replay reads it; the backtest summary says which files it read.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readRecording } from '../../src/market-data/reader';
import { RecordingWriter } from '../../src/market-data/writer';
import type { RecordedEvent, RecordingHeader } from '../../src/market-data/format';
import { recording, writeConfig } from '../backtest/fixtures';
import { ensureBuilt, runCli } from './exchange-proc';

jest.setTimeout(120_000);

let dir: string;
let whole: string;
beforeAll(async () => {
  ensureBuilt();
  // Twelve minutes in three parts: the reads compared do not depend on the length (it was 30
  // minutes rotated every 11 min 40 s; each of the test's four backtests replays all of it).
  ({ dir, file: whole } = await recording(12, 4));
  // The same events, written as a recorder rotating every 4 min 40 s writes them.
  let header: RecordingHeader | undefined;
  const events: RecordedEvent[] = [];
  for await (const x of readRecording([whole])) {
    if ('type' in x) header = x;
    else events.push(x);
  }
  const h = header as RecordingHeader;
  const w = new RecordingWriter({ path: path.join(dir, 'rot.jsonl.gz'), source: h.source, symbols: h.symbols, startTime: h.startTime, rotateMs: 280_000 });
  for (const e of events) if (!w.write(e)) await w.drained();
  await w.close();
  expect(w.files.map((f) => path.basename(f))).toEqual(['rot.jsonl.gz', 'rot.1.jsonl.gz', 'rot.2.jsonl.gz']);
});

const files = (): string => ['rot.jsonl.gz', 'rot.1.jsonl.gz', 'rot.2.jsonl.gz'].map((f) => path.join(dir, f)).join(', ');

test('data inspect of the first file reads every part, and its first line names them', () => {
  const all = runCli(['data', 'inspect', whole]);
  const rot = runCli(['data', 'inspect', path.join(dir, 'rot.jsonl.gz')]);
  expect(rot.code).toBe(0);
  expect(rot.stdout.split('\n')[0]).toBe(`recording: ${files()} (format v2, source synth:4)`);
  const events = (s: string): string => /\d+ events: .*/.exec(s)?.[0] ?? 'none';
  expect(events(rot.stdout)).toBe(events(all.stdout));
});

test.each([
  ['without the cache', false],
  ['through the replay cache', true],
])('a backtest of the first file reads every part (%s), as the whole recording, and says so', (_what, cache) => {
  const report = (name: string, file: string): { read: number; endTime: number; stdout: string } => {
    const cfg = writeConfig(dir, `${name}.yaml`, { data: { files: [file], cache } });
    const out = path.join(dir, `out-${name}`);
    const r = runCli(['backtest', cfg, '--out', out, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { data: { events: { read: number }; endTime: number } };
    return { read: j.data.events.read, endTime: j.data.endTime, stdout: r.stdout };
  };
  const a = report(`whole-${String(cache)}`, path.basename(whole));
  const b = report(`rot-${String(cache)}`, 'rot.jsonl.gz');
  expect(b.read).toBe(a.read);
  expect(b.endTime).toBe(a.endTime);
  expect(b.stdout).toMatch(/\n {2}data: read 3 files: \S*rot\.jsonl\.gz, \S*rot\.1\.jsonl\.gz, \S*rot\.2\.jsonl\.gz \(with the rotated parts found beside data\.files\)\n/);
  expect(a.stdout).not.toMatch(/data: read/);
});
