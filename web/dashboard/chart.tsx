/**
 * PnL since start with the fills on it, drawn by lightweight-charts (the charting library of the
 * reports), bundled into the page. Times are whole seconds (the library's unit), one point per
 * second at most; each fill is a marker: arrow up for a buy, down for a sell.
 */
import { createChart, createSeriesMarkers, LineSeries, type IChartApi, type ISeriesApi, type ISeriesMarkersPluginApi, type LineData, type SeriesMarker, type Time, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef } from 'preact/hooks';
import type { EquityPoint, FillPoint } from '../../src/runtime/dashboard/types';

interface Props {
  equity: EquityPoint[];
  fills: FillPoint[];
  version: number;
}

const sec = (ms: number): UTCTimestamp => Math.floor(ms / 1000) as UTCTimestamp;

export function PnlChart({ equity, fills, version }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<{ api: IChartApi; line: ISeriesApi<'Line'>; markers: ISeriesMarkersPluginApi<Time> } | null>(null);

  useEffect(() => {
    if (!box.current) return;
    const api = createChart(box.current, {
      autoSize: true,
      layout: { background: { color: '#0f1419' }, textColor: '#c5ccd6', attributionLogo: false },
      grid: { vertLines: { color: '#1c232b' }, horzLines: { color: '#1c232b' } },
      timeScale: { timeVisible: true, secondsVisible: true },
      rightPriceScale: { borderColor: '#2a323c' },
    });
    const line = api.addSeries(LineSeries, { color: '#4aa3ff', lineWidth: 2, title: 'PnL USDT', priceFormat: { type: 'price', precision: 2, minMove: 0.01 } });
    const markers = createSeriesMarkers(line, []);
    chart.current = { api, line, markers };
    return () => {
      api.remove();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    const data: LineData<UTCTimestamp>[] = [];
    for (const p of equity) {
      const t = sec(p.time);
      const v = Number(p.pnl); // display only: the figures themselves stay strings
      if (data.length > 0 && data[data.length - 1].time === t) data[data.length - 1] = { time: t, value: v };
      else if (data.length === 0 || data[data.length - 1].time < t) data.push({ time: t, value: v });
    }
    c.line.setData(data);
    const first = data.length > 0 ? data[0].time : undefined;
    const shown = fills.filter((f) => first !== undefined && sec(f.time) >= first).slice(-500);
    // Labels only while they can be read; past that the arrows alone (the event list has the details).
    const labelled = shown.length <= 12;
    const marks: SeriesMarker<Time>[] = shown.map((f) => ({
      time: sec(f.time),
      position: f.side === 'BUY' ? 'belowBar' : 'aboveBar',
      shape: f.side === 'BUY' ? 'arrowUp' : 'arrowDown',
      color: f.side === 'BUY' ? '#26a69a' : '#ef5350',
      size: labelled ? 1 : 0.6,
      ...(labelled ? { text: `${f.side === 'BUY' ? 'B' : 'S'} ${f.quantity}@${f.price}` } : {}),
    }));
    c.markers.setMarkers(marks);
    if (data.length > 1) c.api.timeScale().fitContent();
  }, [version]);

  return <div class="chart" ref={box} data-testid="chart" data-points={equity.length} data-fills={fills.length} />;
}
