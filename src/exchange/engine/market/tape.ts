/**
 * The tape fill model: replays a recorded market into an engine so that the orders of the
 * participants (a bot in a backtest, users of the local exchange in replay mode) fill as the
 * recorded trades say. The same class runs in both places, so a backtest and a replay on the
 * local exchange fill the same orders at the same prices.
 *
 * For a recorded trade at price p, quantity q, taker side S (trade number n):
 *  1. the tape maker places LIMIT GTC on the side opposite S at p for q (`tape-m-<n>`). It joins
 *     the BACK of the queue at p, so participants resting at p before it keep their priority.
 *     (Participants' orders on the other side priced through p trade with it at their own price:
 *     the recorded trade proves a counterparty at p existed.)
 *  2. the tape taker places LIMIT IOC on side S at p for q (`tape-t-<n>`): price-time priority
 *     fills participants priced better than p first, then those at p ahead of the tape maker,
 *     then the tape maker.
 *  3. the tape maker cancels what is left of its order.
 * So a participant's order fills exactly when the recorded trade price reaches or passes it,
 * with its queue position at the touch decided by when it joined relative to the tape.
 *
 * The owner of the sink must create the accounts `tape-maker` and `tape-taker` (or the names
 * given) with very large balances (TAPE_BALANCE, 1e12 USDT), one-way mode: their positions are
 * the other side of the market and must never be limited by margin or liquidated.
 *
 * Tape quotes (option `quotes`, on by default): on each recorded `depth` snapshot and each v2
 * `quote` event (a best bid and ask, e.g. Binance's bookTicker) the tape maker keeps one resting
 * LIMIT GTC makerOnly order per side at the recorded best bid and best ask with the recorded
 * top-level quantity (`tape-qb-<n>`, `tape-qa-<n>`; capped to the maximum quantity,
 * skipped when below the minimum or off the grid). Each snapshot replaces the previous quotes (both
 * old quotes are cancelled first, then the new ones placed); an empty side leaves no quote. The
 * quotes are what a participant's MARKET, IOC or crossing LIMIT order trades against between
 * recorded trades. A quote that would cross a resting order (a participant's bid at or above the
 * recorded ask) is placed makerOnly and so REJECTED by the engine, never traded: the recording
 * never showed a trade at that price (`stats.quotes.crossed`). The quotes take no part in the
 * re-enactment of a trade: before a trade at p the quotes at or through p are pulled; after it the
 * one at exactly p is put back (what the participant left of it), one strictly through p is stale
 * (the tape traded beyond it) and stays out until the next snapshot. `passTrade` leaves the same
 * quotes for a trade that is not re-enacted (the backtest's shortcut): it removes the ones the
 * trade went through and leaves one at exactly p where it is (pulling and putting it back would
 * only renumber it: no participant order rests at p on that side, or the trade would have been
 * re-enacted, so its place in the queue is nobody's business).
 * A quote whose level is unchanged (same price and quantity, nothing of it taken) stays where it
 * is; any other change replaces it: a new order with a new id at the back of its level, so a
 * participant resting at that price keeps its priority. The quotes live in tape-quotes.ts; where
 * the sink has the engine's fast path for them (`tapeQuotes`, quote-orders.ts: ticks and steps, by
 * order id, no record formatted) they go through it, with the same outcome as the general commands.
 *
 * Limits: a trade whose quantity is below the symbol's minimum quantity or notional cannot be
 * placed by the engine's rules; it is skipped and counted in `stats.skipped.belowMinimum` (the
 * mark still moves). A trade above the maximum quantity is split into equal pieces. Trades whose
 * price or quantity are off the symbol's grid are skipped (`offGrid`). Tape orders are never
 * reduce-only or maker-only. The tape maker has at most one open order per symbol, far from the
 * engine's 200-open-orders limit.
 */
import type { OrderRef } from '../inputs';
import { VenueError } from '../../../core/errors';
import type { RecordedEvent } from '../../../market-data/format';
import { L2Tape, type L2Sink } from './l2-tape';
import { TAPE_MAKER, TAPE_TAKER, type ReplaySink, type TapeReplayerOptions, type TapeStats } from './tape-sink';
import { TapeQuotes } from './tape-quotes';
import { guard, settle, specInfo, type SpecInfo } from './tape-specs';

const FINAL = new Set(['FILLED', 'CANCELED', 'EXPIRED', 'REJECTED']);

export class TapeReplayer {
  readonly stats: TapeStats = { trades: 0, replayed: 0, marks: 0, fundings: 0, ignored: 0, quotes: { depths: 0, placed: 0, crossed: 0, skipped: 0 }, skipped: { belowMinimum: 0, offGrid: 0, refused: 0, otherSymbol: 0 }, refusals: 0 };
  private readonly maker: string;
  private readonly taker: string;
  private readonly specs = new Map<string, SpecInfo>();
  private readonly rates = new Map<string, string>();
  /** The last recorded mark and index per symbol: a funding line settles at its own recorded mark. */
  private readonly marks = new Map<string, { mark: string; index: string }>();
  private n = 0;
  private readonly quoting: boolean;
  /** The tape quotes (tape-quotes.ts). */
  private readonly quotes: TapeQuotes;
  /** The `l2` book mode (undefined in `top`). */
  private readonly l2: L2Tape | undefined;
  /** `l2`: symbols whose top comes from quote events (else from the L2 book's own top). */
  private readonly quoted = new Set<string>();
  /**
   * The sink's calls the replayer makes for its own orders, which reads nothing of the answers
   * but the status: the forms that format no record where the sink has them (the engine's).
   */
  private readonly quiet: Pick<L2Sink, 'placeOrder' | 'cancelOrder' | 'orderProgress'>;
  /** `l2`: the sink's `marketTrade` (every recorded trade moves the last price, as a re-enacted one does). */
  private readonly marketTrade: NonNullable<ReplaySink['marketTrade']> | undefined;

  constructor(
    private readonly sink: ReplaySink,
    opts: TapeReplayerOptions = {},
  ) {
    this.maker = opts.tapeMaker ?? TAPE_MAKER;
    this.taker = opts.tapeTaker ?? TAPE_TAKER;
    this.quoting = opts.quotes !== false;
    for (const s of opts.specs ?? []) {
      const info = specInfo(s);
      if (info) this.specs.set(s.symbol, info);
    }
    this.quotes = new TapeQuotes(sink, this.maker, this.specs, this.stats);
    this.quiet = { placeOrder: (sink.placeOrderStatus ?? sink.placeOrder).bind(sink), cancelOrder: (sink.cancelOrderQuiet ?? sink.cancelOrder).bind(sink), orderProgress: (sink.orderProgress ?? sink.queryOrder)?.bind(sink) };
    if (opts.book === 'l2') {
      const sink = this.sink;
      const resting = sink.restingThrough?.bind(sink);
      if (resting === undefined) throw new Error('the l2 book mode needs a sink that lists resting orders (restingThrough)');
      if (sink.marketTrade === undefined) throw new Error('the l2 book mode needs a sink that takes the market\'s trades (marketTrade)');
      this.marketTrade = sink.marketTrade.bind(sink);
      const levels = opts.depthLevels ?? 50;
      if (!(Number.isInteger(levels) && levels >= 0 && levels <= 150)) throw new RangeError(`depthLevels must be an integer from 0 to 150, got ${levels}`);
      const tape = new Set([this.maker, this.taker]);
      const l2Sink = { ...this.quiet, restingThrough: resting, bookVersion: sink.bookVersion?.bind(sink) };
      this.l2 = new L2Tape(l2Sink, this.maker, (u) => tape.has(u), (symbol) => this.specs.get(symbol), opts.queue ?? { model: 'risk-averse' }, levels);
      this.stats.l2 = this.l2.stats;
    }
  }

  /**
   * `l2` mode: call before a participant's order that may take liquidity (side, limit price or
   * undefined for MARKET, quantity): the recorded levels it may reach go into the book.
   * `afterTaker` takes them out again. No-ops in the `top` mode.
   */
  beforeTaker(symbol: string, side: 'BUY' | 'SELL', limit: string | undefined, qty: string | undefined): void {
    if (!this.l2) return;
    const q = this.quotes.prices(symbol);
    this.l2.beforeTaker(symbol, side, limit, qty, side === 'BUY' ? q.ask : q.bid);
  }

  afterTaker(): void {
    this.l2?.afterTaker();
  }

  /** `l2` mode: the recorded quantity at a price (steps; 0 when no level), as replayed so far. */
  recordedLevel(symbol: string, side: 'BUY' | 'SELL', price: string): number {
    const ticks = this.specs.get(symbol)?.tick.toUnits(price);
    return ticks === undefined ? 0 : (this.l2?.levelOf(symbol, side, ticks) ?? 0);
  }

  /** `l2`: every recorded book unknown until its next snapshot (another recording file begins; l2-tape.ts forgetBooks). */
  forgetBooks(): void {
    this.l2?.forgetBooks();
  }

  /** Applies one recorded event. Refusals by the sink are counted, never thrown. */
  apply(e: RecordedEvent): void {
    switch (e.k) {
      case 'mark':
        this.stats.marks++;
        this.marks.set(e.s, { mark: e.p, index: e.i });
        guard(this.stats, () => this.sink.setMarkPrice(e.s, e.p, e.i));
        if (this.sink.setFundingRate && this.rates.get(e.s) !== e.r) {
          this.rates.set(e.s, e.r);
          const setRate = this.sink.setFundingRate.bind(this.sink);
          guard(this.stats, () => setRate(e.s, e.r));
        }
        return;
      case 'funding':
        this.stats.fundings++;
        this.rates.set(e.s, e.r);
        {
          // The settlement is Q x the recorded mark of the funding line x rate: the sink settles
          // at its current mark, so that mark is moved to the line's first (a recorder writes the
          // funding line before the mark line of the same moment; the index stays as recorded).
          const last = this.marks.get(e.s);
          if (last?.mark !== e.p) {
            this.marks.set(e.s, { mark: e.p, index: last?.index ?? e.p });
            guard(this.stats, () => this.sink.setMarkPrice(e.s, e.p, last?.index));
          }
        }
        guard(this.stats, () => this.sink.settleFunding(e.s, e.r));
        return;
      case 'trade': {
        this.stats.trades++;
        const pulled = this.quotes.pull(e.s, e.p);
        if (this.l2) this.queueTrade(e.s, e.p, e.q, e.side);
        else this.trade(e.s, e.p, e.q, e.side);
        for (const p of pulled) this.quotes.restore(e.s, p.quote, p.left, e.p);
        return;
      }
      case 'depth':
        // A whole top-of-book snapshot: with the L2 book mode, the book it replaces (l2-tape.ts).
        if (this.l2) this.l2.apply(e);
        if (!this.quoting) {
          this.stats.ignored++;
          return;
        }
        this.stats.quotes.depths++;
        this.quotes.depth(e.s, e.b[0], e.a[0]);
        return;
      case 'quote':
        // v2: the recorded best bid and ask between L2 messages (Binance's bookTicker): the tape
        // quotes follow it as they follow a depth line's best levels.
        if (this.l2) {
          this.l2.apply(e);
          this.quoted.add(e.s);
        }
        if (!this.quoting) {
          this.stats.ignored++;
          return;
        }
        this.stats.quotes.depths++;
        this.quotes.depth(e.s, [e.bp, e.bq], [e.ap, e.aq]);
        return;
      case 'book':
      case 'snapshot':
      case 'gap':
        if (!this.l2) {
          this.stats.ignored++;
          return;
        }
        this.l2.apply(e);
        if (e.k !== 'gap') this.followBook(e.s);
        return;
      default:
        this.stats.ignored++;
    }
  }

  /**
   * A v2 `book` (or, `snapshot` true, `snapshot`) event of `symbol` given in integer units of the
   * grids `tickSize` and `stepSize` (the replay cache's columns): `bids` levels from `start` in
   * `ticks` and `steps`, then `asks` levels. The same as `apply` of the event, without decimal
   * strings. False, having done nothing, when the units are not on this replayer's grids for the
   * symbol: the caller applies the event instead.
   */
  applyBookUnits(symbol: string, snapshot: boolean, tickSize: string, stepSize: string, ticks: ArrayLike<number>, steps: ArrayLike<number>, start: number, bids: number, asks: number, u?: number): boolean {
    const info = this.specs.get(symbol);
    if (info === undefined || info.tick.size !== tickSize || info.step.size !== stepSize) return false;
    if (!this.l2) {
      this.stats.ignored++;
      return true;
    }
    this.l2.applyUnits(symbol, snapshot, ticks, steps, start, bids, asks, u);
    this.followBook(symbol);
    return true;
  }

  /**
   * A v2 `quote` event of `symbol` given in integer units of the grids `tickSize` and `stepSize`
   * (the replay cache's columns): the best bid at `bidTicks` for `bidSteps`, the best ask at
   * `askTicks` for `askSteps`. The same as `apply` of the event, without parsing its strings. False,
   * having done nothing, when the units are not on this replayer's grids for the symbol.
   */
  applyQuoteUnits(symbol: string, tickSize: string, stepSize: string, bidTicks: number, bidSteps: number, askTicks: number, askSteps: number, u?: number): boolean {
    const info = this.specs.get(symbol);
    if (info === undefined || info.tick.size !== tickSize || info.step.size !== stepSize) return false;
    if (this.l2) {
      this.l2.quoteUnits(symbol, bidTicks, bidSteps, askTicks, askSteps, u);
      this.quoted.add(symbol);
    }
    if (!this.quoting) {
      this.stats.ignored++;
      return true;
    }
    this.stats.quotes.depths++;
    this.quotes.depthUnits(symbol, info, bidTicks, bidSteps, askTicks, askSteps);
    return true;
  }

  /** After a book or snapshot event: without quote events for the symbol, the tape quotes follow the L2 book's own top. */
  private followBook(symbol: string): void {
    if (!this.quoting || this.quoted.has(symbol)) return;
    const top = (this.l2 as L2Tape).topOf(symbol);
    this.stats.quotes.depths++;
    this.quotes.depth(symbol, top.bid, top.ask);
  }

  /**
   * `l2` mode: a recorded trade fills the participants' resting orders the queue model lets it
   * reach (l2-tape.ts), by a tape taker IOC at the trade price for exactly that quantity. Then the
   * sink hears of the trade (`marketTrade`, with what the participants did not take): the last
   * price moves to it, so stops, take-profits and trailing stops on last price see every recorded
   * trade as they do when the `top` mode re-enacts it in the book.
   */
  private queueTrade(symbol: string, price: string, qty: string, side: 'BUY' | 'SELL'): void {
    const info = this.specs.get(symbol);
    const l2 = this.l2 as L2Tape;
    const ticks = info?.tick.toUnits(price);
    const steps = info?.step.toUnits(qty);
    if (info === undefined || ticks === undefined || steps === undefined || ticks <= 0 || steps <= 0) {
      this.stats.skipped.offGrid++;
      return;
    }
    let fill = l2.tradeFills(symbol, ticks, steps, side);
    if (fill > 0) {
      if (fill < info.minSteps || ticks * fill < info.minNotionalUnits) {
        l2.unfillable();
        fill = 0;
      } else {
        this.stats.replayed++;
        for (let left = fill; left > 0; ) {
          const q = Math.min(left, info.maxSteps);
          left -= q;
          guard(this.stats, () => this.quiet.placeOrder(this.taker, { symbol, type: 'LIMIT', side, price, quantity: info.step.fromUnits(q), timeInForce: 'IOC', clientOrderId: `tape-t-${++this.n}` }));
        }
      }
    }
    const rest = fill === 0 ? qty : steps > fill ? info.step.fromUnits(steps - fill) : '0';
    try {
      settle(this.stats, (this.marketTrade as NonNullable<ReplaySink['marketTrade']>)(symbol, price, rest, side));
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      this.stats.refusals++;
    }
  }

  /** Prices of the tape's current quotes on `symbol` (a trade at or through one pulls it). */
  quotePrices(symbol: string): { bid: string | undefined; ask: string | undefined } {
    return this.quotes.prices(symbol);
  }

  /** Changes with every quote placed or cancelled: lets a caller cache what it derived from them. */
  get quoteVersion(): number {
    return this.quotes.version;
  }

  /**
   * A recorded trade that is not re-enacted (the backtest's shortcut): counted, and the tape
   * quotes left as a re-enactment would leave them: through its price removed, at its price kept
   * (see the file comment).
   */
  passTrade(e: Extract<RecordedEvent, { k: 'trade' }>): void {
    this.stats.trades++;
    // Not replayed, but what the tape could not have replayed is counted as if it had been asked.
    const info = this.specs.get(e.s);
    if (info === undefined) {
      if (this.specs.size > 0) this.stats.skipped.otherSymbol++;
      return;
    }
    if (info.tick.toUnits(e.p) === undefined || info.step.toUnits(e.q) === undefined) this.stats.skipped.offGrid++;
    this.quotes.pass(e.s, e.p);
  }

  private trade(symbol: string, price: string, qty: string, side: 'BUY' | 'SELL'): void {
    const info = this.specs.get(symbol);
    if (!info) {
      if (this.piece(symbol, price, qty, side)) this.stats.replayed++;
      return;
    }
    const ticks = info.tick.toUnits(price);
    const steps = info.step.toUnits(qty);
    if (ticks === undefined || steps === undefined || ticks <= 0 || steps <= 0) {
      this.stats.skipped.offGrid++;
      return;
    }
    if (steps < info.minSteps || ticks * steps < info.minNotionalUnits) {
      this.stats.skipped.belowMinimum++;
      return;
    }
    const pieces = Math.ceil(steps / info.maxSteps);
    const base = Math.floor(steps / pieces);
    let extra = steps - base * pieces;
    for (let i = 0; i < pieces; i++) {
      const q = base + (extra > 0 ? 1 : 0);
      if (extra > 0) extra--;
      if (!this.piece(symbol, price, info.step.fromUnits(q), side)) return;
    }
    this.stats.replayed++;
  }

  /** Maker joins at p, taker sweeps to p, maker's rest is cancelled. False when refused. */
  private piece(symbol: string, price: string, quantity: string, side: 'BUY' | 'SELL'): boolean {
    const n = ++this.n;
    const makerRef: OrderRef = { symbol, clientOrderId: `tape-m-${n}` };
    try {
      settle(this.stats, this.quiet.placeOrder(this.maker, { symbol, type: 'LIMIT', side: side === 'BUY' ? 'SELL' : 'BUY', price, quantity, timeInForce: 'GTC', clientOrderId: makerRef.clientOrderId }));
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      // The maker order is the whole trade's liquidity: without it the trade is not replayed.
      this.stats.skipped.refused++;
      return false;
    }
    guard(this.stats, () => this.quiet.placeOrder(this.taker, { symbol, type: 'LIMIT', side, price, quantity, timeInForce: 'IOC', clientOrderId: `tape-t-${n}` }));
    if (!this.isFinal(makerRef)) guard(this.stats, () => this.quiet.cancelOrder(this.maker, makerRef), true);
    return true;
  }

  /** True when the sink says the order has ended; false when it cannot say (no query, or it refused). */
  private isFinal(ref: OrderRef): boolean {
    const progress = this.quiet.orderProgress;
    if (progress === undefined) return false;
    try {
      return FINAL.has(progress(this.maker, ref).status);
    } catch {
      return false;
    }
  }
}
