/**
 * The tape quotes of a TapeReplayer (tape.ts, "Tape quotes" in its file comment): the tape
 * maker's one resting makerOnly order per side at the recorded best bid and ask, replaced at every
 * recorded quote or depth line, pulled around a re-enacted trade and put back after it.
 *
 * Replacing a quote is a cancel of the old order and a placement of a new one, with all that
 * means to the engine: a new order id, the back of its price level (a participant resting there
 * keeps its priority), refusal when it would cross a participant's resting order (`crossed`). On
 * the shared Binance capture that is some 67,000 placements and as many cancels, which through the
 * general commands (`placeOrderStatus`, `cancelOrderQuiet`: parsing price and quantity, the whole
 * order intake, the client-id lookup of the old order) was about 30 % of a backtest of the example
 * market maker with the L2 fill model. Where the sink offers `tapeQuotes` (the engine does,
 * quote-orders.ts) and its grids are the replayer's, the quotes go through it instead: in ticks and
 * steps, by order id, with the same outcome to the engine (same ids, book positions, refusals,
 * events), which test/exchange/engine/market/tape-quotes.test.ts checks against the general path.
 * Other sinks (the local exchange's replay mode journals its commands) take the general commands.
 */
import { compareDecimalStrings, Dec } from '../../../core/decimal';
import { VenueError } from '../../../core/errors';
import type { PlaceOrderInput } from '../inputs';
import type { NumberedClientId, TapeQuoteSink } from './quote-orders';
import type { ReplaySink, TapeStats } from './tape-sink';
import { guard, isThenable, settle, type SpecInfo } from './tape-specs';

const BID_PREFIX = 'tape-qb-';
const ASK_PREFIX = 'tape-qa-';

/**
 * One tape quote as placed. Placed from units (`depthUnits`, `canon`), its price and quantity texts
 * are the grids' own texts of `ticks` and `steps`, made only when something reads them: comparing
 * the units compares the texts, and most quotes are replaced unread. Its client order id
 * (`tape-qb-<n>` for a bid, `tape-qa-<n>` for an ask) likewise: the fast path takes the quote as a
 * prefix and number.
 */
export class Quote implements NumberedClientId {
  /** The engine's order id where the sink's fast path placed it (`tapeQuotes`), else 0. */
  id = 0;
  private cidText: string | undefined;

  constructor(
    readonly prefix: typeof BID_PREFIX | typeof ASK_PREFIX,
    readonly n: number,
    private priceText: string | undefined,
    private quantityText: string | undefined,
    readonly canon: boolean,
    readonly ticks: number,
    readonly steps: number,
    private readonly info: SpecInfo | undefined,
  ) {}

  get clientOrderId(): string {
    return (this.cidText ??= this.prefix + this.n);
  }

  get price(): string {
    return (this.priceText ??= (this.info as SpecInfo).tick.fromUnits(this.ticks));
  }

  get quantity(): string {
    return (this.quantityText ??= (this.info as SpecInfo).step.fromUnits(this.steps));
  }
}

type QuoteLevel = readonly [string, string];

export class TapeQuotes {
  /** Changes with every quote placed or cancelled: lets a caller cache what it derived from them. */
  version = 0;
  /** Open tape quotes by symbol (as placed; the engine knows what is left of them). */
  private readonly quotes = new Map<string, { bid?: Quote; ask?: Quote }>();
  private qn = 0;
  /** Per symbol: the sink's fast path for quotes when its grids are the replayer's, else null. */
  private readonly fast = new Map<string, TapeQuoteSink | null>();

  constructor(
    private readonly sink: ReplaySink,
    private readonly maker: string,
    private readonly specs: ReadonlyMap<string, SpecInfo>,
    private readonly stats: TapeStats,
  ) {}

  /** Prices of the current quotes on `symbol`. */
  prices(symbol: string): { bid: string | undefined; ask: string | undefined } {
    const cur = this.quotes.get(symbol);
    return { bid: cur?.bid?.price, ask: cur?.ask?.price };
  }

  /** A trade at `price` that is not re-enacted: the quotes through it are removed, one at it kept. */
  pass(symbol: string, price: string): void {
    const cur = this.quotes.get(symbol);
    if (cur === undefined) return;
    if (cur.bid && compareDecimalStrings(cur.bid.price, price) > 0) {
      this.cancel(symbol, cur.bid);
      cur.bid = undefined;
    }
    if (cur.ask && compareDecimalStrings(cur.ask.price, price) < 0) {
      this.cancel(symbol, cur.ask);
      cur.ask = undefined;
    }
  }

  /**
   * `depth` of the levels given in units of the symbol's grids (`info`'s): the same, with the
   * strings made from the units (as the replay cache decodes them) and the units not parsed back.
   */
  depthUnits(symbol: string, info: SpecInfo, bidTicks: number, bidSteps: number, askTicks: number, askSteps: number): void {
    const cur = this.current(symbol);
    // The symbol's fast path and spec, looked up once for the four steps below.
    const fast = this.fastQuotes(symbol);
    const keepBid = this.sameUnits(symbol, info, cur.bid, bidTicks, bidSteps, fast);
    const keepAsk = this.sameUnits(symbol, info, cur.ask, askTicks, askSteps, fast);
    if (!keepBid && cur.bid) this.cancel(symbol, cur.bid, fast);
    if (!keepAsk && cur.ask) this.cancel(symbol, cur.ask, fast);
    if (!keepBid) cur.bid = this.place(symbol, 'BUY', undefined, undefined, bidTicks, bidSteps, info, fast);
    if (!keepAsk) cur.ask = this.place(symbol, 'SELL', undefined, undefined, askTicks, askSteps, info, fast);
  }

  /** `same` of a level given in units, without making its texts when the quote's are the grids' own. */
  private sameUnits(symbol: string, info: SpecInfo, q: Quote | undefined, ticks: number, steps: number, fast: TapeQuoteSink | undefined): boolean {
    if (q === undefined) return false;
    if (!q.canon) return this.same(symbol, q, [info.tick.fromUnits(ticks), info.step.fromUnits(steps)], steps);
    return q.ticks === ticks && q.steps === Math.min(steps, info.maxSteps) && this.whole(symbol, q, fast);
  }

  private current(symbol: string): { bid?: Quote; ask?: Quote } {
    let cur = this.quotes.get(symbol);
    if (cur === undefined) {
      cur = {};
      this.quotes.set(symbol, cur);
    }
    return cur;
  }

  /** Replaces the quotes of `symbol` with the recorded best levels. */
  depth(symbol: string, bid: QuoteLevel | undefined, ask: QuoteLevel | undefined): void {
    const cur = this.current(symbol);
    // Both old quotes go first, so that a new quote never meets an old one of the tape.
    const keepBid = this.same(symbol, cur.bid, bid);
    const keepAsk = this.same(symbol, cur.ask, ask);
    if (!keepBid && cur.bid) this.cancel(symbol, cur.bid);
    if (!keepAsk && cur.ask) this.cancel(symbol, cur.ask);
    if (!keepBid) cur.bid = bid ? this.place(symbol, 'BUY', bid[0], bid[1]) : undefined;
    if (!keepAsk) cur.ask = ask ? this.place(symbol, 'SELL', ask[0], ask[1]) : undefined;
  }

  /**
   * Is the quote still whole and what the recorded level asks for (then it stays, keeping its place)?
   * The same level spelt otherwise ("100.10" for the grid's "100.1": the venue's texts against those
   * of the L2 book's top, or of the replay cache's units) is the same level.
   */
  private same(symbol: string, q: Quote | undefined, l: QuoteLevel | undefined, steps = -1): boolean {
    if (q === undefined || l === undefined) return false;
    if (!(q.price === l[0] && q.quantity === this.capped(symbol, l[1], steps)) && !this.sameValue(symbol, q, l)) return false;
    return this.whole(symbol, q);
  }

  /** Are the quote's units those of the level's texts (on the symbol's grids)? */
  private sameValue(symbol: string, q: Quote, l: QuoteLevel): boolean {
    const info = this.specs.get(symbol);
    if (info === undefined || q.ticks <= 0) return false;
    const n = info.step.toUnits(l[1]);
    return info.tick.toUnits(l[0]) === q.ticks && n !== undefined && Math.min(n, info.maxSteps) === q.steps;
  }

  /** Is nothing of the quote taken (`remaining` is its whole quantity)? `symbolFast`: `fastQuotes(symbol)`. */
  private whole(symbol: string, q: Quote, symbolFast = this.fastQuotes(symbol)): boolean {
    const fast = q.id > 0 ? symbolFast : undefined;
    if (fast !== undefined) return fast.progress(this.maker, symbol, q.id) === 0;
    return this.remaining(symbol, q) === q.quantity;
  }

  /**
   * Takes out the quotes at or through `price`; returns them with what was left of each (asked
   * before the cancel: the sink need not remember a cancelled order), to be put back when at `price`.
   */
  pull(symbol: string, price: string): Array<{ quote: Quote; left: string | undefined }> {
    const cur = this.quotes.get(symbol);
    if (!cur) return [];
    const out: Array<{ quote: Quote; left: string | undefined }> = [];
    if (cur.bid && compareDecimalStrings(cur.bid.price, price) >= 0) {
      out.push({ quote: cur.bid, left: this.remaining(symbol, cur.bid) });
      this.cancel(symbol, cur.bid);
      cur.bid = undefined;
    }
    if (cur.ask && compareDecimalStrings(cur.ask.price, price) <= 0) {
      out.push({ quote: cur.ask, left: this.remaining(symbol, cur.ask) });
      this.cancel(symbol, cur.ask);
      cur.ask = undefined;
    }
    return out;
  }

  /** Puts a pulled quote back with what was left of it when it was at the trade price (not through it). */
  restore(symbol: string, q: Quote, left: string | undefined, tradePrice: string): void {
    const cur = this.quotes.get(symbol);
    if (!cur || compareDecimalStrings(q.price, tradePrice) !== 0) return;
    if (left === undefined || new Dec(left).lte(0)) return;
    const bidSide = q.prefix === BID_PREFIX;
    const placed = this.place(symbol, bidSide ? 'BUY' : 'SELL', q.price, left);
    if (bidSide) cur.bid = placed;
    else cur.ask = placed;
  }

  /** What is left of a quote per the sink (its full quantity without queryOrder); undefined when gone. */
  private remaining(symbol: string, q: Quote): string | undefined {
    if (!this.sink.queryOrder) return q.quantity;
    const fast = q.id > 0 ? this.fastQuotes(symbol) : undefined;
    if (fast !== undefined) {
      const done = fast.progress(this.maker, symbol, q.id);
      const step = (this.specs.get(symbol) as SpecInfo).step;
      return done < 0 ? undefined : done === 0 ? q.quantity : step.fromUnits((step.toUnits(q.quantity) as number) - done);
    }
    try {
      const ref = { symbol, clientOrderId: q.clientOrderId };
      const o = this.sink.orderProgress ? this.sink.orderProgress(this.maker, ref) : this.sink.queryOrder(this.maker, ref);
      if (o.status === 'REJECTED' || o.status === 'EXPIRED') return undefined;
      if (o.executedQty === undefined) return q.quantity;
      // In steps where the spec is known (exact integers), else in decimals.
      const step = this.specs.get(symbol)?.step;
      const total = step?.toUnits(q.quantity);
      const done = step?.toUnits(o.executedQty);
      if (step !== undefined && total !== undefined && done !== undefined) return done === 0 ? q.quantity : step.fromUnits(total - done);
      return new Dec(q.quantity).minus(o.executedQty).toString();
    } catch {
      return undefined;
    }
  }

  /** The quantity capped to the maximum; `known`: its steps where the caller has them, else -1. */
  private capped(symbol: string, qty: string, known = -1): string {
    const info = this.specs.get(symbol);
    if (!info) return qty;
    const steps = known >= 0 ? known : info.step.toUnits(qty);
    if (steps === undefined || steps <= info.maxSteps) return qty;
    return info.step.fromUnits(info.maxSteps);
  }

  /** `symbolFast`: `fastQuotes(symbol)`, where the caller has it. */
  private cancel(symbol: string, q: Quote, symbolFast = this.fastQuotes(symbol)): void {
    this.version++;
    const fast = q.id > 0 ? symbolFast : undefined;
    if (fast !== undefined) {
      // As `guard` of a quiet call (a quote already gone is no refusal), without a closure per cancel.
      try {
        fast.cancel(this.maker, symbol, q.id);
      } catch (err) {
        if (!(err instanceof VenueError)) throw err;
      }
      return;
    }
    this.cancelGeneral(symbol, q);
  }

  /** `cancel` through the sink's general commands (apart: its closure's context only on this path). */
  private cancelGeneral(symbol: string, q: Quote): void {
    const ref = { symbol, clientOrderId: q.clientOrderId };
    guard(this.stats, () => (this.sink.cancelOrderQuiet ? this.sink.cancelOrderQuiet(this.maker, ref) : this.sink.cancelOrder(this.maker, ref)), true);
  }

  /**
   * Places one quote makerOnly; undefined when skipped or refused. `knownTicks`, `knownSteps`: as
   * parsed from `price` and `qty`, or -1; with both known (and the symbol's grids) the texts may be
   * left undefined: they are the grids' texts of the units. `info` and `symbolFast`: the symbol's
   * spec and `fastQuotes(symbol)`, where the caller has them.
   */
  private place(symbol: string, side: 'BUY' | 'SELL', price: string | undefined, qty: string | undefined, knownTicks = -1, knownSteps = -1, info = this.specs.get(symbol), symbolFast = this.fastQuotes(symbol)): Quote | undefined {
    this.version++;
    const canon = info !== undefined && knownTicks >= 0 && knownSteps >= 0;
    const quantity = canon ? undefined : this.capped(symbol, qty as string, knownSteps);
    let ticks = 0;
    let steps = 0;
    if (info) {
      const t = knownTicks >= 0 ? knownTicks : info.tick.toUnits(price as string);
      const n = knownSteps >= 0 ? Math.min(knownSteps, info.maxSteps) : info.step.toUnits(quantity as string);
      if (t === undefined || n === undefined || t <= 0 || n <= 0 || n < info.minSteps || t * n < info.minNotionalUnits) {
        this.stats.quotes.skipped++;
        return undefined;
      }
      ticks = t;
      steps = n;
    }
    const q = new Quote(side === 'BUY' ? BID_PREFIX : ASK_PREFIX, ++this.qn, canon ? undefined : price, quantity, canon, ticks, steps, info);
    const fast = info ? symbolFast : undefined;
    if (fast !== undefined) return this.placeFast(fast, symbol, side, ticks, steps, q);
    let placed: unknown;
    try {
      const input: PlaceOrderInput = { symbol, type: 'LIMIT', side, price: q.price, quantity: q.quantity, timeInForce: 'GTC', makerOnly: true, clientOrderId: q.clientOrderId };
      placed = this.sink.placeOrderStatus ? { status: this.sink.placeOrderStatus(this.maker, input) } : this.sink.placeOrder(this.maker, input);
      settle(this.stats, placed);
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      this.stats.quotes.skipped++;
      return undefined;
    }
    if (this.sink.queryOrder && this.refused(symbol, q, placed)) {
      // makerOnly: it would have crossed a resting order, so the engine refused it.
      this.stats.quotes.crossed++;
      return undefined;
    }
    this.stats.quotes.placed++;
    return q;
  }

  /** `place` through the sink's fast path: the same outcome and counts. */
  private placeFast(fast: TapeQuoteSink, symbol: string, side: 'BUY' | 'SELL', ticks: number, steps: number, q: Quote): Quote | undefined {
    try {
      q.id = fast.place(this.maker, symbol, side, ticks, steps, q);
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      this.stats.quotes.skipped++;
      return undefined;
    }
    if (q.id === 0) {
      this.stats.quotes.crossed++;
      return undefined;
    }
    this.stats.quotes.placed++;
    return q;
  }

  /** The sink's fast path for the quotes of `symbol`, when it has one on this replayer's grids. */
  private fastQuotes(symbol: string): TapeQuoteSink | undefined {
    let f = this.fast.get(symbol);
    if (f === undefined) {
      const sink = this.sink.tapeQuotes;
      const info = this.specs.get(symbol);
      const g = sink?.grids(symbol);
      f = sink !== undefined && this.sink.queryOrder !== undefined && info !== undefined && g !== undefined && g.tickSize === info.tick.size && g.stepSize === info.step.size ? sink : null;
      this.fast.set(symbol, f);
    }
    return f ?? undefined;
  }

  /**
   * Did the engine refuse a quote just placed (makerOnly: it would have crossed)? The status of the
   * order the sink answered with when it answers at once (the engine does), else asked of the
   * sink. A refused quote of the tape is forgotten at once, so asking costs a thrown
   * ORDER_NOT_FOUND: about 18 us with its stack, some 600 times on the shared Binance capture.
   */
  private refused(symbol: string, q: Quote, placed: unknown): boolean {
    if (typeof placed === 'object' && placed !== null && !isThenable(placed)) {
      const status = (placed as { status?: unknown }).status;
      if (typeof status === 'string') return status === 'REJECTED' || status === 'EXPIRED';
    }
    return this.remaining(symbol, q) === undefined;
  }
}
