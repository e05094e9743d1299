/**
 * A silence of a recording: a stretch of time it holds nothing of, from an event to the next one
 * in the order they are read, whether or not a `gap` event marks it (a lost stream without an
 * update-id chain to break, e.g. trades and quotes alone, leaves no gap event; nor does the time
 * between two recordings read one after the other). It runs from the latest event time before:
 * an event earlier than that (back in time) ends none. `perpkit data inspect` reports the longest;
 * a backtest counts and lists those longer than LONG_SILENCE_MS.
 */
export interface Silence {
  from: number;
  to: number;
  ms: number;
}

/** The silence an event at `t` ends, `latest` being the latest event time read before it; 0 when the event is not later. */
export function silenceBefore(latest: number, t: number): number {
  return t > latest ? t - latest : 0;
}

/**
 * A silence longer than this is data missing, not a quiet market. Our recordings have a mark
 * every second or few (the recorder's mark stream, synth's marks, the Binance import's derived
 * marks each second), and no source's regular events are further apart than a minute (marks from
 * 1-minute mark price klines): a minute with no event at all is 20 or more marks missed.
 */
export const LONG_SILENCE_MS = 60_000;
