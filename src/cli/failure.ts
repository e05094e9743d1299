/**
 * How `backtest` and `sweep` end on an error: one line that says what was wrong, and an exit code
 * that means something. Bad input (a config value, a missing or malformed recording, a range with
 * no data) is exit 2 and never a stack trace; anything else is exit 1, with the stack only under
 * --debug.
 */
import { ConfigError } from '../core/config-errors';
import { RecordingFormatError } from '../market-data/reader';
import { ReplayCacheDamaged } from '../backtest/backtest/cache-format';

export function reportFailure(command: string, e: unknown, debug: boolean): number {
  const stack = debug && e instanceof Error && e.stack !== undefined ? `\n${e.stack}` : '';
  if (e instanceof ConfigError) {
    e.locate();
    process.stderr.write(`perpkit ${command}: ${e.message}${stack}\n`);
    return 2;
  }
  if (e instanceof RecordingFormatError) {
    process.stderr.write(`perpkit ${command}: data.files: ${e.message}${stack}\n`);
    return 2;
  }
  if (e instanceof ReplayCacheDamaged) {
    // Not a bug, and what to do is in the message: no stack.
    process.stderr.write(`perpkit ${command}: ${e.message}${stack}\n`);
    return 1;
  }
  const message = e instanceof Error ? e.message.split('\n')[0] : String(e);
  process.stderr.write(`perpkit ${command}: ${message}${stack === '' ? ' (--debug prints the stack)' : stack}\n`);
  return 1;
}
