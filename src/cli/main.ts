/**
 * The `perpkit` command. Each subcommand lives in its own module; this file only dispatches.
 */
const USAGE = `perpkit <command> [options]

Commands available in this build:
  help        show this text

Planned (see README.md for status): exchange, run, demo, record, synth, backtest, sweep
`;

export async function main(argv: string[]): Promise<number> {
  const [cmd] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  process.stderr.write(`perpkit: command '${cmd}' is not available in this build yet\n\n${USAGE}`);
  return 2;
}
