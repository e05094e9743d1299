/**
 * `perpkit run <config.yaml>`: runs a bot as a daemon until SIGINT or SIGTERM.
 * Exit codes: 0 clean stop, 2 usage or config error (nothing was sent to the venue), 1 runtime
 * failure (could not connect, the stop did not finish in time), 3 a clean stop after a run in
 * which a strategy threw (as `perpkit backtest`).
 */
import { leftText } from './left-on-stop';
import { parseArgs } from 'node:util';
import { BotConfigError, loadBotConfig, resolveCredentials, resolveKillToken, resolveNotifyTargets, type BotConfig } from '../runtime/config';
import { LOG_LEVELS, type LogLevel } from '../core/log';
import { BotDaemon } from '../runtime/daemon';
import { installSignalHandlers } from '../runtime/signals';
import { ErrorCodes, errMessage } from '../core/errors';
import { createRuntimeLogger } from '../runtime/logger';
import { FileStateStore, StateFileError } from '../runtime/state-store';
import { loadStrategySlots } from '../runtime/strategy-loader';
import * as path from 'node:path';
import { SystemClock } from '../core/clock';
import type { StrategySlot } from '../bot/bot';
import { dryCreateStrategies } from '../bot/strategy/create';
import { StrategyCreateError, StrategyVenueConfigError, strategyErrorsText } from '../bot/strategy/errors';
import { symbolPath } from '../bot/strategy/symbol-path';
import { EXPIRED_UNFILLED, venueCodeOf } from '../bot/execution/refusals';
import { EXIT_STRATEGY_ERRORS } from './exit-codes';
import { argsMessage, usageFailure } from './usage';
import { RUN_USAGE } from './usage-texts';

class UsageError extends Error {}

interface RunArgs {
  file: string;
  check: boolean;
  level: LogLevel | undefined;
  /** Start without the kill switch an earlier run saved in the state file. */
  clearKill: boolean;
}

function parseRunArgs(argv: string[]): RunArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { check: { type: 'boolean' }, 'clear-kill': { type: 'boolean' }, 'log-level': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    throw new UsageError(errMessage(e));
  }
  if (parsed.values.help) return 'help';
  if (parsed.positionals.length !== 1) throw new UsageError(`expected exactly one config file, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.join(' ')}`);
  const lv = parsed.values['log-level'];
  if (lv !== undefined && !(LOG_LEVELS as readonly string[]).includes(lv)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got '${lv}'`);
  return { file: parsed.positionals[0], check: parsed.values.check === true, level: lv as LogLevel | undefined, clearKill: parsed.values['clear-kill'] === true };
}

/** What a newcomer most likely has to do about a failed start (the venue's answer is in err). */
export function startHint(err: string, config: BotConfig): string | undefined {
  if (/ENOTFOUND|EAI_AGAIN/.test(err)) return `the host name of venue.baseUrl ${config.venue.baseUrl} does not resolve: check it in ${config.file}`;
  if (/ECONNREFUSED/.test(err)) {
    return `nothing answers at venue.baseUrl ${config.venue.baseUrl}: is the exchange running there (perpkit exchange prints its URL)?`;
  }
  if (/ERR_SSL_WRONG_VERSION_NUMBER|wrong version number/.test(err)) return `venue.baseUrl ${config.venue.baseUrl} is https:// but the server there speaks plain http: use http:// in ${config.file}`;
  if (/not the \{code, message, data, requestId\} envelope/.test(err)) return `something answers at venue.baseUrl ${config.venue.baseUrl}, but not the venue's API: check the URL in ${config.file} (the local exchange prints its own)`;
  if (/\b20005\b/.test(err) && config.venue.auth.kind === 'password') {
    return `the venue refused user '${config.venue.auth.username}': create it first (local exchange: POST /v1/admin/users or users: in its config; docs/getting-started.md) and check ${config.venue.auth.passwordEnv}`;
  }
  if (/EADDRINUSE/.test(err) && config.http !== undefined) {
    return `http.port ${config.http.port} is in use on ${config.http.host} (another perpkit run, or something else, listens there): stop it, or set http.port in ${config.file} to a free port (0 picks one)`;
  }
  if (/\b2000[1-7]\b/.test(err) && config.venue.auth.kind === 'apiKey') {
    return `the venue refused the API key: check ${config.venue.auth.apiKeyEnv} and ${config.venue.auth.secretEnv}, and that the key has TRADE permission`;
  }
  return undefined;
}

/**
 * The venue refused the configured credentials (wrong password or secret, a key without TRADE
 * permission): a config error that no restart fixes (exit 2, which the systemd unit does not
 * restart: restarted, it would only sign in and be refused again every few seconds).
 */
function refusedCredentials(e: unknown): boolean {
  const code = venueCodeOf(e) ?? (e instanceof Error ? venueCodeOf(e.cause) : undefined);
  return code === ErrorCodes.WRONG_CREDENTIALS || code === ErrorCodes.BAD_SIGNATURE || code === ErrorCodes.PERMISSION_DENIED;
}

/** Times the strategies erred while the bot ran: threw, or returned what the bot refuses (as a backtest's `strategyErrors`). */
function strategyErrorCount(daemon: BotDaemon): number {
  return daemon.bot.strategyHealth().reduce((n, h) => n + h.errors, 0);
}

/**
 * What went wrong while the bot ran, in words ("3 strategy errors (mm stopped for them), 106 risk
 * denials"); undefined when nothing did. The exit code of a stop that finished is 0, or 3 when a
 * strategy threw: a person who stops a bot must still hear that it spent the night refused or failing.
 */
export function runTroubles(daemon: BotDaemon): string | undefined {
  const st = daemon.bot.stats;
  const health = daemon.bot.strategyHealth();
  const thrown = strategyErrorCount(daemon);
  const stopped = health.filter((h) => h.stopped !== undefined).map((h) => h.id);
  const parts: string[] = [];
  if (thrown > 0) parts.push(`${thrown} strategy error(s)${stopped.length > 0 ? ` (${stopped.join(', ')} stopped for them)` : ''}`);
  for (const h of health) if (h.halted !== undefined) parts.push(`strategy ${h.id} halted (${h.halted})`);
  if (st.pipelineErrors > 0) parts.push(`${st.pipelineErrors} exception(s) of the bot's own pipeline`);
  // stats.errors counts every error: the strategies' and the pipeline's too.
  const other = st.errors - st.pipelineErrors - thrown;
  if (other > 0) parts.push(`${other} failed venue call(s) or other error(s)`);
  if (st.denials > 0) parts.push(`${st.denials} risk denial(s)`);
  const rejections = st.rejections - st.lateAmends;
  if (rejections > 0) parts.push(`${rejections} venue rejection(s)`);
  if (st.ordersRejected > 0) parts.push(`${st.ordersRejected} order(s) rejected on arrival (makerOnly that would have taken liquidity)`);
  if (st.ordersExpiredUnfilled > 0) parts.push(`${st.ordersExpiredUnfilled} order(s) ${EXPIRED_UNFILLED}`);
  // Counted apart: a quoting strategy meets this race with its own fills as a matter of course.
  if (st.lateAmends > 0) parts.push(`${st.lateAmends} amend(s) that came after their order had ended`);
  // A loss limit (REDUCING) or the kill switch (HALTED) is not left by itself: the person stopping
  // the bot must hear that it stopped trading, and why, as much as that it was refused.
  const risk = daemon.bot.risk;
  if (risk.state !== 'ACTIVE') parts.push(`trading ended ${risk.state} (${risk.reason})`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/**
 * The exit code of a run whose stop resolved with `stopCode` (0: it finished): 3
 * (EXIT_STRATEGY_ERRORS) when it finished but a strategy threw while the bot ran, the rule of
 * `perpkit backtest`, so that a script or a supervisor can tell a clean run from one whose
 * strategy failed; with the line that says why (each strategy that threw, how often, its last
 * error). A stop that failed keeps its code (1): that is the worse news, and so is 1 when the
 * bot's own pipeline threw (a bug of perpkit's, not the strategy's: `perpkit backtest` exits 1 too).
 */
export function runOutcome(daemon: BotDaemon, stopCode: number): { code: number; why: string | undefined } {
  const pipeline = daemon.bot.stats.pipelineErrors;
  if (stopCode === 0 && pipeline > 0) {
    return { code: 1, why: `exit 1: the bot's own pipeline threw ${pipeline} time(s) during the run (last: ${daemon.bot.lastPipelineError ?? 'unknown'}); a bug to report, with the log` };
  }
  const thrown = stopCode === 0 ? strategyErrorCount(daemon) : 0;
  if (thrown === 0) return { code: stopCode, why: undefined };
  const each = daemon.bot
    .strategyHealth()
    .filter((h) => h.errors > 0)
    .map((h) => `${h.id} ${h.errors} time(s)${h.stopped === undefined ? '' : ', stopped for them'}; last: ${h.lastError ?? 'unknown'}`);
  return { code: EXIT_STRATEGY_ERRORS, why: `exit ${EXIT_STRATEGY_ERRORS}: ${strategyErrorsText(thrown)} during the run (${each.join('; ')})` };
}

export async function runBot(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: RunArgs | 'help';
  let config: BotConfig;
  let slots: StrategySlot[];
  try {
    args = parseRunArgs(argv);
    if (args === 'help') {
      process.stdout.write(RUN_USAGE);
      return 0;
    }
    config = loadBotConfig(args.file);
    // Everything that can be checked without the network is checked before anything is sent.
    slots = loadStrategySlots(config);
    resolveCredentials(config, env);
    resolveKillToken(config, env);
    resolveNotifyTargets(config, env);
    // A state file that cannot be read fails the start (exit 2): --check says so too.
    if (config.stateFile !== undefined) await new FileStateStore(config.stateFile).read();
  } catch (e) {
    if (e instanceof UsageError) {
      return usageFailure('run', argsMessage(e));
    }
    if (e instanceof StateFileError) {
      process.stderr.write(`perpkit run: cannot read the state file: ${e.message}\n`);
      return 2;
    }
    if (e instanceof BotConfigError) {
      process.stderr.write(`perpkit run: config error: ${e.locate().message}\n`);
      return 2;
    }
    throw e;
  }
  const configDir = path.dirname(config.file);
  if (args.check) {
    // A state that could not be saved: the run would trade with it unsaved (degraded); a check says so.
    const unsaved = config.stateFile === undefined ? undefined : await new FileStateStore(config.stateFile).unwritable();
    if (unsaved !== undefined) {
      process.stderr.write(`perpkit run: cannot write the state file ${config.stateFile}: ${unsaved}; a run would trade without saving its state (/healthz degraded)\n`);
      return 2;
    }
    // The strategies' create() runs as at start, with no venue: nothing is sent anywhere.
    let needVenue: string[];
    try {
      ({ needVenue } = dryCreateStrategies(slots, new SystemClock(), createRuntimeLogger({ level: 'warn', fd: 2, pretty: false })));
    } catch (e) {
      if (!(e instanceof StrategyCreateError)) throw e;
      process.stderr.write(`perpkit run: ${e.describe(configDir)}\n`);
      return 1;
    }
    const later = needVenue.length === 0 ? '' : `; create() of ${needVenue.join(', ')} reads symbol specs from the venue, so it runs only at start`;
    process.stdout.write(`${config.file}: ok (${config.strategies.length} strateg${config.strategies.length === 1 ? 'y' : 'ies'} created${later})\n`);
    return 0;
  }
  const logger = createRuntimeLogger({ level: args.level ?? config.logging.level, fd: 1, base: { name: 'perpkit-run' } });
  const daemon = new BotDaemon({ config, logger, env, clearKill: args.clearKill });
  let exitWith: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => {
    exitWith = resolve;
  });
  const removeSignals = installSignalHandlers(daemon, logger, (code) => exitWith(code));
  try {
    await daemon.start();
  } catch (e) {
    removeSignals();
    if (e instanceof StateFileError) {
      logger.fatal({ err: e.message }, 'cannot use the state file');
      // Also where a person starting the bot looks (the log is JSON lines on stdout): a corrupt
      // file, or one another bot is using (state-lock.ts).
      process.stderr.write(`perpkit run: cannot use the state file: ${e.message}\n`);
      return 2;
    }
    if (e instanceof StrategyCreateError) {
      logger.fatal({ err: e.describe(configDir), strategy: e.strategyId, module: e.module, where: e.where, stack: e.thrownStack }, 'the bot could not start: a strategy could not be created');
      process.stderr.write(`perpkit run: the bot could not start: ${e.describe(configDir)}\n`);
      return 1;
    }
    if (e instanceof StrategyVenueConfigError) {
      // A config error the venue told (systemd's RestartPreventExitStatus=2: a restart would not fix it).
      logger.fatal({ err: e.message, strategy: e.strategyId }, 'the bot could not start: config error');
      // At the key that names the symbol or the parameter, with its line, as every other config error.
      const located = venueConfigError(e, config.file, slots)?.locate().message;
      process.stderr.write(`perpkit run: config error: ${located ?? `${config.file}: ${e.message}`}\n`);
      return 2;
    }
    const err = errMessage(e);
    const hint = startHint(err, config);
    logger.fatal(hint === undefined ? { err } : { err, hint }, 'the bot could not start');
    // Also where a person starting the bot looks: the log is JSON lines on stdout.
    process.stderr.write(`perpkit run: the bot could not start: ${err}${hint === undefined ? '' : `; ${hint}`}\n`);
    return refusedCredentials(e) ? 2 : 1;
  }
  const code = await exited;
  removeSignals();
  // Besides the log line: a person stopping a bot with Ctrl-C must see a position left open.
  if (daemon.leftAtStop !== undefined) process.stderr.write(`perpkit run: ${leftText(daemon.leftAtStop)}\n`);
  const troubles = runTroubles(daemon);
  if (troubles !== undefined) process.stderr.write(`perpkit run: during the run: ${troubles} (the log has each)\n`);
  if (daemon.stopTimedOut || daemon.state !== 'stopped') {
    // The stop gave up (stopTimeoutMs) or a second signal came: the bot's venue calls may still be
    // under way with their retries, and would keep the process alive for many seconds after
    // saying it stopped. Exit now, as the log said.
    process.stderr.write(`perpkit run: ${daemon.stopTimedOut ? `the stop did not finish in ${daemon.stopWaitedMs} ms` : 'second signal'}; exiting now with orders possibly still open on the venue (check them)\n`);
    process.exit(code === 0 ? 1 : code);
  }
  if (daemon.stopError !== undefined) {
    // Said where the person stopping the bot looks; and whatever the failed stop left open (a
    // stream, a timer) does not keep the process alive: it used to wait for a second signal.
    process.stderr.write(`perpkit run: the stop failed: ${daemon.stopError}\n`);
    process.exit(code === 0 ? 1 : code);
  }
  const outcome = runOutcome(daemon, code);
  if (outcome.why !== undefined) process.stderr.write(`perpkit run: ${outcome.why}\n`);
  return outcome.code;
}

/** A strategy's config refused by the venue's specs, at the config key that says it (undefined when none does). */
function venueConfigError(e: StrategyVenueConfigError, file: string, slots: StrategySlot[]): BotConfigError | undefined {
  if (e.unknownSymbol !== undefined) {
    const at = symbolPath(slots, e.unknownSymbol.symbol);
    return at === undefined ? undefined : new BotConfigError(file, at, `a symbol the venue lists (${e.unknownSymbol.listed}; strategy ${e.strategyId})`, e.unknownSymbol.symbol);
  }
  const p = e.refusedParam;
  const i = slots.findIndex((s) => s.id === e.strategyId);
  if (p === undefined || i < 0) return undefined;
  return new BotConfigError(file, `strategies[${i}].params.${p.param}`, `${p.expected} (the venue's spec; strategy ${e.strategyId})`, p.got);
}
