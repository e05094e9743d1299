/**
 * Risk-adjusted ratios from daily returns, and the words the report uses when there is no figure.
 *
 * Convention (docs/backtesting.md): the equity curve is resampled to UTC days (the equity at the
 * last sample of each day; the first day's return is against the initial balance); daily returns
 * r_d = E_d / E_(d-1) - 1; crypto trades every day, so a year is 365 days. Risk-free rate 0.
 *  - Sharpe = mean(r) / stdev(r) x sqrt(365), stdev with n - 1;
 *  - Sortino = mean(r) / sqrt(mean(min(r, 0)^2)) x sqrt(365) (downside deviation over all days);
 *  - Calmar = annualised return / max drawdown, annualised return = (E_end / E_0)^(365 / days) - 1.
 * Below MIN_RATIO_DAYS daily returns a ratio says nothing (its standard error is larger than any
 * plausible value): it is null, with a note that says how much data there was and how much is
 * needed. A ratio whose denominator is 0 is null too, with the reason.
 */
import { round } from './round';

export const DAY_MS = 86_400_000;
export const DAYS_PER_YEAR = 365;
/** Fewest daily returns a ratio is computed from. */
export const MIN_RATIO_DAYS = 30;

export interface Ratios {
  sharpe: number | null;
  sortino: number | null;
  calmar: number | null;
  /** Why each ratio is null, in words (null when there is a figure). */
  ratioNotes: { sharpe: string | null; sortino: string | null; calmar: string | null };
  /** Daily returns the ratios are computed from. */
  ratioDays: number;
  /** Annualised return (compound), null below MIN_RATIO_DAYS. */
  annualReturn: number | null;
}

/** A duration as a person says it: "45 s", "2 h", "3.5 d". */
export function durationText(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < DAY_MS) return `${Number((ms / 3_600_000).toFixed(1))} h`;
  return `${Number((ms / DAY_MS).toFixed(1))} d`;
}

/** Equity at the end of each UTC day the run touches, from samples in time order. */
export function dailyEquity(samples: ReadonlyArray<{ time: number; equity: number }>): Array<{ day: number; equity: number }> {
  const out: Array<{ day: number; equity: number }> = [];
  for (const s of samples) {
    const day = Math.floor(s.time / DAY_MS) * DAY_MS;
    const last = out[out.length - 1];
    if (last !== undefined && last.day === day) last.equity = s.equity;
    else out.push({ day, equity: s.equity });
  }
  return out;
}

/**
 * The ratios of an equity curve. `spanMs` is the run's length (for the note), `maxDrawdown` the
 * curve's largest drawdown as a fraction (Calmar's denominator).
 */
export function ratios(initial: number, samples: ReadonlyArray<{ time: number; equity: number }>, spanMs: number, maxDrawdown: number): Ratios {
  const days = dailyEquity(samples);
  const rets: number[] = [];
  let prev = initial;
  for (const d of days) {
    rets.push(prev > 0 ? d.equity / prev - 1 : 0);
    prev = d.equity;
  }
  const n = rets.length;
  if (n < MIN_RATIO_DAYS) {
    const why = `n/a: ${durationText(spanMs)} of data (${n} daily return${n === 1 ? '' : 's'}), needs ≥ ${MIN_RATIO_DAYS} days`;
    return { sharpe: null, sortino: null, calmar: null, ratioNotes: { sharpe: why, sortino: why, calmar: why }, ratioDays: n, annualReturn: null };
  }
  const mean = rets.reduce((s, r) => s + r, 0) / n;
  const sd = Math.sqrt(rets.reduce((s, r) => s + (r - mean) ** 2, 0) / (n - 1));
  const down = Math.sqrt(rets.reduce((s, r) => s + Math.min(r, 0) ** 2, 0) / n);
  const ann = Math.sqrt(DAYS_PER_YEAR);
  const end = days[days.length - 1].equity;
  const annualReturn = initial > 0 && end > 0 ? (end / initial) ** (DAYS_PER_YEAR / n) - 1 : null;
  const out: Ratios = { sharpe: null, sortino: null, calmar: null, ratioNotes: { sharpe: null, sortino: null, calmar: null }, ratioDays: n, annualReturn: annualReturn === null ? null : round(annualReturn) };
  if (sd > 0) out.sharpe = round((mean / sd) * ann);
  else out.ratioNotes.sharpe = 'n/a: daily returns do not vary (standard deviation 0)';
  if (down > 0) out.sortino = round((mean / down) * ann);
  else out.ratioNotes.sortino = 'n/a: no losing day (downside deviation 0)';
  if (annualReturn === null) out.ratioNotes.calmar = 'n/a: equity reached 0';
  else if (maxDrawdown > 0) out.calmar = round(annualReturn / maxDrawdown);
  else out.ratioNotes.calmar = 'n/a: no drawdown';
  return out;
}

/** A ratio for a person: its figure, or the note that says why there is none. */
export function ratioText(v: number | null, note: string | null): string {
  return v === null ? (note ?? 'n/a') : v.toFixed(2);
}
