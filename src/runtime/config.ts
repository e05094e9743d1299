/**
 * The bot's YAML config: schema, validation and secret resolution (docs/running.md is the
 * reference).
 *
 * Validation is hand-written rather than a JSON-schema library: every error must name the file,
 * the path (`strategies[0].params.quantity`), what was expected and what was found, and the auth
 * block is a union that schema validators report as a pile of unrelated failures. Unknown keys are
 * refused everywhere: a typo in a risk limit must not silently switch the limit off.
 *
 * Secrets never live in the file: the config names environment variables (`passwordEnv`,
 * `apiKeyEnv`, `secretEnv`, `killTokenEnv`). Errors name the variable, never its value.
 */
import type { NotifyTarget, NotifyTargetKind } from './notify';
import { ConfigError, describeValue, isRecord, joinPath as join } from '../core/config-errors';
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { readConfigYaml } from '../core/config-text';
import { isDecimalString, plainNumberText } from '../core/decimal';
import { intRange, keysOf, defaultOf } from '../core/config-schema';
import { LOG_LEVELS, type LogLevel } from '../core/log';
import { AUTH_API_KEY, AUTH_PASSWORD, BOT_CONFIG, BOT_SECTIONS, HTTP, NOTIFY, NOTIFY_TARGET, RISK, STRATEGY, STRATEGY_ERRORS, VENUE_STREAM } from './config-schema';
import type { TSchema } from '@sinclair/typebox';
import { readRiskLimits, type RiskLimits } from '../bot/risk/limits';
import { DEFAULT_STRATEGY_ERRORS, type StrategyErrorLimit } from '../bot/strategy/errors';
import { isLoopbackHost, parseDashboardConfig, type DashboardConfig } from './dashboard/config';

export type VenueAuthConfig = { kind: 'password'; username: string; passwordEnv: string } | { kind: 'apiKey'; apiKeyEnv: string; secretEnv: string };

export interface StrategyConfig {
  id: string;
  /** As written in the file: a built-in name (`market-maker`) or a path. */
  module: string;
  params: Record<string, unknown>;
}

/** Heartbeat of the venue's streams (config-schema.ts VENUE_STREAM), ms. */
export interface VenueStreamConfig {
  pingIntervalMs: number;
  pongTimeoutMs: number;
  silenceTimeoutMs: number;
}

export interface BotConfig {
  /** The file the config came from, as given (shown in errors; '' when built in code). */
  file: string;
  venue: { baseUrl: string; auth: VenueAuthConfig; stream: VenueStreamConfig };
  strategies: StrategyConfig[];
  risk: RiskLimits;
  pollPositionsMs: number;
  /** No market data for a strategy's symbol for longer than this: /healthz degraded, a warn line (0: never). */
  marketDataStaleMs: number;
  cancelOnStop: boolean;
  /** Close every position with reduce-only market orders on a graceful stop. */
  flattenOnStop: boolean;
  /** Alerts to webhooks; undefined: none. URLs are read from the environment at start. */
  notify: NotifyConfig | undefined;
  /** A strategy throwing this often is stopped; false: never. */
  strategyErrors: StrategyErrorLimit | false;
  /** Absolute path; undefined: nothing survives a restart except what the venue holds. */
  stateFile: string | undefined;
  /** How often state is saved while running, ms (it is always saved at stop). */
  stateSaveMs: number;
  /** undefined: no health/metrics server. */
  http: { host: string; port: number; killTokenEnv: string | undefined; dashboard?: DashboardConfig | undefined } | undefined;
  /** Start HALTED: reconcile and watch, send nothing but cancels. */
  killSwitch: boolean;
  /** Longest graceful stop before the daemon gives up waiting, ms. */
  stopTimeoutMs: number;
  logging: { level: LogLevel };
}

export interface NotifyConfig {
  targets: Array<{ kind: NotifyTargetKind; urlEnv: string; chatIdEnv: string | undefined }>;
  minIntervalMs: number;
  venueUnreachableMs: number;
  streamDownMs: number;
  dailyLossWarnFraction: number;
}

/** A config file that cannot be used: the message names file, path, expected and got. */
export class BotConfigError extends ConfigError {
  constructor(file: string, at: string, expected: string, got: string) {
    super(file, at, expected, got);
    this.name = 'BotConfigError';
  }
}

export { describeValue };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Walks a parsed document, throwing BotConfigError at the first value that does not fit. */
/** The state file's path; a folder there is refused now (--check too), not at the first read or save. */
function stateFileOf(r: Reader, file: string): string {
  if (existsSync(file) && statSync(file).isDirectory()) throw new BotConfigError(r.file, 'stateFile', 'a file path (relative to the config file)', `${file}: a folder`);
  return file;
}

class Reader {
  constructor(readonly file: string) {}

  fail(at: string, expected: string, got: unknown): never {
    throw new BotConfigError(this.file, at, expected, describeValue(got));
  }

  object(v: unknown, at: string, keys: readonly string[]): Record<string, unknown> {
    if (!isRecord(v)) this.fail(at, `a mapping with keys ${keys.join(', ')}`, v);
    for (const k of Object.keys(v)) {
      if (!keys.includes(k)) throw new BotConfigError(this.file, join(at, k), `one of the known keys ${keys.join(', ')}`, `unknown key '${k}'`);
    }
    return v;
  }

  string(v: unknown, at: string, what = 'a non-empty string'): string {
    if (typeof v !== 'string' || v.length === 0) this.fail(at, what, v);
    return v;
  }

  envName(v: unknown, at: string): string {
    if (typeof v !== 'string' || !ENV_NAME.test(v)) this.fail(at, 'the name of an environment variable (letters, digits, _)', v);
    return v;
  }

  /** A whole number in the schema's bounds, its default when absent. */
  int(v: unknown, at: string, schema: TSchema): number {
    const { min, max, dflt } = intRange(schema);
    const x = v === undefined ? dflt : v;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < min || x > max) this.fail(at, `a whole number from ${min} to ${max}`, v);
    return x;
  }

  bool(v: unknown, at: string, schema: TSchema): boolean {
    const fallback = defaultOf<boolean>(schema);
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(at, 'true or false', v);
    return v;
  }

  /** A positive decimal; YAML numbers are accepted through their text ("20000" and 20000 alike). */
  decimal(v: unknown, at: string): string {
    const s = typeof v === 'number' && Number.isFinite(v) ? plainNumberText(v) : v;
    if (typeof s !== 'string' || !isDecimalString(s) || Number(s) <= 0) this.fail(at, 'a positive decimal such as "20000" or "0.05"', v);
    return s;
  }
}

const S = BOT_SECTIONS;

/**
 * Validates a parsed config document. `file` is used in messages and to resolve relative paths
 * (`stateFile`; strategy modules are resolved by strategy-loader.ts against the same directory).
 */
export function parseBotConfig(doc: unknown, file: string): BotConfig {
  const r: Reader = new Reader(file);
  const top = r.object(doc, '', keysOf(BOT_CONFIG));
  const dir = path.dirname(path.resolve(file));

  const venueRaw = r.object(top.venue, 'venue', keysOf(S.venue));
  const baseUrl = r.string(venueRaw.baseUrl, 'venue.baseUrl', 'an http(s) URL such as http://127.0.0.1:8080');
  if (!/^https?:\/\/[^/\s]+\/?$/.test(baseUrl)) r.fail('venue.baseUrl', 'an http(s) origin without a path, such as http://127.0.0.1:8080', baseUrl);
  const authRaw = venueRaw.auth;
  let auth: VenueAuthConfig;
  if (isRecord(authRaw) && ('apiKeyEnv' in authRaw || 'secretEnv' in authRaw)) {
    const a = r.object(authRaw, 'venue.auth', keysOf(AUTH_API_KEY));
    auth = { kind: 'apiKey', apiKeyEnv: r.envName(a.apiKeyEnv, 'venue.auth.apiKeyEnv'), secretEnv: r.envName(a.secretEnv, 'venue.auth.secretEnv') };
  } else if (isRecord(authRaw) && ('username' in authRaw || 'passwordEnv' in authRaw)) {
    const a = r.object(authRaw, 'venue.auth', keysOf(AUTH_PASSWORD));
    auth = { kind: 'password', username: r.string(a.username, 'venue.auth.username'), passwordEnv: r.envName(a.passwordEnv, 'venue.auth.passwordEnv') };
  } else {
    r.fail('venue.auth', '{ username, passwordEnv } (JWT login) or { apiKeyEnv, secretEnv } (API-key signing)', authRaw);
  }
  const VS = VENUE_STREAM.properties;
  const streamRaw = venueRaw.stream === undefined ? {} : r.object(venueRaw.stream, 'venue.stream', keysOf(VENUE_STREAM));
  const stream: VenueStreamConfig = {
    pingIntervalMs: r.int(streamRaw.pingIntervalMs, 'venue.stream.pingIntervalMs', VS.pingIntervalMs),
    pongTimeoutMs: r.int(streamRaw.pongTimeoutMs, 'venue.stream.pongTimeoutMs', VS.pongTimeoutMs),
    silenceTimeoutMs: r.int(streamRaw.silenceTimeoutMs, 'venue.stream.silenceTimeoutMs', VS.silenceTimeoutMs),
  };

  if (!Array.isArray(top.strategies) || top.strategies.length === 0) r.fail('strategies', 'a non-empty list of { id, module, params }', top.strategies);
  const seen = new Set<string>();
  const strategies = top.strategies.map((s: unknown, i: number): StrategyConfig => {
    const at = join('strategies', i);
    const o = r.object(s, at, keysOf(STRATEGY));
    const id = r.string(o.id, `${at}.id`);
    if (!/^[A-Za-z0-9_]{1,16}$/.test(id)) r.fail(`${at}.id`, '1 to 16 letters, digits or _ (it prefixes every clientOrderId)', id);
    if (seen.has(id)) r.fail(`${at}.id`, 'an id not used by another strategy', id);
    seen.add(id);
    const module = r.string(o.module, `${at}.module`, 'a built-in strategy name such as market-maker, or a path to a strategy module');
    if (o.params !== undefined && !isRecord(o.params)) r.fail(`${at}.params`, 'a mapping of strategy parameters', o.params);
    return { id, module, params: (o.params as Record<string, unknown> | undefined) ?? {} };
  });

  const risk: RiskLimits = top.risk === undefined ? {} : readRiskLimits(r.object(top.risk, 'risk', keysOf(RISK)), r);

  let http: BotConfig['http'];
  if (top.http !== undefined) {
    const o = r.object(top.http, 'http', keysOf(HTTP));
    const host = o.host === undefined ? defaultOf<string>(HTTP.properties.host) : r.string(o.host, 'http.host', 'an address to listen on such as 127.0.0.1');
    const killTokenEnv = o.killTokenEnv === undefined ? undefined : r.envName(o.killTokenEnv, 'http.killTokenEnv');
    // POST /kill halts trading and cancels every order: open to the network only behind a token, as the dashboard is.
    if (killTokenEnv === undefined && !isLoopbackHost(host)) r.fail('http.killTokenEnv', `a token variable, since http.host ${host} is not a loopback address (POST /kill halts trading and cancels every order)`, undefined);
    http = {
      host,
      port: r.int(o.port, 'http.port', HTTP.properties.port),
      killTokenEnv,
      // The dashboard's key is validated in dashboard/config.ts.
      dashboard: parseDashboardConfig(o.dashboard, host, killTokenEnv, file, (f, at, expected, got) => new BotConfigError(f, at, expected, got)),
    };
  }

  let strategyErrors: StrategyErrorLimit | false = DEFAULT_STRATEGY_ERRORS;
  if (top.strategyErrors === false) strategyErrors = false;
  else if (top.strategyErrors !== undefined) {
    const o = r.object(top.strategyErrors, 'strategyErrors', keysOf(STRATEGY_ERRORS));
    strategyErrors = {
      maxErrors: r.int(o.maxErrors, 'strategyErrors.maxErrors', STRATEGY_ERRORS.properties.maxErrors),
      windowMs: r.int(o.windowMs, 'strategyErrors.windowMs', STRATEGY_ERRORS.properties.windowMs),
    };
  }

  let notify: NotifyConfig | undefined;
  if (top.notify !== undefined) {
    const o = r.object(top.notify, 'notify', keysOf(NOTIFY));
    if (!Array.isArray(o.targets) || o.targets.length === 0) r.fail('notify.targets', 'a non-empty list of {kind: webhook|slack|telegram, urlEnv, chatIdEnv?}', o.targets);
    const targets = o.targets.map((t: unknown, i: number) => {
      const at = `notify.targets[${i}]`;
      const x = r.object(t, at, keysOf(NOTIFY_TARGET));
      if (x.kind !== 'webhook' && x.kind !== 'slack' && x.kind !== 'telegram') r.fail(`${at}.kind`, 'webhook, slack or telegram', x.kind);
      if (x.kind === 'telegram' && x.chatIdEnv === undefined) r.fail(`${at}.chatIdEnv`, 'the environment variable holding the Telegram chat id', x.chatIdEnv);
      return { kind: x.kind as NotifyTargetKind, urlEnv: r.envName(x.urlEnv, `${at}.urlEnv`), chatIdEnv: x.chatIdEnv === undefined ? undefined : r.envName(x.chatIdEnv, `${at}.chatIdEnv`) };
    });
    let fraction = defaultOf<number>(NOTIFY.properties.dailyLossWarnFraction);
    if (o.dailyLossWarnFraction !== undefined) {
      if (typeof o.dailyLossWarnFraction !== 'number' || !(o.dailyLossWarnFraction > 0 && o.dailyLossWarnFraction <= 1)) r.fail('notify.dailyLossWarnFraction', 'a number above 0 and at most 1', o.dailyLossWarnFraction);
      fraction = o.dailyLossWarnFraction;
    }
    notify = {
      targets,
      minIntervalMs: r.int(o.minIntervalMs, 'notify.minIntervalMs', NOTIFY.properties.minIntervalMs),
      venueUnreachableMs: r.int(o.venueUnreachableMs, 'notify.venueUnreachableMs', NOTIFY.properties.venueUnreachableMs),
      streamDownMs: r.int(o.streamDownMs, 'notify.streamDownMs', NOTIFY.properties.streamDownMs),
      dailyLossWarnFraction: fraction,
    };
  }

  let level: LogLevel = defaultOf<LogLevel>(S.logging.properties.level);
  if (top.logging !== undefined) {
    const o = r.object(top.logging, 'logging', keysOf(S.logging));
    if (o.level !== undefined) {
      if (typeof o.level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(o.level)) r.fail('logging.level', `one of ${LOG_LEVELS.join(', ')}`, o.level);
      level = o.level as LogLevel;
    }
  }

  return {
    file,
    venue: { baseUrl: baseUrl.replace(/\/$/, ''), auth, stream },
    strategies,
    risk,
    pollPositionsMs: r.int(top.pollPositionsMs, 'pollPositionsMs', S.pollPositionsMs),
    marketDataStaleMs: r.int(top.marketDataStaleMs, 'marketDataStaleMs', S.marketDataStaleMs),
    cancelOnStop: r.bool(top.cancelOnStop, 'cancelOnStop', S.cancelOnStop),
    flattenOnStop: r.bool(top.flattenOnStop, 'flattenOnStop', S.flattenOnStop),
    notify,
    strategyErrors,
    stateFile: top.stateFile === undefined ? undefined : stateFileOf(r, path.resolve(dir, r.string(top.stateFile, 'stateFile', 'a file path (relative to the config file)'))),
    stateSaveMs: r.int(top.stateSaveMs, 'stateSaveMs', S.stateSaveMs),
    http,
    killSwitch: r.bool(top.killSwitch, 'killSwitch', S.killSwitch),
    stopTimeoutMs: r.int(top.stopTimeoutMs, 'stopTimeoutMs', S.stopTimeoutMs),
    logging: { level },
  };
}

/**
 * Reads, parses and validates a config file. Throws BotConfigError. Errors name the file as given
 * (as the user typed it); relative paths inside it resolve against its folder.
 */
export function loadBotConfig(file: string): BotConfig {
  const { value } = readConfigYaml(file, (p) => {
    const e = new BotConfigError(file, '', p.expected, p.got);
    return p.line === undefined ? e : e.placeAt(p.line, p.column);
  });
  return parseBotConfig(value, file);
}

export type VenueCredentials = { kind: 'password'; username: string; password: string } | { kind: 'apiKey'; apiKey: string; secret: string };

/** Reads an environment variable a config names; the error names the variable, never a value. */
function fromEnv(env: NodeJS.ProcessEnv, file: string, at: string, name: string): string {
  const v = env[name];
  if (v === undefined || v === '') throw new BotConfigError(file, at, `environment variable ${name} to be set (it holds a secret, so it is not in the file)`, `${name} unset or empty`);
  return v;
}

/** The venue credentials from the environment. Throws BotConfigError naming a missing variable. */
export function resolveCredentials(config: BotConfig, env: NodeJS.ProcessEnv = process.env): VenueCredentials {
  const a = config.venue.auth;
  if (a.kind === 'password') return { kind: 'password', username: a.username, password: fromEnv(env, config.file, 'venue.auth.passwordEnv', a.passwordEnv) };
  return { kind: 'apiKey', apiKey: fromEnv(env, config.file, 'venue.auth.apiKeyEnv', a.apiKeyEnv), secret: fromEnv(env, config.file, 'venue.auth.secretEnv', a.secretEnv) };
}

/** The alert targets with their URLs (and chat ids) from the environment. */
export function resolveNotifyTargets(config: BotConfig, env: NodeJS.ProcessEnv = process.env): NotifyTarget[] {
  return (config.notify?.targets ?? []).map((t, i) => ({
    kind: t.kind,
    url: fromEnv(env, config.file, `notify.targets[${i}].urlEnv`, t.urlEnv),
    ...(t.chatIdEnv === undefined ? {} : { chatId: fromEnv(env, config.file, `notify.targets[${i}].chatIdEnv`, t.chatIdEnv) }),
  }));
}

/** The dashboard's bearer token, when the config names a variable for it. */
export function resolveDashboardToken(config: BotConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = config.http?.dashboard?.tokenEnv;
  return name === undefined ? undefined : fromEnv(env, config.file, 'http.dashboard.tokenEnv', name);
}

/** The kill endpoint's token, when the config asks for one. */
export function resolveKillToken(config: BotConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = config.http?.killTokenEnv;
  return name === undefined ? undefined : fromEnv(env, config.file, 'http.killTokenEnv', name);
}
