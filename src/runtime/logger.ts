/**
 * The runtime's pino logger: JSON lines with every secret redacted wherever it sits (passwords,
 * API secrets, tokens, signatures, cookies, listenKeys), pretty-printed by pino-pretty only when a
 * person is watching (the destination is a terminal). Under systemd or a log shipper the lines
 * stay JSON.
 */
import pino, { type Logger } from 'pino';
import { REDACT_PATHS, SECRET_FIELDS } from '../client/logger';
import type { LogLevel } from '../core/log';

/** Fields the runtime adds to the SDK's list: bot-side names for the same secrets. */
const RUNTIME_SECRETS = ['passwd', 'apiKey', 'killToken', 'credentials', 'secretKey'];

export const RUNTIME_REDACT_PATHS: string[] = [...REDACT_PATHS, ...RUNTIME_SECRETS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`])];

/**
 * The same names in any case and in snake_case, matched at any depth of a log line's object,
 * errors' own fields included: pino's paths (above) reach two levels and match one spelling, and a
 * strategy's `ctx.log` of a request's headers (`Authorization`, `X-API-KEY`) or of an HTTP error
 * (`err.config.headers.authorization`) wrote them in clear.
 */
const SECRET_KEYS = new Set([...SECRET_FIELDS, ...RUNTIME_SECRETS, 'api_secret', 'api_key', 'secret_key', 'access_token', 'refresh_token', 'listen_key', 'embed_token'].map((k) => k.toLowerCase()));
const CENSOR = '[redacted]';
/** Deeper than this a log object is written as it is (a log line is not a data dump). */
const MAX_DEPTH = 10;

function walkable(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || Array.isArray(v) || v instanceof Error;
}

/** A copy of `v` with every secret-named field censored, or `v` itself when it holds none (nothing is changed in place). */
export function redactSecrets(v: unknown, depth = 0, seen = new Set<object>()): unknown {
  if (typeof v !== 'object' || v === null || depth > MAX_DEPTH || seen.has(v) || !walkable(v)) return v;
  seen.add(v);
  const src = v as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  // An error's message and stack are its own but not enumerable: its copy keeps them.
  const keys = v instanceof Error ? Object.getOwnPropertyNames(v) : Object.keys(v);
  for (const k of keys) {
    const x = src[k];
    const y = SECRET_KEYS.has(k.toLowerCase()) && x !== undefined ? CENSOR : redactSecrets(x, depth + 1, seen);
    if (y === x) continue;
    if (copy === undefined) {
      copy = Array.isArray(v) ? ([...(v as unknown[])] as unknown as Record<string, unknown>) : (Object.create(Object.getPrototypeOf(v) as object | null) as Record<string, unknown>);
      if (!Array.isArray(v)) for (const key of keys) copy[key] = src[key];
    }
    copy[k] = y;
  }
  return copy ?? v;
}

export interface LoggerOptions {
  level: LogLevel;
  /** File descriptor to write to: 1 for the daemon, 2 when stdout carries status lines. */
  fd?: 1 | 2;
  /** Force pretty or JSON output; by default pretty only when the fd is a terminal. */
  pretty?: boolean;
  /** Pretty output with each line's fields on that line, not one per line below it (the demo's: its stdout is lines too). */
  singleLine?: boolean;
  base?: Record<string, unknown>;
  /** Write here instead of the fd (tests capture lines). */
  stream?: NodeJS.WritableStream;
  /**
   * The time (epoch ms) each line carries in `time`: the wall clock's by default (a running bot's
   * lines); a backtest passes its replay clock's, the time of the event being processed.
   */
  time?: () => number;
}

export function createRuntimeLogger(opts: LoggerOptions): Logger {
  const fd = opts.fd ?? 1;
  const time = opts.time;
  const options = {
    level: opts.level,
    base: { pid: process.pid, ...opts.base },
    redact: { paths: RUNTIME_REDACT_PATHS, censor: CENSOR },
    formatters: { log: (o: Record<string, unknown>): Record<string, unknown> => redactSecrets(o) as Record<string, unknown> },
    ...(time === undefined ? {} : { timestamp: (): string => `,"time":${time()}` }),
  };
  if (opts.stream) return pino(options, opts.stream);
  const tty = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  if (opts.pretty ?? tty === true) {
    // Loaded here, not at the top: pino-pretty's load (~45 ms of CPU) was in the start of every
    // process that imports this module (each backtest, the exchange, perpkit run), most of which
    // write JSON lines and never use it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    // In-process pretty stream (not a worker transport): lines are written before exit.
    return pino(options, pretty({ destination: fd, colorize: tty === true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: opts.singleLine === true }));
  }
  return pino(options, pino.destination({ fd, sync: true }));
}
