/** Display helpers: times in UTC, durations, signed decimals (the strings stay exact). */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d > 0 ? `${d}d ` : ''}${pad(h)}:${pad(m)}:${pad(s % 60)}`;
}

/** A decimal string cut to `dp` places for display (no float arithmetic on the value). */
export function dec(v: string | undefined, dp = 2): string {
  if (v === undefined || v === '') return '–';
  const neg = v.startsWith('-');
  const [i, f = ''] = (neg ? v.slice(1) : v).split('.');
  const frac = dp > 0 ? `.${(f + '0'.repeat(dp)).slice(0, dp)}` : '';
  return `${neg ? '-' : ''}${i}${frac}`;
}

export function signed(v: string | undefined, dp = 2): string {
  if (v === undefined) return '–';
  const d = dec(v, dp);
  return d.startsWith('-') || !/[1-9]/.test(d) ? d : `+${d}`;
}

export function tone(v: string | undefined): string {
  if (v === undefined) return '';
  if (v.startsWith('-')) return 'neg';
  return /[1-9]/.test(v) ? 'pos' : '';
}
