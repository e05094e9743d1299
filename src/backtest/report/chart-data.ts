/**
 * The data report.html's charts draw, built from report.json's arrays: candles of each symbol's
 * mark, fills per symbol, and the equity curve with benchmark, drawdown and leverage. Times are
 * in seconds (the charting library's unit), one point per second at most (the last wins).
 */
import type { BacktestReport } from './report';

/** Candle lengths a chart may use, ms. */
const CANDLE_STEPS = [60_000, 300_000, 900_000, 3_600_000, 14_400_000, 86_400_000];
/** Most candles per chart: enough to read, few enough to draw fast. */
const MAX_CANDLES = 1500;

export interface ChartData {
  symbols: string[];
  /** Decimals of each symbol's prices (the marks'). */
  precision: number[];
  candleSec: number;
  /** Per symbol: [time s, open, high, low, close]. */
  candles: Array<Array<[number, number, number, number, number]>>;
  /** Per symbol: [time s, +1 buy / -1 sell, price, quantity, role]. */
  fills: Array<Array<[number, number, number, string, string]>>;
  /** Per symbol: [time s, signed position] per equity sample. */
  positions: Array<Array<[number, number]>>;
  /** [time s, equity, drawdown %, buy & hold equity, gross leverage]. */
  equity: Array<[number, number, number, number, number]>;
}

/** Candle length for a run: the sampling interval at least, else the first step giving ≤ MAX_CANDLES. */
export function candleMs(spanMs: number, intervalMs: number): number {
  for (const s of CANDLE_STEPS) if (s >= intervalMs && spanMs / s <= MAX_CANDLES) return s;
  return Math.max(intervalMs, Math.ceil(spanMs / MAX_CANDLES / 86_400_000) * 86_400_000);
}

const decimals = (s: string): number => {
  const i = s.indexOf('.');
  return i < 0 ? 0 : Math.min(8, s.length - i - 1);
};

export function chartData(r: BacktestReport): ChartData {
  const step = candleMs(r.data.endTime - r.data.startTime, r.config.equityIntervalMs);
  const candles = r.data.symbols.map((_, k) => {
    const out: Array<[number, number, number, number, number]> = [];
    let prevClose: number | undefined;
    for (const e of r.equity) {
      const m = Number(e[3 + k]);
      const t = Math.floor(e[0] / step) * step;
      const last = out[out.length - 1];
      if (last !== undefined && last[0] === t / 1000) {
        last[2] = Math.max(last[2], m);
        last[3] = Math.min(last[3], m);
        last[4] = m;
      } else {
        const o = prevClose ?? m;
        out.push([t / 1000, o, Math.max(o, m), Math.min(o, m), m]);
      }
      prevClose = m;
    }
    return out;
  });
  const precision = r.data.symbols.map((_, k) => r.equity.reduce((p, e) => Math.max(p, decimals(String(e[3 + k]))), 0));
  const fills = r.data.symbols.map((sym) =>
    r.fills.filter((f) => f.symbol === sym).map((f): [number, number, number, string, string] => [Math.floor(f.time / 1000), f.side === 'BUY' ? 1 : -1, Number(f.price), f.quantity, f.role]),
  );
  const equity: ChartData['equity'] = [];
  r.equity.forEach((e, i) => {
    const row: [number, number, number, number, number] = [Math.floor(e[0] / 1000), Number(Number(e[1]).toFixed(2)), Number((e[2] * 100).toFixed(4)), Number((r.benchmark[i] ?? 0).toFixed(2)), r.exposure[i]?.[1] ?? 0];
    const last = equity[equity.length - 1];
    if (last !== undefined && last[0] === row[0]) equity[equity.length - 1] = row;
    else equity.push(row);
  });
  const positions = r.data.symbols.map((_, k) => {
    const out: Array<[number, number]> = [];
    for (const x of r.exposure) {
      const row: [number, number] = [Math.floor(x[0] / 1000), Number(x[2 + k])];
      if (out.length > 0 && out[out.length - 1][0] === row[0]) out[out.length - 1] = row;
      else out.push(row);
    }
    return out;
  });
  return { symbols: r.data.symbols, precision, candleSec: step / 1000, candles, fills, positions, equity };
}
