/**
 * A strategy's errors: how many it may throw before it is stopped, what is known of them, and the
 * one form every command shows one in (`[id] where: message (top stack frame)`).
 */
import * as path from 'node:path';

export interface StrategyErrorLimit {
  maxErrors: number;
  windowMs: number;
}

export const DEFAULT_STRATEGY_ERRORS: StrategyErrorLimit = { maxErrors: 10, windowMs: 60_000 };

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
}

/** The first `at ...` line of a stack, with absolute paths under `baseDir` made relative. */
export function stackTop(stack: string, baseDir: string | undefined): string {
  const line = stack.split('\n').find((l) => l.trimStart().startsWith('at '));
  if (line === undefined) return '';
  if (baseDir === undefined) return line.trim();
  const prefix = baseDir.endsWith(path.sep) ? baseDir : `${baseDir}${path.sep}`;
  return line.trim().split(prefix).join('');
}

/** One strategy error as every command shows it: `[id] where: message (top stack frame)`. */
export function strategyErrorLine(e: { strategyId: string; where: string; message: string; at: string }): string {
  return `[${e.strategyId}] ${e.where}: ${e.message}${e.at === '' ? '' : ` (${e.at})`}`;
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
    return `strategy ${id} could not be created: ${strategyErrorLine({ strategyId: id, where: 'create()', message, at: stackTop(stack, baseDir) })}${mod}`;
  }
}
