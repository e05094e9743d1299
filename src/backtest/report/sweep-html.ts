/**
 * sweep.html: a sweep's points in one self-contained page. What was swept (config, data with
 * sha256, metric, method, perpkit version); the ranked table, sortable by any column (click a
 * header); a heatmap of the metric over any two parameters (chosen in the page; other parameters
 * are folded by their best value, as the page says); and for each point the spread of its
 * neighbours, to tell a plateau (neighbours nearly as good) from a spike (a lucky point).
 *
 * Neighbours: the points one step away (or on the same value) in every parameter, steps counted
 * along each parameter's sorted distinct values, so on a grid they are the surrounding cells.
 */
import * as path from 'node:path';
import { configRelative, type BacktestConfig } from '../backtest/config';
import { esc, jsonForScript, num2, pct, usd } from './format';
import { fileSha256, perpkitVersion } from './identity';
import type { Summary } from './metrics';
import { round } from './round';

/** What sweep.md, sweep.csv and sweep.html say of a ranked point that never traded. */
export const NO_TRADES_NOTE = 'no trades (0 fills): ranked after every point that traded';

type Value = string | number | boolean;

/** A ranked row as sweep.json holds it. */
export interface SweepRow {
  rank: number;
  index: number;
  point: Record<string, Value>;
  metric: number | null;
  summary: Summary | null;
  error: string | null;
  /** The point finished without a fill (ranked after those that traded): not a result to read as one. */
  noTrades?: boolean;
}

export interface SweepDoc {
  method: string;
  /** `sweep.metric`, when it ranks the rows (absent when `sweep.objective` does). */
  metric?: string;
  /** What ranks the rows (`sweep.objective`, else the metric): the rows' `metric` is its value. */
  objective?: string;
  order: 'asc' | 'desc';
  params: Array<{ key: string }>;
  /** What the summary said of the sweep's points (`note: param ... lists 5 twice: ...`), absent when nothing. */
  notes?: string[];
  rows: SweepRow[];
}

export interface Neighbourhood {
  /** Neighbours with a metric. */
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** The point's metric minus its neighbours' mean (large: a spike). */
  excess: number | null;
}

/** Parameter values in order: numbers (and numeric strings such as "10") by value, others as text. */
const cmp = (a: Value, b: Value): number => {
  const x = Number(a);
  const y = Number(b);
  if (typeof a !== 'boolean' && typeof b !== 'boolean' && String(a) !== '' && String(b) !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
};

/** Per row (same order), the metric's spread over the row's neighbours. */
export function neighbourhoods(rows: SweepRow[], keys: string[]): Neighbourhood[] {
  const steps = keys.map((k) => {
    const vals = [...new Set(rows.map((r) => r.point[k]))].sort(cmp);
    return new Map(vals.map((v, i) => [v, i]));
  });
  const pos = rows.map((r) => keys.map((k, j) => steps[j].get(r.point[k]) ?? 0));
  return rows.map((r, i) => {
    const ms: number[] = [];
    rows.forEach((o, j) => {
      // A point that never traded has a figure computed from nothing: no neighbour to compare with.
      if (j === i || o.metric === null || o.noTrades === true) return;
      if (pos[j].every((p, d) => Math.abs(p - pos[i][d]) <= 1)) ms.push(o.metric);
    });
    if (ms.length === 0) return { count: 0, min: null, max: null, mean: null, excess: null };
    const mean = ms.reduce((s, v) => s + v, 0) / ms.length;
    return { count: ms.length, min: round(Math.min(...ms)), max: round(Math.max(...ms)), mean: round(mean), excess: r.metric === null || r.noTrades === true ? null : round(r.metric - mean) };
  });
}

/** Summary columns of the table: [field, header, how it reads]. */
const COLUMNS: Array<[keyof Summary, string, (s: Summary) => string]> = [
  ['totalPnl', 'PnL', (s) => usd(s.totalPnl)],
  ['return', 'Return', (s) => pct(s.return)],
  ['sharpe', 'Sharpe', (s) => num2(s.sharpe)],
  ['maxDrawdown', 'Max DD', (s) => pct(s.maxDrawdown)],
  ['trades', 'Trades', (s) => String(s.trades)],
  ['winRate', 'Win rate', (s) => pct(s.winRate)],
  ['profitFactor', 'Profit factor', (s) => num2(s.profitFactor)],
  ['fees', 'Fees', (s) => usd(s.fees)],
  ['fills', 'Fills', (s) => String(s.fills)],
];

const sortKey = (v: unknown): string => (v === null || v === undefined || v === '' ? '' : typeof v === 'number' ? String(v) : String(v));

export function renderSweepHtml(doc: SweepDoc, cfg: BacktestConfig): string {
  const keys = doc.params.map((p) => p.key);
  // The figure the rows rank by: an objective's, not sweep.metric's, when the sweep has one.
  const by = doc.objective ?? doc.metric;
  if (by === undefined) throw new Error('a sweep document names what ranks its rows: objective or metric');
  // Its value as a column, unless a summary column shows it already.
  const byColumn = COLUMNS.some(([f]) => f === by) ? [] : [by];
  const nb = neighbourhoods(doc.rows, keys);
  const failed = doc.rows.filter((r) => r.error !== null).length;
  const nulls = doc.rows.filter((r) => r.error === null && r.metric === null).length;
  const idle = doc.rows.filter((r) => r.noTrades === true && r.metric !== null).length;
  const files = cfg.data.files.map((f) => `${configRelative(cfg.baseDir, f)} (sha256 ${fileSha256(f)})`);
  // Rows of a name and its value, as report.html's identity: an empty header row was drawn above them.
  const ident = identityTable([
    ['Config', path.basename(cfg.file)],
    ['Strategies', cfg.strategies.map((s) => `${s.id}: ${s.module} ${JSON.stringify(s.params)}`).join('; ')],
    ['Data', files.join('; ')],
    ['Swept', `${keys.join(', ')} (${doc.method}, ${doc.rows.length} points)`],
    ['Ranked by', `${by} (${doc.order === 'desc' ? 'larger is better' : 'smaller is better'})`],
    ['perpkit', perpkitVersion()],
  ]);
  const notes: string[] = (doc.notes ?? []).map((n) => n.replace(/^note: /, ''));
  if (failed > 0) notes.push(`${failed} of ${doc.rows.length} points failed; their rows say why and they rank last.`);
  if (nulls > 0) {
    const note = doc.rows.find((r) => r.summary !== null && r.metric === null)?.summary?.ratioNotes;
    const why = note ? Object.values(note).find((n) => n !== null) : undefined;
    notes.push(`${nulls} point(s) have no ${by}${why ? ` (${why})` : ''}: they rank after those that do. Rank by a figure every run has (totalPnl, return) for short runs.`);
  }
  if (idle > 0) notes.push(`${idle} of ${doc.rows.length} points never traded (0 fills): their figures are computed from nothing; they rank after every point that traded and the heatmap shows them as "no trades".`);
  const head = ['Rank', 'Job', ...keys, ...byColumn, ...COLUMNS.map((c) => c[1]), `Neighbours' ${by} (min..max, mean)`, 'vs neighbours', 'Error'];
  const body = doc.rows.map((r, i) => {
    const n = nb[i];
    const cells: Array<[string, string]> = [
      [String(r.rank), String(r.rank)],
      [String(r.index), String(r.index)],
      ...keys.map((k): [string, string] => [String(r.point[k]), sortKey(r.point[k])]),
      ...byColumn.map((): [string, string] => [r.metric === null ? '' : num2(r.metric), sortKey(r.metric)]),
      ...COLUMNS.map(([f, , show]): [string, string] => (r.summary ? [show(r.summary), sortKey(r.summary[f])] : ['', ''])),
      [n.count === 0 ? 'none' : `${num2(n.min)}..${num2(n.max)}, ${num2(n.mean)} (${n.count})`, sortKey(n.mean)],
      [n.excess === null ? '' : `${n.excess >= 0 ? '+' : ''}${num2(n.excess)}`, sortKey(n.excess)],
      [r.error ?? (r.noTrades === true ? NO_TRADES_NOTE : ''), r.error ?? (r.noTrades === true ? NO_TRADES_NOTE : '')],
    ];
    return `<tr>${cells.map(([t, v]) => `<td data-v="${esc(v)}">${esc(t)}</td>`).join('')}</tr>`;
  });
  const data = { keys, metric: by, order: doc.order, rows: doc.rows.map((r) => ({ point: r.point, metric: r.metric, idle: r.noTrades === true })) };
  const opts = (sel: number): string => keys.map((k, i) => `<option value="${i}"${i === sel ? ' selected' : ''}>${esc(k)}</option>`).join('');
  const heat = keys.length >= 2
    ? `<p>x <select id="hx">${opts(0)}</select> y <select id="hy">${opts(1)}</select> <span class="note" id="heat-note"></span></p><div id="heatmap"></div>`
    : '<p class="note" id="heat-note">A heatmap needs two swept parameters; this sweep has one.</p><div id="heatmap"></div>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpkit sweep ${esc(path.basename(cfg.file))} by ${esc(by)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:20px auto;max-width:1200px;padding:0 12px;color:#222}h1{font-size:20px}h2{font-size:15px;margin:20px 0 4px}
table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}td,th{border:1px solid #ddd;padding:3px 7px;text-align:right}td:first-child,th:first-child{text-align:left}
table.identity td{text-align:left}#ranked th{cursor:pointer;background:#f7f7f7;user-select:none}#ranked th.sorted{background:#e3f2fd}
#heatmap td{min-width:54px;text-align:center;font-size:12px}#heatmap th{background:#f7f7f7}.note{color:#666;font-size:12px}#heatmap td.idle{color:#888;background:#eee}
.notices{background:#fff8e1;border:1px solid #f9a825;padding:8px 8px 8px 28px}
</style></head><body>
<h1>Sweep: ${esc(path.basename(cfg.file))}, ranked by ${esc(by)}</h1>
${ident}
${notes.length === 0 ? '' : `<ul class="notices" id="notices">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`}
<h2>Heatmap of ${esc(by)}</h2>${heat}
<h2>Points (click a header to sort)</h2>
<table id="ranked"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body.join('')}</tbody></table>
<script type="application/json" id="sweep-data">${jsonForScript(data)}</script>
<script>${SWEEP_SCRIPT}</script>
</body></html>
`;
}

function identityTable(rows: Array<[string, string]>): string {
  return `<table id="identity" class="identity"><tbody>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</tbody></table>`;
}

/** Sorting and the heatmap, in the page (no library: a table and colours). */
const SWEEP_SCRIPT = `(function () {
'use strict';
var D = JSON.parse(document.getElementById('sweep-data').textContent);
var t = document.getElementById('ranked');
var dir = {};
t.querySelectorAll('th').forEach(function (th, c) {
  th.addEventListener('click', function () {
    var rows = Array.prototype.slice.call(t.tBodies[0].rows);
    var d = dir[c] = -(dir[c] || -1);
    rows.sort(function (a, b) {
      var x = a.cells[c].getAttribute('data-v'), y = b.cells[c].getAttribute('data-v');
      if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1;
      var nx = Number(x), ny = Number(y);
      var r = isFinite(nx) && isFinite(ny) ? nx - ny : (x < y ? -1 : x > y ? 1 : 0);
      return r * d;
    });
    rows.forEach(function (r) { t.tBodies[0].appendChild(r); });
    t.querySelectorAll('th').forEach(function (h) { h.className = ''; });
    th.className = 'sorted';
  });
});
function e(s) { return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;'); }
function cmp(a, b) { var x = Number(a), y = Number(b); if (typeof a !== 'boolean' && typeof b !== 'boolean' && a !== '' && b !== '' && isFinite(x) && isFinite(y)) return x - y; return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0; }
function heat() {
  var hx = document.getElementById('hx'), hy = document.getElementById('hy'), out = document.getElementById('heatmap');
  if (!hx || !hy) return;
  var kx = D.keys[Number(hx.value)], ky = D.keys[Number(hy.value)];
  var note = document.getElementById('heat-note');
  if (kx === ky) { out.innerHTML = ''; note.textContent = 'choose two different parameters'; return; }
  var xs = [], ys = [], cell = {}, idle = {}, better = D.order === 'desc' ? 1 : -1;
  D.rows.forEach(function (r) {
    var x = r.point[kx], y = r.point[ky];
    if (xs.indexOf(x) < 0) xs.push(x);
    if (ys.indexOf(y) < 0) ys.push(y);
    var k = JSON.stringify([x, y]);
    if (r.idle) { idle[k] = true; return; }
    if (r.metric === null) return;
    if (cell[k] === undefined || (r.metric - cell[k]) * better > 0) cell[k] = r.metric;
  });
  xs.sort(cmp); ys.sort(cmp);
  var vals = Object.keys(cell).map(function (k) { return cell[k]; });
  var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
  var h = '<table><thead><tr><th>' + e(ky) + ' \\\\ ' + e(kx) + '</th>' + xs.map(function (x) { return '<th>' + e(x) + '</th>'; }).join('') + '</tr></thead><tbody>';
  ys.forEach(function (y) {
    h += '<tr><th>' + e(y) + '</th>';
    xs.forEach(function (x) {
      var v = cell[JSON.stringify([x, y])];
      if (v === undefined) { h += idle[JSON.stringify([x, y])] ? '<td class="idle">no trades</td>' : '<td class="empty">n/a</td>'; return; }
      var f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      if (better < 0) f = 1 - f;
      var c = 'hsl(' + Math.round(f * 120) + ',65%,' + Math.round(78 - f * 18) + '%)';
      h += '<td class="cell" style="background:' + c + '">' + (Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3)) + '</td>';
    });
    h += '</tr>';
  });
  out.innerHTML = h + '</tbody></table>';
  note.textContent = D.keys.length > 2 ? 'each cell: the best ' + D.metric + ' over the other parameters' : 'each cell: ' + D.metric + ' (green is better)';
}
['hx', 'hy'].forEach(function (id) { var e = document.getElementById(id); if (e) e.addEventListener('change', heat); });
heat();
})();
`;
