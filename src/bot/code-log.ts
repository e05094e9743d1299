/**
 * Log lines that repeat by code (risk denials, venue rejections), at most one per code per
 * interval: the first of a window is logged at once, the rest are counted and logged as one line
 * with the count when the window closes. A strategy denied 2,000 times a minute then gives one
 * line per code and minute instead of silence (debug) or a flood.
 */
import type { Scheduler } from '../core/clock';

type Write = (fields: Record<string, unknown>, msg: string) => void;

interface Window {
  more: number;
  last: Record<string, unknown>;
  cancel: (() => void) | undefined;
}

export class CodeLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly intervalMs: number,
  ) {}

  note(key: string, write: Write, fields: Record<string, unknown>, msg: string): void {
    const w = this.windows.get(key);
    if (w !== undefined) {
      w.more++;
      w.last = fields;
      return;
    }
    write(fields, msg);
    const opened: Window = { more: 0, last: fields, cancel: undefined };
    this.windows.set(key, opened);
    opened.cancel = this.scheduler.after(this.intervalMs, () => {
      this.windows.delete(key);
      if (opened.more > 0) write({ ...opened.last, repeats: opened.more, windowMs: this.intervalMs }, `${msg} (${opened.more} more of this code in the last ${this.intervalMs / 1000} s)`);
    });
  }

  /** Logs the counts of the open windows now and stops their timers (at stop). */
  flush(write: (key: string, repeats: number, last: Record<string, unknown>) => void): void {
    for (const [key, w] of this.windows) {
      w.cancel?.();
      if (w.more > 0) write(key, w.more, w.last);
    }
    this.windows.clear();
  }
}
