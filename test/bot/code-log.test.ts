import { ManualClock, ManualScheduler } from '../../src/core/clock';
import { CodeLog } from '../../src/bot/code-log';

test('one line per code per interval: the first at once, the rest as a count when the window closes', () => {
  const clock = new ManualClock(0);
  const scheduler = new ManualScheduler(clock);
  const log = new CodeLog(scheduler, 10_000);
  const lines: Array<[string, Record<string, unknown>]> = [];
  const write = (f: Record<string, unknown>, m: string): void => {
    lines.push([m, f]);
  };
  for (let i = 0; i < 5; i++) log.note('denial:s:MAX_POSITION', write, { code: 'MAX_POSITION', i }, 'denied: MAX_POSITION');
  log.note('denial:s:RATE_THROTTLED', write, { code: 'RATE_THROTTLED' }, 'denied: RATE_THROTTLED');
  expect(lines.map(([m]) => m)).toEqual(['denied: MAX_POSITION', 'denied: RATE_THROTTLED']);
  scheduler.advance(10_000);
  expect(lines.slice(2)).toEqual([['denied: MAX_POSITION (4 more of this code in the last 10 s)', { code: 'MAX_POSITION', i: 4, repeats: 4, windowMs: 10_000 }]]);
  // The next window opens with a line of its own.
  log.note('denial:s:MAX_POSITION', write, { code: 'MAX_POSITION', i: 5 }, 'denied: MAX_POSITION');
  log.note('denial:s:MAX_POSITION', write, { code: 'MAX_POSITION', i: 6 }, 'denied: MAX_POSITION');
  expect(lines).toHaveLength(4);
  // At stop, the open window's count as the window would have said it (not its internal key).
  log.flush();
  expect(lines.slice(4)).toEqual([['denied: MAX_POSITION (1 more of this code in the last 10 s)', { code: 'MAX_POSITION', i: 6, repeats: 1, windowMs: 10_000 }]]);
  scheduler.advance(20_000);
  expect(lines).toHaveLength(5);
});
