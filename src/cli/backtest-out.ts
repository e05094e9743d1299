/**
 * What a backtest's output folder holds before the run: its own files of an earlier backtest
 * (replaced: rerunning `npm run backtest` must work) or anything else (refused without
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

/** The entries of `dir` (which exists), split into a backtest's own files and the others, by name. */
export function outContents(dir: string): OutContents {
  const own: string[] = [];
  const others: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const ours = (BACKTEST_FILES as readonly string[]).includes(name) && (name !== 'report.json' || isReport(path.join(dir, name)));
    (ours ? own : others).push(name);
  }
  return { own, others };
}

/** What a folder holding other things holds, and the ways on (the end of a refusal). */
export function outRefusal(dir: string, others: string[]): string {
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, ... (${others.length} entries)` : '');
  return `${dir} holding ${others.length === 1 ? 'an entry' : `${others.length} entries`} that ${others.length === 1 ? 'is' : 'are'} not (${shown}); --overwrite writes ${BACKTEST_FILES.join(', ')} there anyway (replacing those, removing nothing else), or give another --out`;
}
