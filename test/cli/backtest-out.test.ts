/**
 * Probe item 8: `perpkit backtest --out <dir>` wrote into any folder, replacing what was there
 * without a word (`--out data` wrote the reports beside the recordings), where sweep and import
 * refuse without --overwrite. A folder holding only an earlier backtest's own files is replaced
 * (rerunning `npm run backtest` works, and the summary says so); anything else is refused.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { recording, writeConfig } from '../backtest/fixtures';
import { ensureBuilt, runCli } from './exchange-proc';

jest.setTimeout(120_000);

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  ({ dir } = await recording(3, 7));
});

test('a folder holding an earlier backtest\'s report is replaced, and the summary says so', () => {
  const cfg = writeConfig(dir, 'again.yaml', {});
  const out = path.join(dir, 'again-out');
  const first = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(first.code).toBe(0);
  expect(first.stdout).toContain(`  wrote ${path.join(out, 'report.json')}, report.html, run.json\n`);
  const second = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain(`  wrote ${path.join(out, 'report.json')}, report.html, run.json (replacing an earlier backtest's report.html, report.json, run.json)\n`);
  // The config's report.out (the default folder of `npm run backtest`) reruns the same way.
  expect(runCli(['backtest', cfg, '--quiet']).code).toBe(0);
  expect(runCli(['backtest', cfg, '--quiet']).code).toBe(0);
  // perpkit's output nested in it (getting-started's backtest-out/dip-buyer beside init's
  // backtest-out, a sweep's backtest-out/mm-sweep) does not stop a rerun, and is left as it is.
  const nested = path.join(out, 'dip-buyer');
  expect(runCli(['backtest', cfg, '--out', nested, '--quiet']).code).toBe(0);
  mkdirSync(path.join(out, 'mm-sweep'));
  writeFileSync(path.join(out, 'mm-sweep', 'results.jsonl'), '');
  expect(runCli(['backtest', cfg, '--out', out, '--quiet']).code).toBe(0);
  expect(readdirSync(nested).sort()).toEqual(['report.html', 'report.json', 'run.json']);
  // A folder of something else is refused, named as a folder.
  mkdirSync(path.join(out, 'notes'));
  writeFileSync(path.join(out, 'notes', 'a.txt'), 'x\n');
  const refused = runCli(['backtest', cfg, '--out', out, '--quiet']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`got ${out} holding an entry that is not (notes/); --overwrite`);
});

test('a folder holding anything else is refused before the run (exit 2, one line, nothing written); --overwrite writes beside it', () => {
  const cfg = writeConfig(dir, 'other.yaml', {});
  // The recordings' folder: the reports went beside the data.
  const before = readdirSync(dir).sort();
  const intoData = runCli(['backtest', cfg, '--out', dir, '--quiet']);
  expect(intoData.code).toBe(2);
  expect(intoData.stdout).toBe('');
  expect(intoData.stderr).toMatch(new RegExp(`^perpkit backtest: --out ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: expected a folder holding nothing but an earlier backtest's output, got .* holding \\d+ entries that are not \\(.*\\); --overwrite writes report\\.json, report\\.html, run\\.json there anyway \\(replacing those, removing nothing else\\), or give another --out\\n$`));
  expect(readdirSync(dir).sort()).toEqual(before);
  // A report.json that is not a perpkit report is not a backtest's output either.
  const mine = path.join(dir, 'mine');
  mkdirSync(mine);
  writeFileSync(path.join(mine, 'report.json'), '{"my": "notes"}\n');
  const notOurs = runCli(['backtest', cfg, '--out', mine, '--quiet']);
  expect(notOurs.code).toBe(2);
  expect(notOurs.stderr).toBe(`perpkit backtest: --out ${mine}: expected a folder holding nothing but an earlier backtest's output, got ${mine} holding an entry that is not (report.json); --overwrite writes report.json, report.html, run.json there anyway (replacing those, removing nothing else), or give another --out\n`);
  expect(readFileSync(path.join(mine, 'report.json'), 'utf8')).toBe('{"my": "notes"}\n');
  // The same through report.out: the config's file, line and key.
  const viaCfg = runCli(['backtest', writeConfig(dir, 'other2.yaml', { report: { out: 'mine' } }), '--quiet']);
  expect(viaCfg.code).toBe(2);
  expect(viaCfg.stderr).toMatch(/other2\.yaml:\d+: report\.out: expected a folder holding nothing but an earlier backtest's output \(--overwrite writes beside other things, or give another --out\), got .*mine holding an entry that is not \(report\.json\); --overwrite/);
  // --overwrite: the backtest's files are written, nothing else is removed.
  writeFileSync(path.join(mine, 'notes.txt'), 'keep me\n');
  const forced = runCli(['backtest', cfg, '--out', mine, '--quiet', '--overwrite']);
  expect(forced.code).toBe(0);
  expect(readdirSync(mine).sort()).toEqual(['notes.txt', 'report.html', 'report.json', 'run.json']);
  expect(readFileSync(path.join(mine, 'notes.txt'), 'utf8')).toBe('keep me\n');
});
