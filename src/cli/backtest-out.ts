/**
 * What a backtest's output folder holds before the run: its own files of an earlier backtest
 * (replaced: rerunning `npm run backtest` must work), folders of perpkit's output nested in it
 * (left alone), or anything else (refused without
 * --overwrite: `--out data` wrote the reports beside the recordings, and a report of another run
 * was replaced without a word).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPORT_FORMAT } from '../backtest/report/report';

/** The files a backtest writes into its folder. */
export const BACKTEST_FILES = ['report.json', 'report.html', 'run.json'] as const;

export interface OutContents {
  /** Files of an earlier backtest there (replaced by this run). */
  own: string[];
  /** Entries that are not a backtest's output (a report.json that is not a perpkit report is one). */
  others: string[];
}

const isReport = (file: string): boolean => {
  try {
    const doc: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === REPORT_FORMAT;
  } catch {
    return false;
  }
};

/**
 * A folder of perpkit's output nested in the output folder (empty, or holding a backtest's
 * report.json, a sweep's sweep.json or results.jsonl): `perpkit init`'s project writes its
 * backtest to backtest-out and the getting-started strategy's to backtest-out/dip-buyer, and a
 * sweep of backtest-out/mm to backtest-out/mm-sweep. A backtest writes only its three files at the
 * top, so such a folder is left as it is and does not stop a rerun.
 */
const isNestedOutput = (dir: string): boolean => {
  const names = readdirSync(dir);
  return names.length === 0 || names.some((n) => n === 'report.json' || n === 'sweep.json' || n === 'results.jsonl');
};

/** The entries of `dir` (which exists), split into a backtest's own files and the others. */
export function outContents(dir: string): OutContents {
  const own: string[] = [];
  const others: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const at = path.join(dir, e.name);
    if (e.isDirectory() && isNestedOutput(at)) continue;
    const ours = e.isFile() && (BACKTEST_FILES as readonly string[]).includes(e.name) && (e.name !== 'report.json' || isReport(at));
    (ours ? own : others).push(e.isDirectory() ? `${e.name}/` : e.name);
  }
  return { own, others };
}

/** What a folder holding other things holds, and the ways on (the end of a refusal). */
export function outRefusal(dir: string, others: string[]): string {
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, ... (${others.length} entries)` : '');
  return `${dir} holding ${others.length === 1 ? 'an entry' : `${others.length} entries`} that ${others.length === 1 ? 'is' : 'are'} not (${shown}); --overwrite writes ${BACKTEST_FILES.join(', ')} there anyway (replacing those, removing nothing else), or give another --out`;
}
