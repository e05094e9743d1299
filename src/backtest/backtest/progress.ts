/**
 * Progress of a long run as a one-line bar: events read, events per second, share of the input
 * bytes consumed and the time left at the current rate. Wall time is passed in by the caller (the
 * CLI), so nothing here reads a clock.
 */
export function progressLine(p: { events: number; bytesDone: number; bytesTotal: number }, elapsedMs: number, width = 24): string {
  const frac = p.bytesTotal > 0 ? Math.min(1, p.bytesDone / p.bytesTotal) : 0;
  const rate = elapsedMs > 0 ? (p.events * 1000) / elapsedMs : 0;
  const etaS = frac > 0 ? ((elapsedMs / frac) * (1 - frac)) / 1000 : NaN;
  const filled = Math.round(frac * width);
  const eta = Number.isFinite(etaS) ? `${Math.floor(etaS / 60)}m${String(Math.round(etaS % 60)).padStart(2, '0')}s` : '--';
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(1)}%  ${p.events.toLocaleString('en-US')} events  ${Math.round(rate).toLocaleString('en-US')} ev/s  ETA ${eta}`;
}
