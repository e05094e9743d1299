/**
 * The `perpkit` command. Each subcommand lives in its own module; this file only dispatches.
 */
import { runDemo } from './demo';
import { runExchange } from './exchange';
import { runBot } from './run';

const USAGE = `perpkit <command> [options]

Commands available in this build:
  exchange    run the local exchange (perpkit exchange --help)
  run         run a trading bot from a YAML config (perpkit run --help)
  demo        local exchange + market maker bot in one process (perpkit demo --help)
  help        show this text

Planned (see README.md for status): record, synth, backtest, sweep
`;

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (cmd === 'exchange') return runExchange(rest);
  if (cmd === 'run') return runBot(rest);
  if (cmd === 'demo') return runDemo(rest);
  process.stderr.write(`perpkit: command '${cmd}' is not available in this build yet\n\n${USAGE}`);
  return 2;
}
