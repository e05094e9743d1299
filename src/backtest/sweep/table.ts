/**
 * The ranked table of a sweep, as JSON, CSV and markdown. Ranking: by the chosen metric (errors
 * last), ties broken by job index, so it is a total order and independent of worker count.
 */
import type { Summary } from '../report/metrics';
import type { JobResult } from './job';

export interface RankedRow {
  rank: number;
  index: number;
  seed: number;
  point: JobResult['point'];
  metric: number | null;
  summary: Summary | null;
  error: string | null;
}

const COLUMNS: Array<keyof Summary> = ['totalPnl', 'return', 'sharpe', 'sortino', 'maxDrawdown', 'winRate', 'fees', 'funding', 'fills', 'exposure'];

/** The metric's value; null when the report has no figure for it (a ratio of a short run): it ranks last. */
export function metricOf(s: Summary, metric: string): number | null {
  const v = (s as unknown as Record<string, unknown>)[metric];
  if (v === null) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v !== '' && Number.isFinite(Number(v))) return Number(v);
  throw new Error(`sweep.metric '${metric}' is not a numeric field of the report summary (try ${COLUMNS.join(', ')})`);
}

export function rank(results: JobResult[], metric: string, order: 'asc' | 'desc'): RankedRow[] {
  const rows = results.map((r) => ({ r, m: r.summary ? metricOf(r.summary, metric) : null }));
  rows.sort((a, b) => {
    if (a.m === null || b.m === null) return a.m === null && b.m === null ? a.r.index - b.r.index : a.m === null ? 1 : -1;
    const d = order === 'desc' ? b.m - a.m : a.m - b.m;
    return d !== 0 ? d : a.r.index - b.r.index;
  });
  return rows.map(({ r, m }, i) => ({ rank: i + 1, index: r.index, seed: r.seed, point: r.point, metric: m, summary: r.summary ?? null, error: r.error ?? null }));
}

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function toCsv(rows: RankedRow[], keys: string[]): string {
  const head = ['rank', 'job', ...keys, ...COLUMNS, 'error'];
  const lines = [head.join(',')];
  for (const r of rows) lines.push([r.rank, r.index, ...keys.map((k) => r.point[k]), ...COLUMNS.map((c) => (r.summary ? r.summary[c] : '')), r.error ?? ''].map(csvCell).join(','));
  return `${lines.join('\n')}\n`;
}

export function toMarkdown(rows: RankedRow[], keys: string[]): string {
  const head = ['rank', 'job', ...keys, ...COLUMNS];
  const out = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) out.push(`| ${[r.rank, r.index, ...keys.map((k) => r.point[k]), ...COLUMNS.map((c) => (r.summary ? r.summary[c] : r.error ?? ''))].map((v) => String(v).replace(/\|/g, '\\|')).join(' | ')} |`);
  return `${out.join('\n')}\n`;
}
