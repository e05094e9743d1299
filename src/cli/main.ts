/**
 * The `perpkit` command. Each subcommand lives in its own module; this file only dispatches.
 */
import { runExchange } from './exchange';

const USAGE = `perpkit <command> [options]

Commands available in this build:
  exchange    run the local exchange (perpkit exchange --help)
  help        show this text

Planned (see README.md for status): run, demo, record, synth, backtest, sweep
`;

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (cmd === 'exchange') return runExchange(rest);
  process.stderr.write(`perpkit: command '${cmd}' is not available in this build yet\n\n${USAGE}`);
  return 2;
}
