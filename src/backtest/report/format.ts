/**
 * Figures for people (HTML and CLI): money to the cent with thousands separators, shares as
 * percentages, durations in words. report.json keeps the exact values; these are what a reader
 * sees. Independent of the locale, so the same report gives the same bytes everywhere.
 */
import { durationText } from './ratios';

function group(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** USDT for a person: 2 decimals, grouped; an amount under a cent keeps 2 significant digits. */
export function usd(v: string | number | null): string {
  if (v === null) return 'n/a';
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) return 'n/a';
  if (n !== 0 && Math.abs(n) < 0.005) return Number(n.toPrecision(2)).toString();
  const s = Math.abs(n).toFixed(2);
  const [i, f] = s.split('.');
  return `${n < 0 && s !== '0.00' ? '-' : ''}${group(i)}.${f}`;
}

/** A fraction as a percentage (2 decimals), or the words for its absence. */
export function pct(v: number | null, none = 'n/a'): string {
  return v === null || !Number.isFinite(v) ? none : `${(v * 100).toFixed(2)}%`;
}

/** A plain ratio (profit factor, leverage) to 2 decimals. */
export function num2(v: number | null, none = 'n/a'): string {
  return v === null || !Number.isFinite(v) ? none : v.toFixed(2);
}

/** A price or quantity as recorded, without trailing noise: at most 8 significant digits for big numbers. */
export function qty(v: string | null): string {
  if (v === null) return 'n/a';
  const n = Number(v);
  return Number.isFinite(n) ? Number(n.toPrecision(10)).toString() : v;
}

export const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');
/** "2024-08-08 00:00" (UTC), for tables. */
export const isoMinute = (t: number): string => iso(t).slice(0, 16).replace('T', ' ');

export const duration = (ms: number | null): string => (ms === null ? 'n/a' : durationText(ms));

export const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An HTML table; cells are text (escaped) unless given as {html}. */
export function table(head: string[], body: Array<Array<string | { html: string }>>, attrs = ''): string {
  const cell = (c: string | { html: string }): string => (typeof c === 'string' ? esc(c) : c.html);
  return `<table${attrs}><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${body.map((row) => `<tr>${row.map((c) => `<td>${cell(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** JSON for a <script type="application/json"> block: no "</script" or "<!--" can appear in it. */
export function jsonForScript(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
