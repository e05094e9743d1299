/**
 * Loggers of a part of perpkit: every line says which part wrote it in one `component` field.
 *
 * pino writes a child's bindings after its parent's and removes none (its "duplicate keys caveat"),
 * so a component logger made from another component logger printed `component` twice, e.g.
 * `"component":"exchange-http","component":"ws-gateway"`; JSON.parse keeps the last, but some log
 * stores refuse a line with a repeated key. A process's own logger therefore carries `name`, and a
 * component logger is made from the logger its parent's component was added to.
 */
import type { ChildLoggerOptions, Logger } from 'pino';

/** The levels a perpkit process logs at (pino's, and `silent`): configs, --log-level and PERPKIT_LOG_LEVEL. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Component loggers made here, each to the logger it was made from (which carries no component). */
const BASES = new WeakMap<Logger, Logger>();

/**
 * A child logger whose lines carry `component: name`, once. Made from `parent`, or, when `parent`
 * is itself a component logger made here, from the logger that one was made from (its component is
 * replaced, not repeated; bindings added to `parent` after its component are not carried over).
 */
export function componentLogger(parent: Logger, name: string, options?: ChildLoggerOptions): Logger {
  const base = BASES.get(parent) ?? parent;
  const child = base.child({ component: name }, options);
  BASES.set(child, base);
  return child;
}
