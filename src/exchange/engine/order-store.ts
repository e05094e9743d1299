/**
 * Every order by id: the open ones as objects (the matcher, the margin and the indexes change
 * them), the ones that have ended (filled, cancelled, expired, rejected, nothing frozen) in
 * columns of numbers. A final order never changes again, and the history keeps
 * it for the life of the exchange: as an object it was about 330 bytes and four heap objects (the
 * order, its times, its engine-made client id), each copied and promoted by the young-generation
 * collector; in columns it is about 100 bytes and none. A lookup of a final order builds an equal
 * object, with the same fields in the same order, for the caller to read.
 *
 * Iteration is in id order (creation order), over both.
 */
import { ORDER_STATUSES, ORDER_TYPES, POSITION_SIDES, SIDES, TIME_IN_FORCE, type PriceType } from '../../core/enums';
import { EX_ZERO } from '../../core/exact';
import type { MarginRate } from './accounts/margin-rate';
import type { EngineOrder } from './model';
import { OrderTable } from './order-table';
import type { SymbolSpec } from './symbols';

/** Number fields of a final order, side by side in its chunk. */
const F_ID = 0;
const F_PRICE = 1;
const F_QTY = 2;
const F_EXECUTED = 3;
const F_CREATED = 4;
const F_UPDATED = 5;
const F_CONDITION = 6;
const F_STRATEGY = 7;
/** Enums and flags in one number: see `codeOf`. */
const F_CODE = 8;
const FIELDS = 9;
/**
 * Rows per chunk. A row is written whole when its order ends (on the hot path of every cancel and
 * fill), so rows never straddle chunks (core/columns.ts tables, for histories written a field at a
 * time, do), and a full chunk is never copied. Making a chunk is the one slow step (~6 us for 256
 * rows; chunks of 1,024 took ~35 us and showed in the engine's p99.9 place+cancel latency).
 */
const SHIFT = 8;
const ROWS = 1 << SHIFT;
const MASK = ROWS - 1;
/** Reference slots of a row. */
const R_USER = 0;
const R_SPEC = 1;
const R_PLACE = 2;
const R_RATE = 3;
const R_CLIENT = 4;
const REFS = 5;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * side 1 bit, position side 2, type 1, time in force 2, status 3, three flags, price type 3; -1
 * for a value none of these can hold (an order restored from a damaged snapshot stays an object).
 */
function codeOf(o: EngineOrder): number {
  const side = SIDES.indexOf(o.side);
  const positionSide = POSITION_SIDES.indexOf(o.positionSide);
  const type = ORDER_TYPES.indexOf(o.type);
  const tif = TIME_IN_FORCE.indexOf(o.timeInForce);
  const status = ORDER_STATUSES.indexOf(o.status);
  const priceType = o.priceType;
  if ((side | positionSide | type | tif | status) < 0 || !(priceType >= 0 && priceType <= 7 && Number.isInteger(priceType))) return -1;
  return (
    side |
    (positionSide << 1) |
    (type << 3) |
    (tif << 4) |
    (status << 6) |
    (o.reduceOnly ? 1 << 9 : 0) |
    (o.makerOnly ? 1 << 10 : 0) |
    (o.closePosition ? 1 << 11 : 0) |
    (priceType << 12)
  );
}

/** Whether `s` is the engine-made client id of order `id` (`auto-<id>`), without building it. */
function isAutoIdOf(s: string, id: number): boolean {
  const n = s.length;
  if (n < 6 || n > 21 || !s.startsWith('auto-') || (s.charCodeAt(5) === 48 && n > 6)) return false;
  let v = 0;
  for (let i = 5; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    v = v * 10 + d;
  }
  return v === id;
}

/** Final orders in columns, by id. */
class FinalOrders {
  /** Chunk c holds rows c x ROWS onward, FIELDS numbers a row. */
  private readonly nums: Float64Array[] = [];
  /** cumQuote of each row in 64 bits; the rows whose amount is beyond that, apart (never wrapped). */
  private readonly quotes: BigInt64Array[] = [];
  private readonly bigQuotes = new Map<number, bigint>();
  /**
   * References, REFS a row, in chunks of fixed size like the numbers (an array grown by pushes
   * copies itself as it grows, and that cost more than the rest of a row): the account's id string,
   * the spec, the place type, the margin rate, and the client id, or undefined for the engine-made
   * `auto-<id>` (made again when read).
   */
  private readonly refs: Array<Array<string | SymbolSpec | MarginRate | undefined>> = [];
  /** Row of each id. */
  private readonly rows = new OrderTable<number>();
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** Adds the order's row; false (nothing kept) when a field has a value the columns cannot hold. */
  add(o: EngineOrder): boolean {
    const code = codeOf(o);
    if (code < 0) return false;
    const r = this.n++;
    const c = r >>> SHIFT;
    if (c === this.nums.length) {
      this.nums.push(new Float64Array(ROWS * FIELDS));
      this.quotes.push(new BigInt64Array(ROWS));
      this.refs.push(new Array<undefined>(ROWS * REFS));
    }
    const t = this.nums[c];
    const b = (r & MASK) * FIELDS;
    t[b + F_ID] = o.id;
    t[b + F_PRICE] = o.price;
    t[b + F_QTY] = o.qty;
    t[b + F_EXECUTED] = o.executed;
    t[b + F_CREATED] = o.createdAt;
    t[b + F_UPDATED] = o.updateTime;
    t[b + F_CONDITION] = o.conditionId;
    t[b + F_STRATEGY] = o.strategyId;
    t[b + F_CODE] = code;
    const q = o.cumQuote;
    if (q >= INT64_MIN && q <= INT64_MAX) this.quotes[c][r & MASK] = q;
    else this.bigQuotes.set(r, q);
    const refs = this.refs[c];
    const k = (r & MASK) * REFS;
    refs[k + R_USER] = o.userId;
    refs[k + R_SPEC] = o.symbol;
    refs[k + R_PLACE] = o.placeType;
    refs[k + R_RATE] = o.frozenPerStep;
    refs[k + R_CLIENT] = isAutoIdOf(o.clientOrderId, o.id) ? undefined : o.clientOrderId;
    this.rows.set(o.id, r);
    return true;
  }

  has(id: number): boolean {
    return this.rows.has(id);
  }

  get(id: number): EngineOrder | undefined {
    const r = this.rows.get(id);
    // A copy of the reused object: the same fields in the same order.
    return r === undefined ? undefined : { ...this.read(r) };
  }

  /** The order in the reused object, or undefined: read it before the next call. */
  peek(id: number): EngineOrder | undefined {
    const r = this.rows.get(id);
    return r === undefined ? undefined : this.read(r);
  }

  /** Ids in order, for merging with the open orders'. */
  *ids(): IterableIterator<number> {
    for (const r of this.rows.values()) yield this.nums[r >>> SHIFT][(r & MASK) * FIELDS + F_ID];
  }

  /**
   * Row `r` written into the one object this store reuses (made with EngineOrder's fields in the
   * order an order is created with, so copies of it are shaped as open orders are).
   */
  private read(r: number): EngineOrder {
    const t = this.nums[r >>> SHIFT];
    const b = (r & MASK) * FIELDS;
    const refs = this.refs[r >>> SHIFT];
    const k = (r & MASK) * REFS;
    const id = t[b + F_ID];
    const code = t[b + F_CODE];
    const o = this.reused;
    o.id = id;
    o.userId = refs[k + R_USER] as string;
    o.symbol = refs[k + R_SPEC] as SymbolSpec;
    o.side = SIDES[code & 1];
    o.positionSide = POSITION_SIDES[(code >> 1) & 3];
    o.type = ORDER_TYPES[(code >> 3) & 1];
    o.timeInForce = TIME_IN_FORCE[(code >> 4) & 3];
    o.price = t[b + F_PRICE];
    o.qty = t[b + F_QTY];
    o.executed = t[b + F_EXECUTED];
    o.cumQuote = this.bigQuotes.get(r) ?? this.quotes[r >>> SHIFT][r & MASK];
    o.status = ORDER_STATUSES[(code >> 6) & 7];
    o.reduceOnly = (code & (1 << 9)) !== 0;
    o.makerOnly = (code & (1 << 10)) !== 0;
    o.closePosition = (code & (1 << 11)) !== 0;
    o.priceType = ((code >> 12) & 7) as PriceType;
    o.placeType = refs[k + R_PLACE] as string;
    o.clientOrderId = (refs[k + R_CLIENT] as string | undefined) ?? `auto-${id}`;
    o.createdAt = t[b + F_CREATED];
    o.updateTime = t[b + F_UPDATED];
    o.conditionId = t[b + F_CONDITION];
    o.strategyId = t[b + F_STRATEGY];
    o.frozenPerStep = refs[k + R_RATE] as MarginRate;
    return o;
  }

  private readonly reused: EngineOrder = {
    id: 0,
    userId: '',
    symbol: undefined as unknown as SymbolSpec,
    side: 'BUY',
    positionSide: 'BOTH',
    type: 'LIMIT',
    timeInForce: 'GTC',
    price: 0,
    qty: 0,
    executed: 0,
    cumQuote: 0n,
    status: 'NEW',
    reduceOnly: false,
    makerOnly: false,
    closePosition: false,
    priceType: 0,
    placeType: '',
    clientOrderId: '',
    createdAt: 0,
    updateTime: 0,
    conditionId: 0,
    strategyId: 0,
    frozenPerStep: EX_ZERO,
    frozen: 0n,
  };
}

export class OrderStore {
  private readonly open = new OrderTable<EngineOrder>();
  private final = new FinalOrders();

  get size(): number {
    return this.open.size + this.final.size;
  }

  /** The order: the object itself while it is open, a copy built from its columns once it has ended. */
  get(id: number): EngineOrder | undefined {
    return this.open.get(id) ?? this.final.get(id);
  }

  /**
   * The order to read at once: an ended one in an object this store reuses on the next call (for
   * scans of a long history that keep nothing, such as a filtered query or a snapshot).
   */
  peek(id: number): EngineOrder | undefined {
    return this.open.get(id) ?? this.final.peek(id);
  }

  has(id: number): boolean {
    return this.open.has(id) || this.final.has(id);
  }

  set(id: number, o: EngineOrder): void {
    this.open.set(id, o);
  }

  /** Forgets an order that has not been retired (a final order of an account that keeps none). */
  delete(id: number): boolean {
    return this.open.delete(id);
  }

  /**
   * Moves an order that has ended, with nothing frozen, into the columns. The caller's object
   * stays valid for the rest of the command (its events are made from it); nothing changes an
   * order after it has ended.
   */
  retire(o: EngineOrder): void {
    if (o.frozen !== 0n) throw new Error(`order ${o.id} still holds frozen margin and cannot be retired`);
    if (this.open.get(o.id) !== o || !this.final.add(o)) return;
    this.open.delete(o.id);
  }

  clear(): void {
    this.open.clear();
    this.final = new FinalOrders();
  }

  /** Every order in id order; an ended one in the reused object of `peek` (read it before the next). */
  *values(): IterableIterator<EngineOrder> {
    const open = this.open.values();
    const final = this.final.ids();
    let a = open.next();
    let b = final.next();
    while (!a.done || !b.done) {
      if (b.done || (!a.done && a.value.id < b.value)) {
        yield a.value;
        a = open.next();
      } else {
        yield this.final.peek(b.value) as EngineOrder;
        b = final.next();
      }
    }
  }
}
