/**
 * A queued sweep reports its progress every second; what reaches stderr is a line every few
 * seconds on a terminal and every 30 s into a log, and always the last: a sweep of hours wrote a
 * line a second before.
 */
import { PROGRESS_EVERY_MS, progressWriter } from '../../src/cli/sweep';
import type { QueueProgress } from '../../src/backtest/sweep/coordinator';

function run(isTTY: boolean): string[] {
  const lines: string[] = [];
  let t = 0;
  const write = progressWriter({ isTTY, write: (s: string) => lines.push(s) }, () => t);
  // One report a second for an hour; the last says every job is done.
  for (let s = 0; s <= 3600; s++) {
    t = s * 1000;
    const p: QueueProgress = { total: 3601, done: s + 1 === 3601 ? 3601 : s, failed: 0, running: 2, waiting: 3599 - s, etaMs: 1000 };
    write(p);
  }
  return lines;
}

describe('queued sweep progress on stderr', () => {
  it('into a log: a line every 30 s and the last one', () => {
    const lines = run(false);
    expect(lines.length).toBe(3600 / (PROGRESS_EVERY_MS.log / 1000) + 1);
    expect(lines[0]).toBe('queue: 0/3601 done, 2 running, 3599 waiting, 0 failed, ETA 0m01s\n');
    expect(lines[lines.length - 1]).toMatch(/^queue: 3601\/3601 done/);
  });

  it('on a terminal: a line every 5 s and the last one', () => {
    const lines = run(true);
    expect(lines.length).toBe(3600 / (PROGRESS_EVERY_MS.tty / 1000) + 1);
    expect(lines[lines.length - 1]).toMatch(/^queue: 3601\/3601 done/);
  });
});
