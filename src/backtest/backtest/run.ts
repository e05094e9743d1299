/**
 * The backtest driver: one recording replayed on a virtual clock into the engine, with the same
 * Bot (bus, strategies, risk engine, executor) a live run uses, over a SimVenue on that engine.
 *
 * Per recorded event, in this order:
 *  1. timers due up to the event's time run, each at its own time (strategy timers, order-entry
 *     latency deliveries), the bot's promises settling after each;
 *  2. the event is applied: marks and funding to the engine; depth as tape quotes (unless
 *     `fill.depthQuotes: false`); trades through the tape fill model (TapeReplayer) when they
 *     can reach the participant's orders; recorded trades, depth and
 *     ticker are published to the bot as the venue's market data;
 *  3. the engine's events are pumped to the bot, and the executor's promises settle before the
 *     next event, so a zero-latency order reaches the engine before the next recorded event.
 * Nothing reads the wall clock: the same config and data give the same result, byte for byte.
 */
import { Dec } from '../../core/decimal';
import { ManualClock, type Clock } from '../../core/clock';
import { Bot, type StrategySlot } from '../../bot/bot';
import type { StrategyLogger } from '../../bot/strategy/api';
import { SimVenue } from '../../bot/venue/sim-venue';
import { Engine } from '../../exchange/engine/engine';
import type { SymbolConfig } from '../../exchange/engine/symbols';
import { TapeReplayer } from '../../exchange/engine/market/tape';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER } from '../../exchange/engine/market/tape-sink';
import type { SymbolSpec } from '../../protocol/rest/market';
import type { RecordedEvent, RecordingHeader } from '../../market-data/format';
import { BacktestConfigError, configRelative, type BacktestConfig } from './config';
import { liquidationCount, newCounters, type StrategyCounters } from './counters';
import { BOOKED, BusBooks } from './bus-books';
import { WallClockWatch } from '../../bot/strategy/wall-clock';
import { GAPS_LISTED, type BacktestResult } from './result';
import { BooksBeforeRange } from './books-before-range';
import { RestingOrders } from './resting-orders';
import { QuietBounds } from './quiet-bounds';
import { LatencyVenue } from './latency-venue';
import { SETTLE_TURNS, Settler, TURN } from './settler';
import type { PlaceOrderParams } from '../../protocol/rest/orders';
import { refusedByData, slotSymbols } from './strategy-module';
import { originText, type EventBatch, type EventSource, type LevelColumns, type QuoteColumns, type TradeColumns } from './source';
import { VirtualScheduler } from './virtual-scheduler';
import { rangeWithoutEvents } from './open-source';
import { SilenceBooks } from './silences';
import { LONG_SILENCE_MS, silenceBefore } from '../../market-data/silence';

/** The participant's account id in the engine. */
export const PARTICIPANT = 'backtest';
/** How far back in time an event may be from the latest before it (a recorder's clock stepping back). */
const BACKWARD_TOLERANCE_MS = 1000;
const EIGHT_HOURS = 8 * 3600 * 1000;

/**
 * Where the strategies' `ctx.log` lines and the bot's go. A function is called with the replay
 * clock when the bot is made, for lines that carry the replay's time (that of the event or timer
 * being processed) instead of the wall clock's: `(replay) => createRuntimeLogger({ ..., time: () =>
 * replay.now() })`, as `--strategy-logs` does. A logger as it is keeps its own time.
 */
export type BacktestLogger = StrategyLogger | ((replay: Clock) => StrategyLogger);

export interface RunOptions {
  slots: StrategySlot[];
  source: EventSource;
  logger?: BacktestLogger;
  /** Called every `progressEvery` events (and at the end) with events read and the source's byte progress. */
  onProgress?: (p: { events: number; bytesDone: number; bytesTotal: number; time: number }) => void;
  progressEvery?: number;
  /** Stops the run (Ctrl+C): checked at each progress point; the run rejects with its reason. */
  signal?: AbortSignal;
  /**
   * Re-enact every recorded trade through the engine, even those that cannot reach the
   * participant (the local exchange's replay mode does). Off by default: it changes no fill, but
   * costs three engine commands per trade and memory for every tape order.
   */
  fullTape?: boolean;
}

const silent: StrategyLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Engine symbol config from a recorded spec; the first mark arrives with the data. */
export function symbolConfigOf(s: SymbolSpec, fees: BacktestConfig['fees']): SymbolConfig {
  return {
    symbol: s.symbol,
    baseAsset: s.baseAsset,
    quoteAsset: s.quoteAsset,
    tickSize: s.tickSize,
    stepSize: s.stepSize,
    minQty: s.minQty,
    maxQty: s.maxQty,
    minNotional: s.minNotional,
    maxLeverage: s.maxLeverage,
    makerFee: fees?.maker ?? s.makerFee,
    takerFee: fees?.taker ?? s.takerFee,
    // Any valid price: the bot starts only after the recording's first mark of its symbols.
    markPrice: s.tickSize,
    fundingRate: '0',
    fundingIntervalMs: EIGHT_HOURS,
    tiers: s.marginTiers.map((t) => ({ maxNotional: t.maxNotional, maintenanceMarginRate: t.maintenanceMarginRate, maintenanceAmount: t.maintenanceAmount, maxLeverage: t.maxLeverage })),
  };
}

export class BacktestRun {
  private clock!: ManualClock;
  private scheduler!: VirtualScheduler;
  private engine!: Engine;
  private replayer!: TapeReplayer;
  private sim!: SimVenue;
  private venue!: LatencyVenue;
  private bot!: Bot;
  /** The strategies' reads of the wall clock: their time is the replay's (strategy/wall-clock.ts). */
  private readonly wallClock = new WallClockWatch();
  private started = false;
  private readonly symbols: string[];
  private readonly needMark = new Set<string>();
  /** The quiet-trade path's price band per symbol (quiet-bounds.ts). */
  private bounds!: QuietBounds;
  /** Scratch arrays of one quiet run (by the batch's symbol index), reused. */
  private readonly runLo: number[] = [];
  private readonly runHi: number[] = [];
  private readonly runLast: number[] = [];
  private readonly runSeen: number[] = [];
  private runStamp = 0;
  private readonly resting = new RestingOrders();
  /** Condition or strategy orders change the picture (last-price triggers): replay every trade then. */
  private fullTape: boolean;
  /** Lets the bot's promises run between steps (settler.ts). */
  private settler!: Settler;
  private nextSample = 0;
  private readonly result: BacktestResult;

  constructor(
    private readonly cfg: BacktestConfig,
    private readonly opts: RunOptions,
  ) {
    this.symbols = slotSymbols(opts.slots);
    this.fullTape = opts.fullTape === true;
    const strategies: Record<string, StrategyCounters> = {};
    for (const s of opts.slots) strategies[s.id] = newCounters();
    this.result = {
      symbols: this.symbols,
      startTime: 0,
      endTime: 0,
      initialBalance: cfg.account.balance,
      events: { read: 0, applied: 0, tradesThroughEngine: 0, tradesSkipped: 0, quotes: 0, unused: 0 },
      marks: {},
      fills: [],
      samples: [],
      funding: [],
      liquidations: 0,
      strategies,
      finalAsset: { walletBalance: '0', unrealizedPnl: '0' },
      finalPositions: [],
      tape: { trades: 0, replayed: 0, marks: 0, fundings: 0, ignored: 0, quotes: { depths: 0, placed: 0, crossed: 0, skipped: 0 }, skipped: { belowMinimum: 0, offGrid: 0, refused: 0, otherSymbol: 0 }, refusals: 0 },
      audit: { deposits: '0', fees: '0', walletsMinusCost: '0', insurance: '0', netQtyBySymbol: {}, frozenMismatch: [] },
      botStats: { events: 0, intents: 0, denials: 0, rejections: 0, lateAmends: 0, ordersRejected: 0, ordersExpiredUnfilled: 0, fills: 0, reconnects: 0, reconciles: 0, errors: 0, pipelineErrors: 0 },
      firstBotError: null,
      conditionsRejected: 0,
      firstConditionRejection: null,
      legsRejected: 0,
      firstLegRejection: null,
      legsUnplaced: 0,
      firstLegUnplaced: null,
      quietTrades: 0,
      gaps: { count: 0, first: [] },
      silences: { count: 0, ms: 0, longest: null, first: [] },
      booksAtFrom: 0,
      l2Unknown: [],
      importSkipped: {},
    };
  }

  private setup(header: RecordingHeader, t0: number): void {
    this.result.marks = { ...(header.marks ?? {}) };
    const partial = header.meta?.partialDepth;
    if (typeof partial === 'string') this.result.partialDepth = partial;
    this.result.importSkipped = { ...(header.skipped ?? {}) };
    // Bad input (exit 2), at the parameter that names the symbol or the quantity.
    const refused = refusedByData(this.cfg, this.opts.slots, header.symbols);
    if (refused !== undefined) throw refused;
    for (const s of this.symbols) this.needMark.add(s);
    this.clock = new ManualClock(t0);
    this.scheduler = new VirtualScheduler(this.clock);
    this.engine = new Engine({ symbols: header.symbols.map((s) => symbolConfigOf(s, this.cfg.fees)), clock: this.clock, insuranceFund: TAPE_BALANCE });
    this.engine.createAccount({ userId: TAPE_MAKER, balance: TAPE_BALANCE });
    this.engine.createAccount({ userId: TAPE_TAKER, balance: TAPE_BALANCE });
    // Nobody listens to the tape's own order and account events.
    // and they stand for the rest of the market: no margin check or freeze on their orders; and
    // nobody reads their order history, which would grow with every depth line and trade replayed.
    for (const tape of [TAPE_MAKER, TAPE_TAKER]) {
      this.engine.muteEvents(tape);
      this.engine.exemptFromMargin(tape);
      this.engine.forgetFinalOrders(tape);
    }
    this.engine.createAccount({ userId: PARTICIPANT, balance: this.cfg.account.balance });
    for (const [symbol, leverage] of Object.entries(this.cfg.account.leverage)) this.engine.setLeverage(PARTICIPANT, { symbol, leverage });
    this.engine.drain();
    const fill = this.cfg.fill;
    const replayer = new TapeReplayer(this.engine, { specs: header.symbols, quotes: fill.depthQuotes, book: fill.book, queue: fill.queue, depthLevels: fill.depthLevels });
    this.replayer = replayer;
    this.bounds = new QuietBounds(header.symbols, this.resting, replayer);
    // L2: the recorded levels a taking order can reach go into the book around it.
    const taking = fill.book === 'l2' ? { before: (o: PlaceOrderParams) => replayer.beforeTaker(o.symbol, o.side, o.type === 'MARKET' ? undefined : o.price, o.quantity), after: () => replayer.afterTaker() } : undefined;
    // And around the orders the engine places itself: triggered stops, strategy orders' entries.
    if (fill.book === 'l2') this.engine.setTakingHook({ before: (symbol, side, limit, qty) => replayer.beforeTaker(symbol, side, limit, qty), after: () => replayer.afterTaker() });
    this.sim = new SimVenue({ engine: this.engine, userId: PARTICIPANT, clock: this.clock, depthLevels: 0, taking });
    this.venue = new LatencyVenue(this.sim, this.scheduler, this.cfg.latency);
    this.bot = new Bot({ venue: this.venue, strategies: this.opts.slots, risk: this.cfg.risk, clock: this.clock, scheduler: this.scheduler, logger: this.loggerOf(this.clock), wallClock: this.wallClock });
    this.settler = new Settler(this.bot, this.venue);
    const books = new BusBooks(this.result, this.resting, this.cfg.baseDir);
    for (const type of BOOKED) this.bot.bus.subscribe(type, (e) => books.observe(e));
    // A condition or strategy order (last-price triggers) changes the picture: every trade is replayed from then on.
    for (const type of ['condition', 'strategyOrder'] as const) {
      this.bot.bus.subscribe(type, () => {
        this.fullTape = true;
      });
    }
    this.result.startTime = t0;
    this.nextSample = t0;
  }

  /**
   * Runs the timers due by `until` in time order, each after the equity samples due by its time: a
   * sample is the state before the events of its millisecond, and a timer's fill (an order sent
   * with latency) landed in the sample of the boundary before it (the first sample of a run held a
   * fill 20 ms after its time).
   */
  private async runTimers(until: number): Promise<void> {
    for (let at = this.scheduler.nextAt(); at <= until; at = this.scheduler.nextAt()) {
      this.sampleUpTo(at);
      this.scheduler.runNext(at);
      this.sim.pump();
      await this.settler.settle();
    }
  }

  private sample(time: number): void {
    const asset = this.engine.equityParts(PARTICIPANT);
    const marks: string[] = [];
    const positions: string[] = [];
    let gross = new Dec(0);
    for (const s of this.symbols) {
      const mark = this.engine.marketState(s).markPrice;
      const q = new Dec(this.engine.netQuantity(PARTICIPANT, s));
      marks.push(mark);
      positions.push(q.toString());
      gross = gross.plus(q.abs().times(mark));
    }
    this.result.samples.push({ time, equity: new Dec(asset.walletBalance).plus(asset.unrealizedPnl).toString(), marks, positions, grossNotional: gross.toString() });
  }

  /** Samples equity at every interval boundary up to and including `t`. */
  private sampleUpTo(t: number): void {
    const step = this.cfg.report.equityIntervalMs;
    while (this.nextSample <= t) {
      this.sample(this.nextSample);
      this.nextSample = (Math.floor(this.nextSample / step) + 1) * step;
    }
  }

  private async startBot(): Promise<void> {
    this.started = true;
    await this.bot.start();
    this.sim.pump();
    await this.settler.settle();
    // Samples start with the bot: before it, the participant has no reason to exist.
    this.nextSample = this.clock.now();
  }

  /**
   * The quiet-trade path, on columns: from `start`, takes every recorded trade that no strategy
   * wants as an event, that can reach no participant order and changes no tape quote (see
   * quiet-bounds.ts), and before which no timer is due. For
   * such a trade the full path would only count it, move the clock and note its price as the
   * last; this does exactly that without building the event. Returns the index of the first
   * event it did not take. The bot must be quiet (nothing in flight), and stays so: nothing here
   * reaches it but the last prices, noted at the end (nothing in between reads them).
   */
  private skipQuietTrades(batch: EventBatch, cols: TradeColumns, start: number, from: number, to: number, progressAt: number): number {
    if (cols.tradeSymbol(start) < 0 || this.fullTape || !this.settler.quiet() || this.bot.wants('trade')) return start;
    const names = cols.symbolNames;
    const lo = this.runLo;
    const hi = this.runHi;
    const last = this.runLast;
    // Entries of the scratch arrays belong to this run when their stamp is this run's.
    const stamp = ++this.runStamp;
    const seen = this.runSeen;
    let used = 0;
    const ev = this.result.events;
    const nextTimer = this.scheduler.nextAt();
    // Nothing in the run reads the clock (samples take their own time): it is set once, at the end.
    const start0 = this.clock.now();
    let now = start0;
    // The event that reaches the next progress mark goes the full way, which reports it.
    const end = Math.min(batch.count, start + (progressAt - ev.read - 1));
    let i = start;
    for (; i < end; i++) {
      const si = cols.tradeSymbol(i);
      if (si < 0) break;
      const t = batch.time(i);
      if (t < from || t >= to) break;
      if (seen[si] !== stamp) {
        seen[si] = stamp;
        last[si] = -1;
        if (si >= used) used = si + 1;
        this.bounds.fill(names[si], si, lo, hi);
      }
      const p = cols.tradeTicks(i);
      if (!(p >= lo[si] && p <= hi[si])) break;
      if (t > now) {
        // An event that ends a long silence goes the full way, which notes it.
        if (nextTimer <= t || silenceBefore(now, t) > LONG_SILENCE_MS) break;
        if (this.nextSample <= t) this.sampleUpTo(t);
        now = t;
      }
      last[si] = i;
    }
    const n = i - start;
    if (n > 0) {
      if (now > start0) this.clock.set(now);
      ev.read += n;
      ev.applied += n;
      ev.tradesSkipped += n;
      this.replayer.stats.trades += n;
      this.result.quietTrades += n;
      for (let s = 0; s < used; s++) if (seen[s] === stamp && last[s] >= 0) this.bot.noteTrade(names[s], cols.tradePrice(last[s]));
    }
    return i;
  }

  private apply(e: RecordedEvent): void {
    switch (e.k) {
      case 'trade':
        if (this.started) {
          if (this.bot.wants('trade')) this.venue.inject({ type: 'trade', time: e.t, symbol: e.s, data: { tradeId: e.id, price: e.p, quantity: e.q, side: e.side, time: e.t } }, e.et);
          else this.bot.noteTrade(e.s, e.p);
        }
        if (this.fullTape || (this.started && this.resting.reaches(e.s, e.p))) {
          this.result.events.tradesThroughEngine++;
          this.replayer.apply(e);
        } else {
          this.result.events.tradesSkipped++;
          // Counted, and tape quotes the trade went through are removed as a re-enactment would.
          this.replayer.passTrade(e);
        }
        return;
      case 'mark':
      case 'funding':
        this.replayer.apply(e);
        if (e.k === 'mark' && !this.started) this.needMark.delete(e.s);
        return;
      case 'depth':
        // Always (as marks are): the tape quotes must not depend on the shortcut.
        this.replayer.apply(e);
        if (this.started) this.venue.inject({ type: 'depth', time: e.t, symbol: e.s, data: { bids: e.b, asks: e.a } });
        return;
      case 'quote':
        // The top of the book between L2 messages: the tape quotes follow it as they follow a
        // depth line's best levels; with fill.book: l2 it also sets those levels of the L2 book.
        this.result.events.quotes++;
        this.replayer.apply(e);
        if (this.started && this.bot.wants('depth')) this.venue.inject({ type: 'depth', time: e.t, symbol: e.s, data: { bids: [[e.bp, e.bq]], asks: [[e.ap, e.aq]] } }, e.et);
        return;
      case 'book':
      case 'snapshot':
        // The L2 fill model keeps the recorded book; the top-of-book model has no use for it
        // (counted and reported: summary line, report data.events.unused).
        if (this.cfg.fill.book === 'l2') this.replayer.apply(e);
        else this.result.events.unused++;
        return;
      case 'ticker':
        if (this.started) {
          // A recorded ticker carries no open, change or book fields: those read '0'.
          const markPrice = this.engine.marketState(e.s).markPrice;
          this.venue.inject({ type: 'ticker', time: e.t, symbol: e.s, data: { lastPrice: e.last, markPrice, high: e.high, low: e.low, volume: e.vol, quoteVolume: e.qvol, priceChangePercent: '0', openPrice: '0', bestBid: '0', bestAsk: '0' } });
        }
        return;
      case 'gap': {
        // Not market data, but data missing: counted and listed for the report (the L2 book marks itself unknown).
        const g = this.result.gaps;
        if (g.first.length < GAPS_LISTED) g.first.push({ time: e.t, from: e.from, stream: e.stream, symbol: e.s ?? null, reason: e.reason });
        g.count++;
        this.replayer.apply(e);
        return;
      }
      default:
        // private, positions: a recording of someone else's account; not market data.
        this.replayer.apply(e);
    }
  }

  /**
   * A book or snapshot event straight from the cache's level columns, as `apply` would handle the
   * decoded event: to the L2 fill model in integer ticks and steps (no decimal string per level),
   * or counted as unused by the top-of-book model. False when event `i` is not one (or its units
   * are not on the replayer's grids): the caller applies the decoded event.
   */
  private applyLevels(levels: LevelColumns, i: number): boolean {
    const si = levels.levelSymbol(i);
    if (si < 0) return false;
    if (this.cfg.fill.book !== 'l2') {
      this.result.events.unused++;
      return true;
    }
    const bids = levels.bidCount(i);
    const u = levels.updateId(i);
    return this.replayer.applyBookUnits(levels.symbolNames[si], levels.isSnapshot(i), levels.tickSize(si), levels.stepSize(si), levels.ticks, levels.steps, levels.levelStart(i), bids, levels.askCount(i), u === u ? u : undefined);
  }

  /**
   * A quote event straight from the cache's columns, as `apply` handles the decoded event, when no
   * strategy wants it as depth (that needs its strings): to the tape in ticks and steps. False when
   * event `i` is not one or its units are not on the replayer's grids: the caller applies the event.
   */
  private applyQuote(quotes: QuoteColumns, i: number): boolean {
    const si = quotes.quoteSymbol(i);
    if (si < 0 || (this.started && this.bot.wants('depth'))) return false;
    const u = quotes.updateId(i);
    if (!this.replayer.applyQuoteUnits(quotes.symbolNames[si], quotes.tickSize(si), quotes.stepSize(si), quotes.bidTicks(i), quotes.bidSteps(i), quotes.askTicks(i), quotes.askSteps(i), u === u ? u : undefined)) return false;
    this.result.events.quotes++;
    return true;
  }

  async run(): Promise<BacktestResult> {
    const { source } = this.opts;
    const from = this.cfg.data.from ?? -Infinity;
    const to = this.cfg.data.to ?? Infinity;
    const every = this.opts.progressEvery ?? 100_000;
    let nextProgress = every;
    let ready = false;
    let lastT = 0;
    let stop = false;
    /** Times of the first and last event read, for a range that holds nothing. */
    let firstRead: number | undefined;
    let lastRead = 0;
    // The L2 fill model on a range that starts inside the data: the books as recorded up to its start.
    const before = this.cfg.fill.book === 'l2' && from > -Infinity ? new BooksBeforeRange(source.header) : undefined;
    const silences = new SilenceBooks(this.result.silences, this.cfg.baseDir);
    const l2 = this.cfg.fill.book === 'l2';
    /** The recording file of the current batch, and the events applied and L2 snapshots taken before it began. */
    let file = '';
    let appliedAtFileStart = 0;
    let snapshotsAtFileStart = 0;
    const snapshots = (): number => (ready ? (this.replayer.stats.l2?.snapshots ?? 0) : 0);
    // fill.book l2: a file of the range with no snapshot (nor the book as recorded up to data.from) is listed.
    const endFile = (): void => {
      if (l2 && ready && this.result.events.applied > appliedAtFileStart && snapshots() === snapshotsAtFileStart) this.result.l2Unknown.push(configRelative(this.cfg.baseDir, file));
    };
    while (!stop) {
      const batch = await source.next();
      if (!batch) break;
      if (l2 && batch.count > 0 && source.origin(0).file !== file) {
        // Another recording: its books are unknown until its own snapshot (a book never carries over).
        if (file !== '') {
          endFile();
          if (ready) this.replayer.forgetBooks();
          else before?.forgetBooks();
        }
        file = source.origin(0).file;
        appliedAtFileStart = this.result.events.applied;
        snapshotsAtFileStart = snapshots();
      }
      silences.startBatch(this.result.events.applied);
      const cols = batch.trades;
      for (let i = 0; i < batch.count; i++) {
        if (cols !== undefined && this.started) {
          const next = this.skipQuietTrades(batch, cols, i, from, to, nextProgress);
          if (next > i) {
            lastT = batch.time(next - 1);
            i = next - 1;
            continue;
          }
        }
        const t = batch.time(i);
        this.result.events.read++;
        // Events are applied at the clock's time when earlier: a recording that goes back in time
        // (two files of the same hours listed one after the other) would replay as a still market.
        if (t + BACKWARD_TOLERANCE_MS < lastRead) throw new BacktestConfigError(this.cfg.file, 'data.files', 'events in time order, each file after the one before it (to replay several symbols over the same hours, import their captures together: one recording)', `an event at ${new Date(t).toISOString()} (${originText(source.origin(i))}, event ${this.result.events.read} of the replay) after one at ${new Date(lastRead).toISOString()}`);
        firstRead ??= t;
        lastRead = Math.max(lastRead, t);
        if (t < from) {
          before?.apply(batch.event(i));
          continue;
        }
        if (t >= to) {
          stop = true;
          break;
        }
        if (!ready) {
          this.setup(source.header, t);
          if (before !== undefined) this.result.booksAtFrom = before.handTo(this.replayer);
          ready = true;
        }
        const now = this.clock.now();
        if (t > now) {
          // The clock is the latest event time of the range: a long way to this event is a silence of the data.
          if (silenceBefore(now, t) > LONG_SILENCE_MS) silences.note(source, i, this.result.events.applied, now, t);
          if (this.started) {
            if (this.scheduler.nextAt() <= t) await this.runTimers(t);
            this.sampleUpTo(t);
          }
          this.clock.set(t);
        }
        const levels = batch.levels;
        const quotes = batch.quotes;
        if ((levels === undefined || !this.applyLevels(levels, i)) && (quotes === undefined || !this.applyQuote(quotes, i))) this.apply(batch.event(i));
        this.result.events.applied++;
        lastT = t;
        if (this.started) {
          this.sim.pump();
          if (!this.settler.quiet() && !this.settler.stalled()) await this.settler.settle();
        } else {
          this.engine.drain();
          if (this.needMark.size === 0) await this.startBot();
        }
        // Ctrl+C: seen within a few thousand events (a progress point can be 100,000 away).
        if ((this.result.events.applied & 4095) === 0) this.opts.signal?.throwIfAborted();
        if (this.result.events.read >= nextProgress) {
          nextProgress += every;
          const p = source.progress();
          this.opts.onProgress?.({ events: this.result.events.read, bytesDone: p.done, bytesTotal: p.total, time: t });
        }
      }
      silences.endBatch(source, this.result.events.applied);
    }
    endFile();
    if (!ready) {
      // Read to the end, so the error can say where the data is.
      for (let b = await source.next(); b !== undefined; b = await source.next()) if (b.count > 0) lastRead = b.time(b.count - 1);
      await source.close();
      throw rangeWithoutEvents(this.cfg.file, this.cfg.data.files, from, to, firstRead === undefined ? undefined : { first: firstRead, last: lastRead });
    }
    await source.close();
    // Bad input, not a failure of the run: the data cannot start the strategies (exit 2).
    if (!this.started) throw new BacktestConfigError(this.cfg.file, 'data.files', `a mark price for ${[...this.needMark].join(', ')} in the configured time range (recorded, or derived by the import from quotes or the book's top): the strategies start at the first one`, 'none, so the strategies never started');
    const end = Number.isFinite(to) ? Math.max(lastT, Math.min(to, lastT)) : lastT;
    await this.runTimers(end);
    this.sampleUpTo(end);
    this.result.endTime = end;
    await this.finish();
    // The sample at the end is the final state, the one finalEquity reports: a boundary sample
    // at `end` was taken before that millisecond's events (timers first) and before the bot's
    // stop, so it is replaced, and the last period ends at the final equity.
    const samples = this.result.samples;
    if (samples.length > 0 && samples[samples.length - 1].time === end) samples.pop();
    this.sample(end);
    const p = source.progress();
    this.opts.onProgress?.({ events: this.result.events.read, bytesDone: p.total, bytesTotal: p.total, time: end });
    return this.result;
  }

  private loggerOf(clock: Clock): StrategyLogger {
    const l = this.opts.logger;
    return l === undefined ? silent : typeof l === 'function' ? l(clock) : l;
  }

  /** Stops the bot (its onStop intents still reach the engine) and collects the final state. */
  private async finish(): Promise<void> {
    let stopped = false;
    const stopping = this.bot.stop().then(() => {
      stopped = true;
    });
    for (let guard = 0; !stopped && guard < 1_000_000; guard++) {
      await TURN;
      if (!stopped && !this.scheduler.runNext(Infinity)) {
        for (let k = 0; k < SETTLE_TURNS && !stopped; k++) await TURN;
        if (!stopped && this.scheduler.pending === 0) break;
      } else this.sim.pump();
    }
    await Promise.race([stopping, Promise.resolve()]);
    this.sim.pump();
    const r = this.result;
    const asset = this.engine.asset(PARTICIPANT);
    r.finalAsset = { walletBalance: asset.walletBalance, unrealizedPnl: asset.unrealizedPnl };
    r.finalPositions = this.engine.positions(PARTICIPANT).map((p) => ({ symbol: p.symbol, positionSide: p.positionSide, quantity: p.quantity, entryPrice: p.entryPrice, unrealizedPnl: p.unrealizedPnl }));
    const changes = this.engine.accountData(PARTICIPANT).changes.toArray();
    for (const c of changes) {
      if (c.changeType === 'FUNDING_FEE') r.funding.push({ time: c.createdAt, symbol: c.symbol, amount: c.amount });
    }
    r.liquidations = liquidationCount(changes);
    r.tape = { ...this.replayer.stats, quotes: { ...this.replayer.stats.quotes }, skipped: { ...this.replayer.stats.skipped } };
    r.audit = this.engine.audit();
    r.botStats = { ...this.bot.stats };
    for (const [id, w] of this.wallClock.reads()) {
      const c = r.strategies[id];
      if (c === undefined) continue;
      c.wallClockReads = w.reads;
      c.firstWallClockRead = w.first;
    }
  }
}

export async function runBacktest(cfg: BacktestConfig, opts: RunOptions): Promise<BacktestResult> {
  return new BacktestRun(cfg, opts).run();
}
