/**
 * Every order by id: the open ones as objects (the matcher, the margin and the indexes change
 * them), the ones that have ended (filled, cancelled, expired, rejected, nothing frozen) in
 * columns of numbers. A final order never changes again, and the history keeps
 * it for the life of the exchange: as an object it was about 330 bytes and four heap objects (the
 * order, its times, its engine-made client id), each copied and promoted by the young-generation
 * collector; in columns it is 52 bytes (and the client id the user gave) and none. A lookup of a
 * final order builds an equal object, with the same fields in the same order, for the caller to
 * read.
 *
 * Iteration is in id order (creation order), over both.
 */
import { ORDER_STATUSES, ORDER_TYPES, POSITION_SIDES, SIDES, TIME_IN_FORCE, type PriceType } from '../../core/enums';
import type { MarginRate } from './accounts/margin-rate';
import { EngineOrder } from './model';
import { OrderTable } from './order-table';
import { fits32, Numbered } from '../../core/columns';
import type { SymbolSpec } from './symbols';

/**
 * Integer fields of a final order, side by side in its chunk: price in ticks, quantity and
 * executed quantity in steps (32 bits each while they fit; see FinalOrders.add). Not the id: a row
 * is reached from its id (the row index), so every reader has it already. The creation time is in
 * a chunk of its own (epoch milliseconds never fit 32 bits).
 */
const F_PRICE = 0;
const F_QTY = 1;
const F_EXECUTED = 2;
const FIELDS = 3;
/**
 * Rows per chunk. A row is written whole when its order ends (on the hot path of every cancel and
 * fill), so rows never straddle chunks (core/columns.ts tables, for histories written a field at a
 * time, do), and a full chunk is never copied. Making a chunk is the one slow step (~6 us for 256
 * rows; chunks of 1,024 took ~35 us and showed in the engine's p99.9 place+cancel latency).
 */
const SHIFT = 8;
const ROWS = 1 << SHIFT;
const MASK = ROWS - 1;
/**
 * Fields of a row in 32 bits each: the account, the symbol, the place type and the margin rate,
 * each a number in its own table of the values met (few: accounts, symbols, place types, and the
 * rates of the prices and sizes traded), the enums and flags (`codeOf`), and the update time as
 * milliseconds after the creation time. The references were 8 bytes each and an array of them for
 * the collector to scan at every full collection; a row is 52 bytes (120 with references, 80 with
 * the id, the code and the update time in 64 bits, 64 with price and quantities in 64 bits too).
 * Writing rows is most of what keeping the history costs place+cancel, and most of that is the
 * machine's first touch of new memory (12-16 us a 4 KiB page on the machines the benchmarks ran on).
 */
const I_USER = 0;
const I_SPEC = 1;
const I_PLACE = 2;
const I_RATE = 3;
const I_CODE = 4;
const I_UPDATED = 5;
const INDEXES = 6;
/** An update time more than 2^31-1 ms (24.8 days) from the creation time (or before it): kept apart. */
const FAR = -(2 ** 31);
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Margin rates numbered by value (mantissa and exponent): the engine's rates are objects of its
 * margin memo, one per price, size and leverage met (sizes share a per-step value), and a rate
 * restored from a snapshot is an object per order; by value they are one entry each. A final
 * order reads back the first object met of its value: the same digits, which is what a snapshot
 * writes.
 */
class Rates {
  readonly values: MarginRate[] = [];
  /**
   * Index of the objects kept in `values` (the engine's memo rates are met again and again). Only
   * those: a snapshot's rates, an object per order, would all be kept alive here.
   */
  private readonly byObject = new Map<MarginRate, number>();
  private readonly byMantissa = new Map<bigint, number[]>();

  of(r: MarginRate): number {
    const known = this.byObject.get(r);
    if (known !== undefined) return known;
    let same = this.byMantissa.get(r.m);
    if (same === undefined) {
      same = [];
      this.byMantissa.set(r.m, same);
    }
    const found = same.find((j) => this.values[j].e === r.e);
    if (found !== undefined) return found;
    const i = this.values.length;
    this.values.push(r);
    same.push(i);
    this.byObject.set(r, i);
    return i;
  }
}

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

/** Ids per page of the row index. */
const ID_PAGE = 1024;
/** Rows are held as row + 1 in 32 bits (0: none). */
const MAX_ROWS = 2 ** 31 - 2;

/**
 * The row of each final order by id: row + 1 in pages of 32-bit typed arrays (0: none), outside the
 * heap. As pages of a plain array (OrderTable) each page was a young object promoted by the
 * collector and then visited, slot by slot, at every full collection, for the life of the exchange.
 */
class RowIndex {
  private readonly pages: Array<Int32Array | undefined> = [];

  get(id: number): number | undefined {
    const page = this.pages[Math.floor(id / ID_PAGE)];
    if (page === undefined) return undefined;
    const v = page[id % ID_PAGE];
    return v === 0 ? undefined : v - 1;
  }

  set(id: number, row: number): void {
    const p = Math.floor(id / ID_PAGE);
    let page = this.pages[p];
    if (page === undefined) {
      page = new Int32Array(ID_PAGE);
      this.pages[p] = page;
    }
    page[id % ID_PAGE] = row + 1;
  }

  /** The ids that have a row, in order. */
  *ids(): IterableIterator<number> {
    for (let p = 0; p < this.pages.length; p++) {
      const page = this.pages[p];
      if (page === undefined) continue;
      for (let i = 0; i < ID_PAGE; i++) if (page[i] !== 0) yield p * ID_PAGE + i;
    }
  }
}

/** Final orders in columns, by id. */
class FinalOrders {
  /**
   * Chunk c holds rows c x ROWS onward, FIELDS integers a row: 32 bits each, or 64-bit doubles for
   * a chunk that met a value 32 bits cannot hold (a price of more than 2^31 - 1 ticks), so nothing
   * is ever wrapped.
   */
  private readonly ints: Array<Int32Array | Float64Array> = [];
  /** The creation time of each row of a chunk. */
  private readonly created: Float64Array[] = [];
  /** INDEXES numbers a row: see I_USER. */
  private readonly indexes: Int32Array[] = [];
  /** cumQuote of each row in 64 bits; the rows whose amount is beyond that, apart (never wrapped). */
  private readonly quotes: BigInt64Array[] = [];
  private readonly bigQuotes = new Map<number, bigint>();
  /** updateTime of the rows whose I_UPDATED is FAR. */
  private readonly farUpdates = new Map<number, number>();
  /**
   * The client id of each row of a chunk, or undefined for the engine-made `auto-<id>` (made again
   * when read); a chunk whose orders all have engine-made ids has no array.
   */
  private readonly clientIds: Array<Array<string | undefined> | undefined> = [];
  /** Condition and strategy ids of the rows placed by one (few are). */
  private readonly conditionIds = new Map<number, number>();
  private readonly strategyIds = new Map<number, number>();
  private readonly users = new Numbered<string>();
  private readonly specs = new Numbered<SymbolSpec>();
  private readonly places = new Numbered<string>();
  private readonly rates = new Rates();
  /** Row of each id. */
  private readonly rows = new RowIndex();
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** Adds the order's row; false (nothing kept) when a field has a value the columns cannot hold. */
  add(o: EngineOrder): boolean {
    const code = codeOf(o);
    if (code < 0 || this.n >= MAX_ROWS) return false;
    const r = this.n++;
    const c = r >>> SHIFT;
    if (c === this.ints.length) {
      this.ints.push(new Int32Array(ROWS * FIELDS));
      this.created.push(new Float64Array(ROWS));
      this.indexes.push(new Int32Array(ROWS * INDEXES));
      this.quotes.push(new BigInt64Array(ROWS));
      this.clientIds.push(undefined);
    }
    let t = this.ints[c];
    if (t instanceof Int32Array && !(fits32(o.price) && fits32(o.qty) && fits32(o.executed))) {
      t = Float64Array.from(t);
      this.ints[c] = t;
    }
    const at = r & MASK;
    const b = at * FIELDS;
    t[b + F_PRICE] = o.price;
    t[b + F_QTY] = o.qty;
    t[b + F_EXECUTED] = o.executed;
    this.created[c][at] = o.createdAt;
    const x = this.indexes[c];
    const k = at * INDEXES;
    x[k + I_USER] = this.users.of(o.userId);
    x[k + I_SPEC] = this.specs.of(o.symbol);
    x[k + I_PLACE] = this.places.of(o.placeType);
    x[k + I_RATE] = this.rates.of(o.frozenPerStep);
    x[k + I_CODE] = code;
    const later = o.updateTime - o.createdAt;
    if (later > FAR && later < 2 ** 31 && Number.isInteger(later)) x[k + I_UPDATED] = later;
    else {
      x[k + I_UPDATED] = FAR;
      this.farUpdates.set(r, o.updateTime);
    }
    const q = o.cumQuote;
    if (q >= INT64_MIN && q <= INT64_MAX) this.quotes[c][at] = q;
    else this.bigQuotes.set(r, q);
    if (!isAutoIdOf(o.clientOrderId, o.id)) {
      let ids = this.clientIds[c];
      if (ids === undefined) {
        ids = new Array<string | undefined>(ROWS);
        this.clientIds[c] = ids;
      }
      ids[at] = o.clientOrderId;
    }
    if (o.conditionId !== 0) this.conditionIds.set(r, o.conditionId);
    if (o.strategyId !== 0) this.strategyIds.set(r, o.strategyId);
    this.rows.set(o.id, r);
    return true;
  }

  has(id: number): boolean {
    return this.rows.get(id) !== undefined;
  }

  get(id: number): EngineOrder | undefined {
    const r = this.rows.get(id);
    // A copy of the reused object, an EngineOrder as open orders are.
    return r === undefined ? undefined : EngineOrder.from(this.read(r, id));
  }

  /** The order in the reused object, or undefined: read it before the next call. */
  peek(id: number): EngineOrder | undefined {
    const r = this.rows.get(id);
    return r === undefined ? undefined : this.read(r, id);
  }

  /** Ids in order, for merging with the open orders'. */
  *ids(): IterableIterator<number> {
    yield* this.rows.ids();
  }

  /**
   * Row `r`, of order `id`, written into the one object this store reuses (an EngineOrder, so that
   * it and its copies are shaped as open orders are).
   */
  private read(r: number, id: number): EngineOrder {
    const c = r >>> SHIFT;
    const at = r & MASK;
    const t = this.ints[c];
    const b = at * FIELDS;
    const x = this.indexes[c];
    const k = at * INDEXES;
    const code = x[k + I_CODE];
    const o = this.reused;
    o.id = id;
    o.userId = this.users.values[x[k + I_USER]];
    o.symbol = this.specs.values[x[k + I_SPEC]];
    o.side = SIDES[code & 1];
    o.positionSide = POSITION_SIDES[(code >> 1) & 3];
    o.type = ORDER_TYPES[(code >> 3) & 1];
    o.timeInForce = TIME_IN_FORCE[(code >> 4) & 3];
    o.price = t[b + F_PRICE];
    o.qty = t[b + F_QTY];
    o.executed = t[b + F_EXECUTED];
    o.cumQuote = (this.bigQuotes.size === 0 ? undefined : this.bigQuotes.get(r)) ?? this.quotes[c][at];
    o.status = ORDER_STATUSES[(code >> 6) & 7];
    o.reduceOnly = (code & (1 << 9)) !== 0;
    o.makerOnly = (code & (1 << 10)) !== 0;
    o.closePosition = (code & (1 << 11)) !== 0;
    o.priceType = ((code >> 12) & 7) as PriceType;
    o.placeType = this.places.values[x[k + I_PLACE]];
    o.clientOrderId = this.clientIds[c]?.[at] ?? `auto-${id}`;
    o.createdAt = this.created[c][at];
    const later = x[k + I_UPDATED];
    o.updateTime = later === FAR ? (this.farUpdates.get(r) as number) : o.createdAt + later;
    o.conditionId = this.conditionIds.size === 0 ? 0 : (this.conditionIds.get(r) ?? 0);
    o.strategyId = this.strategyIds.size === 0 ? 0 : (this.strategyIds.get(r) ?? 0);
    o.frozenPerStep = this.rates.values[x[k + I_RATE]];
    return o;
  }

  private readonly reused = new EngineOrder();
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
