/**
 * report.html: one self-contained file (inline CSS and SVG, no script, no network) that opens
 * offline in any browser: a summary, the equity curve, the drawdown, the price of each traded
 * symbol with the fills marked (buys green triangles up, sells red triangles down; hover for
 * details), and the per-period and per-strategy tables. Charts are drawn here as SVG paths so the
 * file is the picture, not a program that draws it, and is as deterministic as report.json.
 */
import type { BacktestReport } from './report';

const W = 1000;
const H = 220;
const PAD = { l: 70, r: 10, t: 10, b: 24 };
/** Most points per line: enough for the eye, small enough for a light file. */
const MAX_POINTS = 2000;
const MAX_MARKERS = 5000;

const codes = (m: Record<string, number>): string => {
  const parts = Object.entries(m).map(([k, v]) => `${k} ${v}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
};

/** What the summary says of strategy errors: none, or the count, the first and who was stopped. */
export function strategyErrorText(s: BacktestReport['summary']): string {
  const f = s.firstStrategyError;
  if (s.strategyErrors === 0 || f === null) return 'none';
  const stopped = s.strategiesStopped.length > 0 ? `; stopped for their errors: ${s.strategiesStopped.join(', ')}` : '';
  return `${s.strategyErrors}; first: [${f.strategyId}] ${f.where}: ${f.message}${f.at === '' ? '' : ` (${f.at})`}${stopped}`;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');
const fx = (v: number): string => (Math.round(v * 10) / 10).toString();

interface Scale {
  x(t: number): number;
  y(v: number): number;
  t0: number;
  t1: number;
  v0: number;
  v1: number;
}

function scale(t0: number, t1: number, v0: number, v1: number): Scale {
  if (t1 <= t0) t1 = t0 + 1;
  if (v1 <= v0) {
    v1 = v0 + Math.max(1e-9, Math.abs(v0) * 1e-6);
    v0 = v0 - Math.max(1e-9, Math.abs(v0) * 1e-6);
  }
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  return { t0, t1, v0, v1, x: (t) => PAD.l + ((t - t0) / (t1 - t0)) * iw, y: (v) => PAD.t + (1 - (v - v0) / (v1 - v0)) * ih };
}

/** Keeps min and max of each bucket so spikes survive the thinning. */
function thin(points: Array<[number, number]>): Array<[number, number]> {
  if (points.length <= MAX_POINTS) return points;
  const per = Math.ceil(points.length / (MAX_POINTS / 2));
  const out: Array<[number, number]> = [];
  for (let i = 0; i < points.length; i += per) {
    const chunk = points.slice(i, i + per);
    let lo = chunk[0];
    let hi = chunk[0];
    for (const p of chunk) {
      if (p[1] < lo[1]) lo = p;
      if (p[1] > hi[1]) hi = p;
    }
    if (lo[0] <= hi[0]) out.push(lo, hi);
    else out.push(hi, lo);
  }
  return out;
}

function pathOf(points: Array<[number, number]>, s: Scale): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${fx(s.x(p[0]))},${fx(s.y(p[1]))}`).join('');
}

function axes(s: Scale, fmt: (v: number) => string): string {
  const parts: string[] = [];
  for (let k = 0; k <= 4; k++) {
    const v = s.v0 + ((s.v1 - s.v0) * k) / 4;
    const y = fx(s.y(v));
    parts.push(`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${y}" y2="${y}" class="grid"/><text x="${PAD.l - 6}" y="${y}" class="yl">${esc(fmt(v))}</text>`);
  }
  for (let k = 0; k <= 4; k++) {
    const t = s.t0 + ((s.t1 - s.t0) * k) / 4;
    parts.push(`<text x="${fx(s.x(t))}" y="${H - 6}" class="xl">${esc(iso(Math.round(t)).slice(5, 16).replace('T', ' '))}</text>`);
  }
  return parts.join('');
}

function chart(id: string, title: string, body: string): string {
  return `<section><h2>${esc(title)}</h2><svg id="${id}" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${esc(title)}">${body}</svg></section>`;
}

/** Min and max by loop: spreading a long series into Math.min overflows the stack. */
function range(vs: number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of vs) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : [0, 1];
}

const num = (v: number, digits = 2): string => (Math.abs(v) >= 1e5 ? v.toFixed(0) : v.toFixed(digits));

export function renderHtml(r: BacktestReport): string {
  const eq: Array<[number, number]> = r.equity.map((e) => [e[0], Number(e[1])]);
  const dd: Array<[number, number]> = r.equity.map((e) => [e[0], -e[2] * 100]);
  const t0 = r.data.startTime;
  const t1 = Math.max(r.data.endTime, t0 + 1);

  const eqThin = thin(eq);
  const eqS = scale(t0, t1, ...range(eq.map((p) => p[1])));
  const equityChart = chart('equity', 'Equity (USDT)', `${axes(eqS, (v) => num(v))}<path class="line eq" d="${pathOf(eqThin, eqS)}"/>`);

  const ddThin = thin(dd);
  const ddS = scale(t0, t1, Math.min(range(dd.map((p) => p[1]))[0], -0.0001), 0);
  const ddArea = ddThin.length > 0 ? `${pathOf(ddThin, ddS)}L${fx(ddS.x(ddThin[ddThin.length - 1][0]))},${fx(ddS.y(0))}L${fx(ddS.x(ddThin[0][0]))},${fx(ddS.y(0))}Z` : '';
  const ddChart = chart('drawdown', 'Drawdown (% from peak)', `${axes(ddS, (v) => `${v.toFixed(2)}%`)}<path class="area dd" d="${ddArea}"/>`);

  const priceCharts = r.data.symbols.map((sym, k) => {
    const pts: Array<[number, number]> = r.equity.map((e) => [e[0], Number(e[3 + k])]);
    const fills = r.fills.filter((f) => f.symbol === sym);
    const prices = [...pts.map((p) => p[1]), ...fills.map((f) => Number(f.price))];
    const s = scale(t0, t1, ...range(prices));
    const step = Math.max(1, Math.ceil(fills.length / MAX_MARKERS));
    const markers: string[] = [];
    for (let i = 0; i < fills.length; i += step) {
      const f = fills[i];
      const x = s.x(f.time);
      const y = s.y(Number(f.price));
      const buy = f.side === 'BUY';
      const tri = buy ? `M${fx(x)},${fx(y - 5)}L${fx(x - 4)},${fx(y + 3)}L${fx(x + 4)},${fx(y + 3)}Z` : `M${fx(x)},${fx(y + 5)}L${fx(x - 4)},${fx(y - 3)}L${fx(x + 4)},${fx(y - 3)}Z`;
      markers.push(`<path class="fill ${buy ? 'buy' : 'sell'}" d="${tri}"><title>${esc(`${iso(f.time)} ${f.strategyId} ${f.side} ${f.quantity} @ ${f.price} (${f.role}, fee ${f.fee}, pnl ${f.realizedPnl})`)}</title></path>`);
    }
    const note = step > 1 ? ` (every ${step}th of ${fills.length} fills shown)` : ` (${fills.length} fills)`;
    return chart(`price-${k}`, `${sym} mark price with fills${note}`, `${axes(s, (v) => num(v))}<path class="line px" d="${pathOf(thin(pts), s)}"/><g class="fills">${markers.join('')}</g>`);
  });

  const s = r.summary;
  const rows: Array<[string, string]> = [
    ['Period', `${iso(r.data.startTime)} to ${iso(r.data.endTime)}`],
    ['Initial balance', s.initialBalance],
    ['Final equity', s.finalEquity],
    ['Total PnL', s.totalPnl],
    ['Return', `${(s.return * 100).toFixed(3)}%`],
    ['Realized PnL', s.realizedPnl],
    ['Unrealized PnL', s.unrealizedPnl],
    ['Fees', s.fees],
    ['Funding', s.funding],
    ['Max drawdown', `${(s.maxDrawdown * 100).toFixed(3)}% (${s.maxDrawdownAmount})`],
    ['Sharpe / Sortino (annualized)', `${s.sharpe} / ${s.sortino} (returns per ${s.returnPeriodMs / 1000} s)`],
    ['Win rate', `${(s.winRate * 100).toFixed(1)}% of ${s.closingFills} closing fills`],
    ['Exposure', `${(s.exposure * 100).toFixed(1)}% of the time; avg gross leverage ${s.avgGrossLeverage}`],
    ['Orders accepted / cancels / rejections / denials', `${s.ordersAccepted} / ${s.cancels} / ${s.rejections} / ${s.denials}`],
    ['Denials by risk code', codes(s.denialsByCode)],
    ['Rejections by venue code', codes(s.rejectionsByCode)],
    ['Strategy errors', strategyErrorText(s)],
    ['Fills / volume', `${s.fills} / ${s.volume}`],
    ['Liquidations', String(s.liquidations)],
    ['Events', `${r.data.events.applied} applied of ${r.data.events.read} read${r.data.events.unused > 0 ? `; ${r.data.events.unused} L2 book/snapshot events not used by the tape fill model` : ''}`],
    ...Object.entries(r.data.marks)
      .filter(([, m]) => m.source === 'derived')
      .map(([sym, m]): [string, string] => [`Mark ${sym}`, `derived, not recorded: ${m.method}`]),
  ];
  const table = (head: string[], body: string[][]): string =>
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const periodsTable = table(['Start', 'End', 'PnL', 'Return', 'Fees', 'Funding', 'Realized', 'Fills'], r.periods.map((p) => [iso(p.start), iso(p.end), p.pnl, `${(p.return * 100).toFixed(3)}%`, p.fees, p.funding, p.realizedPnl, String(p.fills)]));
  const stratTable = table(['Strategy', 'Fills', 'Volume', 'Fees', 'Realized PnL', 'Win rate', 'Accepted', 'Cancels', 'Rejections', 'Denials', 'Errors'], Object.entries(r.strategies).map(([id, x]) => [id, String(x.fills), x.volume, x.fees, x.realizedPnl, `${(x.winRate * 100).toFixed(1)}%`, String(x.ordersAccepted), String(x.cancels), String(x.rejections), String(x.denials), x.stopped === null ? String(x.errors) : `${x.errors} (stopped: ${x.stopped.reason})`]));
  const errorBanner = s.strategyErrors === 0 ? '' : `<p class="alert" id="strategy-errors"><strong>Strategies threw ${s.strategyErrors} times.</strong> ${esc(strategyErrorText(s))}. The figures below are those of strategies that failed.</p>`;

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>perpkit backtest ${esc(r.config.strategies.map((x) => x.id).join(', '))}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:20px auto;max-width:1040px;color:#222}
h1{font-size:20px}h2{font-size:15px;margin:18px 0 4px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
svg{background:#fcfcfc;border:1px solid #eee}
.grid{stroke:#eee}.yl{font-size:10px;text-anchor:end;dominant-baseline:middle;fill:#666}.xl{font-size:10px;text-anchor:middle;fill:#666}
.line{fill:none;stroke-width:1.3}.eq{stroke:#1565c0}.px{stroke:#555}.area.dd{fill:#e57373;stroke:#c62828;stroke-width:1}
.alert{background:#fdecea;border:1px solid #c62828;padding:8px}.fill.buy{fill:#2e7d32}.fill.sell{fill:#c62828}
</style></head><body>
<h1>Backtest report</h1>
${errorBanner}
${table(['Metric', 'Value'], rows)}
${equityChart}
${ddChart}
${priceCharts.join('\n')}
<h2>Per period</h2>${periodsTable}
<h2>Per strategy</h2>${stratTable}
</body></html>
`;
}
