/**
 * The usage text of every command, for --help: here, apart from the commands, so that `perpkit
 * <command> --help` prints it without loading the command (the bot runtime, the sweep queue's
 * client, ... took up to a second). Nothing heavy may be imported here.
 */
import { ARCHIVE_KINDS, DEFAULT_BASE_URL } from '../market-data/download/archive-kinds';
import { LOG_LEVELS } from '../core/log';
import { SYNTH_EPOCH } from '../market-data/synth';

export const PERPKIT_USAGE = `perpkit <command> [options]

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

export const INIT_USAGE = `perpkit init <folder> [options]

Creates a project for your own strategies in <folder> (which must not exist or be empty):
package.json depending on perpkit, tsconfig.json, a TypeScript strategy (src/strategy.ts), its
test written with perpkit/testing (node:test), a bot config, a backtest config whose data is made
by perpkit synth, and a README. TypeScript runs directly: no build step.

Options:
  --name <name>        the package name (default: the folder's name)
  --perpkit <spec>     the perpkit dependency: a version range (default ^<this version>), or the
                       path of a perpkit tarball or checkout (written as file:<relative path>)
  -h, --help           show this text

Exit codes: 0 written; 2 bad arguments or a folder that is not empty (nothing written).

Examples:
  npx perpkit init my-bot && cd my-bot && npm install && npm test && npm run backtest
  perpkit init my-bot --perpkit ./perpkit-0.1.0.tgz
`;

export const EXCHANGE_USAGE = `perpkit exchange [options]

Runs the local perpetual-futures exchange (HTTP + WebSocket) until SIGINT or SIGTERM.
Prints one line to stdout once it accepts requests: listening on http://<host>:<port>
Logs go to stderr (level from PERPKIT_LOG_LEVEL, default info).

Options:
  --host <addr>          address to listen on (default 127.0.0.1)
  --port <n>             port; 0 picks a free one (default 8080)
  --admin-token <t>      enables the admin API under /v1/admin/ (header X-ADMIN-TOKEN)
  --config <file>        YAML config merged over the defaults; every key and its default:
                         docs/local-exchange.md "Configuration" (in the repository also
                         config/exchange.yaml, the defaults as a file)
  --market <mode>        off | synthetic | replay:<file> (default off); replay plays a
                         recording (docs/recording.md) through the tape fill model
  --replay-speed <x>     replay pace: 1 = as recorded, 10 = ten times faster, max = as fast
                         as possible (default 1)
  --fill-book <b>        replay fill model: top (default: trades and the best bid/ask) or l2
                         (the recorded L2 book with queue positions, as a backtest's fill.book)
  --queue <model>        with --fill-book l2: none | risk-averse (default) | probabilistic
  --data-dir <dir>       keep a journal and snapshots there; state survives restarts
  --seed <n>             seed of the synthetic market (default 1)
  --fsync                fdatasync the journal before answering (survives power loss)
  -h, --help             show this text

Command-line options override the config file.

Exit codes: 0 stopped by SIGINT/SIGTERM after a clean stop; 1 it could not listen, the stop
failed, a second signal, or a data directory whose marker is damaged; 2 bad options or config
(a missing replay recording, a data directory that cannot be one).

Examples:
  perpkit exchange --port 0 --admin-token secret
  perpkit exchange --market synthetic --seed 7 --data-dir ./exchange-data
  perpkit exchange --config my-exchange.yaml --fsync
  perpkit exchange --market replay:data/sample/btcusdt-2h.jsonl.gz --replay-speed 10

data/sample/ and config/ are in the perpkit repository, not in the npm package (its docs/ is);
perpkit synth --out <file> writes a recording to replay.
`;

export const RUN_USAGE = `perpkit run <config.yaml> [options]

Runs a trading bot from a YAML config until SIGINT or SIGTERM (graceful stop: strategies stop,
their orders are cancelled when cancelOnStop is true, state is saved). SIGUSR2 engages the kill
switch (HALTED, every order cancelled). Logs are JSON lines on stdout (pretty on a terminal).
Secrets come from the environment variables the config names, never from the file.

Options:
  --check              validate the config (and that its env vars are set), construct the
                       strategies (their create(), with no venue), then exit
  --clear-kill         start without the kill switch an earlier run pulled: it is kept in the
                       state file, and a restart starts HALTED until started with this
  --log-level <level>  override logging.level (${LOG_LEVELS.join(', ')})
  -h, --help           show this text

Examples:
  PERPKIT_PASSWORD=... perpkit run config/bot-market-maker.yaml
  perpkit run config/bot-market-maker.yaml --check
  curl -s localhost:9464/healthz; curl -s localhost:9464/metrics; curl -X POST localhost:9464/kill

Exit codes: 0 clean stop, 1 runtime failure (a strategy's create() threw, here or at --check),
2 usage or config error, 3 clean stop after a run in which a strategy threw.
Reference: docs/running.md (every config key). config/bot-market-maker.yaml is in the perpkit
repository, not in the npm package; perpkit init writes a project's config/bot.yaml.
`;

export const DEMO_USAGE = `perpkit demo [options]

Starts the local exchange in this process with a synthetic BTCUSDT market (simulated makers and
takers), and a bot running the example market maker against it over HTTP and WebSocket. Prints a
status line every few seconds (fills, position, PnL, open orders, trading state) and serves the
bot's dashboard on 127.0.0.1 (its URL is printed). Ctrl+C stops it.

Options:
  --duration <s>       stop by itself after this many seconds (default: run until Ctrl+C)
  --seed <n>           seed of the synthetic market (default 1)
  --every <s>          seconds between status lines, 1 to 5 (default 2)
  --port <n>           port of the bot's dashboard, metrics and status (default: a free port)
  --log-level <level>  log level of the stderr logs (default warn)
  -h, --help           show this text

Exit codes: 0 stopped cleanly (by --duration or Ctrl+C); 1 the exchange or the bot failed;
2 bad options; 3 stopped cleanly, but the strategy threw while it ran.

Examples:
  npm start
  perpkit demo --duration 30 --seed 7
`;

export const RECORD_USAGE = `perpkit record --config <file> --out <file> [options]

Records a venue's public streams (trade, markPrice, depth, ticker) for the configured symbols
and, when the config has credentials, the private stream and polled positions, into a gzip JSON
lines recording (docs/recording.md). Reconnects are survived and written as 'gap' lines.
Stops on SIGINT or SIGTERM, closing the file cleanly.

Options:
  --config <file>        YAML recorder config (see below; required)
  --out <file>           first file of the recording, e.g. data/rec.jsonl.gz (required)
  --rotate-mb <n>        start a new part every n MB on disk (default: no size rotation)
  --rotate-hours <h>     start a new part every h hours (default: no time rotation)
  --overwrite            replace a file already at --out (refused without it)
  -h, --help             show this text

Config:
  venue:
    baseUrl: http://127.0.0.1:8080
    auth:                            # optional: records the private stream and positions
      apiKeyEnv: PERPKIT_API_KEY     # names of environment variables, never the secrets
      secretEnv: PERPKIT_API_SECRET  # (or username: alice + passwordEnv: PERPKIT_PASSWORD)
  symbols: [BTCUSDT, ETHUSDT]
  kinds: [trade, markPrice, depth, ticker]   # optional, default all
  pollPositionsMs: 5000                      # optional

Exit codes: 0 stopped by SIGINT/SIGTERM, the file closed; 1 the venue could not be reached at
start, or the file could not be written (what reached it is kept); 2 bad options or config.

Examples:
  perpkit record --config config/record.yaml --out data/btc.jsonl.gz
  PERPKIT_API_KEY=... PERPKIT_API_SECRET=... perpkit record --config rec.yaml --out rec.jsonl.gz --rotate-hours 24
`;

export const SYNTH_USAGE = `perpkit synth --out <file> [options]

Writes a synthetic market recording (gzip JSON lines, docs/recording.md): marks every second,
Poisson trades, depth snapshots and funding every 8 h, from the same price process as
'perpkit exchange --market synthetic'. The same options give the same bytes.

Options:
  --out <file>           output file (part 0), e.g. data/btc-24h.jsonl.gz (required; its folder is created)
  --symbols <list>       comma-separated symbols (default BTCUSDT)
  --hours <h>            length of the recording in hours, decimals allowed (default 24)
  --seed <n>             seed (default 1)
  --start <time>         start time as epoch ms or ISO 8601 (default ${new Date(SYNTH_EPOCH).toISOString()})
  --trade-rate <n>       expected trades per second per symbol (default 2)
  --depth-every <ms>     interval of depth snapshots in ms (default 1000)
  --rotate-mb <n>        start a new file every n MB (default: one file)
  -h, --help             show this text

Exit codes: 0 written; 1 writing failed; 2 bad options; 130 stopped by Ctrl+C (143 by SIGTERM),
the partial recording removed.

Examples:
  perpkit synth --out data/btc-24h.jsonl.gz --symbols BTCUSDT --hours 24 --seed 7
  perpkit synth --out /tmp/two.jsonl.gz --symbols BTCUSDT,ETHUSDT --hours 2 --start 2025-06-01T00:00:00Z
`;

export const IMPORT_USAGE = `perpkit import binance-futures <files...> --out <rec.jsonl.gz> [options]
perpkit import tardis <files...> --out <rec.jsonl.gz> [options]

Imports raw Binance USD-M futures captures into a recording (format v2, docs/recording.md):
combined-stream lines '<receive time ns> <{"stream":...,"data":{...}}>' or plain JSON lines,
gzip or not, with REST depth snapshots ({"lastUpdateId":...}) among them, several files merged
in receive-time order (e.g. one capture per symbol); or Binance's public
CSV archives (trades, aggTrades, bookTicker, markPriceKlines, fundingRate; zipped or not), merged
in time order (a capture and CSV archives cannot be mixed). depthUpdate diffs are
applied to the snapshots by Binance's procedure (a break in the pu chain becomes a gap); bookTicker,
trade, aggTrade and markPriceUpdate become quote, trade and mark events. Without a mark price
stream, marks are derived (the mid price each second) and the header says so.

'tardis' imports Tardis.dev CSV files (gzip or not): incremental_book_L2 (snapshot and book
events, one per message), book_snapshot_5/_25 (snapshot and quote), trades, quotes and
derivative_ticker (mark events, and funding where funding_timestamp moves forward), merged in
receive-time order (local_timestamp). Without derivative_ticker, marks are derived as above.

Options:
  --out <file>       the recording to write (required), e.g. data/btcusdt.jsonl.gz; never an
                     input file, nor beside rotated parts of an earlier recording
  --overwrite        replace a file already at --out (refused without it)
  --symbol <name>    import only this symbol (e.g. BTCUSDT, any case); others are counted as skipped
  --from <time>      first receive time to import, epoch ms or ISO 8601 (default: the start)
  --to <time>        receive time to stop at, exclusive (default: the end)
  --tick <size>      price grid of the symbol (default: inferred from the data)
  --step <size>      quantity grid of the symbol (default: inferred from the data)
  --bare-depth <kind>  binance-futures: what depthUpdate messages without a stream envelope are,
                     diff (<symbol>@depth) or partial (@depth5/10/20, each a snapshot of the top
                     levels); default diff, and an import whose bare depth reads as partial stops
                     and asks
  -h, --help         show this text

Exit codes: 0 imported (anything skipped is counted in the summary); 1 the import failed; 2 bad
input (nothing written); 130 stopped by Ctrl+C (143 by SIGTERM), nothing written.

Examples:
  perpkit import binance-futures ../shared/data/binance-usdm/btcusdt_20240808.gz --out data/btcusdt-20240808.jsonl.gz
  perpkit import binance-futures BTCUSDT-aggTrades-2024-08-01.zip BTCUSDT-bookTicker-2024-08-01.zip --out data/btc-0801.jsonl.gz
  perpkit import tardis binance-futures_incremental_book_L2_2024-08-01_BTCUSDT.csv.gz binance-futures_trades_2024-08-01_BTCUSDT.csv.gz binance-futures_derivative_ticker_2024-08-01_BTCUSDT.csv.gz --out data/btc-tardis-0801.jsonl.gz
`;

export const DOWNLOAD_USAGE = `perpkit download binance-futures --symbol <S> --from <YYYY-MM-DD> --to <YYYY-MM-DD> [options]

Fetches Binance's public USD-M futures archives (data.binance.vision) of one symbol for the days
from --from to --to (inclusive, UTC), checks each against its published sha256 CHECKSUM, and
keeps them in the archive's layout under --out, so that 'perpkit import binance-futures' reads
their kinds from their paths. Files already there and verified are not fetched again; an
interrupted download continues where it stopped (HTTP Range).

Options:
  --symbol <name>     e.g. BTCUSDT (required)
  --from <day>        first day, YYYY-MM-DD (required)
  --to <day>          last day, inclusive (required)
  --kinds <list>      comma-separated, default aggTrades,bookTicker,markPriceKlines,fundingRate;
                      known: ${ARCHIVE_KINDS.join(', ')}
                      (fundingRate is published per month)
  --interval <i>      bar interval of klines and markPriceKlines (default 1m)
  --out <dir>         where to keep them (default data/binance)
  --base-url <url>    the archive (default ${DEFAULT_BASE_URL}; a mirror with the same layout)
  --quiet             no progress lines
  -h, --help          show this text

Exit codes: 0 every file verified, 1 some file missing or failed (listed), 2 bad input.

Example:
  perpkit download binance-futures --symbol BTCUSDT --from 2024-08-01 --to 2024-08-07 --kinds aggTrades,bookTicker
`;

export const DATA_USAGE = `perpkit data inspect <recording...> [--json]
perpkit data repair <recording> --out <file>

Reads a recording (format v1 or v2; several files are read in order, and a rotated recording's
parts beside its first file, x.1.jsonl.gz, ..., after it) and
prints its time range, symbols, events per kind, gaps, feed latency percentiles (receive time
minus exchange time), crossed or locked books, and how the L2 book rebuilt from snapshot + book
events agrees with the quote events: exactly where their update ids coincide (should be 100 %),
and in receive order (the staleness of the sparser depth stream). A replay cache
(<recording>.perpkit-cache, built by a backtest) is not a recording: give its recording.

'repair' reads a recording file cut short by a crash of its writer (a recorder killed, a power
loss: a gzip stream with no end, or a last line written in part) and writes everything before the
tear to a new file, header as it was; the torn file is left as it is. A file damaged anywhere but
at its end, or whose gzip data is damaged (changed, not cut short), is refused (that is not a
crash), so is one torn inside its header (nothing to keep); a file that reads whole is not copied.

Options:
  --json        inspect: print the figures as one JSON document
  --out <file>  repair: the recording to write (required; gzip when named .gz), e.g.
                data/btc-repaired.jsonl.gz; never the torn file itself (nor a link to it)
  --overwrite   repair: replace a file already at --out (refused without it)
  -h, --help    show this text

Exit codes: 0 done (repair: also when the file was whole, nothing written); 1 reading or writing
failed; 2 bad input (a missing file, a folder, not a recording, damaged before its end, damaged
gzip data, a header torn, an --out already there without --overwrite).

Examples:
  perpkit data inspect data/btcusdt-20240808.jsonl.gz
  perpkit data repair data/btc-live.jsonl.gz --out data/btc-live-repaired.jsonl.gz
`;

export const BACKTEST_USAGE = `perpkit backtest <config.yaml> [options]

Replays the config's recording through its strategies, the risk engine and the exchange engine on
a virtual clock, and writes report.json, report.html and run.json (docs/backtesting.md).

Options:
  --out <dir>                output directory (default: report.out of the config, else backtest-out beside the config file);
                             an earlier backtest's report.json, report.html and run.json there are replaced (the
                             summary says so), a folder holding anything else is refused (exit 2)
  --overwrite                write into an output directory holding other things too (only the backtest's
                             three files are replaced; nothing else is removed)
  --no-cache                 read the JSON lines, do not build or use the binary replay cache
  --full-tape                re-enact every recorded trade through the engine (slower; same fills)
  --allow-strategy-errors    exit 0 even when a strategy threw (the report still says so)
  --strategy-logs            print the strategies' ctx.log lines and the bot's (denials, rejections,
                             errors) on stderr, as pino JSON, each at the replay's time
  --debug                    print the stack of an error (errors are one line without it)
  --quiet                    no progress bar and no stderr notices (the summary keeps its note: lines)
  -h, --help                 show this text

Exit codes: 0 done; 1 the backtest itself failed (also when the bot's own pipeline threw: the
summary's "bot errors" line); 2 bad input (config, data, an output directory holding what is not
a backtest's output, without --overwrite); 3 a strategy threw or returned a
malformed intent (see the summary's "strategy errors" line and report.html), unless
--allow-strategy-errors, or its create() threw (the backtest cannot run).

Example:
  perpkit backtest config/backtest-market-maker.yaml --out /tmp/mm

Every config key: docs/backtesting.md. config/backtest-market-maker.yaml is in the perpkit
repository, not in the npm package; perpkit init writes a project's config/backtest.yaml.
`;

export const SWEEP_USAGE = `perpkit sweep <config.yaml> [options]

Runs the backtest of the config for every point of its sweep block (grid, seeded random search or
successive halving) on worker threads, or on a Redis queue served by perpkit worker processes, and
writes sweep.json, sweep.csv, sweep.md and sweep.html, ranked by sweep.objective or sweep.metric
(docs/backtesting.md).

Options:
  --workers <n>    worker threads, up to 256 (default: sweep.workers, else the number of CPUs); 0 runs
                   in-process
  --queue <url>    run the jobs on the BullMQ queue at this Redis (redis://host:port) instead of local
                   threads; start workers with perpkit worker --queue <url>. Rerunning the same
                   command after a stop picks up the same sweep: the jobs finished in results.jsonl
                   or on the queue are not run again (a failed one stays failed without --resume)
  --grace-ms <n>   with --queue: how long Redis may be unreachable before the sweep stops with
                   exit 1, its finished results kept (default 15000)
  --out <dir>      output directory (default: <report.out>-sweep)
  --resume         keep the finished rows of an earlier run of the same sweep (results.jsonl in the
                   output directory) and run only the other points, the failed ones again
  --overwrite      start afresh in an output directory whose results.jsonl holds rows of an earlier
                   sweep (refused without it or --resume: exit 2, nothing dropped; a halving sweep
                   does not resume: --overwrite or another --out)
  --quiet          no per-job lines (nor the progress line every 10 s without one)
  --debug          print the stack of an error (errors are one line without it)
  -h, --help       show this text

With sweep.walkForward it also writes walkforward.json and walkforward.md (the best training point
of each window on the next test window, the stitched out-of-sample return beside the in-sample
optimum's); with sweep.halving, halving.json (each round's data slice, points and survivors).
A point that never traded (0 fills) ranks after every point that traded; its row and the summary
line say so. A point that repeats another (a list value given twice, values the strategy reads
alike) runs again: a note: line under the summary says so.

Every finished job is appended to <out>/results.jsonl as it finishes, so a sweep that dies keeps
its results. A job whose worker crashes, that runs past sweep.jobTimeoutMs, or whose strategy
threw is a row with its error. Ctrl+C (or SIGTERM) stops the sweep: the running jobs end (on a
queue they stay there), the finished results stay in results.jsonl, no table is written, and one
line says how to go on (--resume; with --queue the same command).

Exit codes: 0 every job finished; 1 a job failed (its row says why), no point could be ranked
(every one under sweep.minTrades, or without the metric: the table has no best point) or the sweep
failed; 2 bad input (config, data, a parameter the strategy does not read); 130 stopped by Ctrl+C
(143 by SIGTERM).

Examples:
  perpkit sweep config/backtest-market-maker-sweep.yaml --workers 2 --out /tmp/mm-sweep
  perpkit sweep config/backtest-market-maker-sweep.yaml --queue redis://127.0.0.1:6379

Every config key: docs/backtesting.md (the sweep block: "Sweeps"). The example config is in the
perpkit repository, not in the npm package.
`;

export const WORKER_USAGE = `perpkit worker --queue redis://host:port [options]

Runs the jobs of sweeps submitted with perpkit sweep --queue, on worker threads, until stopped.
Every job names its config and data files by path and sha256; this worker refuses a job whose
files here have other bytes (the job fails with the reason). A strategy module is loaded once per
thread and kept: restart the worker after changing a strategy (a job submitted with other
strategy code than this worker loaded fails, saying so).

Options:
  --queue <url>        the Redis of the queue (redis://[user:password@]host:port[/db])
  --concurrency <n>    jobs at a time, each on its own thread, 1 to 256 (default: the number of CPUs)
  --lock-ms <n>        job lock lifetime and stalled-job check period (default 30000): a job of a
                       worker that died is run again elsewhere within about twice this
  --grace-ms <n>       how long Redis may be unreachable before the worker exits 1 (default 15000)
  --quiet              no per-job lines
  --debug              print the stack of an error
  -h, --help           show this text

A job this worker takes up after the worker that had it stopped (killed, or lost its lock) is
logged at warn on stderr (level from PERPKIT_LOG_LEVEL, default info).

Exit codes: 0 stopped by SIGINT/SIGTERM once the running jobs finished; 1 Redis unreachable or
gone; 2 bad options; 130 (143) a second SIGINT (SIGTERM) stopped it at once, the jobs cut short
going back to the queue.

Example:
  perpkit worker --queue redis://10.0.0.5:6379 --concurrency 4
`;

export const REPORT_USAGE = `perpkit report compare <a> <b> [options]

Compares two backtest runs: <a> and <b> are output directories of perpkit backtest (or their
report.json files). Prints the headline figures of both with the difference (b - a) and what
differs in what produced them (parameters, data, models, config hash), and writes an HTML page
with both equity curves (docs/backtesting.md).

Options:
  --out <file>   the HTML file (default: ./compare.html); a comparison written before is
                 replaced, any other existing file is refused
  -h, --help     show this text

Exit codes: 0 done; 2 bad input (a missing or unreadable report.json, an older report format).

Example:
  perpkit report compare backtest-out/mm-a backtest-out/mm-b --out /tmp/mm-compare.html
`;
