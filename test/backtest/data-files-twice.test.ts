/**
 * The same recording twice in `data.files` (by the same path, another spelling of it, or a link
 * to it) is refused with exit 2 naming the config, the key and the file, as two overlapping files
 * are: it replayed once without a word.
 */
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { BacktestConfigError, loadBacktestConfig } from '../../src/backtest/backtest/config';
import { ensureBuilt, runCli } from '../cli/exchange-proc';
import { recording, writeConfig } from './fixtures';

let dir = '';
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(2));
}, 120_000);

test('the same file twice: exit 2, one line naming the config, data.files[1], the rule and the file', () => {
  const cfg = writeConfig(dir, 'twice.yaml', { data: { files: ['rec.jsonl.gz', './rec.jsonl.gz'] } });
  const r = runCli(['backtest', cfg, '--out', path.join(dir, 'out-twice'), '--quiet']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^perpkit backtest: \S*twice\.yaml(:\d+)?: data\.files\[1\]: expected each recording once \(data\.files\[0\] names this file too\), got \/\S+\/rec\.jsonl\.gz\n$/);
  // A sweep over it is refused the same way, before any job runs.
  const s = runCli(['sweep', writeConfig(dir, 'twice-sweep.yaml', { data: { files: ['rec.jsonl.gz', 'rec.jsonl.gz'] }, sweep: { method: 'grid', params: [{ key: 'mm.skewBps', values: ['1', '2'] }] } }), '--out', path.join(dir, 'out-twice-sweep'), '--quiet']);
  expect(s.code).toBe(2);
  expect(s.stderr).toMatch(/data\.files\[1\]: expected each recording once \(data\.files\[0\] names this file too\), got \/\S+\/rec\.jsonl\.gz\n$/);
});

test('a link to a file listed before it is the same file', () => {
  symlinkSync(path.join(dir, 'rec.jsonl.gz'), path.join(dir, 'link.jsonl.gz'));
  const file = writeConfig(dir, 'link.yaml', { data: { files: ['rec.jsonl.gz', 'link.jsonl.gz'] } });
  expect(() => loadBacktestConfig(file)).toThrow(BacktestConfigError);
  expect(() => loadBacktestConfig(file)).toThrow(/data\.files\[1\]: expected each recording once \(data\.files\[0\] names this file too\), got \/\S+\/link\.jsonl\.gz$/);
});
