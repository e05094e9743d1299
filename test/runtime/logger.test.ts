/**
 * The time a runtime log line carries: the wall clock's for a running bot (the default), the given
 * clock's when one is passed (a backtest's replay clock, `perpkit backtest --strategy-logs`).
 */
import { Writable } from 'node:stream';
import { createRuntimeLogger } from '../../src/runtime/logger';

function sink(): { stream: Writable; lines: Array<{ time: number; msg: string }> } {
  const lines: Array<{ time: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l !== '') lines.push(JSON.parse(l) as { time: number; msg: string });
      cb();
    },
  });
  return { stream, lines };
}

test('a line carries the wall clock by default, and the given time when a clock is passed (its child loggers too)', () => {
  const live = sink();
  const before = Date.now();
  createRuntimeLogger({ level: 'info', stream: live.stream }).info({}, 'live');
  const after = Date.now();
  expect(live.lines).toHaveLength(1);
  expect(live.lines[0].time).toBeGreaterThanOrEqual(before);
  expect(live.lines[0].time).toBeLessThanOrEqual(after);

  const replay = sink();
  let now = 1_704_067_200_000;
  const log = createRuntimeLogger({ level: 'info', stream: replay.stream, time: () => now });
  log.info({}, 'first');
  now += 1500;
  log.child({ strategy: 's' }).info({}, 'second');
  expect(replay.lines.map((l) => [l.msg, l.time])).toEqual([['first', 1_704_067_200_000], ['second', 1_704_067_201_500]]);
});
