/**
 * The `perpkit` command. Each subcommand lives in its own module, loaded when it runs: loading
 * them all (the exchange, the bot, the sweep queue's client, ...) took about half a second before
 * any command started, `--version` included.
 */
import { perpkitVersion } from './version';

const USAGE = `perpkit <command> [options]

Commands:
  init        create a project for your own strategies (perpkit init --help)
  exchange    run the local exchange (perpkit exchange --help)
  run         run a trading bot from a YAML config (perpkit run --help)
  demo        local exchange + market maker bot in one process (perpkit demo --help)
  record      record a venue's market (and account) streams to a file (perpkit record --help)
  synth       write a synthetic market recording (perpkit synth --help)
  import      turn raw venue captures into a recording (perpkit import --help)
  download    fetch Binance's public futures archives, verified (perpkit download --help)
  data        inspect a recording: range, counts, gaps, latency, book checks (perpkit data --help)
  backtest    replay a recording through strategies and the engine (perpkit backtest --help)
  sweep       run a backtest over a grid or random search of parameters (perpkit sweep --help)
  worker      run sweep jobs from a Redis queue, on any machine (perpkit worker --help)
  report      compare two backtest runs side by side (perpkit report --help)
  help        show this text
  --version   print perpkit's version (also -v)

Every command takes --help for its options and examples.

Examples:
  npx perpkit init my-bot                            # a project: strategy, test, configs
  perpkit demo --duration 30                         # what npm start runs
  perpkit exchange --market synthetic --admin-token dev
  PERPKIT_PASSWORD=change-me perpkit run config/bot-market-maker.yaml
  perpkit synth --out data/btc-2h.jsonl.gz --hours 2 --seed 7
  perpkit backtest config/backtest-market-maker.yaml
  perpkit sweep config/backtest-market-maker-sweep.yaml --workers 2
  perpkit worker --queue redis://127.0.0.1:6379      # then: perpkit sweep <cfg> --queue redis://127.0.0.1:6379
  perpkit report compare backtest-out/a backtest-out/b

config/ and data/sample/ are in the perpkit repository, not in the npm package (its docs/ is);
perpkit init writes a project with its own config/bot.yaml and config/backtest.yaml.
Getting started: docs/getting-started.md
`;

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    process.stdout.write(`${perpkitVersion()}\n`);
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
