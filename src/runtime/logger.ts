/**
 * The runtime's pino logger: JSON lines with every secret redacted wherever it sits (passwords,
 * API secrets, tokens, signatures, cookies, listenKeys), pretty-printed by pino-pretty only when a
 * person is watching (the destination is a terminal). Under systemd or a log shipper the lines
 * stay JSON.
 */
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { REDACT_PATHS } from '../client/logger';
import type { LogLevel } from '../core/log';

/** Fields the runtime adds to the SDK's list: bot-side names for the same secrets. */
const RUNTIME_SECRETS = ['passwd', 'apiKey', 'killToken', 'credentials', 'secretKey'];

export const RUNTIME_REDACT_PATHS: string[] = [...REDACT_PATHS, ...RUNTIME_SECRETS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`])];

export interface LoggerOptions {
  level: LogLevel;
  /** File descriptor to write to: 1 for the daemon, 2 when stdout carries status lines. */
  fd?: 1 | 2;
  /** Force pretty or JSON output; by default pretty only when the fd is a terminal. */
  pretty?: boolean;
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
    redact: { paths: RUNTIME_REDACT_PATHS, censor: '[redacted]' },
    ...(time === undefined ? {} : { timestamp: (): string => `,"time":${time()}` }),
  };
  if (opts.stream) return pino(options, opts.stream);
  const tty = fd === 1 ? process.stdout.isTTY : process.stderr.isTTY;
  if (opts.pretty ?? tty === true) {
    // In-process pretty stream (not a worker transport): lines are written before exit.
    return pino(options, pretty({ destination: fd, colorize: tty === true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return pino(options, pino.destination({ fd, sync: true }));
}
