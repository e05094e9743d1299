/**
 * How a command refuses its arguments: one line saying what was wrong and where the options are
 * listed, exit 2. The whole usage is for --help, not for a typo.
 */

/**
 * An error's message as one line. node's parseArgs adds, for an unknown option of a command that
 * takes positionals, how to pass a positional starting with '-' after '--': no perpkit argument
 * does, so the hint is dropped.
 */
export function argsMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // A value starting with '-' (`--hours -1`): node says so over three lines, the way out last.
  const ambiguous = /^Option '(--[^']+)' argument is ambiguous\./.exec(m);
  if (ambiguous) return `Option '${ambiguous[1]}' has no value, or a value starting with '-': write ${ambiguous[1]}=<value> for such a value`;
  return m.replace(/\. To specify a positional argument starting with a '-'.*$/s, '').split('\n')[0];
}

/** The line a command refuses its arguments with. */
export const usageLine = (command: string, message: string): string => `perpkit ${command}: ${message} (perpkit ${command.split(' ')[0]} --help lists the options)`;

/** Writes the line and returns the exit code, 2. */
export function usageFailure(command: string, message: string): 2 {
  process.stderr.write(`${usageLine(command, message)}\n`);
  return 2;
}
