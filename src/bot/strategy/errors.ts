/**
 * A strategy's errors: how many it may throw before it is stopped, what is known of them, and the
 * one form every command shows one in (`[id] where: message (top stack frame)`).
 */
import * as path from 'node:path';
import type { Clock } from '../../core/clock';
import type { Fifo } from '../../core/fifo';
import type { EventBus } from '../bus/event-bus';
import type { StrategyLogger } from './api';
import { isThenable, type HookResultError } from './intent-check';

export interface StrategyErrorLimit {
  maxErrors: number;
  windowMs: number;
}

export const DEFAULT_STRATEGY_ERRORS: StrategyErrorLimit = { maxErrors: 10, windowMs: 60_000 };

/** What the bot keeps of a running strategy's errors. */
export interface FaultRecord {
  slot: { id: string };
  errors: number;
  /** Times of the errors inside the rate window, oldest first. */
  recentErrors: Fifo<number>;
  lastError: string | undefined;
  /** Set when the strategy was stopped for its errors. */
  stopped: string | undefined;
}

/**
 * A strategy's errors as the bot meets them: a hook that threw, or that returned what the bot
 * refuses (no array, a malformed intent, a Promise, whose rejection is an error too). Each is
 * logged at error with the strategy's id, counted, published as a `strategyError` event; past
 * `limit` errors within its window, `stop` stops the strategy (the bot's: timers, orders, risk).
 */
export class StrategyFaults<R extends FaultRecord> {
  constructor(
    private readonly d: {
      logger: StrategyLogger;
      clock: Clock;
      bus: EventBus;
      /** The bot's counters: every strategy error counts among `errors`. */
      stats: { errors: number };
      limit: StrategyErrorLimit | false;
      stop: (r: R, reason: string) => void;
    },
  ) {}

  /** A strategy threw in `where`: logged with the full stack. */
  threw(r: R, where: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    const stack = err instanceof Error ? (err.stack ?? '') : '';
    // The Error itself, as every error is logged (type from its class, message, stack); a thrown
    // value that is not an Error is said as what it is.
    this.d.logger.error({ strategy: r.slot.id, where, ...(err instanceof Error ? { err } : { thrown: message, thrownType: err === null ? 'null' : typeof err }) }, 'strategy threw');
    this.fault(r, where, message, stack);
  }

  /** A strategy returned from `where` what the bot refuses: an error of the strategy, as a throw is. */
  refused(r: R, where: string, message: string): void {
    this.d.logger.error({ strategy: r.slot.id, where, reason: message }, 'strategy intent refused');
    this.fault(r, where, message, '');
  }

  /**
   * A hook returned no array. An async hook's Promise is refused like any such value, and its
   * rejection is an error of the strategy too: unhandled, it ended the process (a backtest with a
   * stack trace and no report, a bot in production).
   */
  refusedResult(r: R, where: string, err: HookResultError): void {
    this.refused(r, where, err.message);
    if (isThenable(err.got)) Promise.resolve(err.got).then(undefined, (e: unknown) => this.threw(r, `${where} (the Promise it returned)`, e));
  }

  /** A strategy erred in `where` (threw, or returned what the bot refuses): one path for both. */
  private fault(r: R, where: string, message: string, stack: string): void {
    const time = this.d.clock.now();
    this.d.stats.errors++;
    r.errors++;
    r.lastError = `${where}: ${message}`;
    this.d.bus.publish({ type: 'strategyError', time, strategyId: r.slot.id, where, message, stack });
    const limit = this.d.limit;
    if (limit === false || r.stopped !== undefined) return;
    r.recentErrors.push(time);
    for (let t = r.recentErrors.peek(); t !== undefined && t <= time - limit.windowMs; t = r.recentErrors.peek()) r.recentErrors.shift();
    if (r.recentErrors.length >= limit.maxErrors) {
      this.d.stop(r, `${r.recentErrors.length} errors within ${limit.windowMs / 1000} s; last in ${where}: ${message}`);
    }
  }
}

/** Errors of one strategy, for health, metrics and reports. */
export interface StrategyHealth {
  id: string;
  errors: number;
  /** Why it was stopped, when it was. */
  stopped: string | undefined;
  lastError: string | undefined;
  /** Why an operator paused it, while paused. */
  paused?: string | undefined;
  /** Why the strategy said it stopped trading for good (`ctx.halt`), when it did. */
  halted?: string | undefined;
  /** Why it trades nothing, when the risk engine has denied every order it asked for a while (risk/denial-streak.ts). */
  blocked?: string | undefined;
}

/** perpkit's own code: src/ of the checkout, or dist/src/ of the build (the examples, in strategies/, are strategy code). */
const OWN_CODE = path.join(path.resolve(__dirname, '../../..'), 'src') + path.sep;

/** The first `at ...` line of a stack, with absolute paths under `baseDir` made relative. */
export function stackTop(stack: string, baseDir: string | undefined): string {
  return relativeFrame(stack.split('\n').find((l) => l.trimStart().startsWith('at ')), baseDir);
}

/**
 * Where a strategy's error happened in the strategy's code: the first `at ...` line outside
 * perpkit's own code, Node's and node_modules (an error perpkit threw at a call the strategy made,
 * such as ctx.market('ETHUSDT'), was placed inside perpkit's context.js), paths under `baseDir`
 * made relative; '' when no frame is the strategy's (an error perpkit made about what a hook
 * returned: the message says which hook).
 */
export function strategyFrame(stack: string, baseDir: string | undefined): string {
  const line = stack.split('\n').find((l) => {
    const t = l.trimStart();
    return t.startsWith('at ') && !t.includes(OWN_CODE) && !t.includes('(node:') && !t.startsWith('at node:') && !t.includes(`${path.sep}node_modules${path.sep}`);
  });
  return relativeFrame(line, baseDir);
}

function relativeFrame(line: string | undefined, baseDir: string | undefined): string {
  if (line === undefined) return '';
  if (baseDir === undefined) return line.trim();
  const abs = path.resolve(baseDir);
  const prefix = abs.endsWith(path.sep) ? abs : `${abs}${path.sep}`;
  // Only where a path starts (after "(", a space or file://): a relative "bot/" cut out of the
  // middle of another path made one that does not exist.
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return line.trim().replace(new RegExp(`(^|[\\s(]|file://)${escaped}`, 'g'), '$1');
}

/**
 * How many strategy errors there were, as every command says it: a strategy error is a throw or a
 * hook's result the bot refuses (a malformed intent), so "threw" alone was not true of the latter.
 */
export function strategyErrorsText(n: number): string {
  return `strategies erred ${n} time${n === 1 ? '' : 's'} (threw, or returned what the bot refuses)`;
}

/** One strategy error as every command shows it: `[id] where: message (top stack frame)`. */
export function strategyErrorLine(e: { strategyId: string; where: string; message: string; at: string }): string {
  return `[${e.strategyId}] ${e.where}: ${e.message}${e.at === '' ? '' : ` (${e.at})`}`;
}

/**
 * A strategy's config does not fit the venue it runs on (a symbol the venue does not list, a
 * quantity below the symbol's minimum): a config error only the venue could tell, so `--check`
 * passes it and the start refuses it (exit 2, as every config error: restarting would not fix it).
 */
export class StrategyVenueConfigError extends Error {
  constructor(
    readonly strategyId: string,
    message: string,
    /** The symbol the venue lacks and what it lists, for an error at the config key that names it. */
    readonly unknownSymbol?: { symbol: string; listed: string },
    /** The parameter the venue's spec refuses (a `param.quantity`), for an error at its key. */
    readonly refusedParam?: { param: string; expected: string; got: string },
  ) {
    super(`strategy ${strategyId}: ${message}`);
    this.name = 'StrategyVenueConfigError';
  }
}

/**
 * A strategy's `create()` threw (its own code, or an import that fails at first use such as a
 * class a package does not export): the bot cannot run it, so it does not start. Names the
 * strategy, its module file and the hook, with the top stack frame.
 */
export class StrategyCreateError extends Error {
  readonly code = 'STRATEGY_CREATE';
  readonly where = 'create()';
  /** What create() threw: its message and stack. */
  readonly thrownMessage: string;
  readonly thrownStack: string;

  constructor(
    readonly strategyId: string,
    /** The module file the strategy came from, when the loader knows it. */
    readonly module: string | undefined,
    thrown: unknown,
  ) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    const stack = thrown instanceof Error ? (thrown.stack ?? '') : '';
    super(StrategyCreateError.text(strategyId, module, message, stack, undefined), { cause: thrown });
    this.name = 'StrategyCreateError';
    this.thrownMessage = message;
    this.thrownStack = stack;
  }

  /** The error with file paths relative to `baseDir` (a config's folder). */
  describe(baseDir?: string): string {
    return StrategyCreateError.text(this.strategyId, this.module, this.thrownMessage, this.thrownStack, baseDir);
  }

  private static text(id: string, module: string | undefined, message: string, stack: string, baseDir: string | undefined): string {
    const mod = module === undefined ? '' : `; module ${baseDir === undefined ? module : path.relative(baseDir, module)}`;
    return `strategy ${id} could not be created: ${strategyErrorLine({ strategyId: id, where: 'create()', message, at: strategyFrame(stack, baseDir) })}${mod}`;
  }
}
