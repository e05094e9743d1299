import { ASK, BID, OrderBook } from '../../src/exchange/engine/book/order-book';
import type { BookSide } from '../../src/exchange/engine/book/order-book';
import {
  LatencyRecorder,
  latencyResults,
  measureThroughput,
  mulberry32,
  round,
  timerOverhead,
} from '../harness';
import type { BenchResult } from '../harness';
import { abSettings, engineAbPart, engineLongAbPart, historyCostPart } from './engine-ab';
import { fullEnginePart, retainedHeapPart } from './engine-full';
import { registerSuite } from './registry';

/**
 * Suite `engine`: the matching hot path. The suite is a list of parts, each returning its own
 * result lines; the engine-level parts (orders through the full engine with accounting) are meant
 * to be appended to `engineParts` below without touching the book parts.
 */
export interface EnginePart {
  title: string;
  run(): BenchResult[] | Promise<BenchResult[]>;
}

const MID = 100_000;
const RESTING = 1_000;
/** Passive prices fall within this many ticks of the touch on each side: ~100 levels in all. */
const LEVELS_PER_SIDE = 50;
const WARMUP_OPS = 300_000;
const TIMED_OPS = 2_000_000;
const LATENCY_OPS = 1_000_000;
const SEED = 0x5eed;

/**
 * A precomputed stream of incoming orders, so the PRNG stays out of the timed loops and every run
 * replays the same sequence.
 */
class Workload {
  readonly side: Uint8Array;
  readonly price: Float64Array;
  readonly qty: Float64Array;
  /** Which of the RESTING live-order slots the op's cancel hits (a uniformly random old order). */
  readonly cancelSlot: Int32Array;
  /** 1 when the op is a crossing (immediate-or-cancel) order instead of a passive one. */
  readonly cross: Uint8Array;

  constructor(
    readonly length: number,
    crossFraction: number,
    seed: number,
  ) {
    const rnd = mulberry32(seed);
    this.side = new Uint8Array(length);
    this.price = new Float64Array(length);
    this.qty = new Float64Array(length);
    this.cancelSlot = new Int32Array(length);
    this.cross = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      const side = rnd() < 0.5 ? BID : ASK;
      this.side[i] = side;
      if (rnd() < crossFraction) {
        // Limit a few ticks through the touch: sweeps one to a few levels, like a marketable order.
        this.cross[i] = 1;
        const through = 1 + Math.floor(rnd() * 4);
        this.price[i] = side === BID ? MID + through : MID - through;
        this.qty[i] = 1 + Math.floor(rnd() * 30);
      } else {
        // Squared uniform skews passive orders toward the touch, where real books are busiest.
        const u = rnd();
        const away = Math.floor(LEVELS_PER_SIDE * u * u);
        this.price[i] = side === BID ? MID - 1 - away : MID + 1 + away;
        this.qty[i] = 1 + Math.floor(rnd() * 10);
      }
      this.cancelSlot[i] = Math.floor(rnd() * RESTING);
    }
  }
}

/**
 * Drives one book the way a matcher would, keeping exactly RESTING orders resting after every op:
 * a passive op adds one order and cancels a random old one; a crossing op walks the opposite side
 * with peekBest/fillHead, drops its unfilled rest, and replaces each fully filled maker with a new
 * passive order from a separate stream.
 */
class BookDriver {
  readonly book = new OrderBook(RESTING * 2);
  private readonly live = new Float64Array(RESTING);
  private slotOfId = new Int32Array(1 << 20);
  private readonly filledSlots = new Int32Array(64);
  private nextId = 1;
  private refill = 0;
  fills = 0;

  constructor(
    private readonly w: Workload,
    private readonly refillStream: Workload,
  ) {
    for (let s = 0; s < RESTING; s++) this.rest(s, refillStream, this.nextRefill());
  }

  private nextRefill(): number {
    const r = this.refill;
    this.refill = r + 1 === this.refillStream.length ? 0 : r + 1;
    return r;
  }

  /** Adds a passive order from `src[i]` and records it in live slot `s`. */
  private rest(s: number, src: Workload, i: number): void {
    const id = this.nextId++;
    this.book.add(id, src.side[i] as BookSide, src.price[i], src.qty[i]);
    this.live[s] = id;
    if (id >= this.slotOfId.length) {
      const grown = new Int32Array(this.slotOfId.length * 2);
      grown.set(this.slotOfId);
      this.slotOfId = grown;
    }
    this.slotOfId[id] = s;
  }

  op(i: number): void {
    const w = this.w;
    if (w.cross[i] === 0) {
      const s = w.cancelSlot[i];
      const old = this.live[s];
      this.rest(s, w, i);
      this.book.remove(old);
      return;
    }
    const book = this.book;
    const side = w.side[i];
    const opp: BookSide = side === BID ? ASK : BID;
    const limit = w.price[i];
    let rem = w.qty[i];
    let filled = 0;
    while (rem > 0) {
      const head = book.peekBest(opp);
      if (head === -1) break;
      const p = book.bestPrice(opp);
      if (side === BID ? p > limit : p < limit) break;
      const avail = book.remainingOf(head);
      const f = avail < rem ? avail : rem;
      book.fillHead(opp, f);
      this.fills++;
      rem -= f;
      if (f === avail && filled < this.filledSlots.length) this.filledSlots[filled++] = this.slotOfId[head];
    }
    // Replenish after the sweep so the taker cannot trade against its own replacements.
    for (let k = 0; k < filled; k++) this.rest(this.filledSlots[k], this.refillStream, this.nextRefill());
  }
}

function bookPart(title: string, label: string, crossFraction: number, seed: number): EnginePart {
  return {
    title,
    run(): BenchResult[] {
      const refill = new Workload(1 << 16, 0, seed + 1);
      const w = new Workload(WARMUP_OPS + TIMED_OPS, crossFraction, seed);
      const d = new BookDriver(w, refill);
      const opsPerSec = measureThroughput(TIMED_OPS, WARMUP_OPS, (start, count) => {
        const end = start + count;
        for (let i = start; i < end; i++) d.op(i);
      });
      const fillsBefore = d.fills;
      d.book.assertInvariants();
      if (d.book.size !== RESTING) throw new Error(`book drifted to ${d.book.size} resting orders`);

      const lw = new Workload(WARMUP_OPS + LATENCY_OPS, crossFraction, seed + 2);
      const ld = new BookDriver(lw, refill);
      for (let i = 0; i < WARMUP_OPS; i++) ld.op(i);
      const rec = new LatencyRecorder(LATENCY_OPS);
      const now = process.hrtime.bigint;
      for (let i = WARMUP_OPS; i < WARMUP_OPS + LATENCY_OPS; i++) {
        const t = now();
        ld.op(i);
        rec.add(now() - t);
      }
      ld.book.assertInvariants();
      const results: BenchResult[] = [
        { name: `${label} throughput (batch timed)`, value: Math.round(opsPerSec), unit: 'ops/s' },
        ...latencyResults(`${label} latency`, rec.stats()),
      ];
      if (crossFraction > 0) {
        results.push({ name: `${label} maker fills per op`, value: round(fillsBefore / (WARMUP_OPS + TIMED_OPS), 3), unit: 'fills/op' });
      }
      return results;
    },
  };
}

/** Parts run in order; append engine-level parts here. */
export const engineParts: EnginePart[] = [
  {
    title: 'timer overhead',
    run: () => {
      const s = timerOverhead();
      return [{ name: 'hrtime.bigint pair overhead p50 (per-op timed, empty body)', value: round(s.p50 / 1000, 3), unit: 'us' }];
    },
  },
  bookPart('book insert+cancel, 1,000 resting over ~100 levels', 'book insert+cancel', 0, SEED),
  bookPart('book insert+cancel with 10% crossing orders', 'book insert+cancel 10% crossing', 0.1, SEED + 100),
  fullEnginePart('full engine place+cancel, 1,000 resting', 'engine place+cancel', 0, SEED + 200),
  fullEnginePart('full engine place+cancel with 10% crossing IOC orders', 'engine place+cancel 10% crossing', 0.1, SEED + 300),
  fullEnginePart('full engine place+cancel, a client order id on every placement (as bots send)', 'engine place+cancel, client ids', 0, SEED + 200, true),
  retainedHeapPart(),
  historyCostPart(SEED + 200),
];

registerSuite({
  name: 'engine',
  description: 'Order book and full engine hot path: insert+cancel and matching throughput and latency, and the engine as a share of the book',
  async run(): Promise<BenchResult[]> {
    const out: BenchResult[] = [];
    const ab = abSettings();
    const parts =
      ab === undefined
        ? engineParts
        : [
            ...engineParts,
            engineAbPart(ab, 'engine place+cancel', 0, SEED + 200),
            engineAbPart(ab, 'engine place+cancel 10% crossing', 0.1, SEED + 300),
            engineAbPart(ab, 'engine place+cancel, client ids', 0, SEED + 200, true),
            engineLongAbPart(ab, 'engine place+cancel', 0, SEED + 200),
            engineLongAbPart(ab, 'engine place+cancel 10% crossing', 0.1, SEED + 300),
            engineLongAbPart(ab, 'engine place+cancel, client ids', 0, SEED + 200, true),
          ];
    for (const part of parts) out.push(...(await part.run()));
    // The engine's goals are set against the bare book of the same run (docs/engine.md).
    const value = (name: string): number | undefined => out.find((r) => r.name === name)?.value;
    for (const [engine, book, goal] of [
      ['engine place+cancel', 'book insert+cancel', 1_000_000],
      ['engine place+cancel 10% crossing', 'book insert+cancel 10% crossing', 500_000],
    ] as const) {
      const e = value(`${engine} throughput (batch timed)`);
      const b = value(`${book} throughput (batch timed)`);
      if (e === undefined || b === undefined) continue;
      out.push({ name: `${engine} / ${book} (same run)`, value: round((100 * e) / b, 2), unit: '%' });
      out.push({ name: `${engine} / goal ${goal.toLocaleString('en-US')} ops/s`, value: round((100 * e) / goal, 1), unit: '%' });
    }
    return out;
  },
});
