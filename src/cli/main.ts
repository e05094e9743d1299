/**
 * The `perpkit` command. Each subcommand lives in its own module, loaded when it runs: loading
 * them all (the exchange, the bot, the sweep queue's client, ...) took about half a second before
 * any command started, `--version` included.
 */
import { perpkitVersion } from './version';
import * as usage from './usage-texts';

const HELP: Record<string, string | undefined> = {
  init: usage.INIT_USAGE,
  exchange: usage.EXCHANGE_USAGE,
  run: usage.RUN_USAGE,
  demo: usage.DEMO_USAGE,
  record: usage.RECORD_USAGE,
  synth: usage.SYNTH_USAGE,
  import: usage.IMPORT_USAGE,
  download: usage.DOWNLOAD_USAGE,
  data: usage.DATA_USAGE,
  backtest: usage.BACKTEST_USAGE,
  sweep: usage.SWEEP_USAGE,
  worker: usage.WORKER_USAGE,
  report: usage.REPORT_USAGE,
};

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(usage.PERPKIT_USAGE);
    return 0;
  }
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    process.stdout.write(`${perpkitVersion()}\n`);
    return 0;
  }
  // `perpkit <command> --help` alone: the text without loading the command. Any other arguments
  // beside it go to the command, which checks them first (an unknown flag is an error, not help).
  const text = HELP[cmd];
  if (text !== undefined && rest.length === 1 && (rest[0] === '--help' || rest[0] === '-h')) {
    process.stdout.write(text);
    return 0;
  }
  switch (cmd) {
    case 'init': return (await import('./init')).runInit(rest);
    case 'exchange': return (await import('./exchange')).runExchange(rest);
    case 'backtest': return (await import('./backtest')).runBacktestCli(rest);
    case 'sweep': return (await import('./sweep')).runSweepCli(rest);
    case 'worker': return (await import('./worker')).runWorkerCli(rest);
    case 'report': return (await import('./report')).runReportCli(rest);
    case 'run': return (await import('./run')).runBot(rest);
    case 'demo': return (await import('./demo')).runDemo(rest);
    case 'record': return (await import('./record')).runRecord(rest);
    case 'synth': return (await import('./synth')).runSynth(rest);
    case 'import': return (await import('./import')).runImport(rest);
    case 'download': return (await import('./download')).runDownload(rest);
    case 'data': return (await import('./data')).runData(rest);
  }
  process.stderr.write(`perpkit: unknown command '${cmd}' (perpkit --help lists the commands)\n`);
  return 2;
}

/** Runs the CLI as a process: the exit code of `main`, or 1 with the stack of what escaped it (bin/perpkit.js). */
export function runAsProcess(argv: string[]): void {
  void runCommandLine(argv).then((code) => {
    process.exitCode = code;
  });
}

/** One command line as the process runs it: main's exit code, or 1 with the stack of what escaped it on stderr. */
export function runCommandLine(argv: string[]): Promise<number> {
  return main(argv).catch((err: unknown) => {
    process.stderr.write(`perpkit: ${err instanceof Error && err.stack !== undefined ? err.stack : String(err)}\n`);
    return 1;
  });
}

// `node dist/src/cli/main.js <command>` runs it too (it did nothing and exited 0).
if (require.main === module) runAsProcess(process.argv.slice(2));
