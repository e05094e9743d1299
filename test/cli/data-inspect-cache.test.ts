/**
 * Probe item 12: `perpkit data inspect` of a replay cache (`<recording>.perpkit-cache`, binary)
 * quoted its bytes as a bad JSON line; it says what the file is and what to inspect instead.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureBuilt, runCli } from './exchange-proc';

beforeAll(() => ensureBuilt());

test('data inspect of a replay cache says it is one and names the recording to inspect (exit 2)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-cache-inspect-'));
  const cache = path.join(dir, 'btc.jsonl.gz.perpkit-cache');
  writeFileSync(cache, Buffer.concat([Buffer.from('PKCACHE1', 'latin1'), Buffer.from([0x10, 0, 0, 0, 0x7b, 0xff, 0x00, 0x01])]));
  const r = runCli(['data', 'inspect', cache]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`perpkit data: ${cache}: expected a recording file, got a replay cache (the binary copy perpkit backtest builds beside a recording); inspect its recording instead: perpkit data inspect ${path.join(dir, 'btc.jsonl.gz')} (perpkit data --help lists the options)\n`);
});
