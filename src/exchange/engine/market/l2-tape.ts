/**
 * The tape's `l2` book mode: the recorded L2 book (v2 `snapshot` and `book` events, its top kept
 * current by `quote` events; or v1 `depth` lines, each a whole top-of-book snapshot) as the market side of the engine, with queue positions for resting
 * orders (see queue.ts). TapeReplayer owns one and hands it the L2 events and the trades.
 *
 * Rules (docs/backtesting.md, "Fill models"):
 * - The top of the recorded book rests in the engine as the tape quotes (tape-quotes.ts). Deeper
 *   levels are put in the book only around a participant's order that could reach them
 *   (`beforeTaker`), up to its limit price (or what a market order needs), at most `depthLevels`
 *   levels a side, and taken out again right after (`afterTaker`). So marketable orders walk the
 *   recorded levels.
 * - Liquidity a participant took from a level stays taken until the data updates that level (a
 *   `book` or `snapshot` event naming its price, or a `quote` at it): the next order meets what is
 *   left of it.
 * - A participant's resting order fills only by recorded trades: fully-priced-through orders
 *   first (a trade at p proves a taker reached p), then orders at p by their queue position: the
 *   trade consumes the recorded quantity ahead first (per the queue model). At most the trade's
 *   quantity fills in all. A recorded book that moves through a resting order without a trade
 *   does not fill it.
 * - A participant's order joins its level behind the recorded quantity there at the moment it
 *   arrived: positions are set when an event first touches the level after the order came
 *   (nothing touched the level in between, so its quantity then is the one on arrival).
 * - A v1 `depth` line (synthetic data, `perpkit record`) is the venue's whole book down to some
 *   depth (the top 20 levels a side of the venue's depth push; `perpkit synth`: 10), best first,
 *   without update ids: each one replaces the book as a `snapshot` does, so levels deeper than
 *   the line's are unknown until the next (counted in `depthLines`, the most levels a side in
 *   `depthLineLevels`).
 * - A `gap` marks the symbol's book unknown: `book` deltas are skipped (counted) until the next
 *   `snapshot`; quotes and trades go on. So does the start of another recording file (`forgetBooks`):
 *   a book never carries over from one file to the next.
 * - Newest by update id: the venue's update ids order the book's states (Binance: a `quote`'s `u`
 *   and a delta's `U`..`u` count the same updates), but the quote and depth streams arrive each in
 *   its own order, so a quote can be received after a delta that is newer than it (967 of the
 *   66,046 quotes of the shared Binance capture). Such a quote's levels are older than the book's
 *   and are not applied (`staleQuotes`); likewise a delta's level that a newer quote already set
 *   keeps the quote's quantity (`staleLevels`). Events without update ids are applied in order.
 * Book and snapshot levels, and quotes, may come in integer ticks and steps straight from the
 * replay cache's columns (`applyUnits`, `quoteUnits`): the same as the events' decimal texts.
 */
import type { Level, RecordedEvent } from '../../../market-data/format';
import { ASKS, BIDS, TickBook, type TickSide } from './tick-book';
import type { OrderRef, PlaceOrderInput } from '../inputs';
import type { RestingOrder } from '../orders/queries';
import { isThenable, levelSteps, type SpecInfo } from './tape-specs';
import { ParticipantOrders } from './l2-participants';
import { queueModel, type QueueModel, type QueueOptions, type QueuePos } from './queue';
import { newL2Stats, type L2Stats } from './tape-sink';
import { UpdateIds } from './l2-update-ids';
import { ErrorCodes, VenueError } from '../../../core/errors';

type Side = 'BUY' | 'SELL';

/** What the L2 mode needs of the sink beyond placing and cancelling. */
export interface L2Sink {
  placeOrder(userId: string, input: PlaceOrderInput): unknown;
  cancelOrder(userId: string, ref: OrderRef): unknown;
  orderProgress?(userId: string, ref: OrderRef): { status: string; executedQty?: string };
  restingThrough(symbol: string, side: Side, limitTicks: number, exactly?: boolean): RestingOrder[];
  /** Changes whenever the symbol's resting orders do: the participants' orders are read again only then. */
  bookVersion?(symbol: string): number;
}

interface SymbolL2 {
  book: TickBook;
  known: boolean;
  /** Which quotes and delta levels are older than the book (l2-update-ids.ts). */
  ids: UpdateIds;
  /** Steps taken from a level by participants, until the data updates it, by side and ticks. */
  taken: [Map<number, number>, Map<number, number>];
}

interface Placed {
  symbol: string;
  side: TickSide;
  ticks: number;
  clientOrderId: string;
  steps: number;
  g: SpecInfo;
}

const sideOf = (side: Side): TickSide => (side === 'BUY' ? BIDS : ASKS);

/** The status a sink answered a placement with, when it says one at once (a status, or a record with one). */
const statusOf = (r: unknown): unknown => (typeof r === 'string' ? r : typeof r === 'object' && r !== null && 'status' in r ? r.status : undefined);

export class L2Tape {
  readonly stats: L2Stats;
  readonly queue: QueueModel;
  private readonly symbols = new Map<string, SymbolL2>();
  private readonly positions = new Map<number, QueuePos>();
  private placed: Placed[] = [];
  private ln = 0;
  /** The participants' resting orders (l2-participants.ts). */
  private readonly orders: ParticipantOrders;

  constructor(
    private readonly sink: L2Sink,
    private readonly maker: string,
    isTape: (userId: string) => boolean,
    private readonly grids: (symbol: string) => SpecInfo | undefined,
    queue: QueueOptions,
    private readonly depthLevels: number,
  ) {
    this.queue = queueModel(queue);
    this.orders = new ParticipantOrders(sink, isTape, () => {
      if (this.positions.size > 4096) this.prune();
    });
    this.stats = newL2Stats(this.queue.name);
  }

  private sym(symbol: string): SymbolL2 {
    let s = this.symbols.get(symbol);
    if (s === undefined) {
      s = { book: new TickBook(), known: false, ids: new UpdateIds(this.stats), taken: [new Map(), new Map()] };
      this.symbols.set(symbol, s);
    }
    return s;
  }

  /** Applies a v2 `snapshot`, `book`, `quote` or `gap` event, or a v1 `depth` line (a snapshot without update id), to the recorded book. */
  apply(e: RecordedEvent): void {
    switch (e.k) {
      case 'snapshot':
      case 'depth': {
        const s = this.sym(e.s);
        const g = this.grids(e.s);
        if (g === undefined) return;
        const next = new TickBook();
        for (const [p, q] of e.b) this.setLevel(g, next, BIDS, p, q);
        for (const [p, q] of e.a) this.setLevel(g, next, ASKS, p, q);
        if (e.k === 'depth') {
          this.stats.depthLines++;
          this.stats.depthLineLevels = Math.max(this.stats.depthLineLevels, e.b.length, e.a.length);
        }
        this.replaceBook(e.s, s, next, e.k === 'snapshot' ? e.u : undefined);
        return;
      }
      case 'book': {
        const s = this.sym(e.s);
        if (!s.known) {
          this.stats.deltasSkipped++;
          return;
        }
        this.stats.deltas++;
        this.levels(e.s, s, 'BUY', e.b, e.u);
        this.levels(e.s, s, 'SELL', e.a, e.u);
        s.ids.applied(e.u);
        return;
      }
      case 'quote': {
        // The quote is the newest word on its two levels; the book's other levels wait for deltas.
        const s = this.sym(e.s);
        const g = this.grids(e.s);
        if (g === undefined || s.ids.staleQuote(e.u)) return;
        this.quoteLevel(e.s, s, g, 'BUY', e.bp, e.bq, e.u);
        this.quoteLevel(e.s, s, g, 'SELL', e.ap, e.aq, e.u);
        return;
      }
      case 'gap': {
        // A gap of one symbol's book, or of the whole public stream (every book).
        if (e.stream !== 'public') return;
        for (const [name, s] of this.symbols) if (e.s === undefined || e.s === name) s.known = false;
        return;
      }
      default:
        return;
    }
  }

  /**
   * Every book unknown until its next snapshot, as after a gap of the whole stream: at the start of
   * another recording file (a book never carries over from the file before; a file that goes on
   * from it starts with a snapshot, as imports write them).
   */
  forgetBooks(): void {
    for (const s of this.symbols.values()) s.known = false;
  }

  /**
   * A `snapshot` (or, `snapshot` false, a `book` event) given in units of the symbol's grids, as the
   * replay cache's columns hold it: `bids` levels from `start` in `ticks` and `steps`, then `asks`
   * levels. The same as `apply` with the event's strings, without making or parsing any.
   */
  applyUnits(symbol: string, snapshot: boolean, ticks: ArrayLike<number>, steps: ArrayLike<number>, start: number, bids: number, asks: number, u?: number): void {
    const s = this.sym(symbol);
    if (snapshot) {
      if (this.grids(symbol) === undefined) return;
      const next = new TickBook();
      const end = start + bids + asks;
      for (let k = start; k < end; k++) next.set(k < start + bids ? BIDS : ASKS, ticks[k], steps[k]);
      this.replaceBook(symbol, s, next, u);
      return;
    }
    if (!s.known) {
      this.stats.deltasSkipped++;
      return;
    }
    this.stats.deltas++;
    if (this.grids(symbol) === undefined) return;
    this.unitLevels(symbol, s, 'BUY', ticks, steps, start, bids, u);
    this.unitLevels(symbol, s, 'SELL', ticks, steps, start + bids, asks, u);
    s.ids.applied(u);
  }

  private replaceBook(symbol: string, s: SymbolL2, next: TickBook, u: number | undefined): void {
    this.stats.snapshots++;
    s.ids.reset(u);
    // Every resting participant order: its level goes from what it was to what the snapshot says.
    this.resetLevels(symbol, s.book, next);
    s.book = next;
    s.known = true;
    s.taken[BIDS].clear();
    s.taken[ASKS].clear();
  }

  /** Sets the levels a message names, updating the queues of the participant orders there first. */
  private levels(symbol: string, s: SymbolL2, side: Side, levels: readonly Level[], u: number | undefined): void {
    const g = this.grids(symbol);
    if (g === undefined || levels.length === 0) return;
    const orders = this.orders.side(symbol, side);
    const bs = sideOf(side);
    for (const [p, q] of levels) {
      const ticks = g.tick.toUnits(p);
      if (ticks === undefined || s.ids.staleLevel(bs, ticks, u)) continue;
      this.level(s, side, ticks, levelSteps(g, q), orders);
    }
  }

  private unitLevels(symbol: string, s: SymbolL2, side: Side, ticks: ArrayLike<number>, steps: ArrayLike<number>, start: number, count: number, u: number | undefined): void {
    if (count === 0) return;
    const orders = this.orders.side(symbol, side);
    // Levels outside the participants' prices only change the book (most of a depth message's).
    let lo = Infinity;
    let hi = -Infinity;
    for (let j = 0; j < orders.length; j++) {
      const t = orders[j].ticks;
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
    const bs = sideOf(side);
    const taken = s.taken[bs];
    const book = s.book;
    const ids = s.ids;
    const quoted = ids.anyQuoted(bs);
    for (let k = start; k < start + count; k++) {
      const t = ticks[k];
      if (quoted && ids.staleLevel(bs, t, u)) continue;
      if (t >= lo && t <= hi) {
        this.level(s, side, t, steps[k], orders);
      } else {
        if (taken.size > 0) taken.delete(t);
        book.set(bs, t, steps[k]);
      }
    }
  }

  /** A `quote` event given in units of the symbol's grids (the replay cache's columns): the same as `apply` of it. */
  quoteUnits(symbol: string, bidTicks: number, bidSteps: number, askTicks: number, askSteps: number, u?: number): void {
    const s = this.sym(symbol);
    if (this.grids(symbol) === undefined || s.ids.staleQuote(u)) return;
    s.ids.quoted(BIDS, bidTicks, u);
    s.ids.quoted(ASKS, askTicks, u);
    // Both sides' kept lists at one reading of the book version (level() takes those at the price).
    const c = this.orders.both(symbol);
    this.level(s, 'BUY', bidTicks, bidSteps, c === undefined ? this.orders.at(symbol, 'BUY', bidTicks) : c[0].orders);
    this.level(s, 'SELL', askTicks, askSteps, c === undefined ? this.orders.at(symbol, 'SELL', askTicks) : c[1].orders);
  }

  /** A quote's level: as a one-level message. */
  private quoteLevel(symbol: string, s: SymbolL2, g: SpecInfo, side: Side, p: string, q: string, u: number | undefined): void {
    const ticks = g.tick.toUnits(p);
    if (ticks === undefined) return;
    s.ids.quoted(sideOf(side), ticks, u);
    this.level(s, side, ticks, levelSteps(g, q), this.orders.at(symbol, side, ticks));
  }

  /**
   * Sets one level to `next` steps. `orders`: the participants' resting orders on that side (any
   * price, best first and in time priority: those at `ticks` get their queues updated first).
   */
  private level(s: SymbolL2, side: Side, ticks: number, next: number, orders: readonly RestingOrder[]): void {
    const bs = sideOf(side);
    const taken = s.taken[bs];
    if (taken.size > 0) taken.delete(ticks);
    let prev = -1;
    for (let j = 0; j < orders.length; j++) {
      const o = orders[j];
      if (o.ticks !== ticks) continue;
      if (prev < 0) prev = s.book.get(bs, ticks);
      this.stats.depthUpdates++;
      this.queue.depth(this.position(o, prev), prev, next);
    }
    s.book.set(bs, ticks, next);
  }

  private setLevel(g: SpecInfo, book: TickBook, side: TickSide, p: string, q: string): void {
    const ticks = g.tick.toUnits(p);
    if (ticks !== undefined) book.set(side, ticks, levelSteps(g, q));
  }

  private resetLevels(symbol: string, prev: TickBook, next: TickBook): void {
    for (const side of ['BUY', 'SELL'] as const) {
      const bs = sideOf(side);
      for (const o of this.orders.side(symbol, side)) {
        const was = prev.get(bs, o.ticks);
        this.stats.depthUpdates++;
        this.queue.depth(this.position(o, was), was, next.get(bs, o.ticks));
      }
    }
  }

  /**
   * A recorded trade at `price` (`ticks`) for `steps`, `takerSide` the taker's: the steps of the
   * participants' resting orders it fills, per the queue model (0 when none). Advances the queues.
   */
  tradeFills(symbol: string, ticks: number, steps: number, takerSide: Side): number {
    const makerSide: Side = takerSide === 'BUY' ? 'SELL' : 'BUY';
    const orders = this.orders.through(symbol, makerSide, ticks, false);
    if (orders.length === 0) return 0;
    const level = this.sym(symbol).book.get(sideOf(makerSide), ticks);
    let budget = steps;
    let fill = 0;
    let takenAtPrice = 0;
    for (const o of orders) {
      if (o.ticks !== ticks) {
        // Priced through the trade: ahead of the whole recorded level.
        const take = Math.min(o.left, budget);
        fill += take;
        budget -= take;
        if (take > 0) this.stats.throughFills++;
        continue;
      }
      const past = Math.floor(this.queue.trade(this.position(o, level), steps));
      // What passes the market's queue is shared by the participants' orders at p in time order.
      const take = Math.max(0, Math.min(o.left, past - takenAtPrice, budget));
      if (take > 0) this.stats.atPriceFills++;
      else if (past <= takenAtPrice) this.stats.queueHeld++;
      takenAtPrice += take;
      fill += take;
      budget -= take;
    }
    if (fill > 0) this.stats.queueFills++;
    return fill;
  }

  /** Counts a fill the queue model allowed that the engine could not place. */
  unfillable(): void {
    this.stats.unfillable++;
  }

  /**
   * Before a participant's order that may take liquidity: puts the recorded levels beyond the tape
   * quote (`quotePrice`, the top the tape already shows) up to `limit` (undefined: a market order
   * for `qty`) into the book as the tape maker's orders, less what participants took from them.
   */
  beforeTaker(symbol: string, side: Side, limit: string | undefined, qty: string | undefined, quotePrice: string | undefined): void {
    const g = this.grids(symbol);
    const s = this.symbols.get(symbol);
    if (g === undefined || s === undefined || !s.known) return;
    // Worse for the taker = further from the touch: ascending asks, descending bids.
    const dir = side === 'BUY' ? 1 : -1;
    const lim = limit === undefined ? undefined : g.tick.toUnits(limit);
    const top = quotePrice === undefined ? undefined : g.tick.toUnits(quotePrice);
    if (limit !== undefined && lim === undefined) return;
    // A limit that does not pass the tape's quote reaches no deeper level (a passive order: most of them).
    if (lim !== undefined && top !== undefined && dir * (lim - top) <= 0) return;
    this.stats.takers++;
    const bs: TickSide = side === 'BUY' ? ASKS : BIDS;
    const prices: number[] = [];
    for (const p of s.book.prices(bs)) {
      if (top !== undefined && dir * (p - top) <= 0) continue;
      if (lim !== undefined && dir * (p - lim) > 0) continue;
      prices.push(p);
    }
    prices.sort((a, b) => dir * (a - b));
    let need = lim === undefined && qty !== undefined ? (g.step.toUnits(qty) ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
    for (const p of prices.slice(0, this.depthLevels)) {
      if (need <= 0) break;
      const left = Math.min(s.book.get(bs, p), g.maxSteps) - (s.taken[bs].get(p) ?? 0);
      if (left <= 0) continue;
      const clientOrderId = `tape-l-${++this.ln}`;
      try {
        const r = this.sink.placeOrder(this.maker, { symbol, type: 'LIMIT', side: side === 'BUY' ? 'SELL' : 'BUY', price: g.tick.fromUnits(p), quantity: g.step.fromUnits(left), timeInForce: 'GTC', makerOnly: true, clientOrderId });
        if (isThenable(r)) r.then(undefined, () => undefined);
        // Refused as crossing a resting order (makerOnly) without a throw, the engine's status
        // answer: not a level to walk, and nothing of a market order's quantity is met there.
        if (statusOf(r) === 'REJECTED') continue;
      } catch {
        // Below the minimum notional, or crossing a resting order (makerOnly): not a level to walk.
        continue;
      }
      this.stats.levelsPlaced++;
      this.placed.push({ symbol, side: bs, ticks: p, clientOrderId, steps: left, g });
      need -= left;
    }
  }

  /** After the participant's order: takes the deeper levels out again, remembering what was taken. */
  afterTaker(): void {
    if (this.placed.length === 0) return;
    const placed = this.placed;
    this.placed = [];
    for (const l of placed) {
      const ref = { symbol: l.symbol, clientOrderId: l.clientOrderId };
      let done = 0;
      try {
        const o = this.sink.orderProgress?.(this.maker, ref);
        done = o?.executedQty === undefined ? 0 : (l.g.step.toUnits(o.executedQty) ?? 0);
      } catch (e) {
        // Not found: it ended and was forgotten (a backtest's tape forgets its final orders), and
        // only filling ends it before the cancel below: the whole level was taken.
        done = e instanceof VenueError && e.code === ErrorCodes.ORDER_NOT_FOUND ? l.steps : 0;
      }
      if (done > 0) {
        const taken = this.sym(l.symbol).taken[l.side];
        taken.set(l.ticks, (taken.get(l.ticks) ?? 0) + done);
        this.stats.levelsTaken++;
      }
      if (done < l.steps) {
        try {
          const r = this.sink.cancelOrder(this.maker, ref);
          if (isThenable(r)) r.then(undefined, () => undefined);
        } catch {
          // Already gone.
        }
      }
    }
  }

  /** The recorded best bid and ask of a symbol, as price and quantity strings (undefined: an empty side). */
  topOf(symbol: string): { bid: [string, string] | undefined; ask: [string, string] | undefined } {
    const g = this.grids(symbol);
    const s = this.symbols.get(symbol);
    if (g === undefined || s === undefined) return { bid: undefined, ask: undefined };
    const level = (side: TickSide): [string, string] | undefined => {
      const p = s.book.bestOf(side);
      return p === undefined ? undefined : [g.tick.fromUnits(p), g.step.fromUnits(s.book.get(side, p))];
    };
    return { bid: level(BIDS), ask: level(ASKS) };
  }

  /** The recorded quantity at a price, in steps (0: no level), for inspection and tests. */
  levelOf(symbol: string, side: Side, ticks: number): number {
    return this.symbols.get(symbol)?.book.get(sideOf(side), ticks) ?? 0;
  }

  /** Queue position of a resting order, when one is set. */
  positionOf(orderId: number): QueuePos | undefined {
    return this.positions.get(orderId);
  }

  /** The order's position, set now (behind `levelQty`) when it has none at its current price. */
  private position(o: RestingOrder, levelQty: number): QueuePos {
    let pos = this.positions.get(o.orderId);
    if (pos === undefined || pos.ticks !== o.ticks) {
      pos = this.queue.join(o.ticks, levelQty);
      this.positions.set(o.orderId, pos);
      this.stats.joined++;
    }
    return pos;
  }

  /** Drops positions of orders no longer resting. */
  private prune(): void {
    const live = new Set<number>();
    for (const symbol of this.symbols.keys()) {
      for (const side of ['BUY', 'SELL'] as const) {
        for (const o of this.sink.restingThrough(symbol, side, side === 'BUY' ? 0 : Number.MAX_SAFE_INTEGER, false)) live.add(o.orderId);
      }
    }
    for (const id of [...this.positions.keys()]) if (!live.has(id)) this.positions.delete(id);
  }

}
