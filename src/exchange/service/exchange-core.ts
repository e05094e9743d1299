/**
 * The heart of the local exchange server: the engine, the accounts state and the command log,
 * behind one `execute` that every state change goes through. HTTP handlers, the admin API, the
 * simulated market and funding scheduler all call it; nothing else mutates state.
 *
 * Order of work for a command: stamp it, apply it (a refusal throws and changes nothing), append
 * it to the log, and only once the log has it resolve the caller and publish its events. So a
 * client never hears of an order, and no stream shows one, that a crash could forget.
 */
import { checkConfiguredUsers } from './config-file';
import { EventEmitter } from 'node:events';
import type { Clock } from '../../core/clock';
import { Engine } from '../engine/engine';
import type { EngineEvent } from '../engine/events';
import { AccountsState } from './accounts-state';
import { CommandClock } from './command-clock';
import { applyCommand, type Command, type JournalEntry } from './commands';
import type { ExchangeConfig } from './config';
import { MemoryLog, type CommandLog } from './journal';

export interface ExchangeCoreOptions {
  config: ExchangeConfig;
  /** Wall clock for stamping commands, token and listenKey lifetimes. */
  wallClock: Clock;
  log?: CommandLog;
  /**
   * Engine clock reading at genesis (defaults to the wall clock now). A durable exchange passes
   * the time its data directory was created, so that replaying the journal from the start gives
   * the engine the readings it had the first time (funding schedule included).
   */
  startTime?: number;
}

export interface CoreEvents {
  /** Engine events of one command, after the command is on the log. */
  events: [EngineEvent[]];
}

/** Work around some commands, issued as commands of their own (see `execute`). */
export interface CommandHooks {
  wants(cmd: Command): boolean;
  before(cmd: Command): void;
  after(): void;
}

export class ExchangeCore {
  readonly engine: Engine;
  readonly accounts = new AccountsState();
  readonly config: ExchangeConfig;
  readonly wallClock: Clock;
  readonly emitter = new EventEmitter<CoreEvents>();
  private readonly clock: CommandClock;
  private readonly log: CommandLog;
  private seq = 0;
  private closed = false;

  constructor(opts: ExchangeCoreOptions) {
    // Configured users are created at start: refuse now one that could never log in.
    checkConfiguredUsers(opts.config.users);
    this.config = opts.config;
    this.wallClock = opts.wallClock;
    this.clock = new CommandClock(opts.startTime ?? opts.wallClock.now());
    this.log = opts.log ?? new MemoryLog();
    this.engine = new Engine({ symbols: opts.config.symbols, clock: this.clock, insuranceFund: opts.config.insuranceFund });
    this.emitter.setMaxListeners(0);
  }

  /** Number of commands applied so far (replayed and new). */
  get appliedCount(): number {
    return this.seq;
  }

  /**
   * Replays the log into the fresh engine. Call once, before serving. Replayed events go to
   * `onEvents` (market data rebuilds from them), never to the live streams.
   */
  async recover(onEvents?: (events: EngineEvent[]) => void): Promise<number> {
    let n = 0;
    for await (const entry of this.log.replay()) {
      this.applyEntry(entry);
      const events = this.engine.drain();
      if (onEvents && events.length > 0) onEvents(events);
      n++;
    }
    return n;
  }

  /**
   * Continues from a snapshot: engine and accounts already hold its state (see
   * durable-core.ts); the next command gets seq `seq + 1` and the clock resumes at `at`.
   */
  restoredTo(seq: number, at: number): void {
    this.seq = seq;
    this.clock.set(at);
  }

  /** Engine clock reading of the last applied command (a snapshot records it). */
  get lastStamp(): number {
    return this.clock.now();
  }

  /** Applies an entry read back from the log or a snapshot's tail. */
  applyEntry(entry: JournalEntry): void {
    this.clock.set(entry.at);
    try {
      applyCommand(this.engine, this.accounts, entry.cmd, entry.at);
    } catch {
      // A journaled command was accepted once; with the same state it is accepted again. A
      // refusal here would mean a corrupt log: the engine changed nothing, so carry on.
    }
    this.seq = Math.max(this.seq, entry.seq);
  }

  /**
   * Applies a command now. Resolves with its result once the command is on the log; rejects with
   * the VenueError of a refusal (nothing changed, nothing logged).
   */
  async execute<R = unknown>(cmd: Command): Promise<R> {
    if (this.closed) throw new Error('exchange core is closed');
    // Around a command the hooks want (a replay's L2 market for users' taking orders): their own
    // commands go on the log before and after this one, so the journal replays the same book.
    const hooks = this.hooks !== undefined && !this.inHook && this.hooks.wants(cmd) ? this.hooks : undefined;
    if (hooks) this.inHooks(() => hooks.before(cmd));
    const at = this.clock.stamp(this.wallClock.now());
    this.clock.set(at);
    let result: unknown;
    try {
      result = applyCommand(this.engine, this.accounts, cmd, at);
    } catch (e) {
      // A refusal emits nothing, but never let events leak into the next command.
      this.engine.drain();
      if (hooks) this.inHooks(() => hooks.after());
      throw e;
    }
    const events = this.engine.drain();
    const entry: JournalEntry = { seq: ++this.seq, at, cmd };
    const appended = this.log.append(entry);
    if (hooks) this.inHooks(() => hooks.after());
    if (appended !== undefined) await appended;
    if (events.length > 0) this.emitter.emit('events', events);
    return result as R;
  }

  private hooks: CommandHooks | undefined;
  private inHook = false;

  /** Sets (or clears) the hooks run around the commands they want. */
  setCommandHooks(hooks: CommandHooks | undefined): void {
    this.hooks = hooks;
  }

  private inHooks(fn: () => void): void {
    this.inHook = true;
    try {
      fn();
    } finally {
      this.inHook = false;
    }
  }

  /**
   * Stops accepting commands and closes the log (flushing it). `final: false` for a start that
   * did not complete, or a replay that failed: the log writes nothing more of its own (no final
   * snapshot of a state that may be half-replayed).
   */
  async close(opts: { final?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.log.close(opts);
  }
}
