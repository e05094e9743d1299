import { ManualClock } from '../../../../src/core/clock';
import { Coalescer } from '../../../../src/exchange/transport/ws/coalescer';
import type { GatewayTimers } from '../../../../src/exchange/transport/ws/timers';

/** Timers driven by a ManualClock: `advance` fires what is due, in order. */
function manualTimers(clock: ManualClock): GatewayTimers & { advance(ms: number): void; pending(): number } {
  let next = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    setTimeout(fn, ms) {
      const id = next++;
      due.set(id, { at: clock.now() + ms, fn });
      return id;
    },
    clearTimeout(h) {
      due.delete(h as number);
    },
    setInterval() {
      throw new Error('not used');
    },
    clearInterval() {},
    advance(ms) {
      const end = clock.now() + ms;
      for (;;) {
        const first = [...due.entries()].filter(([, t]) => t.at <= end).sort((x, y) => x[1].at - y[1].at)[0];
        if (!first) break;
        due.delete(first[0]);
        clock.set(Math.max(clock.now(), first[1].at));
        first[1].fn();
      }
      clock.set(end);
    },
    pending: () => due.size,
  };
}

describe('Coalescer', () => {
  it('flushes on the next turn after quiet, then at most once per gap, always after the last mark', () => {
    const clock = new ManualClock(1000);
    const timers = manualTimers(clock);
    const flushes: number[] = [];
    const c = new Coalescer(timers, clock, 100, () => flushes.push(clock.now()));
    c.mark();
    c.mark();
    expect(c.pending).toBe(true);
    timers.advance(0);
    expect(flushes).toEqual([1000]);
    for (let t = 0; t < 250; t += 10) {
      c.mark();
      timers.advance(10);
    }
    // marks until 1240: flushes 100 ms apart, the last one after the last mark
    expect(flushes).toEqual([1000, 1100, 1200]);
    expect(c.pending).toBe(true);
    timers.advance(100);
    expect(flushes).toEqual([1000, 1100, 1200, 1300]);
    expect(c.pending).toBe(false);
    timers.advance(1000);
    c.mark();
    timers.advance(0);
    expect(flushes[flushes.length - 1]).toBe(2350);
  });

  it('cancel drops a pending flush', () => {
    const clock = new ManualClock(0);
    const timers = manualTimers(clock);
    let n = 0;
    const c = new Coalescer(timers, clock, 100, () => n++);
    c.mark();
    c.cancel();
    expect(timers.pending()).toBe(0);
    timers.advance(500);
    expect(n).toBe(0);
    c.cancel();
  });
});
