/**
 * Probe item 12: `perpkit report compare` given a sweep's folder said only "report.json: no such
 * file"; it says the folder is a sweep's and what compare takes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CompareInputError, loadReport } from '../../src/backtest/report/compare';

test("a sweep's folder is named as one, with what compare takes", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'perpkit-compare-sweep-'));
  writeFileSync(path.join(dir, 'sweep.json'), '{}\n');
  writeFileSync(path.join(dir, 'results.jsonl'), '');
  expect(() => loadReport(dir)).toThrow(CompareInputError);
  expect(() => loadReport(dir)).toThrow(`${dir}: a sweep's folder (sweep.json, results.jsonl), not a backtest's: compare takes two backtest output folders or their report.json; a sweep's points are compared in its sweep.md and sweep.html, or run perpkit backtest on the points to compare and compare those`);
  // Any other folder without a report.json: as before.
  const empty = mkdtempSync(path.join(tmpdir(), 'perpkit-compare-empty-'));
  expect(() => loadReport(empty)).toThrow(`${path.join(empty, 'report.json')}: no such file (give a backtest output directory or its report.json)`);
});
