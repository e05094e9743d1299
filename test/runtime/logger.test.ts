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

// pino's paths reach two levels and one spelling: a strategy's ctx.log of request headers
// (`Authorization`, `X-API-KEY`) or of an HTTP error (`err.config.headers.authorization`) wrote
// them in clear (a probe of perpkit run).
test('secrets are redacted in any case, at any depth, inside errors too; the objects logged are not changed', () => {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk.toString());
      cb();
    },
  });
  const log = createRuntimeLogger({ level: 'info', stream });
  const headers = { 'X-API-KEY': 'K-123', Cookie: 'C-456', Accept: 'json' };
  const fields = { nested: { deep: { Authorization: 'Bearer A-789' } }, headers, api_secret: 'S-000', list: [{ ACCESS_TOKEN: 'T-111' }] };
  log.info(fields, 'request');
  const err = Object.assign(new Error('request failed'), { config: { headers: { authorization: 'Bearer E-222' } }, response: { headers: { 'set-cookie': 'E-333' }, status: 401 } });
  log.error({ err }, 'failed');
  const text = out.join('');
  for (const secret of ['K-123', 'C-456', 'A-789', 'S-000', 'T-111', 'E-222', 'E-333']) expect(text).not.toContain(secret);
  const [first, second] = out.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(first).toMatchObject({ nested: { deep: { Authorization: '[redacted]' } }, headers: { 'X-API-KEY': '[redacted]', Cookie: '[redacted]', Accept: 'json' }, api_secret: '[redacted]', list: [{ ACCESS_TOKEN: '[redacted]' }] });
  expect(second).toMatchObject({ err: { message: 'request failed', config: { headers: { authorization: '[redacted]' } }, response: { headers: { 'set-cookie': '[redacted]' }, status: 401 } } });
  expect((second.err as { stack: string }).stack).toMatch(/^Error: request failed\n/);
  // What was logged is as it was.
  expect(headers['X-API-KEY']).toBe('K-123');
  expect(err.config.headers.authorization).toBe('Bearer E-222');
});
