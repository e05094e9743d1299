/**
 * The replayed market of the local exchange (`--market replay:<file>`): reads a recording and
 * drives the exchange with it through the tape fill model (engine/market/tape.ts), paced by wall time.
 * Every change goes through `core.execute`, so it is journaled like any user's command and
 * public streams (trades, mark price, depth of participants' orders) show the replay.
 *
 * - Marks and funding settlements come from the recording (the exchange's own funding schedule
 *   is not run in this mode: the recorded `funding` lines are the settlements).
 * - Recorded trades go through the tape users `tape-maker` and `tape-taker` (created here with
 *   TAPE_BALANCE), which fill users' orders exactly when the tape reaches their price.
 * - Recorded depth lines become tape quotes (the recorded best bid and ask rest in the book, see
 *   engine/market/tape.ts), the TapeReplayer's default, as in a backtest (`fill.depthQuotes` true): users'
 *   market orders fill against them.
 * - The engine's clock stays wall time: recorded times only pace the replay (`speed` 1 = as
 *   recorded, 10 = ten times faster, 'max' = as fast as the journal takes it).
 * - When the file ends the market stops moving: no more marks or trades; orders stay as they are.
 * - A restart replays the file from its beginning again (the journal keeps the state so far).
 * - Lock-step (`lockStep`, for tests such as the backtest parity test): no pacing; before each
 *   recorded event `before` is called (a test sets the exchange's clock to the event's time there),
 *   and after it, once its commands are on the journal and their engine events published, the
 *   replay awaits `barrier` before the next event (a test waits there until its bot has caught up).
 */
import { VenueError } from '../../core/errors';
import type { ExchangeCore } from '../service/exchange-core';
import type { Command } from '../service/commands';
import type { OrderRef, PlaceOrderInput } from '../engine/inputs';
import { readRecording } from '../../market-data/reader';
import type { RecordedEvent, RecordingHeader } from '../../market-data/format';
import { wireSpecOf } from '../engine/symbols';
import { TapeReplayer } from '../engine/market/tape';
import { TAPE_BALANCE, TAPE_MAKER, TAPE_TAKER, type ReplaySink, type TapeStats } from '../engine/market/tape-sink';
import type { QueueOptions } from '../engine/market/queue';
import type { RestingOrder } from '../engine/orders/queries';

export interface ReplayLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Lock-step replay: every recorded event (applied or not) is one step, and the replay does not go
 * on until the step's barrier resolves. `speed` is then ignored.
 */
export interface ReplayLockStep {
  /** Called before the event is applied, e.g. to set the exchange's clock to `event.t`. */
  before?(event: RecordedEvent): void;
  /** Called once the event's commands are on the journal and their engine events published. */
  barrier(event: RecordedEvent): Promise<void>;
}

export interface ReplayServiceOptions {
  core: ExchangeCore;
  /** The recording's files in order (part 0 first). */
  files: string[];
  /** Replay speed relative to recorded time, or 'max'. */
  speed: number | 'max';
  logger?: ReplayLogger;
  /** Deterministic stepping instead of pacing (tests); off by default. */
  lockStep?: ReplayLockStep;
  /**
   * The fill model's book: `top` (default) or `l2` (the recorded L2 book with queue positions, as
   * a backtest's `fill.book: l2`), with its queue model and the deeper levels a taking order walks.
   */
  fill?: { book: 'top' | 'l2'; queue?: QueueOptions; depthLevels?: number };
}

/** Password hash that no password matches: the tape users cannot log in. */
const NO_LOGIN = 'disabled$tape-user';
/** In 'max' mode, let HTTP and WebSocket work in between every so many events. */
const YIELD_EVERY = 200;

/** Adapts core.execute (asynchronous, journaled) to the replayer's sink. */
class CoreSink implements ReplaySink {
  pending: Array<Promise<unknown>> = [];

  constructor(private readonly core: ExchangeCore) {}

  private exec(cmd: Command): Promise<unknown> {
    // The engine applies the command synchronously inside execute; only the journal write is
    // awaited, so the next call already sees this one's effect.
    const p = this.core.execute(cmd);
    this.pending.push(p);
    return p;
  }

  setMarkPrice(symbol: string, markPrice: string, indexPrice?: string): unknown {
    return this.exec({ k: 'setMarkPrice', symbol, markPrice, indexPrice });
  }
  placeOrder(userId: string, input: PlaceOrderInput): unknown {
    return this.exec({ k: 'placeOrder', userId, input });
  }
  cancelOrder(userId: string, ref: OrderRef): unknown {
    return this.exec({ k: 'cancelOrder', userId, ref });
  }
  settleFunding(symbol: string, rate?: string): unknown {
    return this.exec({ k: 'settleFunding', symbol, rate });
  }
  setFundingRate(symbol: string, rate: string): unknown {
    return this.exec({ k: 'setFundingRate', symbol, rate });
  }
  marketTrade(symbol: string, price: string, quantity: string, side: 'BUY' | 'SELL'): unknown {
    return this.exec({ k: 'marketTrade', symbol, price, quantity, side });
  }
  queryOrder(userId: string, ref: OrderRef): { status: string } {
    return this.core.engine.queryOrder(userId, ref);
  }
  orderProgress(userId: string, ref: OrderRef): { status: string; executedQty?: string } {
    return this.core.engine.orderProgress(userId, ref);
  }
  restingThrough(symbol: string, side: 'BUY' | 'SELL', limitTicks: number, exactly?: boolean): RestingOrder[] {
    return this.core.engine.restingThrough(symbol, side, limitTicks, exactly);
  }

  /** Waits until the journal has every command issued so far (refusals are the replayer's to count). */
  async settle(): Promise<void> {
    const p = this.pending;
    this.pending = [];
    await Promise.allSettled(p);
  }
}

export class ReplayService {
  private readonly core: ExchangeCore;
  private readonly files: string[];
  private readonly speed: number | 'max';
  private readonly log: ReplayLogger | undefined;
  private readonly lockStep: ReplayLockStep | undefined;
  private readonly fill: NonNullable<ReplayServiceOptions['fill']>;
  private tape: TapeReplayer | undefined;
  private sink: CoreSink | undefined;
  private header: RecordingHeader | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Events applied so far. */
  applied = 0;
  /** True once the recording has been replayed to its end. */
  finished = false;

  constructor(opts: ReplayServiceOptions) {
    if (opts.files.length === 0) throw new Error('replay needs at least one recording file');
    if (opts.speed !== 'max' && !(opts.speed > 0)) throw new RangeError(`replay speed must be positive or 'max', got ${opts.speed}`);
    this.core = opts.core;
    this.files = opts.files;
    this.speed = opts.speed;
    this.log = opts.logger;
    this.lockStep = opts.lockStep;
    this.fill = opts.fill ?? { book: 'top' };
  }

  get stats(): TapeStats | undefined {
    return this.tape?.stats;
  }

  /**
   * Reads the header, checks that every recorded symbol exists on this exchange, and creates the
   * tape users when they do not exist yet. Throws an Error saying what is missing.
   */
  async init(): Promise<void> {
    const first = await readRecording([this.files[0]]).next();
    if (first.done === true || !('type' in first.value)) throw new Error(`${this.files[0]}: no recording header`);
    this.header = first.value;
    const have = new Set(this.core.engine.symbolSpecs().map((s) => s.name));
    const missing = this.header.symbols.map((s) => s.symbol).filter((s) => !have.has(s));
    if (missing.length > 0) {
      throw new Error(`the recording ${this.files[0]} has symbols ${missing.join(', ')} that this exchange does not list (it has ${[...have].join(', ')}); add them to the exchange config`);
    }
    const ids: string[] = [];
    for (const name of [TAPE_MAKER, TAPE_TAKER]) {
      const existing = this.core.accounts.byUsername.get(name);
      if (existing) {
        ids.push(existing.userId);
        continue;
      }
      const userId = this.core.accounts.nextUserId();
      await this.core.execute({ k: 'createUser', userId, username: name, passwordHash: NO_LOGIN, balance: TAPE_BALANCE, positionMode: 'ONE_WAY' });
      ids.push(userId);
    }
    this.sink = new CoreSink(this.core);
    // The exchange's own specs decide what its engine accepts, whatever the recording says.
    const specs = this.core.engine.symbolSpecs().map((s) => wireSpecOf(s.config));
    // Tape quotes on, as the backtest's default: the parity test relies on both doing the same.
    const tape = new TapeReplayer(this.sink, { tapeMaker: ids[0], tapeTaker: ids[1], specs, quotes: true, ...this.fill });
    this.tape = tape;
    if (this.fill.book === 'l2') {
      // Users' orders that may take liquidity walk the recorded levels, as in a backtest.
      const tapeUsers = new Set(ids);
      const inputs = (cmd: Command): PlaceOrderInput[] => (cmd.k === 'placeOrder' ? [cmd.input] : cmd.k === 'batchPlace' ? cmd.inputs : []);
      this.core.setCommandHooks({
        wants: (cmd) => (cmd.k === 'placeOrder' || cmd.k === 'batchPlace') && !tapeUsers.has(cmd.userId),
        before: (cmd) => {
          for (const o of inputs(cmd)) if (o.makerOnly !== true) tape.beforeTaker(o.symbol, o.side, o.type === 'MARKET' ? undefined : o.price, o.quantity);
        },
        after: () => tape.afterTaker(),
      });
    }
  }

  start(): void {
    if (this.running || !this.tape) return;
    this.running = this.run().catch((e: unknown) => {
      this.log?.warn({ err: e instanceof Error ? e.message : String(e) }, 'market replay stopped on an error');
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.core.setCommandHooks(undefined);
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.running;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  private async run(): Promise<void> {
    const tape = this.tape as TapeReplayer;
    const sink = this.sink as CoreSink;
    const wallStart = this.core.wallClock.now();
    let t0: number | undefined;
    this.log?.info({ files: this.files, speed: this.speed, source: this.header?.source }, 'market replay started');
    for await (const x of readRecording(this.files)) {
      if (this.stopped) return;
      if ('type' in x) continue;
      t0 ??= x.t;
      if (this.lockStep) {
        this.lockStep.before?.(x);
        this.apply(tape, x);
        await sink.settle();
        await this.lockStep.barrier(x);
        if (this.stopped) return;
        continue;
      }
      if (this.speed !== 'max') {
        const due = wallStart + (x.t - t0) / this.speed;
        const wait = due - this.core.wallClock.now();
        if (wait > 1) {
          await sink.settle();
          await this.sleep(wait);
          if (this.stopped) return;
        }
      } else if (this.applied % YIELD_EVERY === 0) {
        await sink.settle();
        await new Promise<void>((r) => setImmediate(r));
      }
      this.apply(tape, x);
      if (sink.pending.length > 64) await sink.settle();
    }
    await sink.settle();
    this.finished = true;
    this.log?.info({ events: this.applied, stats: tape.stats }, 'market replay reached the end of the recording; the market stops moving');
  }

  private apply(tape: TapeReplayer, x: RecordedEvent): void {
    try {
      tape.apply(x);
    } catch (e) {
      // Only non-venue errors escape the replayer (a bug or a closed core): stop replaying.
      if (e instanceof VenueError) return;
      throw e;
    }
    this.applied++;
  }
}
