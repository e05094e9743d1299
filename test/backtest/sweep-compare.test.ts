/**
 * sweep.html and `perpkit report compare`: neighbour spreads on known grids; a real sweep's page
 * in headless Chromium (heatmap cells coloured, the table sorts on a click, no console error, no
 * network); two real runs compared through the command (figures, what differs, a drawn chart),
 * and the one-line errors for bad input.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { neighbourhoods, renderSweepHtml, type SweepRow } from '../../src/backtest/report/sweep-html';
import { runSweep } from '../../src/backtest/sweep/sweep';
import { probePage } from '../helpers/chromium';
import { ensureBuilt, runCli } from '../cli/exchange-proc';
import { MM, recording, writeConfig } from './fixtures';

const grid = (f: (x: number, y: number) => number): SweepRow[] => {
  const rows: SweepRow[] = [];
  for (const x of [1, 2, 3]) for (const y of ['10', '20', '30']) rows.push({ rank: 0, index: rows.length, point: { x, y }, metric: f(x, Number(y)), summary: null, error: null });
  return rows;
};

test('neighbours: a spike stands far above its neighbours, a plateau does not; corners have 3, the centre 8', () => {
  const spike = neighbourhoods(grid((x, y) => (x === 2 && y === 20 ? 100 : 1)), ['x', 'y']);
  expect(spike[4]).toEqual({ count: 8, min: 1, max: 1, mean: 1, excess: 99 });
  expect(spike[0].count).toBe(3);
  const plateau = neighbourhoods(grid((x) => 10 + x * 0.1), ['x', 'y']);
  expect(Math.abs(plateau[4].excess ?? NaN)).toBeLessThan(0.01);
  // A point without a metric has none to compare, and does not count as a neighbour.
  const holes = grid(() => 5);
  holes[1].metric = null;
  expect(neighbourhoods(holes, ['x', 'y'])[0].count).toBe(2);
});

test('sweep.html of a real 2x2 sweep: heatmap, sorting, no error, offline', async () => {
  const { dir } = await recording(4, 11);
  const cfg = loadBacktestConfig(writeConfig(dir, 'sw.yaml', { sweep: { method: 'grid', metric: 'totalPnl', params: { 'mm.minSpreadBps': ['2', '10'], 'mm.skewBps': ['1', '3'] } } }));
  if (!cfg.sweep) throw new Error('no sweep block');
  const o = await runSweep(cfg, { workers: 0 });
  const doc = { method: cfg.sweep.method, metric: cfg.sweep.metric, order: cfg.sweep.order, params: cfg.sweep.params, rows: o.ranked };
  const html = renderSweepHtml(doc, cfg);
  expect(renderSweepHtml(doc, cfg)).toBe(html);
  expect(html).toContain('mm.minSpreadBps');
  const file = path.join(dir, 'sweep.html');
  writeFileSync(file, html);
  const act = `document.querySelectorAll('#ranked th')[4].click();`; // the PnL column, ascending
  const extra = `
    var cells = document.querySelectorAll('#heatmap td.cell');
    var bg = Array.prototype.map.call(cells, function (c) { return c.style.background; });
    var pnl = Array.prototype.map.call(document.querySelectorAll('#ranked tbody tr'), function (r) { return Number(r.cells[4].getAttribute('data-v')); });
    return { cells: cells.length, colours: bg.filter(function (b) { return b !== ''; }).length, pnl: pnl };
  `;
  const p = probePage(file, dir, extra, act);
  expect(p.errors).toEqual([]);
  expect(p.resources).toEqual([]);
  const x = p.extra as { cells: number; colours: number; pnl: number[] };
  expect(x.cells).toBe(4);
  expect(x.colours).toBe(4);
  expect(x.pnl).toEqual([...o.ranked.map((r) => Number(r.summary?.totalPnl))].sort((a, b) => a - b));
}, 120_000);

test('perpkit sweep ranked by a ratio a short run does not have: no point ranked is exit 1, saying why; sweep.html is written', async () => {
  ensureBuilt();
  const { dir } = await recording(3, 2);
  const file = writeConfig(dir, 'sh.yaml', { sweep: { method: 'grid', metric: 'sharpe', params: { 'mm.minSpreadBps': ['2', '6'] } } });
  const out = path.join(dir, 'sw');
  const r = runCli(['sweep', file, '--workers', '1', '--out', out, '--quiet']);
  // A table without a ranked row has no best point: not a result (it was exit 0).
  expect(r.code).toBe(1);
  expect(r.stderr).toBe('perpkit sweep: no point is ranked by sharpe: 2 of 2 not ranked (first: job 0: objective sharpe is n/a (3 min of data (1 daily return), needs ≥ 30 days)), so the table has no best point: rank short runs by totalPnl or return\n');
  const html = readFileSync(path.join(out, 'sweep.html'), 'utf8');
  expect(html).toContain('2 point(s) have no sharpe');
  expect(r.stdout).toContain('sweep.html');
}, 120_000);

describe('perpkit report compare', () => {
  let dir = '';
  beforeAll(async () => {
    ensureBuilt();
    ({ dir } = await recording(6, 5));
  }, 120_000);

  test('two runs side by side: figures with differences, what differs, both curves drawn', () => {
    const a = path.join(dir, 'out-a');
    const b = path.join(dir, 'out-b');
    expect(runCli(['backtest', writeConfig(dir, 'a.yaml', {}), '--out', a, '--quiet']).code).toBe(0);
    expect(runCli(['backtest', writeConfig(dir, 'b.yaml', { strategies: [{ ...MM, params: { ...MM.params, minSpreadBps: '8' } }] }), '--out', b, '--quiet']).code).toBe(0);
    // Into a folder that does not exist yet (it was a bare ENOENT, exit 1): made, as backtest --out is.
    const html = path.join(dir, 'compare-out', 'cmp.html');
    const r = runCli(['report', 'compare', a, b, '--out', html]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Total PnL +\S+ +\S+ +[+-]?\S+/m);
    expect(r.stdout).toMatch(/^ {2}strategy mm\n {4}a: market-maker .*"minSpreadBps":"2".*\n {4}b: market-maker .*"minSpreadBps":"8"/m);
    expect(r.stdout).toMatch(/^ {2}config hash\n {4}a: \w{16}\n {4}b: \w{16}\n/m);
    expect(r.stdout).not.toMatch(/^ {2}data 1$/m); // same data: not a difference
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('class="differs"');
    const p = probePage(html, dir, 'return window.perpkitCompare.points;');
    expect(p.errors).toEqual([]);
    expect(p.resources).toEqual([]);
    // Drawn across the whole width (page table styles once squeezed the chart into its left part);
    // when not, the chart's canvases as the probe saw them (once, in a full run under load, none was).
    const chart = p.canvases.filter((c) => c.id === 'compare-chart');
    expect(chart.some((c) => c.width > 800 && c.inkedRight > 100) ? 'drawn across the width' : chart).toBe('drawn across the width');
    const points = p.extra as number[];
    expect(points[0]).toBeGreaterThan(3);
  }, 120_000);

  test('bad input: a missing run, a file that is not a report, an old report; one line each, exit 2', () => {
    const missing = runCli(['report', 'compare', path.join(dir, 'nope'), path.join(dir, 'nope2')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^perpkit report compare: .*nope: no such file \(give a backtest output directory or its report\.json\)\n$/);
    const old = path.join(dir, 'old');
    mkdirSync(old, { recursive: true });
    writeFileSync(path.join(old, 'report.json'), JSON.stringify({ format: 'perpkit-backtest-report', version: 1 }));
    const r = runCli(['report', 'compare', old, old]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/old\/report\.json: version: expected 2, got 1 \(written by an older perpkit: run the backtest again\)\n$/);
    writeFileSync(path.join(old, 'x.json'), '{"format":"other"}');
    expect(runCli(['report', 'compare', path.join(old, 'x.json'), old]).stderr).toMatch(/x\.json: format: expected "perpkit-backtest-report", got "other"/);
    expect(runCli(['report', 'frobnicate']).code).toBe(2);
    expect(runCli(['report', 'compare', old]).stderr).toMatch(/expected two runs .* got 1/);
    // An --out that is a folder (it was EISDIR and exit 1).
    const folder = runCli(['report', 'compare', path.join(dir, 'out-a'), path.join(dir, 'out-b'), '--out', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`perpkit report compare: --out ${dir}: expected the path of the HTML file to write, got a folder\n`);
    // Over an input report (it wrote HTML into report.json), or over a file that is not a comparison: refused, nothing written.
    const input = path.join(dir, 'out-a', 'report.json');
    const before = readFileSync(input, 'utf8');
    const over = runCli(['report', 'compare', path.join(dir, 'out-a'), path.join(dir, 'out-b'), '--out', input]);
    expect([over.code, over.stderr]).toEqual([2, `perpkit report compare: --out ${input}: expected the path of the HTML file to write, got one of the reports compared\n`]);
    expect(readFileSync(input, 'utf8')).toBe(before);
    const notes = path.join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    const other = runCli(['report', 'compare', path.join(dir, 'out-a'), path.join(dir, 'out-b'), '--out', notes]);
    expect([other.code, other.stderr]).toEqual([2, `perpkit report compare: --out ${notes}: expected a new file or a comparison written before, got an existing file that is not one (nothing written; give another path)\n`]);
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    // A comparison written before is replaced (a rerun).
    expect(runCli(['report', 'compare', path.join(dir, 'out-a'), path.join(dir, 'out-b'), '--out', path.join(dir, 'compare-out', 'cmp.html')]).code).toBe(0);
  });
});
