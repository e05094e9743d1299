/**
 * A bot: one venue, several strategies, one bus, one risk engine, one executor. Live, paper and
 * backtest differ only in the Venue, Clock and Scheduler injected here (DESIGN.md: one wiring).
 *
 * Per venue event: write the cache, publish on the bus; strategies react with intents; each
 * intent passes the risk engine (denials become events) and queues in the executor; at the end
 * of the event the executor flushes the tick's intents as batched venue calls.
 */
import type { Clock, Scheduler } from '../core/clock';
import { errMessage } from '../core/errors';
import type { ConditionOrderRecord } from '../protocol/records';
import { EventBus } from './bus/event-bus';
import { MarketDataInterest } from './bus/market-data-interest';
import { CodeLog, RefusalLog } from './code-log';
import { DEFAULT_STRATEGY_ERRORS, StrategyFaults, type StrategyErrorLimit, type StrategyHealth } from './strategy/errors';
import { HookResultError, intentProblem } from './strategy/intent-check';
import { cancelConditionOrders, FLATTEN_ID, flattenPositions, leftOnVenue, warnPositionsWithoutStop, type LeftOnStop, type StopDeps } from './stop';
import type { BotEvent } from './bus/events';
import { ClientIdAllocator } from './execution/client-ids';
import { OrderExecutor } from './execution/executor';
import { isLateAmend } from './execution/refusals';
import { OrderTracker } from './execution/order-tracker';
import { reconcileAtStart } from './execution/start-reconcile';
import { RiskEngine } from './risk/risk-engine';
import type { BotStateStore, KillRecord } from './state/saved-state';
import type { RiskLimits } from './risk/limits';
import { StateCache } from './state/cache';
import { PositionPoll } from './state/position-poll';
import { MARKET_DATA_TYPES, type AnyStrategyDefinition, type MarketDataType, type StrategyLogger, type SymbolInfo } from './strategy/api';
import type { Intent } from './strategy/intents';
import { toSymbolInfo } from './strategy/context';
import { BAR_TIMER } from './strategy/hooks';
import { MARKET_EVENT, runStrategy, type RunningStrategy } from './strategy/running';
import type { WallClockWatch } from './strategy/wall-clock';
import { controlStrategy, countsAsDenial, deliveredWhilePaused, pausedDenial, stoppingDenial, type StrategyAction, type StrategyActionResult } from './strategy/controls';
import type { Venue, VenueEvent } from './venue/venue';
import { VenueIntake } from './venue-intake';

export interface StrategySlot {
  /** Unique in the bot; prefixes its clientOrderIds. */
  id: string;
  definition: AnyStrategyDefinition;
  params: Record<string, unknown>;
  /** The module file the definition was loaded from, when loaded from one: named in its errors. */
  module?: string;
}

export interface BotOptions {
  venue: Venue;
  strategies: StrategySlot[];
  risk: RiskLimits;
  clock: Clock;
  scheduler: Scheduler;
  logger: StrategyLogger & { child?(bindings: object): StrategyLogger };
  /** Positions are polled over REST this often and compared with the stream's (0: never). */
  pollPositionsMs?: number;
  store?: BotStateStore;
  /** Cancel the strategies' orders when the bot stops. */
  cancelOnStop?: boolean;
  /** Close every open position with reduce-only market orders when the bot stops. */
  flattenOnStop?: boolean;
  /** How long a stop waits for the flattening fills (default 3000 ms). */
  flattenTimeoutMs?: number;
  /** Denials and rejections are logged at most once per code per this interval (default 10 s). */
  denialLogIntervalMs?: number;
  /**
   * A strategy that throws this many times within `windowMs` is stopped (no more events, its
   * orders cancelled, the bot REDUCING); `false`: never stopped. Default 10 in 60 s.
   */
  strategyErrors?: StrategyErrorLimit | false;
  /** A backtest's watch on the strategies' reads of the wall clock (strategy/wall-clock.ts). */
  wallClock?: WallClockWatch;
}

/** The bot's own catch-all bus handler (its dispatcher to the strategies). */
const OWN_BUS_HANDLERS = 1;

export class Bot {
  readonly bus = new EventBus();
  readonly cache = new StateCache();
  readonly tracker = new OrderTracker();
  readonly risk: RiskEngine;
  readonly executor: OrderExecutor;
  readonly symbols = new Map<string, SymbolInfo>();
  private readonly clientIds: ClientIdAllocator;
  private readonly running: RunningStrategy[] = [];
  /** Who wants each market data type (bus/market-data-interest.ts). */
  private readonly interest = new MarketDataInterest(this.bus, OWN_BUS_HANDLERS);
  private unsubscribeVenue: (() => void) | undefined;
  private started = false;
  /** The start's reconciliation succeeded: the bot knows its orders, and a stop may cancel them (else it touches nothing). */
  private reconciled = false;
  private stopped = false;
  /** Set once the strategies' onStop intents are in: from then on only cancels go out. */
  private closing = false;
  /** Loss limits are configured, so mark moves must be turned into equity readings. */
  private readonly watchEquity: boolean;
  /** Venue events into the cache and onto the bus (venue-intake.ts). */
  private readonly intake: VenueIntake;
  /** Counters for status lines and metrics. */
  /** `lateAmends`: the rejections that were amends of orders already ended (execution/refusals.ts isLateAmend), counted in `rejections` too. */
  /** `ordersRejected`: orders the venue took and ended REJECTED at once (a makerOnly order that would have taken liquidity): no error code, so not `rejections`. */
  /** `ordersExpiredUnfilled`: orders that ended EXPIRED with nothing filled (execution/refusals.ts isExpiredUnfilled). */
  /** `reconnects`: stream drops and resyncs of either stream, `reconciles`: reconciliations done (the start's too): as perpkit_bot_reconnects_total and perpkit_bot_reconciliations_total. */
  readonly stats = { events: 0, intents: 0, denials: 0, rejections: 0, lateAmends: 0, ordersRejected: 0, ordersExpiredUnfilled: 0, fills: 0, reconnects: 0, reconciles: 0, errors: 0, pipelineErrors: 0 };
  /** The last unexpected exception of the bot's own pipeline (`botError`), as `context: message`. */
  lastPipelineError: string | undefined;

  constructor(private readonly opts: BotOptions) {
    this.clientIds = new ClientIdAllocator(opts.clock.now());
    if (opts.flattenOnStop === true) this.clientIds.register(FLATTEN_ID);
    this.watchEquity = opts.risk.maxDailyLoss !== undefined || opts.risk.maxDrawdown !== undefined;
    this.risk = new RiskEngine(opts.risk, (state, reason) => {
      this.bus.publish({ type: 'riskState', time: this.opts.clock.now(), state, reason });
    });
    this.executor = new OrderExecutor({
      venue: opts.venue,
      bus: this.bus,
      cache: this.cache,
      tracker: this.tracker,
      clientIds: this.clientIds,
      clock: opts.clock,
      scheduler: opts.scheduler,
      onError: (e, context, level) => this.reportError(e, context, level),
      onFillsFound: (o, fills, sid) => this.intake.onFillsFound(o, fills, sid),
      onStaleView: (reason) => this.reconcile(reason),
    });
    this.intake = new VenueIntake({ bus: this.bus, cache: this.cache, executor: this.executor, risk: this.risk, clock: opts.clock, interest: this.interest, stats: this.stats, watchEquity: this.watchEquity, strategyOf: (cid) => this.strategyOf(cid), reconcile: (reason) => this.reconcile(reason), kick: () => this.kick() });
    // A handler of botError that throws is reported without another botError (it would feed itself).
    this.bus.onHandlerError = (e, event) => (event.type === 'botError' || event.type === 'errorReported' ? this.reportError(e, `handler of ${event.type}`) : this.pipelineError(e, `handler of ${event.type}`));
    this.codeLog = new CodeLog(opts.scheduler, opts.denialLogIntervalMs ?? 10_000);
    this.refusals = new RefusalLog(this.codeLog, opts.logger, this.bus);
    this.positionPoll = new PositionPoll({ venue: opts.venue, cache: this.cache, bus: this.bus, clock: opts.clock, scheduler: opts.scheduler, reportError: (e, context, level) => this.reportError(e, context, level), reconcile: (reason) => this.reconcile(reason), ours: (cid) => this.strategyOf(cid) !== undefined });
    this.faults = new StrategyFaults<RunningStrategy>({ logger: opts.logger, clock: opts.clock, bus: this.bus, stats: this.stats, limit: opts.strategyErrors ?? DEFAULT_STRATEGY_ERRORS, stop: (r, reason) => this.stopStrategy(r, reason) });
  }

  private readonly codeLog: CodeLog;
  private readonly refusals: RefusalLog;
  /** The strategies' errors: counted, published, a strategy stopped past the limit (strategy/errors.ts). */
  private readonly faults: StrategyFaults<RunningStrategy>;
  /** The kill switch an operator pulled, kept in the state file (SavedBotState.halted). */
  private killRecord: KillRecord | undefined;
  /**
   * The venue's session started (streams, sign-in) and the saved state was read: before, a stop has
   * nothing to check on the venue, and must not save, which would put this run's fresh state over
   * the last run's (its kill switch, risk memory and strategies' state).
   */
  private venueStarted = false;
  private stateLoaded = false;
  /** Positions over REST beside the stream's (pollPositionsMs). */
  private readonly positionPoll: PositionPoll;

  /**
   * Counts an error and logs it: the first of a kind (context and error code) at once, repeats as
   * one line with their count per denialLogIntervalMs (a venue that fails every call for an hour
   * would otherwise write a line per call: megabytes a minute).
   */
  private reportError(e: unknown, context: string, given?: 'error' | 'warn'): void {
    this.stats.errors++;
    // A venue error the SDK calls retryable (a 503, a dropped connection) is one the bot recovers
    // from (asks again, settles by query, reconciles): warn, so that error lines are the ones to look at.
    const level = given ?? ((e as { retryable?: unknown } | null)?.retryable === true ? 'warn' : 'error');
    const code = (e as { code?: unknown } | null)?.code;
    const kind = typeof code === 'string' ? code : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    const log = this.opts.logger;
    this.codeLog.note(`error:${context}:${kind}`, (f, m) => (level === 'warn' ? log.warn(f, m) : log.error(f, m)), { err: e instanceof Error ? { message: e.message, name: e.name, stack: e.stack ?? '' } : String(e), context }, 'bot error');
    // Not from a handler of this event itself (it would feed itself).
    if (!context.startsWith('handler of errorReported')) this.bus.publish({ type: 'errorReported', time: this.opts.clock.now(), context, message: e instanceof Error ? e.message : String(e) });
  }

  /**
   * An exception the bot's pipeline did not expect: reported as every error is, and published as a
   * `botError` so that health, metrics, the backtest summary and test worlds show it.
   */
  private pipelineError(e: unknown, context: string): void {
    this.reportError(e, context);
    this.stats.pipelineErrors++;
    const message = e instanceof Error ? e.message : String(e);
    this.lastPipelineError = `${context}: ${message}`;
    this.bus.publish({ type: 'botError', time: this.opts.clock.now(), context, message, stack: e instanceof Error ? (e.stack ?? '') : '' });
  }

  /** Strategy owning a clientOrderId, or undefined for orders that are not this bot's. */
  strategyOf(clientOrderId: string): string | undefined {
    return this.clientIds.strategyOf(clientOrderId);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('bot already started');
    this.started = true;
    const specs = await this.opts.venue.symbols();
    for (const s of specs) this.symbols.set(s.symbol, toSymbolInfo(s));
    const marketSymbols = new Set<string>();
    for (const slot of this.opts.strategies) {
      this.clientIds.register(slot.id);
      const { clock, scheduler, logger, wallClock } = this.opts;
      const emit = (r: RunningStrategy, list: unknown[]): void => {
        this.intents(r, list, 'emit');
        this.kick();
      };
      const { running, symbols } = runStrategy(slot, { clock, scheduler, logger, cache: this.cache, symbols: this.symbols, tracker: this.tracker, bus: this.bus, emit, kick: () => this.kick(), wallClock });
      for (const s of symbols) marketSymbols.add(s);
      this.interest.addStrategy(running.market ?? MARKET_DATA_TYPES);
      this.running.push(running);
    }
    this.bus.subscribeAll((e) => this.dispatch(e));
    const listener = { next: (e: VenueEvent) => this.intake.onEvent(e), error: (err: unknown) => this.pipelineError(err, 'venue events') };
    if (this.opts.venue.listen) {
      this.unsubscribeVenue = this.opts.venue.listen(listener);
    } else {
      const sub = this.opts.venue.events.subscribe(listener);
      this.unsubscribeVenue = () => sub.unsubscribe();
    }
    await this.opts.venue.start([...marketSymbols]);
    this.venueStarted = true;
    for (const sym of marketSymbols) this.intake.marketDataAt.set(sym, this.opts.clock.now());
    const saved = this.opts.store ? await this.opts.store.load() : undefined;
    this.stateLoaded = true;
    if (saved?.risk !== undefined) this.risk.restore(saved.risk);
    for (const r of this.running) {
      // Paused before its first event: onStart's orders are denied like any a paused strategy asks for.
      const paused = saved?.paused?.[r.slot.id];
      if (paused !== undefined) r.paused = paused;
      const s = saved?.strategies[r.slot.id];
      if (s === undefined || !r.strategy.restoreState) continue;
      try {
        r.strategy.restoreState(s);
      } catch (e) {
        this.faults.threw(r, 'restoreState', e);
      }
    }
    // Adopt what the venue already holds (orders from before a restart) before trading: asked again while the venue is busy, else the start fails.
    await reconcileAtStart(() => this.executor.reconcile('start', (cid) => this.strategyOf(cid), true), (ms) => new Promise((r) => this.opts.scheduler.after(ms, r)), this.opts.logger);
    this.reconciled = true;
    try {
      this.cache.setAsset(await this.opts.venue.account());
      for (const s of marketSymbols) this.cache.setMark(s, await this.opts.venue.markPrice(s));
      // The day's first equity reading is the start, not the first account event after it.
      if (this.watchEquity) this.intake.observeEquityAtMarks(this.opts.clock.now());
    } catch (e) {
      this.reportError(e, 'initial account and mark price');
    }
    await warnPositionsWithoutStop(this.stopDeps(), marketSymbols, (cid) => this.strategyOf(cid) !== undefined);
    for (const r of this.running) {
      const barMs = r.hooks.barTimerMs();
      if (barMs !== undefined && r.stopped === undefined) r.ctx.every(BAR_TIMER, barMs);
      if (!r.strategy.onStart || r.stopped !== undefined) continue;
      let out;
      try {
        const start = r.strategy.onStart.bind(r.strategy);
        out = this.opts.wallClock ? this.opts.wallClock.run(r.slot.id, () => 'onStart', start) : start();
      } catch (e) {
        this.faults.threw(r, 'onStart', e);
        continue;
      }
      this.intents(r, out, 'onStart');
    }
    // A trading state set before the start (a kill switch kept from an earlier run, the config's
    // killSwitch): the strategies hear it as they would have while running. Unheard, a market
    // maker kept asking to quote, ~8 STATE_HALTED denials a second for as long as the bot ran.
    if (this.risk.state !== 'ACTIVE') this.bus.publish({ type: 'riskState', time: this.opts.clock.now(), state: this.risk.state, reason: this.risk.reason });
    this.kick();
    const pollMs = this.opts.pollPositionsMs ?? 0;
    if (pollMs > 0) this.positionPoll.start(pollMs);
  }

  /**
   * The symbols the strategies trade, each with the time (bot clock, ms) of its last market-data
   * event (trade, mark price, book, ticker), or of the subscription while none has come.
   */
  lastMarketData(): ReadonlyMap<string, number> {
    return this.intake.marketDataAt;
  }

  /** How long the venue still throttles this account (0: not at all; see Venue.throttledForMs). */
  get venueThrottledMs(): number {
    return this.opts.venue.throttledForMs?.() ?? 0;
  }

  /**
   * Stops strategies (their onStop intents are still sent), cancels if configured, flattens if
   * configured, saves state, and says what is left on the venue (positions and open orders).
   */
  async stop(): Promise<LeftOnStop> {
    if (!this.started || this.stopped) return { positions: [], openOrders: [], conditionOrders: [], flattened: undefined, error: 'the bot was not running' };
    this.stopped = true;
    this.positionPoll.stop();
    for (const r of this.running) {
      for (const cancel of r.timers.values()) cancel();
      r.timers.clear();
      if (r.strategy.onStop && r.stopped === undefined) {
        try {
          this.intents(r, r.strategy.onStop(), 'onStop');
        } catch (e) {
          this.faults.threw(r, 'onStop', e);
        }
      }
      if (this.opts.cancelOnStop && this.reconciled) this.executor.enqueue(r.slot.id, { kind: 'cancelAll' });
    }
    // Strategies still hear about their orders and fills while the stop drains, but what they ask
    // for in answer is not sent: a grid would otherwise re-place each level its stop cancels.
    this.closing = true;
    await this.executor.idle();
    const deps = this.stopDeps();
    let cancelledConditions: ConditionOrderRecord[] = [];
    if (this.opts.cancelOnStop && this.reconciled) {
      const ids = new Set(this.running.map((r) => r.slot.id));
      cancelledConditions = await cancelConditionOrders(deps, (cid) => ids.has(this.strategyOf(cid) ?? ''));
    }
    const flattened = this.opts.flattenOnStop === true ? await flattenPositions(deps, this.opts.flattenTimeoutMs ?? 3000) : undefined;
    this.codeLog.flush();
    // A state that cannot be saved does not keep the streams open: the stop goes on, and says so.
    let stateNotSaved: string | undefined;
    try {
      await this.saveState();
    } catch (e) {
      stateNotSaved = errMessage(e);
      this.reportError(e, 'save state at stop');
    }
    const left = this.venueStarted ? await leftOnVenue(deps, flattened, cancelledConditions) : this.neverReachedVenue(flattened);
    this.executor.close();
    this.unsubscribeVenue?.();
    await this.opts.venue.stop();
    return stateNotSaved === undefined ? left : { ...left, stateNotSaved };
  }

  private stopDeps(): StopDeps {
    return { venue: this.opts.venue, cache: this.cache, tracker: this.tracker, executor: this.executor, clock: this.opts.clock, scheduler: this.opts.scheduler, logger: this.opts.logger, reportError: (e, c) => this.reportError(e, c) };
  }

  /** What a stop says when the start failed before the venue's session began: nothing was sent, nothing checked. */
  private neverReachedVenue(flattened: boolean | undefined): LeftOnStop {
    this.opts.logger.info({}, 'stopped before the venue session started: nothing sent, nothing to check on the venue');
    return { positions: [], openOrders: [], conditionOrders: [], flattened, error: undefined };
  }

  async saveState(): Promise<void> {
    if (!this.opts.store || !this.stateLoaded) return;
    const strategies: Record<string, unknown> = {};
    for (const r of this.running) {
      if (!r.strategy.saveState) continue;
      try {
        strategies[r.slot.id] = r.strategy.saveState();
      } catch (e) {
        this.faults.threw(r, 'saveState', e);
      }
    }
    const risk = this.risk.memory();
    const paused: Record<string, string> = {};
    for (const r of this.running) if (r.paused !== undefined) paused[r.slot.id] = r.paused;
    await this.opts.store.save({
      savedAt: this.opts.clock.now(),
      strategies,
      ...(risk === undefined ? {} : { risk }),
      ...(Object.keys(paused).length === 0 ? {} : { paused }),
      ...(this.killRecord === undefined ? {} : { halted: this.killRecord }),
    });
  }

  /** Kill switch: HALTED, then every order of the account cancelled. */
  async kill(reason: string, opts: { keep?: boolean; at?: number } = {}): Promise<void> {
    this.risk.setState('HALTED', `kill switch: ${reason}`);
    // Saved with the state (see SavedBotState.halted) unless the config's killSwitch pulled it.
    if (opts.keep !== false) this.killRecord = { reason, at: opts.at ?? this.opts.clock.now() };
    for (const r of this.running) this.executor.enqueue(r.slot.id, { kind: 'cancelAll' });
    await this.executor.idle();
    for (const s of this.symbols.keys()) {
      try {
        await this.opts.venue.cancelAll(s);
      } catch (e) {
        this.reportError(e, 'kill switch cancel-all');
      }
    }
  }

  /** Polls the positions once now (state/position-poll.ts): a difference from the stream's reconciles. */
  pollPositions(): Promise<void> {
    return this.positionPoll.poll();
  }

  /** Resolves when every queued intent has been sent and answered. */
  idle(): Promise<void> {
    return this.executor.idle();
  }

  // ------------------------------------------------------------------ venue events (venue-intake.ts)

  /**
   * Whether a market-data event of `type` has anyone to go to: a strategy that handles it, or a
   * bus subscriber other than the bot's own dispatcher (metrics, a user's `bus.on(type)`). When
   * not, the bot updates its state cache and publishes nothing.
   */
  wants(type: MarketDataType): boolean {
    return this.interest.wants(type);
  }

  /**
   * Records a public trade's price in the state cache without an event: for a market-data feed
   * that has checked `wants('trade')` is false (the backtest driver, per recorded trade), so it
   * need not build a venue event only for the bot to drop it.
   */
  noteTrade(symbol: string, price: string): void {
    this.cache.setLast(symbol, price);
  }

  private reconcile(reason: string): void {
    this.executor.reconcile(reason, (cid) => this.strategyOf(cid)).catch((e: unknown) => this.reportError(e, 'reconcile'));
  }

  /** Flushes the tick's intents; errors are reported, never swallowed. */
  private kick(): void {
    if (this.executor.queued === 0) return;
    this.executor.flush().catch((e: unknown) => this.pipelineError(e, 'flush'));
  }

  // ------------------------------------------------------------------ strategies

  private dispatch(e: BotEvent): void {
    this.stats.events++;
    if (e.type === 'denial' && countsAsDenial(e.code)) this.stats.denials++;
    if (e.type === 'reconciled') this.stats.reconciles++;
    if (e.type === 'rejection') {
      this.stats.rejections++;
      if (isLateAmend(e)) this.stats.lateAmends++;
    }
    // Ended REJECTED on arrival (a makerOnly order that would have taken liquidity), or EXPIRED
    // with nothing filled: no error code, so no rejection.
    if (e.type === 'order') {
      const refused = this.refusals.order(e);
      if (refused === 'rejected') this.stats.ordersRejected++;
      else if (refused === 'expiredUnfilled') this.stats.ordersExpiredUnfilled++;
    }
    // A strategy's own errors go to operators, not back to strategies (a handler that throws on
    // them would feed itself).
    if (e.type === 'strategyError' || e.type === 'botError' || e.type === 'errorReported') return;
    const owner = 'strategyId' in e ? e.strategyId : undefined;
    const ownedTypes = e.type === 'order' || e.type === 'fill' || e.type === 'timer' || e.type === 'denial' || e.type === 'rejection';
    for (const r of this.running) {
      if (!r.hooks.takesEvents || r.stopped !== undefined) continue;
      if (ownedTypes && owner !== r.slot.id) continue;
      if (r.paused !== undefined && !deliveredWhilePaused(e.type)) continue;
      if (r.market !== undefined && MARKET_EVENT.has(e.type) && !r.market.has(e.type)) continue;
      let out;
      try {
        out = r.hooks.handle(e);
      } catch (err) {
        if (err instanceof HookResultError) this.faults.refusedResult(r, r.hooks.where, err);
        else this.faults.threw(r, r.hooks.where, err);
        continue;
      }
      this.intents(r, out, r.hooks.where);
    }
  }

  /** Stops one strategy for its errors: no more events or timers, its orders cancelled, REDUCING. */
  private stopStrategy(r: RunningStrategy, reason: string): void {
    r.stopped = reason;
    for (const cancel of r.timers.values()) cancel();
    r.timers.clear();
    this.executor.enqueue(r.slot.id, { kind: 'cancelAll' });
    this.opts.logger.error({ strategy: r.slot.id, reason }, 'strategy stopped for its errors; its orders are cancelled');
    if (this.risk.state === 'ACTIVE') this.risk.setState('REDUCING', `strategy ${r.slot.id} stopped: ${reason}`);
    this.bus.publish({ type: 'strategyStopped', time: this.opts.clock.now(), strategyId: r.slot.id, reason });
    this.kick();
  }

  /** Errors and state of each strategy. */
  strategyHealth(): StrategyHealth[] {
    return this.running.map((r) => ({ id: r.slot.id, errors: r.errors, stopped: r.stopped, lastError: r.lastError, paused: r.paused, halted: r.halted, blocked: r.denials.blocked() }));
  }

  /** Pauses, resumes or cancels the orders of one strategy for an operator (controls.ts). */
  control(strategyId: string, action: StrategyAction, reason: string): Promise<StrategyActionResult> {
    const r = this.running.find((x) => x.slot.id === strategyId);
    return controlStrategy({ executor: this.executor, tracker: this.tracker, kick: () => this.kick(), active: this.started && !this.stopped }, r, strategyId, action, reason, this.running.map((x) => x.slot.id));
  }

  /**
   * Intents of a strategy (returned by `where`, a hook, or emitted), where they enter the bot:
   * each is checked for its shape first (strategy modules are not type-checked when loaded), and
   * a malformed one is refused as an error of the strategy, counted as a throw would be.
   */
  private intents(r: RunningStrategy, list: unknown, where: string): void {
    // Falsy is "nothing" (`return ready && [...]`).
    if (!list) return;
    if (!Array.isArray(list)) {
      this.faults.refusedResult(r, where, new HookResultError(where, list));
      return;
    }
    for (const x of list as unknown[]) {
      if (r.stopped !== undefined) return;
      const problem = intentProblem(x);
      if (problem !== undefined) {
        this.faults.refused(r, where, `malformed intent refused: ${problem}`);
        continue;
      }
      const intent = x as Intent;
      this.stats.intents++;
      const cancel = intent.kind === 'cancel' || intent.kind === 'cancelAll';
      const d = this.closing && !cancel ? stoppingDenial() : r.paused !== undefined && !cancel ? pausedDenial(r.slot.id, r.paused) : this.risk.check(intent, { state: this.cache, symbols: this.symbols, tracker: this.tracker, clock: this.opts.clock, pending: this.executor.pendingOrders });
      if (!d.ok) {
        const now = this.opts.clock.now();
        if (!cancel && r.denials.denied(d.code, d.reason, now)) this.opts.logger.warn({ strategy: r.slot.id, lastDenial: d.code }, `strategy ${r.slot.id} trades nothing: ${r.denials.blocked() ?? ''}`);
        this.bus.publish({ type: 'denial', time: now, strategyId: r.slot.id, intent, code: d.code, reason: d.reason });
        continue;
      }
      if (!cancel) r.denials.passed();
      this.executor.enqueue(r.slot.id, intent);
    }
  }
}
