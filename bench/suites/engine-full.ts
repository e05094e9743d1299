import { ManualClock } from '../../src/core/clock';
import { Engine } from '../../src/exchange/engine/engine';
import { DEFAULT_SYMBOLS, type SymbolConfig } from '../../src/exchange/engine/symbols';
import type { PlaceOrderInput } from '../../src/exchange/engine/inputs';
import { collectGarbage, LatencyRecorder, latencyResults, measureThroughput, mulberry32 } from '../harness';
import type { BenchResult } from '../harness';
import type { EnginePart } from './engine';

const RESTING = 1_000;
/** The engine allows 200 open orders per user and symbol: spread the book over makers. */
const MAKERS = ['mm1', 'mm2', 'mm3', 'mm4', 'mm5', 'mm6'];
const WARMUP = 20_000;
const TIMED = 200_000;
const LATENCY = 200_000;

/**
 * The same insert+cancel workload as the book parts, but through the whole engine: validation,
 * margin checks, frozen margin, fees, positions, order records and events (drained and dropped
 * each op, as the server would hand them on). This is what a placement costs the local exchange.
 *
 * As the book parts do, the workload is made before anything is timed: the random draws, the
 * request objects with their price and quantity texts (a ring of PASSIVE_RING passive requests,
 * used in turn; the engine keeps nothing of a request), which slot each op cancels. The timed loop
 * is the engine's calls and the bookkeeping of which order rests in which slot.
 */
const PASSIVE_RING = 1 << 16;

/**
 * What the driver needs of an engine build: this checkout's, or another built checkout's for the
 * A/B part (engine-ab.ts), so that both builds run exactly the same driver and workload.
 */
export interface EngineKit {
  Engine: typeof Engine;
  ManualClock: typeof ManualClock;
  symbols: readonly SymbolConfig[];
}

const THIS_BUILD: EngineKit = { Engine, ManualClock, symbols: DEFAULT_SYMBOLS };

export class EngineDriver {
  readonly engine: Engine;
  /** Resting maker orders by slot: owner and order id. */
  private readonly liveUser: string[] = [];
  private readonly liveId: string[] = [];
  /**
   * Slot + 1 of a resting order by numeric order id (0: none), kept only when crossing orders fill
   * makers (it is read then). The engine hands ids out in sequence, so an array indexes them; a
   * Map<string, number> here, with a new key every op, was ~7 % of the crossing workload's profile:
   * harness, not engine.
   */
  private slot: Int32Array | undefined;
  private readonly clock: ManualClock;
  private readonly passiveRing: PlaceOrderInput[] = [];
  private nextPassive = 0;
  /** Per op: the crossing request (crossing ops), or the slot whose order is replaced and cancelled. */
  private readonly crossing: Array<PlaceOrderInput | undefined> = [];
  private readonly cancelSlot: Int32Array;
  private n = 0;
  private op = 0;

  /**
   * `forget`: the makers' ended orders are not kept (Engine.forgetFinalOrders), for historyCostPart.
   * `clientIds`: every passive request carries a client order id, as a bot's do (`c<slot>` of the
   * request ring: an id comes back after 65,536 placements, long after its order has ended).
   */
  constructor(crossFraction: number, seed: number, ops: number, kit: EngineKit = THIS_BUILD, forget = false, clientIds = false) {
    this.clock = new kit.ManualClock(1_700_000_000_000);
    const rnd = mulberry32(seed);
    for (let i = 0; i < PASSIVE_RING; i++) {
      const buy = rnd() < 0.5;
      const u = rnd();
      const away = 1 + Math.floor(50 * u * u);
      const price = (buy ? 500_000 - away : 500_000 + away) / 10;
      const qty = (1 + Math.floor(rnd() * 10)) / 1000;
      this.passiveRing.push({ symbol: 'BTCUSDT', type: 'LIMIT', side: buy ? 'BUY' : 'SELL', price: price.toFixed(1), quantity: qty.toFixed(3), ...(clientIds ? { clientOrderId: `c${i}` } : {}) });
    }
    this.slot = crossFraction > 0 ? new Int32Array(1 << 16) : undefined;
    this.cancelSlot = new Int32Array(ops);
    for (let k = 0; k < ops; k++) {
      if (rnd() < crossFraction) {
        const buy = rnd() < 0.5;
        const price = (buy ? 500_000 + 3 : 500_000 - 3) / 10;
        this.crossing.push({ symbol: 'BTCUSDT', type: 'LIMIT', side: buy ? 'BUY' : 'SELL', price: price.toFixed(1), quantity: '0.010', timeInForce: 'IOC' });
        this.cancelSlot[k] = -1;
      } else {
        this.crossing.push(undefined);
        this.cancelSlot[k] = Math.floor(rnd() * RESTING);
      }
    }
    this.engine = new kit.Engine({ symbols: kit.symbols, clock: this.clock, insuranceFund: '0' });
    for (const u of [...MAKERS, 'taker']) this.engine.createAccount({ userId: u, balance: '1000000000' });
    if (forget) for (const u of MAKERS) this.engine.forgetFinalOrders(u);
    for (let i = 0; i < RESTING; i++) {
      const user = MAKERS[i % MAKERS.length];
      this.liveUser.push(user);
      this.liveId.push(this.passive(user));
      this.setSlot(this.liveId[i], i);
    }
    this.engine.drain();
  }

  private setSlot(orderId: string, i: number): void {
    if (this.slot === undefined) return;
    const n = Number(orderId);
    if (n >= this.slot.length) {
      const grown = new Int32Array(Math.max(this.slot.length * 2, n + 1));
      grown.set(this.slot);
      this.slot = grown;
    }
    this.slot[n] = i + 1;
  }

  /** Puts a new order of the same maker in slot i. */
  private replace(i: number): void {
    const id = this.passive(this.liveUser[i]);
    if (this.slot !== undefined) {
      this.slot[Number(this.liveId[i])] = 0;
      this.setSlot(id, i);
    }
    this.liveId[i] = id;
  }

  private passive(user: string): string {
    const input = this.passiveRing[this.nextPassive];
    this.nextPassive = (this.nextPassive + 1) & (PASSIVE_RING - 1);
    return this.engine.placeOrder(user, input).orderId;
  }

  /** Runs the next op of the workload. */
  next(): void {
    if ((++this.n & 1023) === 0) this.clock.advance(1);
    const k = this.op++;
    const taker = this.crossing[k];
    if (taker !== undefined) {
      this.engine.placeOrder('taker', taker);
      // Re-place the makers' orders the sweep filled, to keep ~1,000 resting.
      for (const e of this.engine.drain()) {
        if (e.kind === 'order' && e.userId !== 'taker' && e.order.status === 'FILLED') {
          const at = this.slot === undefined ? 0 : (this.slot[Number(e.order.orderId)] ?? 0);
          if (at > 0) this.replace(at - 1);
        }
      }
    } else {
      const i = this.cancelSlot[k];
      const user = this.liveUser[i];
      const id = this.liveId[i];
      this.replace(i);
      this.engine.cancelOrder(user, { symbol: 'BTCUSDT', orderId: id });
    }
    this.engine.drain();
  }
}

export function fullEnginePart(title: string, label: string, crossFraction: number, seed: number, clientIds = false): EnginePart {
  return {
    title,
    run(): BenchResult[] {
      const d = new EngineDriver(crossFraction, seed, WARMUP + TIMED, THIS_BUILD, false, clientIds);
      const opsPerSec = measureThroughput(TIMED, WARMUP, (_start, count) => {
        for (let i = 0; i < count; i++) d.next();
      });
      const ld = new EngineDriver(crossFraction, seed + 1, WARMUP + LATENCY, THIS_BUILD, false, clientIds);
      for (let i = 0; i < WARMUP; i++) ld.next();
      const rec = new LatencyRecorder(LATENCY);
      const now = process.hrtime.bigint;
      for (let i = 0; i < LATENCY; i++) {
        const t = now();
        ld.next();
        rec.add(now() - t);
      }
      const audit = ld.engine.audit();
      if (audit.netQtyBySymbol.BTCUSDT !== 0) throw new Error('engine bench broke quantity conservation');
      return [
        // One op = a placement plus a cancel (or a crossing IOC plus re-placements).
        { name: `${label} throughput (batch timed)`, value: Math.round(opsPerSec), unit: 'ops/s' },
        ...latencyResults(`${label} latency`, rec.stats()),
      ];
    },
  };
}

/**
 * Memory each order leaves behind in the engine for its history (the order, its fills, balance
 * changes and closed positions): the heap and the typed arrays outside it that hold the columns
 * (counted apart by the runtime; until 2026-11-27 this figure left them out). The local exchange
 * bench's crossing workload: 8 makers and 8 takers in pairs, maker SELL GTC then taker BUY IOC at
 * the same price, maker BUY GTC then taker SELL IOC, every order with its own client order id.
 * Memory after a full collection, before and after 400,000 orders, divided by the orders.
 */
export function retainedHeapPart(): EnginePart {
  return {
    title: 'engine memory retained per order (crossing maker+taker pairs)',
    async run(): Promise<BenchResult[]> {
      const clock = new ManualClock(1_700_000_000_000);
      const engine = new Engine({ symbols: DEFAULT_SYMBOLS, clock, insuranceFund: '0' });
      for (let i = 0; i < 8; i++) {
        engine.createAccount({ userId: `m${i}`, balance: '1000000000' });
        engine.createAccount({ userId: `t${i}`, balance: '1000000000' });
      }
      let n = 0;
      const order = (user: string, side: 'BUY' | 'SELL', price: string, ioc: boolean): void => {
        engine.placeOrder(user, { symbol: 'BTCUSDT', type: 'LIMIT', side, price, quantity: '0.010', clientOrderId: `c${n++}`, ...(ioc ? { timeInForce: 'IOC' as const } : {}) });
      };
      const cycles = (from: number, count: number): void => {
        for (let i = from; i < from + count; i++) {
          const m = `m${i % 8}`;
          const t = `t${i % 8}`;
          order(m, 'SELL', '50000.0', false);
          order(t, 'BUY', '50000.0', true);
          order(m, 'BUY', '49999.0', false);
          order(t, 'SELL', '49999.0', true);
          engine.drain();
          if ((i & 255) === 0) clock.advance(1);
        }
      };
      // Typed arrays' memory is given back after a collection, by a sweeper of its own: the
      // earlier parts' engines were still counted, and the figure moved from 194 to 384 bytes.
      const settle = async (): Promise<void> => {
        for (let i = 0; i < 3; i++) {
          collectGarbage();
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      cycles(0, 10_000);
      await settle();
      // The heap and the typed arrays' memory outside it (final orders and histories are kept in columns).
      const used = (): number => {
        const m = process.memoryUsage();
        return m.heapUsed + m.arrayBuffers;
      };
      const before = used();
      const first = n;
      cycles(10_000, 100_000);
      await settle();
      const perOrder = (used() - before) / (n - first);
      if (engine.audit().netQtyBySymbol.BTCUSDT !== 0) throw new Error('engine bench broke quantity conservation');
      return [{ name: 'engine memory retained per order, heap and typed arrays (crossing pairs, client ids, history kept)', value: Math.round(perOrder), unit: 'bytes' }];
    },
  };
}
