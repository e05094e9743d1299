/**
 * Two backtest runs side by side (`perpkit report compare a/ b/`): what differs in what produced
 * them (parameters, strategy code, data, models, config hash), the headline figures of each with the
 * difference, and both equity curves on one chart as a return from the start (so runs with
 * different balances compare). Reads report.json files only.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { CHART_LIBRARY_NOTE, chartLibrary } from './chart-script';
import { esc, iso, jsonForScript, num2, pct, usd } from './format';
import { durationText, ratioText } from './ratios';
import { REPORT_FORMAT, type BacktestReport } from './report';
import type { StrategyCode } from '../backtest/strategy-code';

/** A report.json, from its directory or its path; one-line errors that name the file and the rule. */
export function loadReport(where: string): { file: string; report: BacktestReport } {
  const dir = existsSync(where) && statSync(where).isDirectory();
  const file = dir ? path.join(where, 'report.json') : where;
  // A sweep's folder said only "report.json: no such file".
  const sweepFiles = dir && !existsSync(file) ? ['sweep.json', 'results.jsonl'].filter((f) => existsSync(path.join(where, f))) : [];
  if (sweepFiles.length > 0) throw new CompareInputError(`${where}: a sweep's folder (${sweepFiles.join(', ')}), not a backtest's: compare takes two backtest output folders or their report.json; a sweep's points are compared in its sweep.md and sweep.html, or run perpkit backtest on the points to compare and compare those`);
  if (!existsSync(file)) throw new CompareInputError(`${file}: no such file (give a backtest output directory or its report.json)`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CompareInputError(`${file}: not JSON (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
  }
  const d = doc as { format?: unknown; version?: unknown };
  if (d.format !== REPORT_FORMAT) throw new CompareInputError(`${file}: format: expected "${REPORT_FORMAT}", got ${JSON.stringify(d.format ?? null)}`);
  if (d.version !== 2) throw new CompareInputError(`${file}: version: expected 2, got ${JSON.stringify(d.version ?? null)} (written by an older perpkit: run the backtest again)`);
  return { file, report: doc as BacktestReport };
}

export class CompareInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompareInputError';
  }
}

type Row = [string, string, string, string];

/** The identity lines of both runs: [what, a, b, 'same' | 'differs']. */
export function identityRows(a: BacktestReport, b: BacktestReport): Row[] {
  const line = (r: BacktestReport): Record<string, string> => {
    const id = r.identity;
    const out: Record<string, string> = {};
    for (const s of id.strategies) {
      out[`strategy ${s.id}`] = `${s.module} ${JSON.stringify(s.params)}`;
      out[`strategy ${s.id} code`] = codeText(s.code);
    }
    id.data.forEach((d, i) => (out[`data ${i + 1}`] = `${d.file} sha256 ${d.sha256.slice(0, 16)}`));
    out['time range'] = `${iso(id.range.start)} to ${iso(id.range.end)} (${durationText(id.range.end - id.range.start)})`;
    out['mark prices'] = id.marks.join('; ');
    out['fill model'] = id.fillModel;
    out['latency model'] = id.latencyModel;
    out.fees = id.fees;
    out['initial balance'] = usd(r.config.balance);
    out.perpkit = id.perpkitVersion;
    out['config hash'] = id.configHash;
    return out;
  };
  const la = line(a);
  const lb = line(b);
  const keys = [...Object.keys(la), ...Object.keys(lb).filter((k) => !(k in la))];
  // A code hash one report lacks (written by an older perpkit) is not known to differ.
  const unknown = (k: string): boolean => k.endsWith(' code') && (la[k] === NOT_RECORDED || lb[k] === NOT_RECORDED);
  return keys.map((k): Row => [k, la[k] ?? '(none)', lb[k] ?? '(none)', la[k] === lb[k] ? 'same' : unknown(k) ? 'not known' : 'differs']);
}

const NOT_RECORDED = '(not recorded: a report of an older perpkit)';

/** A strategy's code as compared: its hash and the files hashed (report.json identity.strategies[].code). */
export function codeText(code: StrategyCode | undefined): string {
  return code === undefined ? NOT_RECORDED : `sha256 ${code.sha256} of ${code.files.join(', ')}`;
}

/** The headline figures of both runs and their difference (b - a) where it means something. */
export function figureRows(a: BacktestReport, b: BacktestReport): Row[] {
  const sa = a.summary;
  const sb = b.summary;
  const diff = (x: number | null, y: number | null, f: (v: number) => string): string => (x === null || y === null ? 'n/a' : f(y - x));
  const signed = (f: (v: number) => string) => (v: number): string => `${v > 0 ? '+' : ''}${f(v)}`;
  const usdN = (v: number): string => usd(v);
  const n = (v: string | null): number | null => (v === null ? null : Number(v));
  return [
    ['Total PnL', usd(sa.totalPnl), usd(sb.totalPnl), diff(n(sa.totalPnl), n(sb.totalPnl), signed(usdN))],
    ['Return', pct(sa.return), pct(sb.return), diff(sa.return, sb.return, signed((v) => `${(v * 100).toFixed(2)} pt`))],
    ['Buy & hold', pct(sa.benchmarkReturn), pct(sb.benchmarkReturn), diff(sa.benchmarkReturn, sb.benchmarkReturn, signed((v) => `${(v * 100).toFixed(2)} pt`))],
    ['Max drawdown', pct(sa.maxDrawdown), pct(sb.maxDrawdown), diff(sa.maxDrawdown, sb.maxDrawdown, signed((v) => `${(v * 100).toFixed(2)} pt`))],
    ['Sharpe', ratioText(sa.sharpe, sa.ratioNotes.sharpe), ratioText(sb.sharpe, sb.ratioNotes.sharpe), diff(sa.sharpe, sb.sharpe, signed((v) => v.toFixed(2)))],
    ['Sortino', ratioText(sa.sortino, sa.ratioNotes.sortino), ratioText(sb.sortino, sb.ratioNotes.sortino), diff(sa.sortino, sb.sortino, signed((v) => v.toFixed(2)))],
    ['Calmar', ratioText(sa.calmar, sa.ratioNotes.calmar), ratioText(sb.calmar, sb.ratioNotes.calmar), diff(sa.calmar, sb.calmar, signed((v) => v.toFixed(2)))],
    ['Closed trades', String(sa.trades), String(sb.trades), diff(sa.trades, sb.trades, signed(String))],
    ['Win rate', pct(sa.winRate), pct(sb.winRate), diff(sa.winRate, sb.winRate, signed((v) => `${(v * 100).toFixed(2)} pt`))],
    ['Profit factor', num2(sa.profitFactor), num2(sb.profitFactor), diff(sa.profitFactor, sb.profitFactor, signed((v) => v.toFixed(2)))],
    ['Expectancy', usd(sa.expectancy), usd(sb.expectancy), diff(n(sa.expectancy), n(sb.expectancy), signed(usdN))],
    ['Fees', usd(sa.fees), usd(sb.fees), diff(n(sa.fees), n(sb.fees), signed(usdN))],
    ['Funding', usd(sa.funding), usd(sb.funding), diff(n(sa.funding), n(sb.funding), signed(usdN))],
    ['Exposure', pct(sa.exposure), pct(sb.exposure), diff(sa.exposure, sb.exposure, signed((v) => `${(v * 100).toFixed(2)} pt`))],
    ['Turnover', num2(sa.turnover), num2(sb.turnover), diff(sa.turnover, sb.turnover, signed((v) => v.toFixed(2)))],
    ['Fills', String(sa.fills), String(sb.fills), diff(sa.fills, sb.fills, signed(String))],
    ['Strategy errors', String(sa.strategyErrors), String(sb.strategyErrors), diff(sa.strategyErrors, sb.strategyErrors, signed(String))],
  ];
}

/** The comparison as text for the terminal: the figures in columns, then what differs in full. */
export function compareText(a: BacktestReport, b: BacktestReport, names: [string, string]): string {
  const rows: Row[] = [['', 'a', 'b', 'b - a'], ...figureRows(a, b)];
  const w = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length)));
  const cut = (s: string, n: number): string => (s.length > 60 ? `${s.slice(0, 59)}…` : s.padEnd(Math.min(60, n)));
  const diffs = identityRows(a, b).filter((r) => r[3] === 'differs');
  const unknown = identityRows(a, b).filter((r) => r[3] === 'not known');
  const notKnown = unknown.length === 0 ? '' : `Not known (one report does not record it: written by an older perpkit): ${unknown.map((r) => r[0]).join(', ')}\n`;
  const what = diffs.length === 0 ? `Nothing ${unknown.length === 0 ? '' : 'else '}differs in what produced them (same strategy, ${unknown.length === 0 ? 'strategy code, ' : ''}parameters, data, models and config hash).\n${notKnown}` : `What differs in what produced them:\n${diffs.map((r) => `  ${r[0]}\n    a: ${r[1]}\n    b: ${r[2]}\n`).join('')}${notKnown}`;
  return `a: ${names[0]}\nb: ${names[1]}\n${rows.map((r) => r.map((c, i) => cut(c, w[i])).join('  ').trimEnd()).join('\n')}\n${what}`;
}

/** Return from the start per equity sample, in %, as [time s, value]. */
const curve = (r: BacktestReport): Array<[number, number]> => {
  const initial = Number(r.summary.initialBalance);
  const out: Array<[number, number]> = [];
  for (const e of r.equity) {
    const t = Math.floor(e[0] / 1000);
    const v = initial > 0 ? Number(((Number(e[1]) / initial - 1) * 100).toFixed(4)) : 0;
    if (out.length > 0 && out[out.length - 1][0] === t) out[out.length - 1] = [t, v];
    else out.push([t, v]);
  }
  return out;
};

export function renderCompareHtml(a: BacktestReport, b: BacktestReport, names: [string, string]): string {
  const tableOf = (head: string[], rows: Row[], id: string, mark: boolean): string =>
    `<table id="${id}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr${mark && r[3] === 'differs' ? ' class="differs"' : ''}>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const data = { names, a: curve(a), b: curve(b) };
  const sameData = a.identity.data.map((d) => d.sha256).join() === b.identity.data.map((d) => d.sha256).join();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpkit compare ${esc(names[0])} vs ${esc(names[1])}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:20px auto;max-width:1100px;padding:0 12px;color:#222}h1{font-size:20px}h2{font-size:15px;margin:20px 0 4px}
table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right;max-width:420px;overflow-wrap:anywhere}td:first-child,th:first-child{text-align:left}
#identity td{text-align:left}tr.differs td{background:#fff3e0}.note{color:#666;font-size:12px}
.chart{width:100%;height:380px;border:1px solid #eee}
.chart td,.chart th{border:none;padding:0;max-width:none;overflow-wrap:normal}.a{color:#1565c0}.b{color:#e65100}footer{margin-top:24px;color:#777;font-size:12px}
</style></head><body>
<h1>Backtest comparison: <span class="a">${esc(names[0])}</span> vs <span class="b">${esc(names[1])}</span></h1>
${sameData ? '' : '<p class="note"><strong>The runs read different data</strong> (see the data rows): their figures are not of the same market.</p>'}
<h2>What produced them (differences highlighted)</h2>${tableOf(['', names[0], names[1], ''], identityRows(a, b), 'identity', true)}
<h2>Figures</h2>${tableOf(['', names[0], names[1], 'b - a'], figureRows(a, b), 'figures', false)}
<h2>Return from the start (%)</h2><div class="chart" id="compare-chart"></div>
<footer>${CHART_LIBRARY_NOTE}</footer>
<script type="application/json" id="compare-data">${jsonForScript(data)}</script>
<script>${chartLibrary()}</script>
<script>(function () {
'use strict';
var D = JSON.parse(document.getElementById('compare-data').textContent);
var el = document.getElementById('compare-chart');
var ch = LightweightCharts.createChart(el, { autoSize: true, layout: { background: { color: '#ffffff' }, textColor: '#333', fontSize: 11 }, grid: { vertLines: { color: '#f2f2f2' }, horzLines: { color: '#f2f2f2' } }, timeScale: { timeVisible: true, secondsVisible: false, rightOffset: 6 } });
var fmt = { type: 'custom', minMove: 0.01, formatter: function (v) { return v.toFixed(2) + '%'; } };
[['a', '#1565c0'], ['b', '#e65100']].forEach(function (s, i) {
  var line = ch.addSeries(LightweightCharts.LineSeries, { color: s[1], lineWidth: 2, title: D.names[i], priceFormat: fmt });
  var pts = D[s[0]], pad = [];
  // Empty bars before the first point keep the first time label off the left edge.
  for (var k = 3; k > 0 && pts.length > 1; k--) pad.push({ time: pts[0][0] - k * Math.max(1, pts[1][0] - pts[0][0]) });
  line.setData(pad.concat(pts.map(function (p) { return { time: p[0], value: p[1] }; })));
});
ch.timeScale().fitContent();
window.perpkitCompare = { chart: ch, points: [D.a.length, D.b.length] };
})();</script>
</body></html>
`;
}
