/**
 * PERPKIT_LOG_LEVEL, the log level of `perpkit exchange` and `perpkit record`: checked before
 * anything starts, so a misspelt level is one line and exit 2, not pino's stack trace.
 */
import { LOG_LEVELS, type LogLevel } from '../core/log';

/** The level from the environment (`info` when unset or empty), or the one-line error. */
export function envLogLevel(env: NodeJS.ProcessEnv = process.env): { level: LogLevel } | { error: string } {
  const v = env.PERPKIT_LOG_LEVEL;
  if (v === undefined || v === '') return { level: 'info' };
  if ((LOG_LEVELS as readonly string[]).includes(v)) return { level: v as LogLevel };
  return { error: `PERPKIT_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (or unset: info), got '${v}'` };
}
