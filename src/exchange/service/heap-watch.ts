/**
 * Warns as memory fills. The local exchange keeps every order, fill, balance change and closed
 * position for its history endpoints, with no retention limit (docs/local-exchange.md,
 * "Capacity"), so a long, busy run grows until the process runs out of memory and is killed. Two
 * things fill: node's heap, up to its limit; and the machine's memory, which also holds the typed
 * arrays the ended orders' columns live in, outside the heap (~70 % of what an order keeps), so on
 * a machine with little memory it is full before the heap is. The log says so well before: once
 * when the fuller of the two passes 70 %, again at 85 % and (as an error) at 95 %, each with the
 * figures and what to do. A level is said again only after it has fallen 10 points below it (a
 * restart without --data-dir, or a collection that freed much).
 */
import { getHeapStatistics } from 'node:v8';
import { totalmem } from 'node:os';

export interface HeapReading {
  /** Bytes in use on the JS heap. */
  used: number;
  /** Bytes the JS heap may grow to before the process fails. */
  limit: number;
  /** Bytes the process holds in memory (its resident set: heap, typed arrays, code). */
  rss?: number;
  /** Of which typed arrays and buffers outside the heap. */
  outside?: number;
  /** Bytes of memory the process may have: a container's limit, or the machine's memory. */
  memory?: number;
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

/** A container's memory limit when there is one (node reports "none" as a huge number), else the machine's. */
function processMemory(): number {
  const total = totalmem();
  const constrained = (process as NodeJS.Process & { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  return constrained !== undefined && constrained > 0 && constrained < total ? constrained : total;
}

const readHeap = (): HeapReading => {
  const h = getHeapStatistics();
  const m = process.memoryUsage();
  return { used: h.used_heap_size, limit: h.heap_size_limit, rss: m.rss, outside: m.arrayBuffers, memory: processMemory() };
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
    const r = this.read();
    const heapShare = r.limit > 0 ? r.used / r.limit : 0;
    const memShare = r.rss !== undefined && r.memory !== undefined && r.memory > 0 ? r.rss / r.memory : 0;
    if (!(r.limit > 0) && memShare === 0) return undefined;
    const share = Math.max(heapShare, memShare);
    while (this.passed > 0 && share < HEAP_WARN_LEVELS[this.passed - 1] - REARM) this.passed--;
    let level: number | undefined;
    while (this.passed < HEAP_WARN_LEVELS.length && share >= HEAP_WARN_LEVELS[this.passed]) level = HEAP_WARN_LEVELS[this.passed++];
    if (level === undefined) return undefined;
    this.warnings++;
    const fields = {
      heapUsedMB: mb(r.used),
      heapLimitMB: mb(r.limit),
      heapPercent: Math.round(heapShare * 100),
      ...(r.rss !== undefined && r.memory !== undefined ? { rssMB: mb(r.rss), memoryMB: mb(r.memory), memoryPercent: Math.round(memShare * 100) } : {}),
      ...(r.outside !== undefined ? { outsideHeapMB: mb(r.outside) } : {}),
      percent: Math.round(share * 100),
    };
    const what =
      memShare > heapShare
        ? `memory ${fields.percent} % used (${mb(r.rss ?? 0)} of ${mb(r.memory ?? 0)} MB the process may have; ${mb(r.outside ?? 0)} MB of it outside the heap, in the history's columns)`
        : `heap ${fields.percent} % full (${fields.heapUsedMB} of ${fields.heapLimitMB} MB)`;
    const remedy = memShare > heapShare ? 'or run it on a machine with more memory' : 'or give it more heap with NODE_OPTIONS=--max-old-space-size=<MB>';
    const msg = `${what}: the exchange keeps its whole history in memory, with no retention limit, and stops when memory is full; restart it (without --data-dir it starts empty), ${remedy}`;
    if (this.passed === HEAP_WARN_LEVELS.length) this.logger.error(fields, msg);
    else this.logger.warn(fields, msg);
    return level;
  }
}
