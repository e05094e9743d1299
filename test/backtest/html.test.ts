/**
 * report.html in a real browser: headless Chromium loads it from a file URL with every host name
 * unresolvable, and a probe (test/helpers/chromium.ts) reports console errors, resource loads and
 * how much of each chart canvas was drawn on. The market maker's 2-hour sample run has thousands
 * of fills: they are counted per side when the whole run is in view and shown one by one at
 * their prices when zoomed in.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { FILL_LIMIT } from '../../src/backtest/report/chart-script';
import { renderHtml } from '../../src/backtest/report/html';
import { buildReport } from '../../src/backtest/report/report';
import { probePage } from '../helpers/chromium';
import { sampleConfig } from '../helpers/sample-backtest';
import { MM, recording, writeConfig } from './fixtures';

/** The page without its scripts: what a reader sees. */
const pageText = (html: string): string => html.replace(/<script[\s\S]*?<\/script>/g, '');

/** Page JavaScript: the fill markers' mode, how many and how many fills are in view. */
const MARKERS = `
  var st = window.perpkitCharts.price[0];
  return { mode: st.mode, markers: st.markers, inView: st.inView, equity: window.perpkitCharts.equity.points };
`;

test('report.html of a 2-hour market maker run: identity, words for missing ratios, charts drawn offline, fills aggregated then individual', async () => {
  const cfg = sampleConfig('market-maker');
  const a = await backtest(cfg);
  const html = renderHtml(a.report);
  // Deterministic bytes: the page is a function of the report's content alone (a copy renders the
  // same), and two runs of this config give the same report.json (market-maker.backtest.test.ts).
  expect(renderHtml(structuredClone(a.report))).toBe(html);
  // Self-contained: scripts are inline; nothing refers to a resource elsewhere.
  expect(pageText(html)).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*href=|<img|@import|url\(/i);
  expect(html).toContain('id="identity"');
  expect(html).toContain(a.report.identity.data[0].sha256);
  expect(html).toContain(a.report.identity.configHash);
  expect(html).toMatch(/Sharpe<\/div><div class="v">n\/a: 2 h of data \(1 daily return\), needs ≥ 30 days/);
  expect(pageText(html)).not.toMatch(/NaN|Infinity|undefined/);
  const tmp = (await recording(1, 1)).dir;
  const file = path.join(tmp, 'report.html');
  writeFileSync(file, html);
  const p = probePage(file, tmp, MARKERS);
  expect(p.errors).toEqual([]);
  expect(p.resources).toEqual([]);
  for (const id of ['price-0', 'equity-chart']) {
    const drawn = p.canvases.filter((c) => c.id === id && c.inked > 200 && c.width > 800 && c.inkedRight > 100);
    expect(drawn.length).toBeGreaterThan(0);
  }
  const whole = p.extra as { mode: string; markers: number; inView: number; equity: number };
  expect(a.report.fills.length).toBeGreaterThan(FILL_LIMIT);
  expect(whole.mode).toBe('aggregated');
  expect(whole.inView).toBe(a.report.fills.length);
  expect(whole.markers).toBeLessThan(200);
  expect(whole.equity).toBe(a.report.equity.length);
  // Opened on 3 minutes (a link with #from=...&to=...): every fill there is its own marker.
  const t0 = Math.floor(a.report.data.startTime / 60_000) * 60 + 1800;
  const zoomed = probePage(file, tmp, MARKERS, '', `#from=${t0}&to=${t0 + 180}`);
  expect(zoomed.errors).toEqual([]);
  const z = zoomed.extra as typeof whole;
  expect(z.mode).toBe('individual');
  expect(z.inView).toBeGreaterThan(0);
  expect(z.inView).toBeLessThan(FILL_LIMIT);
  expect(z.markers).toBe(z.inView);
}, 120_000);

test('a run with no fills says so in words and divides nothing by zero', async () => {
  const { dir } = await recording(6, 5);
  // A spread of 50% never trades.
  const cfg = loadBacktestConfig(writeConfig(dir, 'idle.yaml', { strategies: [{ ...MM, params: { ...MM.params, minSpreadBps: '5000' } }] }));
  const { report } = await backtest(cfg, { cache: false });
  const s = report.summary;
  expect(s.fills).toBe(0);
  expect(report.trades).toEqual([]);
  expect(s.trades).toBe(0);
  for (const k of ['winRate', 'profitFactor', 'expectancy', 'feesShare', 'fundingShare', 'sharpe', 'sortino', 'calmar'] as const) expect(s[k]).toBeNull();
  expect(report.tradeStats).toMatchObject({ closed: 0, open: 0, winRate: null, avgWin: null, avgDurationMs: null });
  const html = renderHtml(report);
  expect(html).toContain('No fills: the strategies placed');
  expect(html).toContain('n/a: no closed trade');
  expect(pageText(html)).not.toMatch(/NaN|Infinity|undefined/);
  const file = path.join(dir, 'idle.html');
  writeFileSync(file, html);
  const p = probePage(file, dir);
  expect(p.errors).toEqual([]);
  expect(p.canvases.some((c) => c.id === 'equity-chart' && c.inked > 200)).toBe(true);
}, 60_000);

test('a 40-day equity curve: ratios are figures, returns by day, hourly candles, drawn without error', async () => {
  const { dir } = await recording(6, 5);
  const cfg = loadBacktestConfig(writeConfig(dir, 'long.yaml', {}));
  const { result } = await backtest(cfg, { cache: false });
  // The run's own result, its curve replaced by 40 days of hourly samples: +0.4% and -0.2% days.
  const t0 = Date.UTC(2024, 0, 1);
  const samples: typeof result.samples = [];
  let e = 10_000;
  for (let h = 0; h <= 40 * 24; h++) {
    if (h > 0 && h % 24 === 0) e *= Math.floor(h / 24) % 2 === 1 ? 1.004 : 0.998;
    const mark = (50_000 + 100 * Math.sin(h / 10)).toFixed(1);
    samples.push({ time: t0 + h * 3_600_000, equity: e.toFixed(8), marks: [mark], positions: [h % 5 === 0 ? '0' : '0.01'], grossNotional: (0.01 * Number(mark)).toFixed(8) });
  }
  const long = { ...result, samples, fills: [], funding: [], finalPositions: [], startTime: t0, endTime: t0 + 40 * 86_400_000, finalAsset: { walletBalance: e.toFixed(8), unrealizedPnl: '0' } };
  const report = buildReport(cfg, long);
  const s = report.summary;
  expect(s.ratioDays).toBe(41);
  for (const k of ['sharpe', 'sortino', 'calmar'] as const) {
    expect(typeof s[k]).toBe('number');
    expect(s.ratioNotes[k]).toBeNull();
  }
  expect(s.sharpe).toBeGreaterThan(5); // a steady +0.1%/day with little variance
  expect(report.returns.period).toBe('day');
  expect(report.returns.rows).toHaveLength(40);
  const html = renderHtml(report);
  expect(html).toMatch(new RegExp(`Sharpe</div><div class="v">${(s.sharpe ?? 0).toFixed(2)}<`));
  expect(html).toContain('1 h candles');
  expect(html).toContain('No fills');
  const file = path.join(dir, 'long.html');
  writeFileSync(file, html);
  const p = probePage(file, dir, 'return window.perpkitCharts.equity.points;');
  expect(p.errors).toEqual([]);
  expect(p.extra).toBe(40 * 24 + 1);
  expect(p.canvases.some((c) => c.id === 'price-0' && c.inked > 200)).toBe(true);
}, 60_000);
