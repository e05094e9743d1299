/**
 * The ranked table of a sweep, as JSON, CSV and markdown. Ranking: by the chosen metric (errors
 * last), ties broken by job index, so it is a total order and independent of worker count.
 */
import type { Summary } from '../report/metrics';
import { NO_TRADES_NOTE } from '../report/sweep-html';
import type { JobResult } from './job';

export interface RankedRow {
  rank: number;
  index: number;
  seed: number;
  point: JobResult['point'];
  /** The figure ranked by (sweep.metric, or sweep.objective); null: not ranked. */
  metric: number | null;
  summary: Summary | null;
  error: string | null;
  /** Why a job that did not fail is not ranked (sweep.minTrades, a non-finite objective). */
  excluded: string | null;
  /**
   * The job finished without a fill: its figures were computed from nothing (a PnL of 0 is no
   * result). Ranked after every point that traded; the table, sweep.md and sweep.html say so.
   */
  noTrades: boolean;
}

/** A job that finished with a summary and no fill. */
export const tradedNothing = (r: JobResult): boolean => r.error === undefined && r.summary !== undefined && r.summary.fills === 0;

/** What a result ranks by, or why it is not ranked. */
export type Scorer = (r: JobResult) => { value: number } | { excluded: string };

const COLUMNS: Array<keyof Summary> = ['totalPnl', 'return', 'sharpe', 'sortino', 'maxDrawdown', 'winRate', 'fees', 'funding', 'trades', 'fills', 'exposure'];

/** The metric's value; null when the report has no figure for it (a ratio of a short run): it ranks last. */
export function metricOf(s: Summary, metric: string): number | null {
  const v = (s as unknown as Record<string, unknown>)[metric];
  if (v === null) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v !== '' && Number.isFinite(Number(v))) return Number(v);
  throw new Error(`sweep.metric '${metric}' is not a numeric field of the report summary (try ${COLUMNS.join(', ')})`);
}

/** Why the report has no figure for a ratio (`: 2 h of data ..., needs ≥ 30 days`), or nothing. */
export function naReason(s: Summary, metric: string): string {
  const note = (s.ratioNotes as Record<string, string | null> | undefined)?.[metric];
  return note === undefined || note === null ? '' : ` (${note.replace(/^n\/a: /, '')})`;
}

/**
 * A failed job (its error set, even with a summary: a strategy that threw), an excluded one and a
 * figure that is not a finite number rank last, by job index; a job without a fill ranks after
 * every job that traded.
 */
export function rank(results: JobResult[], metric: string, order: 'asc' | 'desc'): RankedRow[] {
  return rankBy(results, (r) => {
    if (r.error !== undefined || r.summary === undefined) return { excluded: r.error ?? 'no summary' };
    const m = metricOf(r.summary, metric);
    if (m === null) return { excluded: `${metric} is n/a${naReason(r.summary, metric)}` };
    return Number.isFinite(m) ? { value: m } : { excluded: `${metric} is not a finite number` };
  }, order);
}

export function rankBy(results: JobResult[], score: Scorer, order: 'asc' | 'desc'): RankedRow[] {
  const rows = results.map((r) => {
    const s = score(r);
    return { r, m: 'value' in s ? s.value : null, why: 'excluded' in s && r.error === undefined ? s.excluded : null, idle: tradedNothing(r) };
  });
  // Three tiers: ranked points that traded, ranked points that never did (a figure computed from
  // nothing: a PnL of 0 beat every point that lost to fees), then those not ranked.
  rows.sort((a, b) => {
    if (a.m === null || b.m === null) return a.m === null && b.m === null ? a.r.index - b.r.index : a.m === null ? 1 : -1;
    if (a.idle !== b.idle) return a.idle ? 1 : -1;
    const d = order === 'desc' ? b.m - a.m : a.m - b.m;
    return d !== 0 ? d : a.r.index - b.r.index;
  });
  return rows.map(({ r, m, why, idle }, i) => ({ rank: i + 1, index: r.index, seed: r.seed, point: r.point, metric: m, summary: r.summary ?? null, error: r.error ?? null, excluded: why, noTrades: idle }));
}

/**
 * The columns of the table after the point's keys: the figure ranked by (`ranking`: the objective's
 * or metric's name) first when it is not one of the summary columns, so the value the order
 * follows is in the table.
 */
function rankColumn(ranking: string | undefined): string[] {
  return ranking === undefined || (COLUMNS as string[]).includes(ranking) ? [] : [ranking];
}

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function toCsv(rows: RankedRow[], keys: string[], ranking?: string): string {
  const ranked = rankColumn(ranking);
  const head = ['rank', 'job', ...keys, ...ranked, ...COLUMNS, 'error'];
  const lines = [head.map(csvCell).join(',')];
  for (const r of rows) lines.push([r.rank, r.index, ...keys.map((k) => r.point[k]), ...ranked.map(() => r.metric), ...COLUMNS.map((c) => (r.summary ? r.summary[c] : '')), r.error ?? r.excluded ?? (r.noTrades ? NO_TRADES_NOTE : '')].map(csvCell).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * The table to read: a failed row says FAILED in its figure columns and its error once, in the
 * last column (as sweep.csv's `error`); a row not ranked keeps its figures and says why there.
 */
export function toMarkdown(rows: RankedRow[], keys: string[], ranking?: string): string {
  const ranked = rankColumn(ranking);
  const head = ['rank', 'job', ...keys, ...ranked, ...COLUMNS, 'error'];
  const out = [`| ${head.map((h) => h.replace(/\|/g, '\\|')).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const failed = r.error !== null || r.summary === null;
    // A row not ranked has no such figure: '-', and why in the last column.
    // A ratio the report has no figure for (too few days, no variation): n/a, why below the table.
    const figures = [...ranked.map(() => (failed ? 'FAILED' : r.metric === null ? '-' : r.metric)), ...COLUMNS.map((c) => (r.error !== null || r.summary === null ? 'FAILED' : (r.summary[c] ?? 'n/a')))];
    const note = r.error ?? (r.excluded !== null ? `not ranked: ${r.excluded}` : r.noTrades ? NO_TRADES_NOTE : '');
    out.push(`| ${[r.rank, r.index, ...keys.map((k) => r.point[k]), ...figures, note].map((v) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`);
  }
  const na = naNotes(rows);
  return `${out.join('\n')}\n${na.length > 0 ? `\n${na.join('\n')}\n` : ''}`;
}

/** The ratio columns of the table (the summary's ratioNotes say why one is n/a). */
const RATIO_COLUMNS = ['sharpe', 'sortino'] as const;

/**
 * Why the table's ratio columns say n/a: a line per reason, naming the columns and how many rows
 * (`n/a: sharpe, sortino in 9 of 9 rows: 2 h of data (1 daily return), needs ≥ 30 days`).
 */
export function naNotes(rows: RankedRow[]): string[] {
  const byReason = new Map<string, { columns: Set<string>; rows: Set<number> }>();
  for (const r of rows) {
    if (r.error !== null || r.summary === null) continue;
    for (const c of RATIO_COLUMNS) {
      if (r.summary[c] !== null) continue;
      const why = (r.summary.ratioNotes?.[c] ?? 'no figure').replace(/^n\/a: /, '');
      let g = byReason.get(why);
      if (g === undefined) {
        g = { columns: new Set(), rows: new Set() };
        byReason.set(why, g);
      }
      g.columns.add(c);
      g.rows.add(r.index);
    }
  }
  return [...byReason].map(([why, g]) => `n/a: ${[...g.columns].join(', ')} in ${g.rows.size} of ${rows.length} row(s): ${why}`);
}
