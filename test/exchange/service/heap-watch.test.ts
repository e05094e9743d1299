/** The local exchange's heap watch: one warning per level of the heap limit passed, said again only after the heap fell well below it. */
import { HEAP_WARN_LEVELS, HeapWatch, startExchange, type HeapReading } from '../../../src/exchange';

const LIMIT = 4 * 2 ** 30;
/** A logger that keeps nothing: what is logged is not asserted (DESIGN.md), the watch's answers are. */
const quiet = { warn: (): void => undefined, error: (): void => undefined };

/** A watch whose readings are these shares of the limit, in turn. */
function watchOver(shares: number[]): HeapWatch {
  let i = 0;
  const read = (): HeapReading => ({ used: Math.ceil(shares[Math.min(i++, shares.length - 1)] * LIMIT), limit: LIMIT });
  return new HeapWatch({ logger: quiet, read });
}

describe('HeapWatch', () => {
  test.each([
    ['below every level', [0.1, 0.5, 0.69], [undefined, undefined, undefined]],
    ['each level once, in turn', [0.7, 0.72, 0.86, 0.9, 0.95, 0.99], [0.7, undefined, 0.85, undefined, 0.95, undefined]],
    ['several at once: one warning, the highest', [0.5, 0.96, 0.97], [undefined, 0.95, undefined]],
    ['said again only after falling 10 points below', [0.71, 0.65, 0.71, 0.59, 0.71], [0.7, undefined, undefined, undefined, 0.7]],
    ['falling back re-arms the levels it left', [0.96, 0.8, 0.96, 0.5, 0.9], [0.95, undefined, 0.95, undefined, 0.85]],
  ])('%s', (_what, shares, expected) => {
    const watch = watchOver(shares);
    expect(shares.map(() => watch.check())).toEqual(expected);
    expect(watch.warnings).toBe(expected.filter((x) => x !== undefined).length);
  });

  test('levels are 70, 85 and 95 %; a zero limit is no reading', () => {
    expect(HEAP_WARN_LEVELS).toEqual([0.7, 0.85, 0.95]);
    const w = new HeapWatch({ logger: quiet, read: () => ({ used: 10, limit: 0 }) });
    expect(w.check()).toBeUndefined();
  });

  test('started, it reads the heap on its interval, and stopped it reads no more; a bad interval is refused', () => {
    jest.useFakeTimers();
    try {
      let reads = 0;
      const w = new HeapWatch({ logger: quiet, intervalMs: 5, read: () => ({ used: ++reads, limit: 100 }) });
      w.start();
      w.start();
      jest.advanceTimersByTime(15);
      expect(reads).toBe(3);
      w.stop();
      jest.advanceTimersByTime(100);
      expect(reads).toBe(3);
    } finally {
      jest.useRealTimers();
    }
    expect(() => new HeapWatch({ logger: quiet, intervalMs: 0 })).toThrow('heap watch intervalMs must be a whole number of milliseconds above 0, got 0');
  });

  test('as a service of the server, it reads while the exchange runs and stops with it', async () => {
    let reads = 0;
    const watch = new HeapWatch({ logger: quiet, intervalMs: 5, read: () => ({ used: ++reads, limit: 100 }) });
    const server = await startExchange({ port: 0, host: '127.0.0.1' }, { services: [watch] });
    try {
      const deadline = Date.now() + 5000;
      while (reads < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(reads).toBeGreaterThanOrEqual(2);
    } finally {
      await server.stop();
    }
    const after = reads;
    await new Promise((r) => setTimeout(r, 50));
    expect(reads).toBe(after);
  });

  test('the default reading is the process heap, and its memory against what the machine has', () => {
    let reading: HeapReading | undefined;
    const w = new HeapWatch({ logger: quiet });
    // Far below 70 % in a test process: nothing to say, and no throw.
    expect(w.check()).toBeUndefined();
    const spy = new HeapWatch({ logger: quiet, read: () => (reading = (w as unknown as { read: () => HeapReading }).read()) });
    spy.check();
    expect(reading?.rss).toBeGreaterThan(reading?.used ?? Infinity);
    expect(reading?.outside).toBeGreaterThanOrEqual(0);
    expect(reading?.memory).toBeGreaterThan(reading?.rss ?? Infinity);
  });

  // The history's typed arrays live outside the heap (~70 % of what an order keeps): on a machine
  // with little memory the process runs out of it while the heap is still far from its limit.
  test('memory that fills before the heap does is warned about, saying it is memory and how much is outside the heap', () => {
    const said: Array<[string, Record<string, unknown>, string]> = [];
    const logger = { warn: (o: object, m: string) => void said.push(['warn', o as Record<string, unknown>, m]), error: (o: object, m: string) => void said.push(['error', o as Record<string, unknown>, m]) };
    const GB = 2 ** 30;
    const readings: HeapReading[] = [
      { used: 0.3 * GB, limit: 2 * GB, rss: 0.5 * GB, outside: 0.2 * GB, memory: 2 * GB },
      { used: 0.5 * GB, limit: 2 * GB, rss: 1.5 * GB, outside: 0.9 * GB, memory: 2 * GB },
      { used: 0.6 * GB, limit: 2 * GB, rss: 1.95 * GB, outside: 1.2 * GB, memory: 2 * GB },
    ];
    let i = 0;
    const w = new HeapWatch({ logger, read: () => readings[i++] });
    expect([w.check(), w.check(), w.check()]).toEqual([undefined, 0.7, 0.95]);
    expect(said.map(([level, o]) => [level, o.percent, o.heapPercent, o.memoryPercent, o.outsideHeapMB])).toEqual([
      ['warn', 75, 25, 75, 922],
      ['error', 98, 30, 98, 1229],
    ]);
    expect(said[0][2]).toMatch(/^memory 75 % used \(1536 of 2048 MB the process may have; 922 MB of it outside the heap, in the history's columns\): .* or run it on a machine with more memory$/);
  });
});
