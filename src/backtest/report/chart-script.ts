/**
 * The charts of report.html: TradingView's Lightweight Charts (Apache-2.0, inlined from the
 * installed npm package, so the file works offline and is the same bytes for the same run) and
 * the page script below that feeds it the report's data (a JSON block in the page).
 *
 * Price: candles of each traded symbol's mark (OHLC of the equity samples' marks per candle) with
 * the fills as markers: each fill at its price when at most FILL_LIMIT fills are in view, else one
 * marker per side per group of candles with the count (zoom in to see them one by one). Hovering
 * a candle lists its fills. Equity: equity and the buy-and-hold benchmark, drawdown from peak in
 * a pane below, gross leverage below that. Each chart zooms (wheel, drag, pinch) on its own.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

let lib: string | undefined;

/** The library's standalone build, as installed (it defines window.LightweightCharts). */
export function chartLibrary(): string {
  if (lib === undefined) {
    const dir = path.dirname(require.resolve('lightweight-charts/package.json'));
    lib = readFileSync(path.join(dir, 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
    if (/<\/script/i.test(lib)) throw new Error('lightweight-charts: the standalone build contains "</script" and cannot be inlined');
  }
  return lib;
}

/** The footer line of a page with charts (the library's attribution). */
export const CHART_LIBRARY_NOTE = 'Charts: TradingView Lightweight Charts&trade; (Apache License 2.0, https://www.tradingview.com/), inlined; this page loads nothing from the network.';

/** Fills shown one by one when at most this many are in view. */
export const FILL_LIMIT = 400;

export const CHART_SCRIPT = `(function () {
'use strict';
var LC = window.LightweightCharts;
var D = JSON.parse(document.getElementById('report-data').textContent);
var state = { price: [], equity: null, errors: [] };
window.perpkitCharts = state;
var FILL_LIMIT = ${FILL_LIMIT};
function money(v) { return v.toFixed(2).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }
function when(t) { return new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' '); }
// Sized from the laid-out element (a chart made before its size is known forgets a zoom set on it).
var charts = [];
window.addEventListener('resize', function () { charts.forEach(function (c) { c[1].resize(c[0].clientWidth, c[0].clientHeight); }); });
function make(el) {
  var ch = LC.createChart(el, {
    width: el.clientWidth || 1000,
    height: el.clientHeight || 360,
    layout: { background: { color: '#ffffff' }, textColor: '#333', fontSize: 11, fontFamily: 'system-ui, sans-serif' },
    grid: { vertLines: { color: '#f2f2f2' }, horzLines: { color: '#f2f2f2' } },
    timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#ccc', rightOffset: 6 },
    rightPriceScale: { borderColor: '#ccc' },
    crosshair: { mode: 0 }
  });
  charts.push([el, ch]);
  return ch;
}
// report.html#from=<ISO or unix s>&to=<...> opens every chart on that time range (a link to a moment).
var zoom = (function () {
  var q = {}, h = location.hash.replace(/^#/, '');
  h.split('&').forEach(function (kv) { var i = kv.indexOf('='); if (i > 0) q[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); });
  function t(v) { if (v === undefined) return NaN; return /^[0-9]+$/.test(v) ? Number(v) : Date.parse(v) / 1000; }
  var from = t(q.from), to = t(q.to);
  return isFinite(from) && isFinite(to) && to > from ? { from: from, to: to } : null;
})();
function show(ch) {
  if (zoom) { try { ch.timeScale().setVisibleRange(zoom); return; } catch (e) { /* no data in range */ } }
  ch.timeScale().fitContent();
}
// A few empty bars before the first point, so that the first time label is not cut at the left edge.
var PAD = 3;
function pad(t0, step) { var out = []; for (var i = PAD; i > 0; i--) out.push({ time: t0 - i * step }); return out; }
function lowerBound(a, t) { var lo = 0, hi = a.length; while (lo < hi) { var m = (lo + hi) >> 1; if (a[m][0] < t) lo = m + 1; else hi = m; } return lo; }
D.symbols.forEach(function (sym, k) {
  var el = document.getElementById('price-' + k);
  var legend = document.getElementById('price-legend-' + k);
  var candles = D.candles[k];
  var fills = D.fills[k];
  if (candles.length === 0) { el.textContent = 'No equity samples: nothing to draw.'; return; }
  var ch = make(el);
  var cs = ch.addSeries(LC.CandlestickSeries, { upColor: '#26a69a', downColor: '#ef5350', borderVisible: false, wickUpColor: '#26a69a', wickDownColor: '#ef5350', priceFormat: { type: 'price', precision: D.precision[k], minMove: Math.pow(10, -D.precision[k]) } });
  cs.setData(pad(candles[0][0], D.candleSec).concat(candles.map(function (c) { return { time: c[0], open: c[1], high: c[2], low: c[3], close: c[4] }; })));
  var mk = LC.createSeriesMarkers(cs, [], { autoScale: true });
  // The position (base asset, signed) in a pane below the candles.
  var pos = ch.addSeries(LC.HistogramSeries, { color: '#78909c', title: 'position', priceFormat: { type: 'volume' }, priceLineVisible: false }, 1);
  var pp = D.positions[k];
  if (pp.length > 0) pos.setData(pad(pp[0][0], D.candleSec).concat(pp.map(function (p) { return { time: p[0], value: p[1], color: p[1] >= 0 ? 'rgba(27,94,32,0.55)' : 'rgba(183,28,28,0.55)' }; })));
  var pricePanes = ch.panes();
  if (pricePanes[1]) pricePanes[1].setHeight(80);
  var st = { symbol: sym, mode: 'none', markers: 0, inView: 0, chart: ch, update: null };
  state.price.push(st);
  function candleIndex(t) { var i = lowerBound(candles, t + 1) - 1; return i < 0 ? 0 : i; }
  function update() {
    // The candles in view (by index); the first and last candle stand for everything before and after.
    var lr = ch.timeScale().getVisibleLogicalRange(), n = candles.length;
    var c0 = lr ? Math.max(0, Math.floor(lr.from) - PAD) : 0, c1 = lr ? Math.min(n - 1, Math.ceil(lr.to) - PAD) : n - 1;
    if (c1 < c0) c1 = c0;
    var from = c0 <= 0 ? -Infinity : candles[c0][0], to = c1 >= n - 1 ? Infinity : candles[c1 + 1][0];
    var lo = lowerBound(fills, from), hi = lowerBound(fills, to);
    var out = [], i, f;
    if (hi - lo <= FILL_LIMIT) {
      st.mode = 'individual';
      for (i = lo; i < hi; i++) {
        f = fills[i];
        out.push({ time: candles[candleIndex(f[0])][0], position: f[1] > 0 ? 'atPriceBottom' : 'atPriceTop', price: f[2], shape: f[1] > 0 ? 'arrowUp' : 'arrowDown', color: f[1] > 0 ? '#1b5e20' : '#b71c1c', size: 0.7 });
      }
    } else {
      st.mode = 'aggregated';
      var group = Math.max(1, Math.ceil((c1 - c0 + 1) / 60));
      var key = -1, buys = 0, sells = 0;
      var flush = function () {
        if (key < 0) return;
        var t = candles[key][0];
        if (buys > 0) out.push({ time: t, position: 'belowBar', shape: 'arrowUp', color: '#1b5e20', text: String(buys) });
        if (sells > 0) out.push({ time: t, position: 'aboveBar', shape: 'arrowDown', color: '#b71c1c', text: String(sells) });
      };
      for (i = lo; i < hi; i++) {
        f = fills[i];
        var g = Math.floor(candleIndex(f[0]) / group) * group;
        if (g !== key) { flush(); key = g; buys = 0; sells = 0; }
        if (f[1] > 0) buys++; else sells++;
      }
      flush();
    }
    mk.setMarkers(out);
    st.markers = out.length;
    st.inView = hi - lo;
    el.setAttribute('data-markers', st.mode + ':' + out.length);
    var note = document.getElementById('price-note-' + k);
    if (note) note.textContent = st.mode === 'individual' ? (hi - lo) + ' fills in view, each at its price' : (hi - lo) + ' fills in view, counted per side every ' + group + ' candle(s): zoom in to see them one by one';
  }
  st.update = update;
  // Markers are set after the range change is done: setting them inside the callback undoes a zoom.
  var pending = 0;
  ch.timeScale().subscribeVisibleLogicalRangeChange(function () {
    if (pending) return;
    pending = setTimeout(function () { pending = 0; update(); }, 40);
  });
  ch.subscribeCrosshairMove(function (p) {
    if (!legend) return;
    var bar = p.time === undefined ? undefined : p.seriesData.get(cs);
    if (!bar) { legend.textContent = sym + ': hover a candle for its OHLC and fills'; return; }
    var i = candleIndex(p.time), a = candles[i][0], b = i + 1 < candles.length ? candles[i + 1][0] : Infinity;
    var lo = lowerBound(fills, a), hi = lowerBound(fills, b), parts = [];
    for (var j = lo; j < hi && parts.length < 6; j++) parts.push((fills[j][1] > 0 ? 'BUY ' : 'SELL ') + fills[j][3] + ' @ ' + fills[j][2] + ' ' + fills[j][4]);
    legend.textContent = when(p.time) + '  O ' + bar.open + ' H ' + bar.high + ' L ' + bar.low + ' C ' + bar.close + (hi > lo ? '  |  ' + (hi - lo) + ' fill(s): ' + parts.join('; ') + (hi - lo > parts.length ? '; ...' : '') : '');
  });
  show(ch);
  setTimeout(update, 60);
});
(function () {
  var el = document.getElementById('equity-chart');
  if (!el || D.equity.length === 0) return;
  var legend = document.getElementById('equity-legend');
  var ch = make(el);
  var eq = ch.addSeries(LC.LineSeries, { color: '#1565c0', lineWidth: 2, title: 'equity', priceFormat: { type: 'price', precision: 2, minMove: 0.01 } });
  var bh = ch.addSeries(LC.LineSeries, { color: '#9e9e9e', lineWidth: 1, lineStyle: 2, title: 'buy & hold', priceFormat: { type: 'price', precision: 2, minMove: 0.01 } });
  var pctFmt = { type: 'custom', minMove: 0.01, formatter: function (v) { return v.toFixed(2) + '%'; } };
  var dd = ch.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(229,115,115,0.2)', bottomColor: 'rgba(229,115,115,0.6)', lineWidth: 1, invertFilledArea: true, title: 'drawdown', priceFormat: pctFmt }, 1);
  var lev = ch.addSeries(LC.LineSeries, { color: '#6a1b9a', lineWidth: 1, title: 'gross leverage', priceFormat: { type: 'price', precision: 2, minMove: 0.01 } }, 2);
  var step = D.equity.length > 1 ? Math.max(1, D.equity[1][0] - D.equity[0][0]) : 60;
  var p0 = pad(D.equity[0][0], step);
  eq.setData(p0.concat(D.equity.map(function (e) { return { time: e[0], value: e[1] }; })));
  bh.setData(p0.concat(D.equity.map(function (e) { return { time: e[0], value: e[3] }; })));
  dd.setData(p0.concat(D.equity.map(function (e) { return { time: e[0], value: -e[2] }; })));
  lev.setData(p0.concat(D.equity.map(function (e) { return { time: e[0], value: e[4] }; })));
  var panes = ch.panes();
  if (panes[1]) panes[1].setHeight(110);
  if (panes[2]) panes[2].setHeight(80);
  show(ch);
  ch.subscribeCrosshairMove(function (p) {
    if (!legend) return;
    var e = p.time === undefined ? undefined : D.equity[lowerBound(D.equity, p.time)];
    legend.textContent = e ? when(e[0]) + '  equity ' + money(e[1]) + '  buy & hold ' + money(e[3]) + '  drawdown ' + e[2].toFixed(2) + '%  gross leverage ' + e[4].toFixed(2) : 'hover the chart for values';
  });
  state.equity = { chart: ch, points: D.equity.length };
})();
})();
`;
