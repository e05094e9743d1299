/**
 * A strategy that times itself by the wall clock runs wrongly in a backtest, where hours of the
 * replay pass in seconds: "one order a minute" by Date.now() placed one order in two hours. The
 * backtest counts such reads per strategy and says so in the notes (summary and report.html).
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { backtest } from '../../src/backtest/backtest/backtest';
import { loadBacktestConfig } from '../../src/backtest/backtest/config';
import { reportNotices } from '../../src/backtest/report/html';
import { recording, writeConfig } from './fixtures';

/** At most one MARKET buy a minute, timed by `clock` ('wall': Date.now(); 'replay': ctx.clock). */
const THROTTLED = `module.exports.default = {
  name: 'throttled', symbols: () => ['BTCUSDT'], params: (raw) => ({ clock: String(raw.clock) }), marketData: () => ['markPrice'],
  create: (ctx) => {
    let last = -Infinity;
    const now = () => (ctx.params.clock === 'wall' ? Date.now() : ctx.clock.now());
    return {
      onStart() {
        if (ctx.params.clock === 'wall' && !(new Date() instanceof Date)) throw new Error('instanceof Date failed');
        return [];
      },
      onMark() {
        if (now() - last < 60000) return [];
        last = now();
        return [{ kind: 'place', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.001' }];
      },
    };
  },
};
`;

test('a strategy timed by Date.now(): its reads are counted and named, and the note says to read ctx.clock', async () => {
  const realDate = Date;
  const { dir } = await recording(10, 5);
  writeFileSync(path.join(dir, 'throttled.js'), THROTTLED);
  const run = async (clock: string) =>
    (await backtest(loadBacktestConfig(writeConfig(dir, `${clock}.yaml`, { strategies: [{ id: clock, module: './throttled.js', params: { clock } }] })), { cache: false })).report;

  const wall = await run('wall');
  // Ten minutes of marks pass in well under a minute of wall time: one order, where ten were asked for.
  expect(wall.summary.ordersAccepted).toBe(1);
  expect(wall.summary.wallClockReads).toBeGreaterThan(500);
  expect(wall.summary.wallClockReaders).toEqual({ wall: 'onStart: new Date()' });
  expect(wall.strategies.wall).toMatchObject({ wallClockReads: wall.summary.wallClockReads, firstWallClockRead: 'onStart: new Date()' });
  expect(reportNotices(wall)).toContain(
    `Strategies read the wall clock ${wall.summary.wallClockReads} time(s): wall (first in onStart: new Date()). A backtest runs on the replay's time, hours of it in seconds of wall time, so what they timed by it (throttles, cool-downs, time of day) did not happen as written: read ctx.clock.now().`,
  );
  // The global is the real one again outside the strategy's code.
  expect(globalThis.Date).toBe(realDate);

  const replay = await run('replay');
  expect(replay.summary.ordersAccepted).toBe(10);
  expect(replay.summary.wallClockReads).toBe(0);
  expect(replay.summary.wallClockReaders).toEqual({});
  expect(reportNotices(replay).some((n) => n.includes('wall clock'))).toBe(false);
});
