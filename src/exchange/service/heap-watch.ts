/**
 * Warns as the heap fills. The local exchange keeps every order, fill, balance change and closed
 * position for its history endpoints, with no retention limit (docs/local-exchange.md,
 * "Capacity"), so a long, busy run grows until the process runs out of heap and is killed. The
 * log says so well before: once when the heap passes 70 % of its limit, again at 85 % and (as an
 * error) at 95 %, each with the figures and what to do. A level is said again only after the heap
 * has fallen 10 points below it (a restart without --data-dir, or a collection that freed much).
 */
import { getHeapStatistics } from 'node:v8';

export interface HeapReading {
  /** Bytes in use on the JS heap. */
  used: number;
  /** Bytes the JS heap may grow to before the process fails. */
  limit: number;
}

/** Shares of the heap limit that are warned about, in order. */
export const HEAP_WARN_LEVELS: readonly number[] = [0.7, 0.85, 0.95];
/** How far below a level the heap must fall before that level is warned about again. */
const REARM = 0.1;

export interface HeapWatchLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface HeapWatchOptions {
  logger: HeapWatchLogger;
  /** How often the heap is read; default 30 s. */
  intervalMs?: number;
  /** The reading; default node's own heap statistics. */
  read?: () => HeapReading;
}

const readHeap = (): HeapReading => {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, limit: h.heap_size_limit };
};

const mb = (bytes: number): number => Math.round(bytes / 2 ** 20);

export class HeapWatch {
  private readonly logger: HeapWatchLogger;
  private readonly intervalMs: number;
  private readonly read: () => HeapReading;
  private timer: NodeJS.Timeout | undefined;
  /** How many of HEAP_WARN_LEVELS have been warned about (and not re-armed). */
  private passed = 0;
  /** Warnings given so far (for the operator's checks and tests; the log has the details). */
  warnings = 0;

  constructor(opts: HeapWatchOptions) {
    if (opts.intervalMs !== undefined && !(Number.isInteger(opts.intervalMs) && opts.intervalMs > 0)) {
      throw new RangeError(`heap watch intervalMs must be a whole number of milliseconds above 0, got ${opts.intervalMs}`);
    }
    this.logger = opts.logger;
    this.intervalMs = opts.intervalMs ?? 30_000;
    this.read = opts.read ?? readHeap;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.intervalMs);
    // The watch never keeps the process alive on its own.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Reads the heap once. Returns the highest level passed since the last reading, after warning
   * about it, or undefined when there is nothing new to say (one warning for several levels
   * passed at once).
   */
  check(): number | undefined {
    const { used, limit } = this.read();
    if (!(limit > 0)) return undefined;
    const share = used / limit;
    while (this.passed > 0 && share < HEAP_WARN_LEVELS[this.passed - 1] - REARM) this.passed--;
    let level: number | undefined;
    while (this.passed < HEAP_WARN_LEVELS.length && share >= HEAP_WARN_LEVELS[this.passed]) level = HEAP_WARN_LEVELS[this.passed++];
    if (level === undefined) return undefined;
    this.warnings++;
    const fields = { heapUsedMB: mb(used), heapLimitMB: mb(limit), percent: Math.round(share * 100) };
    const msg =
      `heap ${fields.percent} % full (${fields.heapUsedMB} of ${fields.heapLimitMB} MB): the exchange keeps its whole history in memory, with no retention limit, ` +
      'and stops when the heap is full; restart it (without --data-dir it starts empty), or give it more heap with NODE_OPTIONS=--max-old-space-size=<MB>';
    if (this.passed === HEAP_WARN_LEVELS.length) this.logger.error(fields, msg);
    else this.logger.warn(fields, msg);
    return level;
  }
}
